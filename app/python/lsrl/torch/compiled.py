"""Compiled programs as trainable PyTorch modules (docs/python.md, "Compiled programs as
PyTorch modules"; the forwards are docs/architectures.md's).

``from_compiled`` builds a target's weights exactly as ``lsrl compile`` + ``lsrl export``
do (the same C++ path: constant fit, target options, compile, tensors) and loads them
into a module whose parameters carry the exported tensor names. Its forward is the C++
target's float64 forward (tests/python/test_torch_compiled.py holds every target to it).
``save_compiled`` writes the module back as the weights file ``lsrl export`` writes,
marked as fine-tuned, so that ``lsrl run`` and the explorer open it beside its program.

    import lsrl.torch as lt
    net = lt.from_compiled("tok2tok.json", target="gru", precision="fp32", gru_update="paper")
    y, state = net(x)                    # x: [batch, time, d_in] -> y: [batch, time, d_out]
    y2, state = net(x_more, state)       # the sequence continues
    lt.save_compiled(net, "tuned.safetensors", training={"steps": 200})
"""

from __future__ import annotations

import json
import os
from fractions import Fraction

import numpy as np
import torch
from torch import _VF, nn

from .. import _lsrl

_F = torch.nn.functional


# ---- the options, as lsrl export names them ----------------------------------------------


def _number_text(v) -> str:
    if isinstance(v, (Fraction, int, np.integer)):
        return str(v)
    if isinstance(v, float):
        return str(Fraction(v))  # the double's exact value, as --box 0.1 would not be
    return str(v)


def _option_texts(box, horizon, positivity, gru_update, stacked, hawk_residual) -> dict:
    values = {}
    if box is not None:
        if isinstance(box, str):
            values["box"] = box
        else:
            lo, hi = box
            values["box"] = f"{_number_text(lo)},{_number_text(hi)}"
    if horizon is not None:
        values["horizon"] = str(int(horizon))
    if positivity is not None:
        values["positivity"] = str(positivity)
    if gru_update is not None:
        values["gru-update"] = str(gru_update)
    if stacked:
        values["stacked"] = "true"
    if hawk_residual is not None:
        values["hawk-residual"] = "on" if hawk_residual in (True, "on") else "off"
    return values


def from_compiled(source, target: str | None = None, precision: str | None = None, *,
                  box=None, horizon: int | None = None, input_grid=None,
                  positivity: str | None = None, gru_update: str | None = None,
                  stacked: bool = False, hawk_residual=None, name: str | None = None):
    """A trainable module of `source` compiled for `target`.

    source: a program (its output node, or a ``lsrl.ForEach``), or a file: a program (graph
    JSON or .py; its declared domain applies) or a compiled model (``lsrl compile -o``; its
    recorded target, options and precision apply, as for ``lsrl export``).
    target: linear-rnn, gated-linear-rnn, rnn, gated-rnn, gru, lstm or hawk (default as
    ``lsrl export``: linear-rnn, or gated-linear-rnn with Multiplicative nodes).
    precision: "float64" or "fp32" fit the program's constants to the domain (box,
    horizon, input_grid, else the program's declared domain) as ``lsrl compile
    --precision`` does; "exact" keeps them as built; None: float64 when a domain is known.
    The module is float32 for "fp32", else float64.
    box, horizon, positivity, gru_update, stacked, hawk_residual: the target options of
    ``lsrl export`` (box=(lo, hi) or "lo,hi"); errors name them as the CLI does (--box).
    name: the program's name in the weights' metadata (files: their recorded name or stem).
    """
    from ..program import ForEach
    from ..basic_blocks import Variable

    options = _option_texts(box, horizon, positivity, gru_update, stacked, hawk_residual)
    grid = None if input_grid is None else _number_text(input_grid)
    if isinstance(source, Variable):
        source = ForEach(source, verbose=False)
    if isinstance(source, ForEach):
        info, tensors, metadata = _lsrl.compiled_target(
            source._graph, source._output_id, source._model_metadata or "", name or "",
            target, options, precision, grid)
    elif isinstance(source, (str, os.PathLike)):
        info, tensors, metadata = _lsrl.compiled_target_file(
            os.fspath(source), name or "", target, options, precision, grid)
    else:
        raise TypeError("from_compiled: source must be a program (an lsrl node or ForEach) or "
                        f"a file path, got {type(source).__name__}")
    fitted = info["precision"] or {}
    dtype = torch.float32 if fitted.get("precision") == "fp32" else torch.float64
    return network_of(tensors, metadata, info).to(dtype)


