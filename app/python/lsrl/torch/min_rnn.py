"""PyTorch twins of the C++ minGRU and minLSTM seed models ("mingru", "minlstm").

They mirror core/seed_models/min_rnn_model.h, mingru.h, minlstm.h and min_rnn_scan.h (described
in docs/models.md, "minGRU / minLSTM"). A one-hot token row is embedded without a bias,
then each layer does

    u = LN(x)   (x itself with "layer_norm": false)
    h = cell(u) ∈ R^{d_h}
    x ← x + W_out h + b_out   (no skip with "residual": false)

and the logits are W_head x + b_head. The cell's Linears read u_t only, so a layer is the
diagonal linear recurrence h_t = a_t ⊙ h_{t−1} + w_t ⊙ h̃_t with a_t + w_t = 1:

    minGRU   z = σ(k), k = Linear_z(u):      log a = −softplus(k), log w = −softplus(−k)
    minLSTM  f = σ(p), i = σ(k):             diff = softplus(−p) − softplus(−k),
             f' = f/(f+i), i' = i/(f+i)      log a = log f' = −softplus(diff),
                                             log w = log i' = −softplus(−diff)
    ĥ = Linear_h(u);  h̃ = ĥ ("vanilla") or g(ĥ) ("log"), g(x) = x + ½ (x ≥ 0), σ(x) (x < 0)

The gates are kept in log form (never rounded to 0 or 1 first), as in the C++. Every layer
starts from h_0 = 0, which the log variant turns into g(0) = ½.

The recurrence runs in the config's "mode" (or `module.mode`, which may be changed after
construction), and the modes agree to rounding:

    sequential  a Python loop over time, one step per iteration
    parallel    an associative scan over (a_t, b_t), b_t = w_t h̃_t, in linear space with
                (a₁, b₁) • (a₂, b₂) = (a₁a₂, a₂b₁ + b₂): a work-efficient tree of
                2⌈log₂ T⌉ vectorised steps, none per time step (the C++ walks
                Blelloch's tree in place; the two differ only in rounding)
    log_space   Heinsen's scan (log variant only): a* = cumsum(log a) with a*_0 = 0,
                log h_t = a*_t + logcumsumexp_{j≤t}(log b_j − a*_j), log b_0 = log h_0

state_dict names and shapes are the C++ weight tensors' ("embed.weight",
"layers.<l>.norm.weight", "layers.<l>.z.weight", "layers.<l>.f.bias", "layers.<l>.h.weight",
"layers.<l>.out.weight", "head.bias", ...), so C++ weights load directly.
"""

import torch
from torch import nn
from torch.nn import functional as F

VARIANTS = ("log", "vanilla")
MODES = ("sequential", "parallel", "log_space")
# Attention / retention maps are [d_h][T][T+1]: traced only for short sequences, as in C++.
TRACE_ATTENTION_MAX_STEPS = 256
_CONFIG_KEYS = (
    "d_model", "d_h", "layers", "d_out", "variant", "mode", "layer_norm", "residual",
    "seed", "vocabulary", "task_length", "data_tokens",
)  # fmt: skip


# ---- the scalar functions of min_rnn_scan.h, in their safe forms --------------------------


def softplus(x):
    """max(x, 0) + log1p(exp(−|x|)), the C++ form (F.softplus switches to x above 20)."""
    return -F.logsigmoid(-x)


def g(x):
    """g(x) = x + ½ for x ≥ 0, σ(x) otherwise: positive and continuous."""
    return torch.where(x >= 0, F.relu(x) + 0.5, torch.sigmoid(x))


def log_g(x):
    """log g(x) = log(x + ½) for x ≥ 0, −softplus(−x) = logsigmoid(x) otherwise."""
    # relu keeps the unused branch's log finite, so its gradient is no NaN.
    return torch.where(x >= 0, torch.log(F.relu(x) + 0.5), F.logsigmoid(x))


def min_gru_gates(k):
    """(log a, log w) = (log(1 − z), log z) of z = σ(k)."""
    return F.logsigmoid(-k), F.logsigmoid(k)


def min_lstm_gates(p, k):
    """(log f', log i') of f = σ(p), i = σ(k), normalised to f' + i' = 1."""
    diff = F.logsigmoid(k) - F.logsigmoid(p)  # softplus(−p) − softplus(−k) = log(i / f)
    return F.logsigmoid(-diff), F.logsigmoid(diff)


def candidates(h_pre, variant):
    """h̃ from ĥ: ĥ itself (vanilla) or g(ĥ) (log)."""
    return g(h_pre) if variant == "log" else h_pre


