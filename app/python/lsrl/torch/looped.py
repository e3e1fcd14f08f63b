"""PyTorch twin of the C++ looped transformer with timestep encoding (seed model "looped").

It mirrors core/seed_models/looped.h (described in docs/models.md, "Looped transformer"): one
pre-norm transformer block whose weights are shared across r loops, each loop t = 0 … r−1
scaled per channel by four vectors α_1(t), α_2(t), γ_1(t), γ_2(t):

    X^(0) = E (the input rows) or 0 ("x0": "zero")
    Y     = X^(t) + E with "inject": "add_input", else X^(t)
    X'    = Y  + γ_1 ⊙ MHA(RMSN(Y,  α_1))        RMSN(x, α) = α ⊙ x / sqrt(mean(x²) + eps)
    X^(t+1) = X' + γ_2 ⊙ MLP(RMSN(X', α_2))      MLP(z) = fc2(act(fc1 z))
    output = readout(X^(r))                      (readout(E) when r = 0)

In "tmlt" mode the scales come from the loop index alone: a sinusoid PE(t) of width d_f
("cos_sin": all cosines then all sines; "sin_cos_interleaved": (sin, cos) pairs), then
TE(t) = fc2(SiLU(fc1 PE(t))) and m(t) = modulation(SiLU(TE(t))), split in four chunks of d
as [γ_1 | γ_2 | s_1 | s_2] with α = 1 + s. In "plain" mode α = γ = 1 and there are no
timestep weights. norm "none" keeps the α factor but drops the RMS division. Attention is
softmax(λ · q·k / √s) over keys (the √s only with "scale_rsqrt_s", key j > query n masked
when "causal"), or hardmax (even split among the maximal keys; its probabilities carry no
gradient). "baseline_compat" takes the values from the un-normalised Y and drops the norm
(and α_2) in front of the MLP.

The state_dict names and shapes are the C++ weight tensors' (attn.q.weight, mlp.fc1.bias,
timestep.fc1.weight, modulation.weight, readout.bias, …), so C++ weights load directly.
"""

import math

import torch
from torch import nn
from torch.nn import functional as F

_CHOICES = {
    "timestep": ("tmlt", "plain"),
    "pe_layout": ("cos_sin", "sin_cos_interleaved"),
    "scoring": ("softmax", "hardmax"),
    "norm": ("rms", "none"),
    "activation": ("gelu", "relu"),
    "inject": ("none", "add_input"),
    "x0": ("input", "zero"),
    "modulation_init": ("random", "zero"),
}


def _positive_int(config, key, default, minimum=1):
    value = config.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ValueError(f'looped: "{key}" must be an integer >= {minimum}, got {value!r}')
    return value


def sinusoidal_code(t, d_freq, layout, dtype=torch.float64):
    """PE(t) for the loop indices `t` (a 1-D tensor or list): [len(t)][d_freq]."""
    t = torch.as_tensor(t, dtype=torch.float64).reshape(-1, 1)
    half = d_freq // 2
    i = torch.arange(half, dtype=torch.float64)
    # Same operation order as the C++: exp(-log(10000) * i / half).
    omega = torch.exp(-math.log(10000.0) * i / half)
    angle = t * omega
    pe = torch.zeros(t.shape[0], d_freq, dtype=torch.float64)
    if layout == "cos_sin":
        pe[:, :half] = torch.cos(angle)
        pe[:, half : 2 * half] = torch.sin(angle)
    else:
        pe[:, 0 : 2 * half : 2] = torch.sin(angle)
        pe[:, 1 : 2 * half : 2] = torch.cos(angle)
    return pe.to(dtype)  # odd d_f: the last column stays 0


class _Attention(nn.Module):
    def __init__(self, d, inner, bias):
        super().__init__()
        self.q = nn.Linear(d, inner, bias=bias)
        self.k = nn.Linear(d, inner, bias=bias)
        self.v = nn.Linear(d, inner, bias=bias)
        self.o = nn.Linear(inner, d, bias=bias)


class _MLP(nn.Module):
    def __init__(self, d, d_ff, bias):
        super().__init__()
        self.fc1 = nn.Linear(d, d_ff, bias=bias)
        self.fc2 = nn.Linear(d_ff, d, bias=bias)


class _Timestep(nn.Module):
    def __init__(self, d, d_freq):
        super().__init__()
        self.fc1 = nn.Linear(d_freq, d)  # W_4, b_4
        self.fc2 = nn.Linear(d, d)  # W_3, b_3


