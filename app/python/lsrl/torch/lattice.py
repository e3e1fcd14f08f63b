"""PyTorch twin of the Lattice seed model (core/seed_models/lattice.h, lattice_step.h).

Lattice keeps, per head, m memory slots of width d (the state S, stored slot-major as
[m][d]) and updates them once per token (docs/models.md, "Lattice"). With projected input
each head reads from the token x_t

    k^_t = W_k x_t + b_k,  q^_t = W_q x_t + b_q, through the causal depthwise conv when
        conv K > 0: k~_t[c] = sum_{j<K} conv_k[h][c][j] k^_{t-j}[c] (nothing before t = 0),
    k_t = act(k~_t) (m),  v_t = act(W_v x_t + b_v) (d),  q_t = act(q~_t) (m),
    with qk_norm "l2": k <- k / sqrt(k.k + 1e-6), the same for q,
    gamma_t = sigmoid(w_gamma . x_t + b_gamma) or a constant,
    mu_t = a constant or sigmoid(w_mu . x_t + b_mu),

computes for every slot s_i a drive h and a write strength alpha_i from S_{t-1}, writes
Delta s_i = alpha_i * (P(s_i) h in the orthogonal forms, h otherwise), forms
s~_i = mu s_i + Delta s_i, (NOSR) rescales s~_i by beta, and reads y_t = S_t q_t. The block
output is the heads' y side by side, or with the output gate W_o (y * GeLU(W_g x + b_g)) + b_o.

With input "tokens" (docs/spec/seed-models.md 1.8a) that gated block is the mixer of a
pre-norm residual stack: x = W_embed r_t; per layer u = LN(x), x <- x + block(u), and with
d_ff > 0 x <- x + W_2 GeLU(W_1 LN(x) + b_1) + b_2; logits = W_head LN(x) + b_head (LayerNorm
eps 1e-5, exact GeLU).

Forms (`mode`): nosr, osr, l1 (soft threshold gamma*lambda), output_normalised, delta,
linear_attention, mamba2, gated_deltanet; variants dec / enc / sim for the orthogonal forms;
beta "norm" (1/||s~||) or "closed_form" (mu^2 + ||Delta s||^2)^(-1/2). A slot shorter than
eps (s.s < eps^2) is not divided by and its projection is the identity, exactly as the C++
guard does; every division here goes through a safe denominator so that gradients stay
finite on both sides of the guard.

Not supported (ValueError): input "direct" (no weights to train) and chunk > 1 (the
chunked approximation). The parameter names and shapes equal the C++ weight tensors
(w_k [H][m][d_in], ..., s0 [H][m][d], w_g, b_g, w_o, b_o with the output gate, conv_k,
conv_q [H][m][K] with conv; with tokens "embed.weight", "layers.<l>.norm1.weight",
"layers.<l>.w_k", ..., "layers.<l>.ff2.bias", "norm_f.weight", "head.bias"), so a C++
checkpoint loads with load_state_dict. s0 is trained like every other weight unless
"s0" is "fixed": then it keeps requires_grad False (and stays in the state dict).

Speed: without a trace, on the CPU, in the forms nosr, osr, delta, gated_deltanet,
linear_attention and mamba2, the recurrence runs fused in C++ (_lsrl.lattice_scan_forward,
core/seed_models/lattice_scan.h) with its analytic backward in a torch.autograd.Function,
instead of ~120 autograd ops per token: the same values to rounding. Traces, l1,
output_normalised, other devices, a package built without the module, and the environment
variable LSRL_LATTICE_SCAN=torch (the tests' comparison) keep the per-token PyTorch loop.

The trace (forward(x, trace=dict)) holds, detached and with a leading batch dimension, the
arrays of the C++ trace: output (and mixer_output with a projected input's gate) and per
head (head 0 unprefixed, head h >= 1 as "head<h>/<name>"; with tokens, layer l >= 1's under
"layer<l>/") slots, slots_initial, incoming, parallel, orthogonal, delta, write_strength,
slot_norms, slot_cosines, beta, theta, cos_in, perp_frac, pre_norms, guarded, error (where
the form has one), loss_before, loss_after, k, v, q, gamma, mu, y.
"""

import math
import os