def initial_state(h0, variant):
    """The state the recurrence starts from for a raw h_0: g(h_0) in the log variant."""
    return g(h0) if variant == "log" else h0


# ---- the three modes of the recurrence ----------------------------------------------------


def scan_sequential(log_a, log_w, h_tilde, h0):
    """h_t = a_t h_{t−1} + w_t h̃_t, one step at a time. log_a, log_w, h_tilde [B, T, d];
    h0 broadcastable to [B, d]. Returns h [B, T, d]."""
    a = torch.exp(log_a)
    b = torch.exp(log_w) * h_tilde
    h = h0.expand(b.shape[0], b.shape[2])
    states = []
    # unbind, not a[:, t]: indexing would make backward scatter into a [B, T, d] zero
    # tensor per step, O(T²) in all.
    for a_t, b_t in zip(a.unbind(1), b.unbind(1)):
        h = a_t * h + b_t
        states.append(h)
    if not states:
        return b
    return torch.stack(states, dim=1)


def _scan_pairs(a, b):
    """Inclusive scan of the leaves (a_t, b_t) [B, T, d] under (a₁, b₁) • (a₂, b₂) =
    (a₁a₂, a₂b₁ + b₂); returns the b part of every prefix. Work-efficient (Blelloch's
    tree, as the C++): combine neighbouring pairs, scan the half-length sequence of pairs,
    then fill in the even positions; O(T) work, 2⌈log₂ T⌉ vectorised steps."""
    T = b.shape[1]
    if T <= 1:
        return b
    odd = T % 2 == 1
    if odd:  # pad with the identity (1, 0)
        a = torch.cat([a, torch.ones_like(a[:, :1])], dim=1)
        b = torch.cat([b, torch.zeros_like(b[:, :1])], dim=1)
    a_even, a_odd = a[:, 0::2], a[:, 1::2]
    b_even, b_odd = b[:, 0::2], b[:, 1::2]
    # prefixes ending at the odd positions 1, 3, 5, ... (0-based)
    odd_prefix = _scan_pairs(a_even * a_odd, a_odd * b_even + b_odd)
    # position 2k ≥ 2 is the prefix ending at 2k − 1, then its own leaf
    even_prefix = torch.cat(
        [b_even[:, :1], a_even[:, 1:] * odd_prefix[:, :-1] + b_even[:, 1:]], dim=1
    )
    out = torch.stack([even_prefix, odd_prefix], dim=2).reshape(b.shape)
    return out[:, :T] if odd else out


def scan_parallel(log_a, log_w, h_tilde, h0):
    """The same states from a parallel associative scan in linear space (_scan_pairs):
    no loop over time steps, only over the ⌈log₂ T⌉ levels of the tree."""
    a = torch.exp(log_a)
    b = torch.exp(log_w) * h_tilde
    if b.shape[1] == 0:
        return b
    # h_0 enters through the first leaf: (1, h0) • (a_1, b_1) = (a_1, a_1 h0 + b_1).
    b = torch.cat([a[:, :1] * h0 + b[:, :1], b[:, 1:]], dim=1)
    return _scan_pairs(a, b)


def log_values(log_w, h_pre, h0):
    """Heinsen's log b_0..log b_T [B, T+1, d]: log h_0, then log w_t + log g(ĥ_t)."""
    first = torch.log(h0).expand(log_w.shape[0], 1, log_w.shape[2])
    return torch.cat([first, log_w + log_g(h_pre)], dim=1)


def scan_log_space(log_a, log_w, h_pre, h0):
    """Heinsen's scan (the log variant only; h0 > 0 is the effective start g(h_0)):
    log h_t = a*_t + logcumsumexp_{j≤t}(log b_j − a*_j), a*_t = Σ_{j≤t} log a_j, a*_0 = 0."""
    a_star = F.pad(torch.cumsum(log_a, dim=1), (0, 0, 1, 0))
    lcse = torch.logcumsumexp(log_values(log_w, h_pre, h0) - a_star, dim=1)
    return torch.exp(a_star + lcse)[:, 1:]


def run_recurrence(log_a, log_w, h_pre, h0, variant, mode):
    """One layer's states h [B, T, d] from its gates in log form and ĥ, in `mode`."""
    if mode == "log_space":
        if variant != "log":
            raise ValueError('min-RNN: the log_space mode needs the "log" variant')
        return scan_log_space(log_a, log_w, h_pre, h0)
    scan = scan_sequential if mode == "sequential" else scan_parallel
    return scan(log_a, log_w, candidates(h_pre, variant), h0)