def network_of(tensors, metadata: str, info: dict | None = None) -> CompiledNetwork:
    """The module of these [(name, array)] tensors and "lsrl" metadata (JSON text), in
    float64: what from_compiled builds, or a weights file's contents."""
    meta = json.loads(metadata)
    arch = meta["arch"]
    cls = {"linear_rnn": NormalFormNet, "gated_linear_rnn": NormalFormNet, "rnn": NormalFormNet,
           "gated_rnn": NormalFormNet, "gru": ReluGruNet, "lstm": ReluLstmNet,
           "hawk": HawkNet}.get(arch)
    if cls is None:
        raise ValueError(f"weights of arch {arch!r}: not a compiled target")
    return cls(list(tensors), metadata, info or {})


def save_compiled(module: CompiledNetwork, path, training: dict | None = None) -> None:
    """Writes `module` as the weights file ``lsrl export`` writes (safetensors, or .npz by
    extension), its metadata marked "fine_tuned" with how it was built (target, options,
    compile, the module's dtype) and `training` (any JSON-able dict). The source program's
    name and hash and the precision record stay as built. Refuses non-finite values."""
    state = module.state_dict()
    tensors = _float64_tensors(module, state)
    info = module.info
    fine_tuned = {
        "by": "lsrl.torch.save_compiled",
        "dtype": str(next(iter(state.values())).dtype).replace("torch.", ""),
        "target": info.get("target"),
        "target_options": info.get("target_options", {}),
        "compile": info.get("compile", {}),
    }
    if training is not None:
        fine_tuned["training"] = training
    _lsrl.save_target_weights(tensors, module.metadata_text, os.fspath(path), fine_tuned)


def cpp_forward(module: CompiledNetwork, x) -> np.ndarray:
    """The C++ float64 target (what ``lsrl run`` computes) with the module's current
    weights, on one sequence x [T, d_in]: the reference the module is tested against."""
    return _lsrl.target_run(_float64_tensors(module), module.metadata_text,
                            np.asarray(x, dtype=np.float64))


def _float64_tensors(module: CompiledNetwork, state: dict | None = None) -> list:
    """[(name, float64 array)] of the module's tensors, in the file's order (a float32
    module's values exactly)."""
    state = module.state_dict() if state is None else state
    return [(n, state[n].detach().to(torch.float64).cpu().numpy()) for n in module.tensor_names]


# ---- the modules -------------------------------------------------------------------------


def _child(root: nn.Module, path: list) -> nn.Module:
    """The submodule at `path` (dotted name parts), plain containers made where missing."""
    m = root
    for part in path:
        if part not in m._modules:
            m.add_module(part, nn.Module())
        m = m._modules[part]
    return m