import torch
from torch import nn
from torch.autograd.function import once_differentiable
import torch.nn.functional as F

try:
    from .. import _lsrl
except ImportError:  # a package without the compiled module: the PyTorch loop only
    _lsrl = None

_MODES = (
    "nosr",
    "osr",
    "l1",
    "output_normalised",
    "delta",
    "linear_attention",
    "mamba2",
    "gated_deltanet",
)
_ORTHOGONAL = ("nosr", "osr", "l1")
_FUSED = ("nosr", "osr", "delta", "gated_deltanet", "linear_attention", "mamba2")
_USES_GAMMA = ("nosr", "osr", "delta", "gated_deltanet")  # of _FUSED
_USES_MU = ("nosr", "osr", "mamba2", "gated_deltanet")
_QK_NORM_EPS = 1e-6  # k / sqrt(k.k + 1e-6), lattice.cpp's kQkNormEps
_LAYER_NORM_EPS = 1e-5  # dense_layers.h

# Defaults of LatticeConfig (lattice.h) for the keys the twin reads that a partial config
# leaves out (the task keys it does not read).
_DEFAULTS = {
    "heads": 1,
    "d_in": 3,
    "d": 3,
    "m": 3,
    "seed": 0,
    "input": "projected",
    "mode": "nosr",
    "variant": "dec",
    "beta": "norm",
    "lambda": 0.05,
    "eps": 1e-12,
    "chunk": 1,
    "init": "identity",
    "gamma_mode": "sigmoid",
    "gamma": 1.0,
    "mu_mode": "constant",
    "mu": 1.0,
    "activation": "none",
    "output_gate": False,
    "conv": 0,
    "qk_norm": "none",
    "s0": "trained",
    "d_model": 16,
    "layers": 1,
    "d_ff": 0,
    "d_out": 0,
}


def _one_of(key, value, allowed):
    if value not in allowed:
        raise ValueError(f'lattice: "{key}" is {value!r}, the torch twin supports {allowed}')


def _int_at_least(c, key, low):
    value = c[key]
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise ValueError(f'lattice: "{key}" must be an integer >= {low}, got {value!r}')


def _safe(den, bad):
    """The denominator with 1 where `bad`: the unused branch of a where() stays finite."""
    return torch.where(bad, torch.ones_like(den), den)


def _safe_sqrt(x):
    """sqrt(x) for x >= 0 whose gradient at 0 is 0 instead of inf."""
    pos = x > 0
    return torch.where(pos, torch.sqrt(_safe(x, ~pos)), torch.zeros_like(x))


def _causal_conv(z, w):
    """z [B, T, H, c], w [H, c, K]: out_t = sum_{j<K} w[..., j] z_{t-j}, zero before t = 0
    (the C++ sums the taps in the same order)."""
    T = z.shape[1]
    out = z * w[..., 0]
    for j in range(1, min(w.shape[-1], T)):
        shifted = torch.cat([z.new_zeros((z.shape[0], j) + tuple(z.shape[2:])), z[:, : T - j]], 1)
        out = out + shifted * w[..., j]
    return out


def _initial_slots(H, m, d, init):
    """S_0 per head [H, m, d]: I_d[:m], or random orthonormal slots (QR with R's diagonal
    positive, in float64 so that S_0 S_0^T = I to rounding); unit slots when m > d."""
    if init == "identity" and m <= d:
        return torch.eye(d, dtype=torch.float64)[:m].expand(H, m, d).clone()
    g = torch.randn(H, d, m, dtype=torch.float64)
    if m <= d:
        q, r = torch.linalg.qr(g)
        q = q * torch.sign(torch.diagonal(r, dim1=-2, dim2=-1)).unsqueeze(-2)
        return q.transpose(-1, -2).contiguous()
    g = g.transpose(-1, -2)
    return g / g.norm(dim=-1, keepdim=True)