def retention(log_a):
    """Π_{j=m+1}^{t} a_j as [B, d, T, T+1] (row r is step t = r + 1, column 0 is h_0,
    column m ≥ 1 token m; 1 on the diagonal m = t, 0 for m > t)."""
    B, T, d = log_a.shape
    a_star = F.pad(torch.cumsum(log_a, dim=1), (0, 0, 1, 0)).transpose(1, 2)  # [B, d, T+1]
    # exp(a*_t − a*_m) ≤ 1 where m ≤ t; the masked part is filled after the exp.
    diff = a_star[:, :, 1:, None] - a_star[:, :, None, :]
    keep = torch.ones(T, T + 1, dtype=torch.bool, device=log_a.device).tril(1)
    return torch.where(keep, torch.exp(torch.where(keep, diff, torch.zeros_like(diff))),
                       torch.zeros_like(diff))


def attention(log_a, log_w):
    """The implicit attention [B, d, T, T+1]: retention times w_m for columns m ≥ 1."""
    w = F.pad(torch.exp(log_w), (0, 0, 1, 0), value=1.0).transpose(1, 2)  # [B, d, T+1]
    return retention(log_a) * w[:, :, None, :]


# ---- the model ----------------------------------------------------------------------------


def _int(config, key, default, kind, lo=1, hi=10**6):
    value = config.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise ValueError(f'{kind} config: "{key}" must be an integer in {lo}..{hi}, '
                         f"got {value!r}")
    return value


def _bool(config, key, default, kind):
    value = config.get(key, default)
    if not isinstance(value, bool):
        raise ValueError(f'{kind} config: "{key}" must be true or false, got {value!r}')
    return value


def _choice(config, key, default, choices, kind):
    value = config.get(key, default)
    if value not in choices:
        raise ValueError(f'{kind} config: "{key}" must be one of {", ".join(choices)}, '
                         f"got {value!r}")
    return value


class _MinRnnLayer(nn.Module):
    """LayerNorm (optional), the cell's gate Linears and "h", and the projection "out"."""

    def __init__(self, gate_names, d_model, d_h, layer_norm):
        super().__init__()
        if layer_norm:
            self.norm = nn.LayerNorm(d_model, eps=1e-5)  # C++ kLayerNormEps
        for name in gate_names:
            self.add_module(name, nn.Linear(d_model, d_h))
        self.add_module("h", nn.Linear(d_model, d_h))
        self.out = nn.Linear(d_h, d_model)


