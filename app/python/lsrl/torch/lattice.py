"""PyTorch twin of the Lattice seed model (core/seed_models/lattice.h, lattice_step.h).

Lattice keeps, per head, m memory slots of width d (the state S, stored slot-major as
[m][d]) and updates them once per token (docs/models.md, "Lattice"). With projected input
each head reads from the token x_t

    k_t = act(W_k x_t + b_k) (m),  v_t = act(W_v x_t + b_v) (d),  q_t = act(W_q x_t + b_q) (m),
    gamma_t = sigmoid(w_gamma . x_t + b_gamma) or a constant,
    mu_t = a constant or sigmoid(w_mu . x_t + b_mu),

computes for every slot s_i a drive h and a write strength alpha_i from S_{t-1}, writes
Delta s_i = alpha_i * (P(s_i) h in the orthogonal forms, h otherwise), forms
s~_i = mu s_i + Delta s_i, (NOSR) rescales s~_i by beta, and reads y_t = S_t q_t. The block
output is the heads' y side by side, or with the output gate W_o (y * GeLU(W_g x + b_g)) + b_o.

Forms (`mode`): nosr, osr, l1 (soft threshold gamma*lambda), output_normalised, delta,
linear_attention, mamba2, gated_deltanet; variants dec / enc / sim for the orthogonal forms;
beta "norm" (1/||s~||) or "closed_form" (mu^2 + ||Delta s||^2)^(-1/2). A slot shorter than
eps (s.s < eps^2) is not divided by and its projection is the identity, exactly as the C++
guard does; every division here goes through a safe denominator so that gradients stay
finite on both sides of the guard.

Not supported (ValueError): input "direct" (no weights to train) and chunk > 1 (the
chunked approximation). The parameter names and shapes equal the C++ weight tensors
(w_k [H][m][d_in], ..., s0 [H][m][d], w_g, b_g, w_o, b_o with the output gate), so a C++
checkpoint loads with load_state_dict. s0 is trained like every other weight.

The trace (forward(x, trace=dict)) holds, detached and with a leading batch dimension, the
arrays of the C++ trace: output (and mixer_output with the gate) and per head (head 0
unprefixed, head h >= 1 as "head<h>/<name>") slots, slots_initial, incoming, parallel,
orthogonal, delta, write_strength, slot_norms, slot_cosines, beta, theta, cos_in,
perp_frac, pre_norms, guarded, error (where the form has one), loss_before, loss_after,
k, v, q, gamma, mu, y.
"""

import math

import torch
from torch import nn
import torch.nn.functional as F

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

# Defaults of LatticeConfig (lattice.h) for keys a partial config leaves out.
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
}


def _one_of(key, value, allowed):
    if value not in allowed:
        raise ValueError(f'lattice: "{key}" is {value!r}, the torch twin supports {allowed}')


def _safe(den, bad):
    """The denominator with 1 where `bad`: the unused branch of a where() stays finite."""
    return torch.where(bad, torch.ones_like(den), den)


def _safe_sqrt(x):
    """sqrt(x) for x >= 0 whose gradient at 0 is 0 instead of inf."""
    pos = x > 0
    return torch.where(pos, torch.sqrt(_safe(x, ~pos)), torch.zeros_like(x))