def _config(config):
    """The full, checked config of the twin."""
    c = dict(_DEFAULTS)
    c.update(config)
    _one_of("input", c["input"], ("projected", "tokens"))
    _one_of("mode", c["mode"], _MODES)
    _one_of("variant", c["variant"], ("dec", "enc", "sim"))
    _one_of("beta", c["beta"], ("norm", "closed_form"))
    _one_of("gamma_mode", c["gamma_mode"], ("sigmoid", "constant"))
    _one_of("mu_mode", c["mu_mode"], ("constant", "sigmoid"))
    _one_of("activation", c["activation"], ("none", "silu", "tanh"))
    _one_of("init", c["init"], ("identity", "random_orthonormal"))
    _one_of("qk_norm", c["qk_norm"], ("none", "l2"))
    _one_of("s0", c["s0"], ("trained", "fixed"))
    if c["chunk"] != 1:
        raise ValueError(
            f'lattice: "chunk" is {c["chunk"]}, the torch twin runs only chunk 1 '
            "(the exact recurrence)"
        )
    for key in ("heads", "d_in", "d", "m", "d_model", "layers"):
        _int_at_least(c, key, 1)
    for key in ("conv", "d_ff", "d_out"):
        _int_at_least(c, key, 0)
    if not c["eps"] > 0:
        raise ValueError(f'lattice: "eps" must be positive, got {c["eps"]!r}')
    return c