class CompiledNetwork(nn.Module):
    """A compiled target as a module: every exported tensor is a parameter (or, for the
    shift's record ``positivity.c``, a buffer) under its exported name.

    forward(x, state=None) -> (y, state): x [batch, time, d_in] (or [time, d_in]); pass
    the returned state back in to continue the sequences (None: the initial state).
    """

    def __init__(self, tensors: list, metadata_text: str, info: dict):
        super().__init__()
        self.metadata_text = metadata_text
        self.metadata = json.loads(metadata_text)
        self.info = info
        self.tensor_names = [n for n, _ in tensors]
        self._build(dict(tensors))

    def _build(self, tensors: dict) -> None:
        for name, value in tensors.items():
            self._place(name, torch.from_numpy(np.array(value, dtype=np.float64)))

    def _place(self, name: str, value: torch.Tensor) -> None:
        *path, leaf = name.split(".")
        owner = _child(self, path)
        if leaf in owner._parameters or leaf in owner._buffers:
            return  # placed by a subclass (e.g. inside nn.RNN)
        if name.endswith("positivity.c"):  # the shift's c: a record, folded in already
            owner.register_buffer(leaf, value)
        else:
            owner.register_parameter(leaf, nn.Parameter(value))

    def _tensors(self) -> dict:
        return {**dict(self.named_parameters()), **dict(self.named_buffers())}

    def forward(self, x, state=None):
        x = torch.as_tensor(x)
        batched = x.dim() == 3
        if not batched:
            x = x.unsqueeze(0)
        d_in = self.metadata["d_in"]
        if x.dim() != 3 or x.shape[-1] != d_in:
            raise ValueError(f"{self.metadata['arch']}: inputs must be [batch, time, {d_in}], "
                             f"got {list(x.shape)}")
        dtype = next(self.parameters()).dtype
        y, state = self._run(x.to(dtype), state, self._tensors())
        return (y if batched else y[0]), state

    def _run(self, x, state, p):
        raise NotImplementedError


def _affine(x, p, prefix):
    return x @ p[prefix + "weight"].T + p[prefix + "bias"]


class _ReluState(nn.RNN):
    """A ReLU state update s_t = ReLU(A s_{t-1} + B u_t + bias): PyTorch's own nn.RNN
    (relu), its weights renamed to the exported state.B / state.A / state.bias. The NF has
    one bias, so nn.RNN's second (bias_hh) is a fixed zero buffer, not saved."""

    def __init__(self, A, B, bias):
        super().__init__(B.shape[1], A.shape[0], nonlinearity="relu", batch_first=True)
        del self.bias  # nn.RNN's "has biases" flag: the name is the exported tensor's here
        names = {"weight_ih_l0": ("B", B), "weight_hh_l0": ("A", A), "bias_ih_l0": ("bias", bias)}
        for old, (new, value) in names.items():
            delattr(self, old)
            self.register_parameter(new, nn.Parameter(value))
        delattr(self, "bias_hh_l0")
        self.register_buffer("bias_hh", torch.zeros_like(bias), persistent=False)
        self._flat_weights_names = ["B", "A", "bias", "bias_hh"]
        self._all_weights = [self._flat_weights_names]
        self._flat_weights = [getattr(self, n) for n in self._flat_weights_names]

    def forward(self, u, s):
        """(states [batch, T, d_s], last [1, batch, d_s]) from u [batch, T, d_u] and s [1,
        batch, d_s]: nn.RNN's own ReLU kernel, with biases."""
        return _VF.rnn_relu(u, s, self._flat_weights, True, 1, 0.0, self.training, False, True)


class NormalFormNet(CompiledNetwork):
    """linear-rnn, gated-linear-rnn, rnn, gated-rnn: per layer s_t = A s_{t-1} + B u_t +
    bias (ReLU of it for rnn and gated-rnn: nn.RNN), s_0 = s0; y = F(s) (⊙ G(s) when
    gated), F and G stacks of ReLU(W z + b); then the readout. State: [s per layer]."""

    def _build(self, tensors: dict) -> None:
        for l, layer in enumerate(self.metadata["layers"]):
            if layer["state_update"] == "relu":
                p = f"layers.{l}.state."
                t = {k: torch.from_numpy(np.array(tensors[p + k])) for k in ("A", "B", "bias")}
                _child(self, ["layers", str(l)]).add_module("state", _ReluState(t["A"], t["B"], t["bias"]))
        super()._build(tensors)

    def _run(self, x, state, p):
        u = x
        batch, steps = x.shape[0], x.shape[1]
        after = []
        for l, layer in enumerate(self.metadata["layers"]):
            q = f"layers.{l}."
            s = state[l] if state is not None else p[q + "state.s0"].expand(batch, -1)
            if layer["state_update"] == "relu":
                seq, last = self.get_submodule(q + "state")(u, s.unsqueeze(0).contiguous())
                s = last[0]
            else:
                drive = u @ p[q + "state.B"].T + p[q + "state.bias"]
                A = p[q + "state.A"]
                out = []
                for t in range(steps):
                    s = s @ A.T + drive[:, t]
                    out.append(s)
                seq = torch.stack(out, 1) if out else drive
            after.append(s)
            y = seq
            for k in range(len(layer["f_widths"])):
                y = _F.relu(_affine(y, p, f"{q}f.{k}."))
            if layer["role"] == "gated":
                g = seq
                for k in range(len(layer["g_widths"])):
                    g = _F.relu(_affine(g, p, f"{q}g.{k}."))
                y = y * g
            u = y
        return _affine(u, p, "readout."), after


