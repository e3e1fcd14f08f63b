"""``ForEach``: a program as a sequence model (run, compile, save, export).

A ForEach runs its output node's program once per token, all states reset first, with
the C++ executor (one C++ call per sequence). Columns of the input are tokens, as in the
paper. The backend follows the global matrix mode (SYMBOLIC: exact, NUMERIC: float64)
unless a call names one. Compiling (``simplify``) replaces the program by the compiled
path; the step history is kept. Files are this project's graph JSON (docs/graph-format.md),
the format of the ``lsrl`` CLI: pickles are never loaded.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections import Counter
from collections.abc import Sequence

import numpy as np

from . import _lsrl
from .basic_blocks import LinState, Variable, _wrap
from .graph_view import ProgramGraph
from .matrix_tools import Matrix, MatrixMode, backend_of

__all__ = ["ForEach", "ProgramGraph", "GraphSimplificationError"]


class GraphSimplificationError(ValueError):
    """A compile failed (the message is the compiler's)."""


class _History(Sequence):
    """(rule, graph after the step) for every step, the graphs rebuilt on access."""

    def __init__(self, compiled):
        self._compiled = compiled

    def __len__(self) -> int:
        return len(self._compiled.rules)

    def __getitem__(self, k):
        if isinstance(k, slice):
            return [self[i] for i in range(*k.indices(len(self)))]
        k = _history_index(k, len(self))
        graph, output = self._compiled.graph_at(k + 1)
        return (self._compiled.rules[k], ProgramGraph(_nodes_of(graph, output)))


class _StepLog(Sequence):
    """The simplification history across compiles and recorded steps: (rule, graph or
    None) items, each compile's graphs rebuilt only when read."""

    def __init__(self):
        self._parts = []  # sequences of (rule, graph) items

    def extend(self, items) -> None:
        self._parts.append(items)

    def append(self, item) -> None:
        self._parts.append([item])

    def __len__(self) -> int:
        return sum(len(p) for p in self._parts)

    def __getitem__(self, k):
        if isinstance(k, slice):
            return [self[i] for i in range(*k.indices(len(self)))]
        k = _history_index(k, len(self))
        for p in self._parts:
            if k < len(p):
                return p[k]
            k -= len(p)


def _history_index(k: int, n: int) -> int:
    """k as an index into n steps (negative counts from the end); IndexError outside."""
    if k < 0:
        k += n
    if not 0 <= k < n:
        raise IndexError("history index out of range")
    return k


def _nodes_of(graph, output) -> list:
    return [_wrap(graph, i) for i in _lsrl.topological_order(graph, output)]


class ForEach:
    """``ForEach(output, keep_graph_history=False, verbose=True)``: the program that ends
    in `output`, run token by token.

    ``loop(x)`` takes a d x T array (any numeric dtype; columns are tokens; 1-D is one
    token), an lsrl.Matrix or nested lists, and returns an lsrl.Matrix dim(output) x T:
    exact (SYMBOLIC) with the exact backend, float64 (NUMERIC) with float64.
    """

    def __init__(self, output: Variable, keep_graph_history: bool = False, verbose: bool = True):
        if not isinstance(output, Variable):
            raise TypeError(f"ForEach needs an lsrl node as its output, got {type(output).__name__}")
        self.keep_graph_history = keep_graph_history
        self.verbose = verbose
        self.simplification_history = _StepLog()
        self.steps = 0
        self.rule_counts = {}
        self.compile_result = None
        self._set_program(output._graph, output._id)

    def _set_program(self, graph, output_id: int, model_metadata: str = "") -> None:
        self._graph = graph
        self._output_id = output_id
        # The "compiled" metadata (JSON text) while the program is a finished compile's path:
        # save() then writes a model file, which holds paths too wide for a graph file.
        self._model_metadata = model_metadata
        self._runner = None
        self._order = None
        self._tokens = None  # every token since the last reset (see __call__)

    # ---- the program ---------------------------------------------------------------
    @property
    def output(self) -> Variable:
        return _wrap(self._graph, self._output_id)

    @output.setter
    def output(self, node: Variable) -> None:
        if not isinstance(node, Variable):
            raise TypeError(f"ForEach.output must be an lsrl node, got {type(node).__name__}")
        self._set_program(node._graph, node._id)

    @property
    def input(self) -> Variable:
        return _wrap(self._graph, self._graph.input_id)

    def topological_sort(self, recompute: bool = False) -> list:
        """The program's nodes in the project's order (Kahn's algorithm, smallest id first);
        the Input comes first."""
        if self._order is None or recompute:
            self._order = _lsrl.topological_order(self._graph, self._output_id)
        return [_wrap(self._graph, i) for i in self._order]

    def get_state_variables(self) -> list:
        return [n for n in self.topological_sort() if isinstance(n, LinState)]

    def graph(self, recompute: bool = False) -> ProgramGraph:
        return ProgramGraph(self.topological_sort(recompute))

    def reset(self) -> None:
        """Back to the initial states: the next one-token call starts a new sequence."""
        self._tokens = None

    def validate_graph(self) -> None:
        """Checks the paper's invariants: exactly one Input (the graph is acyclic by
        construction). A ValueError names what is wrong."""
        inputs = [n for n in self.topological_sort() if n.op == "Input"]
        if len(inputs) != 1:
            raise ValueError(f"Invalid number of input nodes: {len(inputs)}! Must be exactly 1.")

    def record_simplification_step(self, name: str = "unknown") -> None:
        """Adds (name, the current graph) to simplification_history (the graph only with
        keep_graph_history=True), as the paper's rewrites do after each step."""
        self._order = None
        self.simplification_history.append((f"{name}", self.graph() if self.keep_graph_history else None))
        if self.verbose:
            nodes = self.topological_sort()
            counts = Counter(type(n).__name__ for n in nodes)
            print(f"{len(self.simplification_history):>5}. {name} "
                  + ", ".join(f"{k}: {v}" for k, v in counts.items()) + f" (Total: {len(nodes)} nodes).")

    def stats(self) -> dict:
        """Node counts by op, widths, parameters, state size, branch nodes, field."""
        return _lsrl.program_stats(self._graph, self._output_id)

    @property
    def parameter_count(self) -> int:
        """Dense parameters: rows x cols of every Linear's A and b and LinState's A, B, bias."""
        return self.stats()["dense_parameters"]

    def is_path(self) -> bool:
        """True when every node has at most one successor (a compiled model)."""
        return _lsrl.is_path(self._graph, self._output_id)

    # ---- running -------------------------------------------------------------------
    def __call__(self, x, backend: str | None = None) -> Matrix:
        """Runs the tokens (columns of x) and returns the outputs, one column per token.

        As in the paper, a call with several tokens starts from the initial states, while a
        call with one token continues from where the previous call left the states (step a
        program token by token); ``reset()`` returns to the initial states.
        """
        backend = backend_of(backend)
        if self._runner is None:
            self._runner = _lsrl.Runner(self._graph, self._output_id)
        x = _token_block(x, backend)
        if _columns(x) == 1 and self._tokens is not None:
            tokens = _hstack_tokens(self._tokens, x)
            out = self._run(tokens, backend)[:, -1:]
        else:
            tokens, out = x, self._run(x, backend)
        self._tokens = tokens  # only after a run that succeeded
        return out

    def run(self, x, backend: str | None = None) -> Matrix:
        """Runs x (columns are tokens) as one whole sequence from the initial states, however
        many tokens it has; the next one-token call continues after it."""
        self.reset()
        return self(x, backend)

    def _run(self, x, backend: str) -> Matrix:
        if backend == "exact":
            return Matrix._wrap(self._runner.run_exact(x), MatrixMode.SYMBOLIC)
        return Matrix._wrap(self._runner.run_float(x), MatrixMode.NUMERIC)

    # ---- compiling -----------------------------------------------------------------
    def simplify(self, max_steps=None, backend: str | None = None, optimize: bool = False) -> ForEach:
        """Compiles the program into a path of Linear / ReLU / LinState / Multi layers
        (docs/spec/compiler.md) and makes that path this ForEach's program.

        max_steps: stop after this many steps (the graph is then not yet a path).
        backend: "exact" or "float64" (default: the global matrix mode).
        optimize: False (the default) runs the paper's algorithm, as its package does, node
        for node; True adds the size optimisations of `lsrl compile` (docs/compiler.md).
        The steps are kept in ``simplification_history`` as (rule, graph or None) tuples
        (graphs with keep_graph_history=True), with ``steps`` and ``rule_counts``.
        """
        if max_steps is not None and not np.isfinite(max_steps):
            max_steps = None
        try:
            c = _lsrl.compile_program(self._graph, self._output_id, backend_of(backend), optimize,
                                      None if max_steps is None else int(max_steps),
                                      self.keep_graph_history, self.verbose)
        except ValueError as e:
            raise GraphSimplificationError(str(e)) from None
        self._adopt(c)
        if self.verbose:
            print(f"lsrl: compiled ({c.backend}) in {c.step_count} steps, {c.seconds:.2f} s: "
                  f"{c.nodes_before} nodes -> {c.nodes_after}"
                  + (" (stopped early, not yet a path)" if c.stopped else ""))
        return self

    def fold_same_type(self, backend: str | None = None) -> ForEach:
        """Only the fold rules, to their fixed point: consecutive Linears, consecutive
        ReLUs, a Linear into the LinState after it, a Concat of copies into a Linear. The
        branches stay (the paper's ForEach.fold_same_type); steps join the history."""
        try:
            c = _lsrl.compile_program(self._graph, self._output_id, backend_of(backend), False, None,
                                      self.keep_graph_history, False, fold_only=True)
        except ValueError as e:
            raise GraphSimplificationError(str(e)) from None
        self._adopt(c)
        return self

    def _adopt(self, c) -> None:
        """Makes a compile's result this ForEach's program and logs its steps."""
        self.compile_result = c
        self.steps += c.step_count
        for rule, n in c.rule_counts.items():
            self.rule_counts[rule] = self.rule_counts.get(rule, 0) + n
        self.simplification_history.extend(_History(c) if c.has_history else [(r, None) for r in c.rules])
        self._set_program(c.path, c.output, c.model_metadata)

    def debranch_graph(self, max_steps=None, backend: str | None = None, optimize: bool = False) -> ForEach:
        """The compile of ``simplify`` (folds and debranching run together)."""
        return self.simplify(max_steps=max_steps, backend=backend, optimize=optimize)

    # ---- files ---------------------------------------------------------------------
    def to_json(self) -> str:
        """The program (its nodes only) as graph file text."""
        return _lsrl.program_json(self._graph, self._output_id)

    def save_json(self, path, metadata: dict | None = None) -> None:
        """Saves the program (the nodes that reach the output) as a graph file, the format
        `lsrl compile` / `lsrl run` read; after a finished ``simplify()`` (or when loaded
        from one) as a compiled model file, as `lsrl compile -o` writes, whose large
        matrices go to a safetensors file beside it. `metadata` is stored under "metadata"."""
        path = os.fspath(path)
        folder = os.path.dirname(path)
        if folder:
            os.makedirs(folder, exist_ok=True)
        extra = json.dumps(metadata) if metadata else ""
        if self._model_metadata:
            _lsrl.save_model(self._graph, self._output_id, path, self._model_metadata, extra)
        else:
            _lsrl.save_program(self._graph, self._output_id, path, extra)

    @classmethod
    def load_json(cls, path, verbose: bool = True) -> ForEach:
        """A ForEach of a graph file or a compiled model file (`lsrl compile -o`).
        Refuses pickle files (unpickling can run arbitrary code)."""
        path = os.fspath(path)
        _refuse_pickle(path)
        graph, output, model_metadata = _lsrl.load_program(path)
        loop = cls(_wrap(graph, output), verbose=verbose)
        loop._model_metadata = model_metadata
        return loop

    def save(self, path) -> None:
        """Same as save_json (the paper's save pickled; this saves graph JSON)."""
        self.save_json(path)

    @classmethod
    def load(cls, path, verbose: bool = True) -> ForEach:
        """Same as load_json; refuses pickle files (unpickling can run arbitrary code)."""
        return cls.load_json(path, verbose=verbose)

    def __reduce__(self):
        # Pickling goes through the graph JSON (a compiled path through its model file and
        # sidecar), so unpickling builds nodes, never code.
        if self._model_metadata:
            with tempfile.TemporaryDirectory(prefix="lsrl-pickle-") as folder:
                self.save_json(os.path.join(folder, "model.json"))
                files = {}
                for name in os.listdir(folder):
                    with open(os.path.join(folder, name), "rb") as f:
                        files[name] = f.read()
            return (_from_model_files, (type(self), files, self.keep_graph_history, self.verbose))
        return (_from_json_text, (type(self), self.to_json(), self.keep_graph_history, self.verbose))

    def __deepcopy__(self, memo):
        copy = type(self).__new__(type(self))
        copy.__dict__.update({k: v for k, v in self.__dict__.items() if k not in ("_graph", "_runner")})
        copy.simplification_history = _StepLog()
        copy.simplification_history.extend(list(self.simplification_history))
        copy.rule_counts = dict(self.rule_counts)
        copy._set_program(self._graph.copy(), self._output_id, self._model_metadata)
        return copy

    # ---- weights -------------------------------------------------------------------
    def export_weights(self, path, target: str | None = None, format: str | None = None,
                       positivity: str = "split", box=None, horizon: int = 0,
                       gru_update: str = "pytorch", stacked: bool = False,
                       hawk_residual: bool = True) -> dict:
        """Writes a target architecture's float64 weights (docs/weights-format.md), as
        `lsrl export` does. A program that is not yet a path is compiled first (exactly,
        without changing this ForEach).

        target: linear-rnn, gated-linear-rnn, rnn, gated-rnn, gru, lstm or hawk (default, as
        for `lsrl export`: linear-rnn without Multiplicative nodes, gated-linear-rnn with
        them; docs/architectures.md).
        format: "safetensors" or "npz" (default: from the extension, .npz is npz).
        positivity ("split"|"shift"), box=(lo, hi), horizon, gru_update ("paper"|"pytorch"),
        stacked, hawk_residual: the target options of `lsrl compile --target`; one set away
        from its default for a target that does not read it raises ValueError.
        Returns {format, target, tensors, values, output}.
        """
        return _lsrl.export_weights(self._graph, self._output_id, os.fspath(path), target, format,
                                    positivity, None if box is None else tuple(box), horizon,
                                    gru_update, stacked, hawk_residual, "")

    def __repr__(self) -> str:
        return f"<lsrl.ForEach {self.input.dim}->{self.output.dim}, {len(self.topological_sort())} nodes>"


def _refuse_pickle(path: str) -> None:
    """Raises ValueError when the file is a Python pickle, without unpickling it: protocols
    2 and later start with the PROTO opcode (0x80), and every pickle ends with the STOP
    opcode "." (a JSON text never does). A file that cannot be read is left to the
    loader, which names the problem as the CLI does."""
    try:
        with open(path, "rb") as f:
            head = f.read(1)
            f.seek(0, os.SEEK_END)
            size = f.tell()
            f.seek(max(size - 1, 0))
            tail = f.read(1)
    except OSError:
        return
    if head == b"\x80" or tail == b".":
        raise ValueError(
            f"{path}: this is a Python pickle (as the paper's reference implementation saves), "
            "not a graph file; pickles are never loaded because unpickling can run arbitrary "
            "code. Rebuild the program and save it with ForEach.save / save_json.")


def _from_json_text(cls, text, keep_graph_history, verbose):
    graph, output = _lsrl.program_from_json(text)
    return cls(_wrap(graph, output), keep_graph_history=keep_graph_history, verbose=verbose)


def _from_model_files(cls, files: dict, keep_graph_history, verbose):
    """Unpickles a compiled ForEach: its model file and sidecar, by name (see __reduce__)."""
    with tempfile.TemporaryDirectory(prefix="lsrl-pickle-") as folder:
        for name, data in files.items():
            if os.path.basename(name) != name:
                raise ValueError(f"pickled model: {name!r} is not a plain file name")
            with open(os.path.join(folder, name), "wb") as f:
                f.write(data)
        loop = cls.load_json(os.path.join(folder, "model.json"), verbose=verbose)
    loop.keep_graph_history = keep_graph_history
    return loop


def _token_block(x, backend: str):
    """The tokens of a call as the runner takes them: a 2-D numpy array, an ExactMatrix or
    nested lists (a scalar is one 1-wide token, a 1-D array one token)."""
    if isinstance(x, Matrix):
        return x._exact_matrix() if backend == "exact" or x.mode is MatrixMode.SYMBOLIC else x._m
    if isinstance(x, (list, tuple)):
        return _lsrl.ExactMatrix(x)
    if isinstance(x, np.ndarray):
        return x.reshape(-1, 1) if x.ndim == 1 else (x.reshape(1, 1) if x.ndim == 0 else x)
    if isinstance(x, _lsrl.ExactMatrix):
        return x
    return _lsrl.ExactMatrix([[x]])


def _columns(x) -> int:
    return x.shape[1] if isinstance(x, np.ndarray) else x.cols


def _hstack_tokens(a, b):
    numeric = all(isinstance(t, np.ndarray) and t.dtype.kind in "biuf" for t in (a, b))
    if numeric:
        if a.shape[0] != b.shape[0]:
            raise ValueError(f"token has width {b.shape[0]}, the earlier tokens {a.shape[0]}")
        return np.hstack((a, b))
    return _lsrl.ExactMatrix.hstack([_lsrl.ExactMatrix(a), _lsrl.ExactMatrix(b)])