class _Recurrence:
    """The update of lattice_step.h on [B, H, ...] tensors: the config, no weights."""

    def __init__(self, c):
        self.heads, self.m, self.d = c["heads"], c["m"], c["d"]
        self.mode, self.variant, self.beta_form = c["mode"], c["variant"], c["beta"]
        self.eps, self.lam = float(c["eps"]), float(c["lambda"])

    def _slot_norm(self, S):
        """s.s, the guarded norm sqrt(max(s.s, eps^2)) and `small` (s.s < eps^2), per slot."""
        n2 = (S * S).sum(-1)
        e2 = self.eps * self.eps
        return n2, torch.sqrt(torch.clamp(n2, min=e2)), n2 < e2

    def _loss(self, S, k, v):
        """latticeLoss of lattice_step.cpp at state S ([B, H] per head)."""
        mode = self.mode
        if mode in _ORTHOGONAL:
            _, n, _ = self._slot_norm(S)
            if self.variant == "dec":
                e = torch.einsum("bhm,bhmd->bhd", k / n, S) - v
                return (e * e).sum(-1)
            proj = torch.einsum("bhmd,bhd->bhm", S, v) / n
            if self.variant == "enc":
                e = proj - k
                return (e * e).sum(-1)
            return -(proj * k).sum(-1)
        sk = torch.einsum("bhm,bhmd->bhd", k, S)
        if mode in ("delta", "gated_deltanet"):
            e = sk - v
            return (e * e).sum(-1)
        if mode == "output_normalised":
            _, zn, _ = self._slot_norm(sk.unsqueeze(-2))
            e = sk / zn - v
            return (e * e).sum(-1)
        return -(sk * v).sum(-1)

    def _drive(self, S, k, v, gamma, mu):
        """(h [B,H,d], alpha [B,H,m], error or None, mu [B,H]) as orthogonal/comparisonDrive."""
        mode = self.mode
        if mode in _ORTHOGONAL:
            n2, n, small = self._slot_norm(S)
            if self.variant == "dec":
                err = torch.einsum("bhm,bhmd->bhd", k / n, S) - v
                h, c = err, k
            elif self.variant == "enc":
                err = torch.einsum("bhmd,bhd->bhm", S, v) / n - k
                h, c = v, err
            else:
                err, h, c = None, -v, k
            a = -gamma.unsqueeze(-1) * c
            alpha = torch.where(small, a, a / _safe(n, small))
            return h, alpha, err, mu
        sk = torch.einsum("bhm,bhmd->bhd", k, S)
        if mode in ("linear_attention", "mamba2"):
            mu_used = mu if mode == "mamba2" else torch.ones_like(mu)
            return v, k, None, mu_used
        if mode in ("delta", "gated_deltanet"):
            mu_used = mu if mode == "gated_deltanet" else torch.ones_like(mu)
            h = v - mu_used.unsqueeze(-1) * sk
            return h, gamma.unsqueeze(-1) * k, sk - v, mu_used
        # output_normalised: h = P(z) e / ||z||, z = S k, e = z/||z|| - v (eq. 19).
        zn2, zn, zsmall = self._slot_norm(sk.unsqueeze(-2))
        zn2, zn, zsmall = zn2.squeeze(-1), zn.squeeze(-1), zsmall.squeeze(-1)
        err = sk / zn.unsqueeze(-1) - v
        along = (sk * err).sum(-1) / _safe(zn2, zsmall)
        hp = (err - along.unsqueeze(-1) * sk) / zn.unsqueeze(-1)
        h = torch.where(zsmall.unsqueeze(-1), err, hp)
        return h, -gamma.unsqueeze(-1) * k, err, torch.ones_like(mu)

    def step(self, S, k, v, q, gamma, mu, diag):
        """One token for every sequence and head: S_{t-1} [B,H,m,d] -> (S_t, y_t, diagnostics)."""
        h, alpha, err, mu_used = self._drive(S, k, v, gamma, mu)
        n2, n, small = self._slot_norm(S)
        g = torch.einsum("bhmd,bhd->bhm", S, h)
        along = torch.where(small, torch.zeros_like(g), g / _safe(n2, small))
        par = along.unsqueeze(-1) * S
        perp = h.unsqueeze(-2) - par
        written = perp if self.mode in _ORTHOGONAL else h.unsqueeze(-2)
        ds = alpha.unsqueeze(-1) * written
        tilde = mu_used[..., None, None] * S + ds
        pre2 = (tilde * tilde).sum(-1)
        pre = _safe_sqrt(pre2)
        beta = torch.ones_like(pre)
        guarded = small
        if self.mode == "nosr":
            tiny = pre < self.eps  # s~ = 0: nothing to normalise
            guarded = small | tiny
            if self.beta_form == "norm":
                den = pre
            else:
                den2 = mu_used.unsqueeze(-1) ** 2 + (ds * ds).sum(-1)
                den = torch.sqrt(_safe(den2, tiny))  # 0 only where s~ = 0, i.e. tiny
            beta = torch.where(tiny, beta, 1 / _safe(den, tiny))
            tilde = beta.unsqueeze(-1) * tilde
        elif self.mode == "l1":
            tau = (gamma * self.lam)[..., None, None]
            mag = torch.relu(tilde.abs() - tau)
            tilde = torch.where(tilde < 0, -mag, torch.where(tilde > 0, mag, tilde))
        y = torch.einsum("bhm,bhmd->bhd", q, tilde)
        if diag is None:
            return tilde, y
        with torch.no_grad():
            hn = h.norm(dim=-1, keepdim=True)
            hpos = hn > 0
            hden = _safe(hn, ~hpos)
            cos_in = torch.where(hpos & ~small, g / (n * hden), torch.zeros_like(g))
            perp_frac = torch.where(hpos, perp.norm(dim=-1) / hden, torch.zeros_like(g))
            a = (tilde * S).sum(-1) / n
            r = tilde - (a / n).unsqueeze(-1) * S
            theta = torch.where(
                small, torch.zeros_like(a), torch.atan2(r.norm(dim=-1), a)
            )
            diag.append(
                {
                    "incoming": h,
                    "error": err,
                    "parallel": par,
                    "orthogonal": perp,
                    "delta": ds,
                    "write_strength": alpha,
                    "beta": beta,
                    "theta": theta,
                    "cos_in": cos_in,
                    "perp_frac": perp_frac,
                    "pre_norms": pre,
                    "guarded": guarded.to(pre.dtype),
                    "loss_before": self._loss(S, k, v),
                    "loss_after": self._loss(tilde, k, v),
                    "slots": tilde,
                    "y": y,
                }
            )
        return tilde, y

    def arrays(self, x, diag):
        """The per-step trace arrays [B, T, H, ...] of diag (step's), with slot_norms and
        slot_cosines from the slots."""
        B, T = x.shape[:2]
        m, d = self.m, self.d
        with torch.no_grad():

            def stacked(name, width):
                if T == 0:
                    return x.new_zeros((B, 0, self.heads) + width)
                return torch.stack([s[name] for s in diag], 1)  # [B, T, H, ...]

            per_step = {
                "slots": (m, d),
                "incoming": (d,),
                "parallel": (m, d),
                "orthogonal": (m, d),
                "delta": (m, d),
                "write_strength": (m,),
                "beta": (m,),
                "theta": (m,),
                "cos_in": (m,),
                "perp_frac": (m,),
                "pre_norms": (m,),
                "guarded": (m,),
                "loss_before": (),
                "loss_after": (),
                "y": (d,),
            }
            arrays = {name: stacked(name, w) for name, w in per_step.items()}
            if self.error_width() is not None:
                arrays["error"] = stacked("error", (self.error_width(),))
            slots = arrays["slots"]
            sn = torch.sqrt((slots * slots).sum(-1))  # plain norms, as the C++ trace
            ok = sn >= self.eps
            unit = slots / _safe(sn, ~ok).unsqueeze(-1)
            cos = torch.einsum("bthid,bthjd->bthij", unit, unit)
            cos = torch.where(ok.unsqueeze(-1) & ok.unsqueeze(-2), cos, torch.zeros_like(cos))
            arrays["slot_norms"] = sn
            arrays["slot_cosines"] = cos
        return arrays

    def error_width(self):
        if self.mode in _ORTHOGONAL:
            return {"dec": self.d, "enc": self.m, "sim": None}[self.variant]
        return None if self.mode in ("linear_attention", "mamba2") else self.d