class _GatedRnnNet(CompiledNetwork):
    """gru and lstm: one layer after another, each over the whole sequence; the tensor
    names of nn.GRU / nn.LSTM per layer ("gru.{k}.weight_ih_l0") or stacked
    ("gru.weight_ih_l{k}", initial states "gru.h0" [layers, H])."""

    kind = ""

    def _layer(self, p, k):
        kind = self.kind
        if self.metadata.get("stacked"):
            w = {n: p[f"{kind}.{n}_l{k}"] for n in ("weight_ih", "weight_hh", "bias_ih", "bias_hh")}
            for s in self.initial_states:
                w[s] = p[f"{kind}.{s}"][k]
        else:
            w = {n: p[f"{kind}.{k}.{n}_l0"] for n in ("weight_ih", "weight_hh", "bias_ih", "bias_hh")}
            for s in self.initial_states:
                w[s] = p[f"{kind}.{k}.{s}"]
        return w

    def _run(self, x, state, p):
        batch = x.shape[0]
        after = []
        for k in range(len(self.metadata["layers"])):
            w = self._layer(p, k)
            start = state[k] if state is not None else tuple(
                w[s].expand(batch, -1) for s in self.initial_states)
            x, last = self._scan(x @ w["weight_ih"].T + w["bias_ih"], w, start)
            after.append(last)
        return _affine(x, p, "readout."), after


class ReluGruNet(_GatedRnnNet):
    """gru: nn.GRU's layout and gate order (r, z, n; reset after the matmul) with every
    gate ReLU, so not nn.GRU itself: r = ReLU(..), z = ReLU(..), n = ReLU(W_in x + b_in +
    r ⊙ (W_hn h + b_hn)); h' = (1 − z) ⊙ n + z ⊙ h ("pytorch") or (1 − z) ⊙ h + z ⊙ n
    ("paper"). State: [(h,) per layer]."""

    kind = "gru"
    initial_states = ("h0",)

    def _scan(self, gi, w, start):
        (h,) = start
        H = h.shape[-1]
        paper = self.metadata["gru_update"] == "paper"
        out = []
        for t in range(gi.shape[1]):
            gh = h @ w["weight_hh"].T + w["bias_hh"]
            a = gi[:, t]
            r = _F.relu(a[:, :H] + gh[:, :H])
            z = _F.relu(a[:, H:2 * H] + gh[:, H:2 * H])
            n = _F.relu(a[:, 2 * H:] + r * gh[:, 2 * H:])
            h = (1 - z) * h + z * n if paper else (1 - z) * n + z * h
            out.append(h)
        return torch.stack(out, 1) if out else gi[:, :, :H], (h,)


class ReluLstmNet(_GatedRnnNet):
    """lstm: nn.LSTM's layout (gates i, f, g, o) with every gate ReLU and h = o ⊙ ReLU(c),
    so not nn.LSTM itself. State: [(h, c) per layer]."""

    kind = "lstm"
    initial_states = ("h0", "c0")

    def _scan(self, gi, w, start):
        h, c = start
        H = h.shape[-1]
        out = []
        for t in range(gi.shape[1]):
            g = _F.relu(gi[:, t] + h @ w["weight_hh"].T + w["bias_hh"])
            c = g[:, H:2 * H] * c + g[:, :H] * g[:, 2 * H:3 * H]
            h = g[:, 3 * H:] * _F.relu(c)
            out.append(h)
        return torch.stack(out, 1) if out else gi[:, :, :H], (h, c)