class _MinRnnModel(nn.Module):
    """What minGRU and minLSTM share; subclasses name their gate Linears and turn their
    pre-activations into (log a, log w) and the cell's trace arrays."""

    KIND = ""
    GATES = ()

    def __init__(self, config: dict):
        super().__init__()
        kind = self.KIND
        unknown = sorted(set(config) - set(_CONFIG_KEYS))
        if unknown:
            raise ValueError(f"{kind} config: unknown key(s) {', '.join(unknown)}")
        self.d_model = _int(config, "d_model", 8, kind)
        self.d_h = _int(config, "d_h", 8, kind)
        self.n_layers = _int(config, "layers", 1, kind, hi=1000)
        self.d_out = _int(config, "d_out", 16, kind)
        self.vocabulary = _int(config, "vocabulary", 16, kind, lo=3)
        self.variant = _choice(config, "variant", "log", VARIANTS, kind)
        self.layer_norm = _bool(config, "layer_norm", True, kind)
        self.residual = _bool(config, "residual", True, kind)
        self._mode = None
        self.mode = config.get("mode", "sequential")
        self.embed = nn.Linear(self.vocabulary, self.d_model, bias=False)
        self.layers = nn.ModuleList(
            _MinRnnLayer(self.GATES, self.d_model, self.d_h, self.layer_norm)
            for _ in range(self.n_layers)
        )
        self.head = nn.Linear(self.d_model, self.d_out)
        # The C++ init (§4.3, PyTorch's defaults) but for the embedding: N(0, 1).
        nn.init.normal_(self.embed.weight)

    @property
    def mode(self):
        return self._mode

    @mode.setter
    def mode(self, value):
        kind = self.KIND
        value = _choice({"mode": value}, "mode", None, MODES, kind)
        if value == "log_space" and self.variant != "log":
            raise ValueError(f'{kind} config: "mode": log_space needs "variant": "log" '
                             "(a vanilla candidate can be negative)")
        self._mode = value

    def gates(self, pre):
        """(log a, log w) [B, T, d_h] from the gate pre-activations {name: [B, T, d_h]}."""
        raise NotImplementedError

    def trace_cell(self, pre, log_a, log_w):
        """The cell's trace arrays {name: [B, T, d_h]}."""
        raise NotImplementedError

    def forward(self, x, trace=None):
        """x [B, T, vocabulary] → logits [B, T, d_out]; fills `trace` (detached arrays with
        a leading batch dim, named as the C++ trace) when it is a dict."""
        if x.dim() != 3 or x.shape[-1] != self.vocabulary:
            raise ValueError(f"{self.KIND}: expected input [B, T, {self.vocabulary}], "
                             f"got {list(x.shape)}")
        x = self.embed(x.to(self.embed.weight.dtype))
        h0 = initial_state(x.new_zeros(self.d_h), self.variant)
        for l, layer in enumerate(self.layers):
            u = layer.norm(x) if self.layer_norm else x
            pre = {name: getattr(layer, name)(u) for name in self.GATES}
            h_pre = layer.h(u)
            log_a, log_w = self.gates(pre)
            h = run_recurrence(log_a, log_w, h_pre, h0, self.variant, self.mode)
            x = layer.out(h) + x if self.residual else layer.out(h)
            if trace is not None:
                self._trace_layer(trace, l, pre, log_a, log_w, h_pre, h0, h, x)
        out = self.head(x)
        if trace is not None:
            trace["output"] = out.detach()
        return out

    def _trace_layer(self, trace, l, pre, log_a, log_w, h_pre, h0, h, x):
        p = "" if l == 0 else f"layer{l}."
        B, T = h.shape[0], h.shape[1]
        with torch.no_grad():
            arrays = self.trace_cell(pre, log_a, log_w)
            arrays["h_pre"] = h_pre
            arrays["h_tilde"] = candidates(h_pre, self.variant)
            arrays["h0"] = h0.expand(B, self.d_h)
            arrays["hidden"] = h
            if T <= TRACE_ATTENTION_MAX_STEPS:
                arrays["attention"] = attention(log_a, log_w)
                arrays["retention"] = retention(log_a)
            # How far the other modes are from the sequential loop, per sequence.
            seq = scan_sequential(log_a, log_w, candidates(h_pre, self.variant), h0)
            par = scan_parallel(log_a, log_w, candidates(h_pre, self.variant), h0)
            diff = [_max_abs_difference(par, seq)]
            if self.variant == "log":
                diff.append(_max_abs_difference(scan_log_space(log_a, log_w, h_pre, h0), seq))
            else:
                diff.append(torch.full((B,), float("nan"), dtype=h.dtype, device=h.device))
            arrays["mode_difference"] = torch.stack(diff, dim=1)
            arrays["layer_output"] = x
            for name, value in arrays.items():
                trace[p + name] = value.detach()


def _max_abs_difference(a, b):
    """max |a − b| per sequence [B]; NaN where one side is NaN and the other is not."""
    d = (a - b).abs().flatten(1)
    mismatch = (torch.isnan(a) != torch.isnan(b)).flatten(1).any(dim=1)
    d = torch.where(torch.isnan(d), torch.zeros_like(d), d)
    m = d.max(dim=1).values if d.shape[1] else d.new_zeros(d.shape[0])
    return torch.where(mismatch, torch.full_like(m, float("nan")), m)


class MinGRU(_MinRnnModel):
    """minGRU: z = σ(Linear_z u), h_t = (1 − z_t) ⊙ h_{t−1} + z_t ⊙ h̃_t."""

    KIND = "mingru"
    GATES = ("z",)

    def gates(self, pre):
        return min_gru_gates(pre["z"])

    def trace_cell(self, pre, log_a, log_w):
        return {"z_pre": pre["z"], "z": torch.sigmoid(pre["z"])}


class MinLSTM(_MinRnnModel):
    """minLSTM: f = σ(Linear_f u), i = σ(Linear_i u), normalised to f' + i' = 1;
    h_t = f'_t ⊙ h_{t−1} + i'_t ⊙ h̃_t."""

    KIND = "minlstm"
    GATES = ("f", "i")

    def gates(self, pre):
        return min_lstm_gates(pre["f"], pre["i"])

    def trace_cell(self, pre, log_a, log_w):
        return {
            "f_pre": pre["f"],
            "i_pre": pre["i"],
            "f": torch.sigmoid(pre["f"]),
            "i": torch.sigmoid(pre["i"]),
            "f_prime": torch.exp(log_a),
            "i_prime": torch.exp(log_w),
        }