def _fused_ok(rec, x, trace):
    """Whether _block runs the recurrence fused (the module docstring's conditions)."""
    return (
        trace is None
        and rec.mode in _FUSED
        and x.device.type == "cpu"
        and x.dtype in (torch.float32, torch.float64)
        and _lsrl is not None
        and hasattr(_lsrl, "lattice_scan_forward")
        and os.environ.get("LSRL_LATTICE_SCAN") != "torch"
    )


def _numpy(t):
    """A C-contiguous numpy view of t (a copy only when t is not contiguous)."""
    return t.detach().contiguous().numpy()


def _scan_options(rec):
    return (rec.mode, rec.variant, rec.beta_form, rec.eps, rec.lam)


class _FusedScan(torch.autograd.Function):
    """y [B, T, H, d] of the recurrence from S_0 [B, H, m, d] over k, v, q [B, T, H, .] and
    gamma, mu [B, T, H]; backward: lattice_scan_backward from the kept S_{t-1}."""

    @staticmethod
    def forward(ctx, s0, k, v, q, gamma, mu, rec):
        inputs = [a.detach().contiguous() for a in (k, v, q, gamma, mu)]
        arrays = [a.numpy() for a in inputs]
        y, states = _lsrl.lattice_scan_forward(_numpy(s0), *arrays, *_scan_options(rec), True)
        # Saved tensors, not attributes: autograd frees them after the backward (unless
        # retain_graph), where a graph held by a live `loss` would keep every S_t.
        ctx.save_for_backward(torch.from_numpy(states), *inputs)
        ctx.rec = rec
        return torch.from_numpy(y)

    @staticmethod
    @once_differentiable  # numpy inside: no graph for a second derivative
    def backward(ctx, dy):
        rec = ctx.rec
        arrays = [a.numpy() for a in ctx.saved_tensors]
        grads = _lsrl.lattice_scan_backward(*arrays, _numpy(dy), *_scan_options(rec))
        used = (True, True, True, True, rec.mode in _USES_GAMMA, rec.mode in _USES_MU)
        # None for what the form does not read, as the PyTorch loop leaves it without a
        # gradient (an optimiser skips such a weight rather than decaying it).
        return tuple(
            torch.from_numpy(g) if need and use else None
            for g, need, use in zip(grads, ctx.needs_input_grad, used)
        ) + (None,)


def _fused_recurrence(rec, s0, k, v, q, gamma, mu):
    """y [B, T, H, d] through the fused scan; the states are kept only for a backward."""
    B = k.shape[0]
    s0 = s0.unsqueeze(0).expand(B, -1, -1, -1)  # expand's backward sums over the batch
    inputs = (s0, k, v, q, gamma, mu)
    if torch.is_grad_enabled() and any(a.requires_grad for a in inputs):
        return _FusedScan.apply(*inputs, rec)
    arrays = [_numpy(a) for a in inputs]
    y, _ = _lsrl.lattice_scan_forward(*arrays, *_scan_options(rec), False)
    return torch.from_numpy(y)