class HawkNet(CompiledNetwork):
    """hawk: embed, then per block a recurrent part (linear_x, a causal depthwise conv of
    width K, the RG-LRU with ReLU gates: α = ReLU(a_param)^(c·r), h = α h + √(1 − α²)(i ⊙ u),
    times ReLU(linear_y v), linear_out) and a gated MLP, each added to the residual stream
    (or replacing it without one); then the readout. State: (tokens seen, [(conv inputs
    [batch, D_R, K − 1], h) per block])."""

    def _run(self, x, state, p):
        m = self.metadata
        K, lru_c, residual = m["conv_width"], float(m["lru_c"]), m["residual"]
        seen = state[0] if state is not None else 0
        limit = m.get("max_seq_len")
        if limit is not None and seen + x.shape[1] > limit:
            raise ValueError(f"hawk: {seen + x.shape[1]} tokens exceed the horizon T = {limit} "
                             "that the conv window was built for")
        batch, steps = x.shape[0], x.shape[1]
        v = _affine(x, p, "embed.")
        after = []
        for k in range(len(m["blocks"])):
            q = f"blocks.{k}.recurrent."
            xs = _affine(v, p, q + "linear_x.").transpose(1, 2)  # [batch, D_R, T]
            DR = xs.shape[1]
            if state is not None:
                tail, h = state[1][k]
            else:
                tail = xs.new_zeros(batch, DR, K - 1)
                h = xs.new_zeros(batch, DR)
            padded = torch.cat([tail, xs], 2)
            u = _F.conv1d(padded, p[q + "conv_1d.weight"], p[q + "conv_1d.bias"], groups=DR)
            u = u.transpose(1, 2)  # [batch, T, D_R]
            r = _F.relu(_affine(u, p, q + "rg_lru.a_gate."))
            i = _F.relu(_affine(u, p, q + "rg_lru.input_gate."))
            y = _F.relu(_affine(v, p, q + "linear_y."))
            base = _F.relu(p[q + "rg_lru.a_param"])
            alpha = _decay(base, lru_c * r)
            gain = _sqrt_or_zero(1 - alpha * alpha)
            drive = gain * (i * u)
            hs = []
            for t in range(steps):
                h = alpha[:, t] * h + drive[:, t]
                hs.append(h)
            if hs:
                y = y * torch.stack(hs, 1)
            rec = _affine(y, p, q + "linear_out.")
            v = v + rec if residual else rec
            mlp = f"blocks.{k}.mlp."
            gated = _F.relu(_affine(v, p, mlp + "gate.")) * _affine(v, p, mlp + "up.")
            down = _affine(gated, p, mlp + "down.")
            v = v + down if residual else down
            after.append((padded[:, :, padded.shape[2] - (K - 1):], h))
        return _affine(v, p, "readout."), (seen + steps, after)


def _decay(base, exponent):
    """base^exponent as C's pow gives it, with finite gradients: a zero base gives 0 (or 1
    for a zero exponent) through a branch whose gradient is 0, never 0^(e−1)."""
    positive = base > 0
    safe = torch.where(positive, base, torch.ones_like(base))
    powered = torch.pow(safe, exponent)
    at_zero = torch.where(exponent > 0, torch.zeros_like(exponent), torch.ones_like(exponent))
    return torch.where(positive, powered, at_zero)


def _sqrt_or_zero(x):
    """√x, and 0 with a zero gradient where x ≤ 0 (√ has an infinite slope at 0)."""
    positive = x > 0
    return torch.where(positive, torch.sqrt(torch.where(positive, x, torch.ones_like(x))),
                       torch.zeros_like(x))
