"""PyTorch twin of the GateLoop seed model (docs/models.md, "GateLoop"; C++ in
core/seed_models/gateloop.h and gateloop_modes.h).

The network: a bias-free linear token embedding, then per layer a pre-LayerNormed time-mixing
block and a pre-LayerNormed GeLU feed-forward block (each with a skip connection), a final
LayerNorm and a linear head that gives the logits.

Time mixing projects the layer input u to q, k, v (C = d_model wide, in C / d_h heads) and to
the transition pre-activations gamma_pre, theta_pre. The transition is complex:
    log a = log f(gamma_pre) + i g(theta_pre)
with f = sigmoid (log f = logsigmoid) or exp(-exp(.)) (log f = -exp), g = identity or
pi * tanh, and log|a| clamped below at -1e4 as the C++ does (a zero transition stays finite in
the log domain). With "transitions": "fixed" the pre-activations are the projections' biases
alone, the same for every token. Each head keeps a d_h x d_h complex state
    H_n = diag(a_n) H_{n-1} + k_n v_n^T,   y_n = H_n^T q_n
(row r of H is a key index, column c a value index); the real part of y goes on, through an
optional output projection, into the residual stream.

How y is computed here: a chunked form of the same recurrence, in real arithmetic (separate
real and imaginary tensors). Inside a chunk of Q tokens the operator is the surrogate
attention y_n = sum_{m<=n} (sum_r q_n[r] k_m[r] prod_{j=m+1..n} a_j[r]) v_m, where the decay
products are exp of segment sums of log a (each segment summed on its own, so no prefix sums
are subtracted and nothing overflows: the real parts are <= 0); between chunks the state is
carried by a loop over chunks. Q = 1 is the plain token-by-token recurrence. Every C++ mode
except "softmax" (a different model) computes this operator; all give the same result to
rounding ("attention_naive" only while its prefix products do not under/overflow). One
difference: a NaN/Inf input row also reaches the earlier outputs of its own chunk (0 * NaN in
the masked scores), where the C++ keeps every output before it finite.

Traces (forward(x, trace=dict)), batch first, layer l >= 1 prefixed "layer<l>.":
    a_magnitude, a_phase, memory_length [B, T, C]; y [B, T, C, 2] (re, im);
    layer_output [B, T, d_model]; and output [B, T, d_out].
"""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F

_LOG_ZERO = -1e4  # kGateLoopLogZero: the floor of log|a|
_LAYER_NORM_EPS = 1e-5
_MODES = ("recurrent", "scan", "scan_hillis_steele", "attention", "attention_naive")
_KEYS = (
    "d_model",
    "layers",
    "d_h",
    "d_channel_mixing",
    "d_out",
    "magnitude_activation",
    "phase_activation",
    "transitions",
    "output_projection",
    "layer_norm",
    "channel_mixing",
    "residual",
    "mode",
    "seed",
    "task_length",
    "task_resets",
    "max_number",
    "modulus",
)


def _positive_int(config, key):
    value = config[key]
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f'gateloop config: "{key}" must be a positive integer, got {value!r}')
    return value


def _choice(config, key, allowed):
    value = config[key]
    if value not in allowed:
        raise ValueError(
            f'gateloop config: "{key}" = {value!r} is not supported '
            f"(expected one of {', '.join(allowed)})"
        )
    return value


def _flag(config, key):
    value = config[key]
    if not isinstance(value, bool):
        raise ValueError(f'gateloop config: "{key}" must be true or false, got {value!r}')
    return value


def _log_transition(gamma_pre, theta_pre, magnitude, phase):
    """(log|a|, arg a) of the transitions, as gateLoopLogTransition."""
    if magnitude == "sigmoid":
        log_mag = F.logsigmoid(gamma_pre)  # -softplus(-gamma), stable both ways
    else:
        log_mag = -torch.exp(gamma_pre)
    log_mag = torch.clamp(log_mag, min=_LOG_ZERO)
    angle = theta_pre if phase == "identity" else math.pi * torch.tanh(theta_pre)
    return log_mag, angle