class Lattice(nn.Module):
    """Lattice (multi-head orthogonal state recurrence), projected input, chunk 1."""

    def __init__(self, config: dict):
        super().__init__()
        c = dict(_DEFAULTS)
        c.update(config)
        self.config = c
        _one_of("input", c["input"], ("projected",))
        _one_of("mode", c["mode"], _MODES)
        _one_of("variant", c["variant"], ("dec", "enc", "sim"))
        _one_of("beta", c["beta"], ("norm", "closed_form"))
        _one_of("gamma_mode", c["gamma_mode"], ("sigmoid", "constant"))
        _one_of("mu_mode", c["mu_mode"], ("constant", "sigmoid"))
        _one_of("activation", c["activation"], ("none", "silu", "tanh"))
        _one_of("init", c["init"], ("identity", "random_orthonormal"))
        if c["chunk"] != 1:
            raise ValueError(
                f'lattice: "chunk" is {c["chunk"]}, the torch twin runs only chunk 1 '
                "(the exact recurrence)"
            )
        for key in ("heads", "d_in", "d", "m"):
            if not isinstance(c[key], int) or c[key] < 1:
                raise ValueError(f'lattice: "{key}" must be a positive integer, got {c[key]!r}')
        if not c["eps"] > 0:
            raise ValueError(f'lattice: "eps" must be positive, got {c["eps"]!r}')

        H, m, d, x = c["heads"], c["m"], c["d"], c["d_in"]
        self.heads, self.m, self.d, self.d_in = H, m, d, x
        self.mode, self.variant, self.beta_form = c["mode"], c["variant"], c["beta"]
        self.eps, self.lam = float(c["eps"]), float(c["lambda"])
        self.gamma_mode, self.gamma_const = c["gamma_mode"], float(c["gamma"])
        self.mu_mode, self.mu_const = c["mu_mode"], float(c["mu"])
        self.activation, self.output_gate = c["activation"], bool(c["output_gate"])

        # Same names, shapes and registration order as weightShapes() in lattice.cpp; the
        # init mirrors its distributions (not its RNG): N(0, 1/fan_in), biases 0, b_mu = 3.
        def mat(*shape):
            return nn.Parameter(torch.randn(*shape) / math.sqrt(shape[-1]))

        self.w_k, self.b_k = mat(H, m, x), nn.Parameter(torch.zeros(H, m))
        self.w_v, self.b_v = mat(H, d, x), nn.Parameter(torch.zeros(H, d))
        self.w_q, self.b_q = mat(H, m, x), nn.Parameter(torch.zeros(H, m))
        if self.gamma_mode == "sigmoid":
            self.w_gamma, self.b_gamma = mat(H, x), nn.Parameter(torch.zeros(H))
        if self.mu_mode == "sigmoid":
            self.w_mu, self.b_mu = mat(H, x), nn.Parameter(torch.full((H,), 3.0))
        self.s0 = nn.Parameter(self._initial_slots(c["init"]))
        if self.output_gate:
            self.w_g, self.b_g = mat(H * d, x), nn.Parameter(torch.zeros(H * d))
            self.w_o, self.b_o = mat(x, H * d), nn.Parameter(torch.zeros(x))

    def _initial_slots(self, init):
        H, m, d = self.heads, self.m, self.d
        if init == "identity" and m <= d:
            return torch.eye(d)[:m].expand(H, m, d).clone()
        # Random orthonormal slots (QR with R's diagonal positive); unit slots when m > d.
        g = torch.randn(H, d, m)
        if m <= d:
            q, r = torch.linalg.qr(g)
            q = q * torch.sign(torch.diagonal(r, dim1=-2, dim2=-1)).unsqueeze(-2)
            return q.transpose(-1, -2).contiguous()
        g = g.transpose(-1, -2)
        return g / g.norm(dim=-1, keepdim=True)

    # -- helpers, all on [B, H, ...] ---------------------------------------------------------

    def _project(self, x, w, b):
        z = torch.einsum("btx,hrx->bthr", x, w) + b
        if self.activation == "silu":
            return z * torch.sigmoid(z)
        if self.activation == "tanh":
            return torch.tanh(z)
        return z

    def _scalar(self, x, mode, const, name):
        if mode == "constant":
            return x.new_full(x.shape[:2] + (self.heads,), const)
        w, b = getattr(self, "w_" + name), getattr(self, "b_" + name)
        return torch.sigmoid(torch.einsum("btx,hx->bth", x, w) + b)

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

    def _step(self, S, k, v, q, gamma, mu, diag):
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

    # -- forward ------------------------------------------------------------------------------

    def forward(self, x, trace=None):
        if x.dim() != 3 or x.shape[-1] != self.d_in:
            raise ValueError(f"lattice: expected input [B, T, {self.d_in}], got {list(x.shape)}")
        B, T, _ = x.shape
        H, d = self.heads, self.d
        k_all = self._project(x, self.w_k, self.b_k)  # [B, T, H, m]
        v_all = self._project(x, self.w_v, self.b_v)  # [B, T, H, d]
        q_all = self._project(x, self.w_q, self.b_q)
        gamma_all = self._scalar(x, self.gamma_mode, self.gamma_const, "gamma")  # [B, T, H]
        mu_all = self._scalar(x, self.mu_mode, self.mu_const, "mu")

        S = self.s0.unsqueeze(0).expand(B, -1, -1, -1)
        diag = [] if trace is not None else None
        ys = []
        for t in range(T):
            S, y = self._step(
                S, k_all[:, t], v_all[:, t], q_all[:, t], gamma_all[:, t], mu_all[:, t], diag
            )
            ys.append(y)
        if T:
            mixed = torch.stack(ys, 1).reshape(B, T, H * d)
        else:
            mixed = x.new_zeros(B, 0, H * d)
        out = mixed
        if self.output_gate:
            gate = F.gelu(F.linear(x, self.w_g, self.b_g))
            out = F.linear(mixed * gate, self.w_o, self.b_o)
        if trace is not None:
            self._fill_trace(trace, x, diag, k_all, v_all, q_all, gamma_all, mu_all)
            if self.output_gate:
                trace["mixer_output"] = mixed.detach()
            trace["output"] = out.detach()
        return out

    def _fill_trace(self, trace, x, diag, k_all, v_all, q_all, gamma_all, mu_all):
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
            if T and diag[0]["error"] is not None:
                arrays["error"] = stacked("error", None)
            elif T == 0 and self._error_width() is not None:
                arrays["error"] = x.new_zeros(B, 0, self.heads, self._error_width())
            slots = arrays["slots"]
            sn = torch.sqrt((slots * slots).sum(-1))  # plain norms, as the C++ trace
            ok = sn >= self.eps
            unit = slots / _safe(sn, ~ok).unsqueeze(-1)
            cos = torch.einsum("bthid,bthjd->bthij", unit, unit)
            cos = torch.where(ok.unsqueeze(-1) & ok.unsqueeze(-2), cos, torch.zeros_like(cos))
            arrays["slot_norms"] = sn
            arrays["slot_cosines"] = cos
            arrays.update(k=k_all, v=v_all, q=q_all, gamma=gamma_all, mu=mu_all)
            for h in range(self.heads):
                p = "" if h == 0 else f"head{h}/"
                for name, a in arrays.items():
                    trace[p + name] = a[:, :, h].detach()
                trace[p + "slots_initial"] = self.s0[h].detach().expand(B, m, d).clone()

    def _error_width(self):
        if self.mode in _ORTHOGONAL:
            return {"dec": self.d, "enc": self.m, "sim": None}[self.variant]
        return None if self.mode in ("linear_attention", "mamba2") else self.d