class _BlockMixin:
    """One Lattice block (the mixer of 1.1-1.8) over rows of width `width`, its tensors
    registered on the module itself under the C++ names (the projected model at the top
    level, "w_k"; a token model's layer under "layers.<l>.w_k"). _block(u [B, T, width])
    -> (the gated output or the heads' y, the heads' y side by side [B, T, H*d])."""

    def _init_block(self, c, width, gated):
        H, m, d = c["heads"], c["m"], c["d"]
        self.rec = _Recurrence(c)
        self.width, self.gated, self.conv = width, gated, c["conv"]
        self.gamma_mode, self.gamma_const = c["gamma_mode"], float(c["gamma"])
        self.mu_mode, self.mu_const = c["mu_mode"], float(c["mu"])
        self.activation, self.qk_norm = c["activation"], c["qk_norm"]

        # Same names, shapes and registration order as latticeWeightSpecs (lattice_config.cpp);
        # the init mirrors its distributions (not its RNG): N(0, 1/fan_in), biases 0, b_mu = 3.
        def mat(*shape):
            return nn.Parameter(torch.randn(*shape) / math.sqrt(shape[-1]))

        x = width
        self.w_k, self.b_k = mat(H, m, x), nn.Parameter(torch.zeros(H, m))
        self.w_v, self.b_v = mat(H, d, x), nn.Parameter(torch.zeros(H, d))
        self.w_q, self.b_q = mat(H, m, x), nn.Parameter(torch.zeros(H, m))
        if self.gamma_mode == "sigmoid":
            self.w_gamma, self.b_gamma = mat(H, x), nn.Parameter(torch.zeros(H))
        if self.mu_mode == "sigmoid":
            self.w_mu, self.b_mu = mat(H, x), nn.Parameter(torch.full((H,), 3.0))
        s0 = _initial_slots(H, m, d, c["init"]).to(torch.get_default_dtype())
        self.s0 = nn.Parameter(s0, requires_grad=c["s0"] == "trained")
        if gated:
            self.w_g, self.b_g = mat(H * d, x), nn.Parameter(torch.zeros(H * d))
            self.w_o, self.b_o = mat(x, H * d), nn.Parameter(torch.zeros(x))
        if self.conv > 0:
            self.conv_k, self.conv_q = mat(H, m, self.conv), mat(H, m, self.conv)

    def _pre(self, x, w, b):
        return torch.einsum("btx,hrx->bthr", x, w) + b

    def _act(self, z):
        if self.activation == "silu":
            return z * torch.sigmoid(z)
        if self.activation == "tanh":
            return torch.tanh(z)
        return z

    def _keys(self, x, w, b, conv):
        """k or q [B, T, H, m]: projection, conv, activation, qk_norm (1.8)."""
        z = self._pre(x, w, b)
        if self.conv > 0:
            z = _causal_conv(z, conv)
        z = self._act(z)
        if self.qk_norm == "l2":
            z = z / torch.sqrt((z * z).sum(-1, keepdim=True) + _QK_NORM_EPS)
        return z

    def _scalar(self, x, mode, const, name):
        if mode == "constant":
            return x.new_full(x.shape[:2] + (self.rec.heads,), const)
        w, b = getattr(self, "w_" + name), getattr(self, "b_" + name)
        return torch.sigmoid(torch.einsum("btx,hx->bth", x, w) + b)

    def _block(self, x, trace=None, prefix=""):
        if x.dim() != 3 or x.shape[-1] != self.width:
            raise ValueError(f"lattice: expected input [B, T, {self.width}], got {list(x.shape)}")
        B, T, _ = x.shape
        H, d = self.rec.heads, self.rec.d
        k_all = self._keys(x, self.w_k, self.b_k, getattr(self, "conv_k", None))  # [B, T, H, m]
        v_all = self._act(self._pre(x, self.w_v, self.b_v))  # [B, T, H, d]
        q_all = self._keys(x, self.w_q, self.b_q, getattr(self, "conv_q", None))
        gamma_all = self._scalar(x, self.gamma_mode, self.gamma_const, "gamma")  # [B, T, H]
        mu_all = self._scalar(x, self.mu_mode, self.mu_const, "mu")

        diag = [] if trace is not None else None
        if T and _fused_ok(self.rec, x, trace):
            y = _fused_recurrence(self.rec, self.s0, k_all, v_all, q_all, gamma_all, mu_all)
            mixed = y.reshape(B, T, H * d)
        elif T:
            S = self.s0.unsqueeze(0).expand(B, -1, -1, -1)
            ys = []
            # unbind, not [:, t]: a slice's backward fills a zero tensor of the whole sequence,
            # T times per step; unbind's stacks the T gradients once.
            per_token = zip(*(a.unbind(1) for a in (k_all, v_all, q_all, gamma_all, mu_all)))
            for k, v, q, gamma, mu in per_token:
                S, y = self.rec.step(S, k, v, q, gamma, mu, diag)
                ys.append(y)
            mixed = torch.stack(ys, 1).reshape(B, T, H * d)
        else:
            mixed = x.new_zeros(B, 0, H * d)
        out = mixed
        if self.gated:
            gate = F.gelu(F.linear(x, self.w_g, self.b_g))
            out = F.linear(mixed * gate, self.w_o, self.b_o)
        if trace is not None:
            arrays = self.rec.arrays(x, diag)
            arrays.update(k=k_all, v=v_all, q=q_all, gamma=gamma_all, mu=mu_all)
            m = self.rec.m
            for h in range(H):
                p = prefix + ("" if h == 0 else f"head{h}/")
                for name, a in arrays.items():
                    trace[p + name] = a[:, :, h].detach()
                trace[p + "slots_initial"] = self.s0[h].detach().expand(B, m, d).clone()
        return out, mixed