def gateloop_operator(log_mag, angle, q, k, v, d_h, chunk=8):
    """The GateLoop operator for a batch: y_n = H_n^T q_n with H_n = diag(a_n) H_{n-1} + k_n v_n^T,
    H_0 = 0, per head of d_h channels.

    log_mag, angle, q, k, v: [B, T, C] real, C divisible by d_h; a = exp(log_mag + i angle).
    Returns (y_re, y_im), each [B, T, C]. `chunk` is the number of tokens handled in parallel
    between steps of the loop (1 = the token-by-token recurrence); any value gives the same
    result to rounding.
    """
    B, T, C = q.shape
    if chunk < 1:
        raise ValueError(f"gateloop operator: chunk must be >= 1, got {chunk}")
    if C % d_h != 0:
        raise ValueError(f"gateloop operator: d_h = {d_h} does not divide width {C}")
    H = C // d_h
    Q = max(1, min(chunk, T))
    N = -(-T // Q) if T > 0 else 0
    pad = N * Q - T
    if pad:
        # Padded tokens (a = 1, k = v = q = 0) come after the real ones: they change nothing.
        def padded(x):
            return F.pad(x, (0, 0, 0, pad))

        log_mag, angle, q, k, v = map(padded, (log_mag, angle, q, k, v))

    def blocks(x):  # [B, N*Q, C] -> [B, N, Q, H, d_h]
        return x.reshape(B, N, Q, H, d_h)

    lr, li, q, k, v = map(blocks, (log_mag, angle, q, k, v))

    # Segment sums D[n, m] = sum_{j=m+1..n} log a_j inside each chunk (n >= m), formed as a
    # cumulative sum down n of log a_n masked to n > m: no difference of prefix sums.
    idx = torch.arange(Q, device=q.device)
    strict = (idx[:, None] > idx[None, :]).view(1, 1, Q, Q, 1, 1)  # [n, m]
    causal = (idx[:, None] >= idx[None, :]).view(1, 1, Q, Q, 1, 1)
    zero = lr.new_zeros(())

    def segment_sums(x):  # [B, N, Q, H, d_h] -> [B, N, Q(n), Q(m), H, d_h]
        return torch.cumsum(torch.where(strict, x[:, :, :, None], zero), dim=2)

    Dr, Di = segment_sums(lr), segment_sums(li)
    # Above the diagonal the sums are 0 (exp = 1): mask the decay itself to 0 there.
    Er = torch.where(causal, torch.exp(Dr), zero)
    Ecos, Esin = Er * torch.cos(Di), Er * torch.sin(Di)

    # Intra-chunk: scores S[n, m, h] = sum_r q_n[r] k_m[r] decay[n, m, r]; y += S v_m.
    qk = q[:, :, :, None] * k[:, :, None, :]  # [B, N, n, m, H, r]
    Sr, Si = (qk * Ecos).sum(-1), (qk * Esin).sum(-1)  # [B, N, n, m, H]
    y_re = torch.einsum("bznmh,bzmhc->bznhc", Sr, v)
    y_im = torch.einsum("bznmh,bzmhc->bznhc", Si, v)

    if N > 1:
        # Each chunk's own contribution to the state at its end: sum_m decay[Q-1, m] k_m v_m^T.
        kr, ki = k * Ecos[:, :, -1], k * Esin[:, :, -1]  # [B, N, m, H, r]
        Ur = torch.einsum("bzmhr,bzmhc->bzhrc", kr, v)
        Ui = torch.einsum("bzmhr,bzmhc->bzhrc", ki, v)
        # Prefix sums L_n = sum_{j<=n} log a_j inside the chunk: the decay of the state that
        # entered the chunk, as seen by token n; L_{Q-1} carries it to the next chunk.
        Lr, Li = torch.cumsum(lr, dim=2), torch.cumsum(li, dim=2)
        Pr = torch.exp(Lr)
        Pcos, Psin = Pr * torch.cos(Li), Pr * torch.sin(Li)  # [B, N, Q, H, r]
        # The state entering each chunk, by the recurrence over chunks.
        sr = q.new_zeros(B, H, d_h, d_h)
        si = q.new_zeros(B, H, d_h, d_h)
        entering_r, entering_i = [sr], [si]
        for z in range(N - 1):
            ar, ai = Pcos[:, z, -1, :, :, None], Psin[:, z, -1, :, :, None]  # [B, H, r, 1]
            sr, si = ar * sr - ai * si + Ur[:, z], ar * si + ai * sr + Ui[:, z]
            entering_r.append(sr)
            entering_i.append(si)
        Hr, Hi = torch.stack(entering_r, 1), torch.stack(entering_i, 1)  # [B, N, H, r, c]
        # y_n += sum_r q_n[r] pi_n[r] H_entering[r, c].
        wr, wi = q * Pcos, q * Psin  # [B, N, Q, H, r]
        y_re = y_re + torch.einsum("bznhr,bzhrc->bznhc", wr, Hr)
        y_re = y_re - torch.einsum("bznhr,bzhrc->bznhc", wi, Hi)
        y_im = y_im + torch.einsum("bznhr,bzhrc->bznhc", wr, Hi)
        y_im = y_im + torch.einsum("bznhr,bzhrc->bznhc", wi, Hr)

    y_re = y_re.reshape(B, N * Q, C)[:, :T]
    y_im = y_im.reshape(B, N * Q, C)[:, :T]
    return y_re, y_im


class _Linear(nn.Module):
    """y = W x + b with the C++ tensor names "weight" [out, in] and "bias" [out]; the
    weight may be absent (fixed transitions keep only a bias)."""

    def __init__(self, d_in, d_out, weight=True, bias=True):
        super().__init__()
        self.weight = nn.Parameter(torch.zeros(d_out, d_in)) if weight else None
        self.bias = nn.Parameter(torch.zeros(d_out)) if bias else None

    def forward(self, x):
        return F.linear(x, self.weight, self.bias)


class _LayerNorm(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(d))
        self.bias = nn.Parameter(torch.zeros(d))

    def forward(self, x):
        return F.layer_norm(x, x.shape[-1:], self.weight, self.bias, _LAYER_NORM_EPS)


class _FeedForward(nn.Module):
    def __init__(self, d, f):
        super().__init__()
        self.up = _Linear(d, f)
        self.down = _Linear(f, d)

    def forward(self, x):
        return self.down(F.gelu(self.up(x)))  # exact (erf) GeLU, as dense_layers


class _Layer(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        d, f = cfg["d_model"], cfg["d_channel_mixing"]
        data = cfg["transitions"] == "data"
        if cfg["layer_norm"]:
            self.norm1 = _LayerNorm(d)
        self.q, self.k, self.v = _Linear(d, d), _Linear(d, d), _Linear(d, d)
        self.gamma = _Linear(d, d, weight=data)
        self.theta = _Linear(d, d, weight=data)
        if cfg["output_projection"]:
            self.out = _Linear(d, d)
        if cfg["channel_mixing"]:
            if cfg["layer_norm"]:
                self.norm2 = _LayerNorm(d)
            self.ffn = _FeedForward(d, f)


class GateLoop(nn.Module):
    """The GateLoop seed model (kind "gateloop") from its full config dict; state_dict names
    and shapes are the C++ weight tensors'. forward(x [B, T, max_number + 2]) -> logits
    [B, T, d_out]. `chunk` sets the operator's parallel chunk length (speed only)."""

    def __init__(self, config: dict, chunk: int = 8):
        super().__init__()
        missing = [key for key in _KEYS if key not in config]
        if missing:
            raise ValueError(f"gateloop config: missing keys {missing}")
        unknown = sorted(set(config) - set(_KEYS))
        if unknown:
            raise ValueError(f"gateloop config: unknown keys {unknown}")
        for key in ("d_model", "layers", "d_h", "d_channel_mixing", "d_out"):
            _positive_int(config, key)
        mode = config["mode"]
        if mode == "softmax":
            raise ValueError(
                'gateloop config: "mode" = "softmax" is the softmax-attention model (a '
                "different model from the recurrence); the torch twin does not support it"
            )
        _choice(config, "mode", _MODES)
        _choice(config, "magnitude_activation", ("sigmoid", "exp_exp"))
        _choice(config, "phase_activation", ("identity", "pi_tanh"))
        _choice(config, "transitions", ("data", "fixed"))
        for key in ("output_projection", "layer_norm", "channel_mixing", "residual"):
            _flag(config, key)
        if config["d_model"] % config["d_h"] != 0:
            raise ValueError(
                f'gateloop config: "d_h" = {config["d_h"]} does not divide '
                f'd_model = {config["d_model"]}'
            )
        max_number = config["max_number"]
        if isinstance(max_number, bool) or not isinstance(max_number, int) or max_number < 0:
            raise ValueError(f'gateloop config: "max_number" must be >= 0, got {max_number!r}')
        if chunk < 1:
            raise ValueError(f"gateloop: chunk must be >= 1, got {chunk}")

        self.config = dict(config)
        self.chunk = chunk
        self.d_model = config["d_model"]
        self.d_h = config["d_h"]
        self.input_width = max_number + 2  # the Memory Horizon vocabulary
        self.d_out = config["d_out"]
        self.magnitude = config["magnitude_activation"]
        self.phase = config["phase_activation"]
        self.data_controlled = config["transitions"] == "data"
        self.output_projection = config["output_projection"]
        self.layer_norm = config["layer_norm"]
        self.channel_mixing = config["channel_mixing"]
        self.residual = config["residual"]

        self.embed = _Linear(self.input_width, self.d_model, bias=False)
        self.layers = nn.ModuleList(_Layer(config) for _ in range(config["layers"]))
        if self.layer_norm:
            self.norm_f = _LayerNorm(self.d_model)
        self.head = _Linear(self.d_model, self.d_out)
        self.reset_parameters()

    @torch.no_grad()
    def reset_parameters(self):
        """The C++ initialisation's distributions (torch's RNG, so not the same numbers; load
        seed_model_init's weights for those): embedding N(0, 1), linear weights
        N(0, 1/fan_in), biases 0 except b_gamma ~ U[1, 4] and b_theta ~ U[0, pi/4],
        LayerNorm gain 1 and bias 0."""
        for name, p in self.named_parameters():
            if name == "embed.weight":
                p.normal_(0.0, 1.0)
            elif name.endswith("gamma.bias"):
                p.uniform_(1.0, 4.0)
            elif name.endswith("theta.bias"):
                p.uniform_(0.0, math.pi / 4)
            elif "norm" in name:
                p.fill_(1.0 if name.endswith(".weight") else 0.0)
            elif name.endswith(".bias"):
                p.zero_()
            else:
                p.normal_(0.0, 1.0 / math.sqrt(p.shape[1]))

    def _normed(self, module, name, x):
        return getattr(module, name)(x) if self.layer_norm else x

    def _transition_pre(self, proj, u):
        if self.data_controlled:
            return proj(u)
        return proj.bias.expand(u.shape[:-1] + proj.bias.shape)  # the bias alone, every token

    def forward(self, x, trace=None):
        if x.dim() != 3 or x.shape[-1] != self.input_width:
            raise ValueError(
                f"gateloop: expected input [B, T, {self.input_width}], got {list(x.shape)}"
            )
        x = x.to(self.head.bias.dtype)
        h = self.embed(x)
        for index, layer in enumerate(self.layers):
            u = self._normed(layer, "norm1", h)
            q, k, v = layer.q(u), layer.k(u), layer.v(u)
            gamma_pre = self._transition_pre(layer.gamma, u)
            theta_pre = self._transition_pre(layer.theta, u)
            log_mag, angle = _log_transition(gamma_pre, theta_pre, self.magnitude, self.phase)
            y_re, y_im = gateloop_operator(log_mag, angle, q, k, v, self.d_h, self.chunk)
            o = layer.out(y_re) if self.output_projection else y_re
            h = h + o if self.residual else o
            if self.channel_mixing:
                f = layer.ffn(self._normed(layer, "norm2", h))
                h = h + f if self.residual else f
            if trace is not None:
                pre = "" if index == 0 else f"layer{index}."
                trace[pre + "a_magnitude"] = torch.exp(log_mag)
                trace[pre + "a_phase"] = angle
                trace[pre + "memory_length"] = -1 / log_mag
                trace[pre + "y"] = torch.stack((y_re, y_im), dim=-1)
                trace[pre + "layer_output"] = h
        out = self.head(self._normed(self, "norm_f", h))
        if trace is not None:
            trace["output"] = out
        return out