class Looped(nn.Module):
    """The looped transformer; forward(x [B, N, d]) -> [B, N, d_out]."""

    def __init__(self, config: dict):
        super().__init__()
        config = dict(config)
        for key, allowed in _CHOICES.items():
            value = config.get(key, allowed[0])
            if value not in allowed:
                raise ValueError(
                    f'looped: "{key}" must be one of {", ".join(allowed)}, got {value!r}'
                )
            config[key] = value
        self.config = config
        self.d = _positive_int(config, "d", 32)
        self.heads = _positive_int(config, "heads", 4)
        if "head_dim" in config:
            self.head_dim = _positive_int(config, "head_dim", 8)
        elif self.d % self.heads == 0:
            self.head_dim = self.d // self.heads
        else:
            raise ValueError(f"looped: heads = {self.heads} do not divide d = {self.d}")
        self.d_ff = _positive_int(config, "d_ff", 128)
        self.d_freq = _positive_int(config, "d_freq", 32)
        self.loops = _positive_int(config, "loops", 8, minimum=0)
        self.d_out = _positive_int(config, "d_out", 32)
        self.tmlt = config["timestep"] == "tmlt"
        self.pe_layout = config["pe_layout"]
        self.hardmax = config["scoring"] == "hardmax"
        self.softmax_lambda = float(config.get("softmax_lambda", 1.0))
        if not self.softmax_lambda > 0:
            raise ValueError(f'looped: "softmax_lambda" must be > 0, got {self.softmax_lambda}')
        self.scale_rsqrt_s = bool(config.get("scale_rsqrt_s", True))
        self.causal = bool(config.get("causal", False))
        self.rms = config["norm"] == "rms"
        self.rms_eps = float(config.get("rms_eps", 1e-6))
        if not self.rms_eps >= 0:
            raise ValueError(f'looped: "rms_eps" must be >= 0, got {self.rms_eps}')
        self.relu = config["activation"] == "relu"
        self.inject = config["inject"] == "add_input"
        self.x0_zero = config["x0"] == "zero"
        self.baseline_compat = bool(config.get("baseline_compat", False))
        qkvo_bias = bool(config.get("qkvo_bias", False))
        ff_bias = bool(config.get("ff_bias", True))

        # Registration order = the C++ weight order (loopedWeightSpecs).
        inner = self.heads * self.head_dim
        self.attn = _Attention(self.d, inner, qkvo_bias)
        self.mlp = _MLP(self.d, self.d_ff, ff_bias)
        if self.tmlt:
            self.timestep = _Timestep(self.d, self.d_freq)
            self.modulation = nn.Linear(self.d, 4 * self.d)  # W_5, b_5
        self.readout = nn.Linear(self.d, self.d_out)
        self.reset_parameters()

    @torch.no_grad()
    def reset_parameters(self, generator=None):
        """The C++ init's distributions (not its random stream): weights N(0, 1/fan_in),
        biases 0; modulation per "modulation_init" (random: W_5 ~ N(0, 0.25/d), γ bias 1)."""
        for name, p in self.named_parameters():
            if name.startswith("modulation."):
                continue
            if name.endswith(".bias"):
                p.zero_()
            else:
                p.normal_(0.0, 1.0 / math.sqrt(p.shape[1]), generator=generator)
        if self.tmlt:
            self.modulation.bias.zero_()
            if self.config["modulation_init"] == "zero":
                self.modulation.weight.zero_()
            else:
                self.modulation.weight.normal_(0.0, 0.5 / math.sqrt(self.d), generator=generator)
                self.modulation.bias[: 2 * self.d] = 1.0

    def modulation_vectors(self, loops, dtype=None):
        """(α, γ, pe, te) for loops 0 … loops−1: α, γ [loops][2][d]; pe, te None in "plain"."""
        ref = self.readout.weight
        dtype = dtype or ref.dtype
        d = self.d
        if not self.tmlt:
            ones = torch.ones(loops, 2, d, dtype=dtype, device=ref.device)
            return ones, ones, None, None
        pe = sinusoidal_code(torch.arange(loops), self.d_freq, self.pe_layout, dtype).to(
            ref.device
        )
        te = self.timestep.fc2(F.silu(self.timestep.fc1(pe)))
        m = self.modulation(F.silu(te)).reshape(loops, 4, d)
        gamma = m[:, 0:2]
        alpha = 1.0 + m[:, 2:4]
        return alpha, gamma, pe, te

    def _norm(self, x, alpha):
        if self.rms:
            x = x * torch.rsqrt(x.pow(2).mean(dim=-1, keepdim=True) + self.rms_eps)
        return x * alpha

    def _attention(self, z, zv):
        """Multi-head attention; returns (the o-projected heads [B,N,d], probs [B,h,N,N])."""
        B, N, _ = z.shape
        h, s = self.heads, self.head_dim
        q = self.attn.q(z).reshape(B, N, h, s).transpose(1, 2)  # [B, h, N, s]
        k = self.attn.k(z).reshape(B, N, h, s).transpose(1, 2)
        v = self.attn.v(zv).reshape(B, N, h, s).transpose(1, 2)
        scores = q @ k.transpose(-1, -2)  # row = query, column = key
        if self.scale_rsqrt_s:
            scores = scores * (1.0 / math.sqrt(s))
        if self.causal:
            mask = torch.ones(N, N, dtype=torch.bool, device=z.device).triu(1)
            scores = scores.masked_fill(mask, float("-inf"))
        if self.hardmax and N == 0:
            probs = scores
        elif self.hardmax:
            # Even split among the maximal keys; no gradient through the probabilities.
            with torch.no_grad():
                top = scores == scores.max(dim=-1, keepdim=True).values
                probs = top.to(scores.dtype)
                probs = probs / probs.sum(dim=-1, keepdim=True)
        else:
            probs = torch.softmax(self.softmax_lambda * scores, dim=-1)
        heads = (probs @ v).transpose(1, 2).reshape(B, N, h * s)
        return self.attn.o(heads), probs

    def block(self, y, alpha, gamma):
        """One application of the block to Y [B,N,d] with α, γ [2][d];
        returns (X'', X', attn branch, mlp branch, probs)."""
        z1 = self._norm(y, alpha[0])
        attn, probs = self._attention(z1, y if self.baseline_compat else z1)
        attn = gamma[0] * attn
        mid = y + attn
        z2 = mid if self.baseline_compat else self._norm(mid, alpha[1])
        u = self.mlp.fc1(z2)
        u = F.relu(u) if self.relu else F.gelu(u)
        mlp = gamma[1] * self.mlp.fc2(u)
        return mid + mlp, mid, attn, mlp, probs

    def forward(self, x, trace=None, loops=None):
        if x.dim() != 3 or x.shape[-1] != self.d:
            raise ValueError(
                f"looped: input must be [B, T, {self.d}], got {list(x.shape)}"
            )
        r = self.loops if loops is None else int(loops)
        if r < 0:
            raise ValueError(f"looped: loops must be >= 0, got {r}")
        B, N, d = x.shape
        alpha, gamma, pe, te = self.modulation_vectors(r, x.dtype)
        state = torch.zeros_like(x) if self.x0_zero else x
        record = trace is not None
        hidden, mids, attn_b, mlp_b, probs, steps, readouts = [state], [], [], [], [], [], []
        for t in range(r):
            y = state + x if self.inject else state
            nxt, mid, attn, mlp, p = self.block(y, alpha[t], gamma[t])
            if record:
                steps.append((nxt - state).pow(2).sum(dim=(1, 2)).sqrt())
                hidden.append(nxt)
                mids.append(mid)
                attn_b.append(attn)
                mlp_b.append(mlp)
                probs.append(p)
                readouts.append(self.readout(nxt))
            state = nxt
        out = readouts[-1] if record and r > 0 else self.readout(state)
        if record:

            def stack(items, shape):
                if items:
                    return torch.stack(items, dim=1)
                return x.new_zeros((B, 0) + tuple(shape))

            trace["output"] = out
            trace["hidden"] = torch.stack(hidden, dim=1)
            trace["mid"] = stack(mids, (N, d))
            trace["attn_branch"] = stack(attn_b, (N, d))
            trace["mlp_branch"] = stack(mlp_b, (N, d))
            trace["attention"] = stack(probs, (self.heads, N, N))
            trace["alpha"] = alpha.unsqueeze(0).expand(B, r, 2, d)
            trace["gamma"] = gamma.unsqueeze(0).expand(B, r, 2, d)
            if self.tmlt:
                trace["pe"] = pe.unsqueeze(0).expand(B, r, self.d_freq)
                trace["te"] = te.unsqueeze(0).expand(B, r, d)
            trace["step_norm"] = stack(steps, ())
            trace["readout"] = stack(readouts, (N, self.d_out))
        return out