class _Layer(_BlockMixin, nn.Module):
    """One layer of the token model: x + block(LN(x)), then x + MLP(LN(x)) with d_ff."""

    def __init__(self, c):
        super().__init__()
        dm, ff = c["d_model"], c["d_ff"]
        self._init_block(c, dm, gated=True)
        self.norm1 = nn.LayerNorm(dm, eps=_LAYER_NORM_EPS)
        if ff > 0:
            self.norm2 = nn.LayerNorm(dm, eps=_LAYER_NORM_EPS)
            self.ff1, self.ff2 = nn.Linear(dm, ff), nn.Linear(ff, dm)
            for lin in (self.ff1, self.ff2):
                nn.init.normal_(lin.weight, std=1 / math.sqrt(lin.in_features))
                nn.init.zeros_(lin.bias)

    def forward(self, x, trace=None, prefix=""):
        out, _ = self._block(self.norm1(x), trace, prefix)
        x = x + out
        if hasattr(self, "ff1"):
            x = x + self.ff2(F.gelu(self.ff1(self.norm2(x))))  # exact (erf) GeLU
        return x


class Lattice(_BlockMixin, nn.Module):
    """Lattice (multi-head orthogonal state recurrence), projected or token input, chunk 1.
    forward(x [B, T, d_in]) -> [B, T, H*d], or d_in with the gate, or the token model's
    logits [B, T, d_out]."""

    def __init__(self, config: dict):
        super().__init__()
        c = _config(config)
        self.config = c
        self.d_in, self.tokens = c["d_in"], c["input"] == "tokens"
        if not self.tokens:
            self._init_block(c, c["d_in"], bool(c["output_gate"]))
            return
        dm = c["d_model"]
        self.embed = nn.Linear(c["d_in"], dm, bias=False)
        nn.init.normal_(self.embed.weight)
        self.layers = nn.ModuleList(_Layer(c) for _ in range(c["layers"]))
        self.norm_f = nn.LayerNorm(dm, eps=_LAYER_NORM_EPS)
        self.head = nn.Linear(dm, c["d_out"] or c["d_in"])
        nn.init.normal_(self.head.weight, std=1 / math.sqrt(dm))
        nn.init.zeros_(self.head.bias)

    def forward(self, x, trace=None):
        if x.dim() != 3 or x.shape[-1] != self.d_in:
            raise ValueError(f"lattice: expected input [B, T, {self.d_in}], got {list(x.shape)}")
        if not self.tokens:
            out, mixed = self._block(x, trace)
            if trace is not None and self.gated:
                trace["mixer_output"] = mixed.detach()
        else:
            h = self.embed(x)
            for l, layer in enumerate(self.layers):
                h = layer(h, trace, "" if l == 0 else f"layer{l}/")
            out = self.head(self.norm_f(h))
        if trace is not None:
            trace["output"] = out.detach()
        return out
