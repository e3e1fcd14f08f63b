"""The six LSRL primitives and their operators (the paper's ``lsrl.basic_blocks``).

A node object is a view of one node of a C++ graph: ``Input`` starts a new graph and
every other node joins the graph of its inputs (combining nodes of two programs is a
ValueError). The graph lives as long as any node object refers to it. Asking for the same
node twice (``loop.output``, ``topological_sort()``) gives equal objects.

Every constructor and operator calls the C++ builder, so a Python program builds the
same nodes, in the same order, as the C++ API; errors (wrong dimensions, ranges) are
ValueErrors with the C++ message.

As in the paper's package a node is also callable on values: ``node(x)`` computes that one
node's ``forward`` in the global matrix mode (a LinState advances its own ``state``; its
``reset()`` returns it to ``init_state``). Programs run through ``ForEach``, in C++.
"""

from __future__ import annotations

import operator

import numpy as np

from . import _lsrl
from .graph_view import ProgramGraph
from .matrix_tools import Matrix, _is_sympy

__all__ = [
    "Variable",
    "Input",
    "Linear",
    "Slice",
    "ReLU",
    "LinState",
    "Concat",
    "Multiplicative",
    "Multi",
]


def _require_node(x, where: str, param: str = "input") -> None:
    if not isinstance(x, Variable):
        raise TypeError(f"{where}: {param} must be an lsrl node, got {type(x).__name__}")


def _matrix_argument(value, where: str, param: str):
    """A node's matrix parameter. numpy arrays are refused, as in the paper: wrapping them
    in lsrl.Matrix states how their floats are read (NUMERIC or SYMBOLIC)."""
    if isinstance(value, np.ndarray):
        raise ValueError(f"{where}: {param} is a numpy array; pass an lsrl.Matrix (Matrix({param})), "
                         "as the paper's Linear and LinState require")
    return value


def prepare_variable(x) -> Matrix:
    """A value a node is called on, as a column Matrix of the global mode: Matrix, numpy
    array (1-D is a column), nested list, sympy matrix or a scalar."""
    if _is_sympy(x):
        x = Matrix(x)
    elif isinstance(x, (int, float)):
        x = Matrix([[x]])
    elif isinstance(x, (np.ndarray, list, tuple)):
        x = Matrix(x)
    if not isinstance(x, Matrix):
        raise ValueError(f"Invalid input type {type(x)}")
    if x.cols != 1:
        raise ValueError(f"Expected a column vector but got shape {x.shape}")
    return x


class Variable(_lsrl.Node):
    """Base of every node: ``dim``, ``name`` (settable), ``always_positive`` (settable),
    ``input``, and the operators ``x + y``, ``x - y``, ``x + c``, ``c - x``, ``x * c``,
    ``x / c``, ``-x``, ``x[i]``, ``x[a:b]`` (c a scalar: int, float, Fraction, exact string)."""

    _default_name = "Variable"

    def __init__(self, *args, **kwargs):
        raise TypeError("lsrl.Variable is abstract: create Input, Linear, ReLU, LinState, Concat, Multiplicative or Slice nodes")

    # ---- identity: a view of (graph, node id) ------------------------------------------
    def __eq__(self, other):
        if not isinstance(other, _lsrl.Node):
            return NotImplemented
        return self._graph_key == other._graph_key and self._id == other._id

    def __ne__(self, other):
        r = self.__eq__(other)
        return r if r is NotImplemented else not r

    def __hash__(self):
        return hash((self._graph_key, self._id))

    def __repr__(self):
        return f"<lsrl.{type(self).__name__} {self.name!r} id={self._id} dim={self.dim}>"

    # ---- attributes --------------------------------------------------------------
    @property
    def id(self) -> int:
        """The node's id in its graph (creation order)."""
        return self._id

    @property
    def name(self) -> str:
        """The node's name; unnamed nodes report the paper's default for their kind."""
        return self._name or self._default_label()

    @name.setter
    def name(self, value) -> None:
        self._set_name("" if value is None else str(value))

    def _default_label(self) -> str:
        return self._default_name

    @property
    def op(self) -> str:
        """"Input", "Linear", "Slice", "ReLU", "LinState", "Concat" or "Multi"."""
        return self._op

    @property
    def group(self):
        """The sugar function (e.g. "f_ifelse") that created this node, or None."""
        return self._group

    @property
    def input(self):
        ids = self._input_ids
        return _wrap(self._graph, ids[0]) if ids else None

    @property
    def size_str(self) -> str:
        return f"{self.input.dim}->{self.dim}" if self.input is not None else str(self.dim)

    def topological_sort(self, recompute: bool = False) -> list:
        """This node and its ancestors in the project's order (Kahn, smallest id first)."""
        del recompute  # a node's ancestors never change
        return [_wrap(self._graph, i) for i in _lsrl.topological_order(self._graph, self._id)]

    def graph(self, recompute: bool = False) -> ProgramGraph:
        """This node and its ancestors as a networkx-like graph (lsrl/graph_view.py)."""
        return ProgramGraph(self.topological_sort(recompute))

    # ---- computing one node on values ------------------------------------------------
    def __call__(self, *args):
        """This node's forward on values (one per input): a column Matrix of the global mode."""
        return self.forward(*args)

    def forward(self, x) -> Matrix:
        raise NotImplementedError(f"{type(self).__name__} has no forward")

    @staticmethod
    def prepare_variable(x) -> Matrix:
        return prepare_variable(x)

    def _column(self, x, width: int) -> Matrix:
        x = prepare_variable(x)
        if x.rows != width:
            raise ValueError(f"Input size mismatch: {type(self).__name__} {self.name!r} expected "
                             f"({width}, 1) but got {x.shape}")
        return x

    # ---- operators (lowered by the C++ operators, core/graph/builder.h) ------------------
    def __add__(self, other):
        return _wrap(self._graph, _lsrl.op_add(self, other))

    def __radd__(self, other):
        return _wrap(self._graph, _lsrl.op_radd(self, other))

    def __sub__(self, other):
        return _wrap(self._graph, _lsrl.op_sub(self, other))

    def __rsub__(self, other):
        return _wrap(self._graph, _lsrl.op_rsub(self, other))

    def __mul__(self, other):
        return _wrap(self._graph, _lsrl.op_mul(self, other))

    def __rmul__(self, other):
        return _wrap(self._graph, _lsrl.op_rmul(self, other))

    def __truediv__(self, other):
        return _wrap(self._graph, _lsrl.op_div(self, other))

    def __neg__(self):
        return _wrap(self._graph, _lsrl.op_neg(self))

    def __getitem__(self, key):
        if isinstance(key, slice):
            if key.step is not None:
                raise ValueError("Slice does not support steps")
            start = 0 if key.start is None else operator.index(key.start)
            end = self.dim if key.stop is None else operator.index(key.stop)
            start, end = start + self.dim if start < 0 else start, end + self.dim if end < 0 else end
            return Slice(self, start, end)
        try:
            i = operator.index(key)
        except TypeError:
            raise ValueError(f"Unsupported type for slicing: {type(key).__name__}") from None
        if i < 0:
            i += self.dim
        return Slice(self, i, i + 1)


class Input(Variable):
    """``Input(dim, name="Input")``: the current token; starts a new program graph."""

    _default_name = "Input"

    def __init__(self, dim: int, name: str | None = None):
        graph = _lsrl.Graph()
        _lsrl.Node.__init__(self, graph, graph.add_input(dim, name))

    def forward(self, x) -> Matrix:
        return self._column(x, self.dim)


class Linear(Variable):
    """``Linear(input, A, b, name="Linear")``: A @ x + b. A is rows x dim(input); b is a
    rows x 1 column or 1-D (None: zeros). Matrices may be lsrl.Matrix, numpy arrays,
    nested lists or scalars with exact entries."""

    _default_name = "Linear"

    def __init__(self, input: Variable, A, b, name: str | None = None):
        _require_node(input, "Linear")
        A, b = _matrix_argument(A, "Linear", "A"), _matrix_argument(b, "Linear", "b")
        _lsrl.Node.__init__(self, input._graph, _lsrl.add_linear(input, A, b, name))

    def forward(self, x) -> Matrix:
        return self.A @ self._column(x, self.input.dim) + self.b

    @property
    def A(self) -> Matrix:
        return Matrix._wrap(self._A)

    @property
    def b(self) -> Matrix:
        return Matrix._wrap(self._b)

    @property
    def size_str(self) -> str:
        return f"{self.input.dim}->{self.dim}"


class Slice(Linear):
    """``Slice(input, start, end, name=None)``: rows [start, end) of the input, a Linear
    with a 0/1 selection matrix (the paper's Slice, a subclass of Linear)."""

    def __init__(self, input: Variable, start: int, end: int, name: str | None = None):
        _require_node(input, "Slice")
        nid = _lsrl.add_slice(input, start, end, name)
        _lsrl.Node.__init__(self, input._graph, nid)

    @property
    def start(self) -> int:
        return self._slice[0]

    @property
    def end(self) -> int:
        return self._slice[1]

    def _default_label(self) -> str:
        return f"Slice[{self.start}:{self.end}]"


class ReLU(Variable):
    """``ReLU(input)``: max(0, x) element-wise."""

    _default_name = "ReLU"

    def __init__(self, input: Variable, name: str | None = None):
        _require_node(input, "ReLU")
        _lsrl.Node.__init__(self, input._graph, _lsrl.add_relu(input, name))

    def forward(self, x) -> Matrix:
        return self._column(x, self.dim).ReLU()


class LinState(Variable):
    """``LinState(input, A, B, init_state, name="LinState", bias=None)``:
    s_t = A s_{t-1} + B x_t + bias with s_0 = init_state; the value at step t is s_t.
    A is dim x dim, B dim x dim(input), init_state and bias columns (or 1-D)."""

    _default_name = "LinState"

    def __init__(self, input: Variable, A, B, init_state, name: str | None = None, bias=None):
        _require_node(input, "LinState")
        A, B = _matrix_argument(A, "LinState", "A"), _matrix_argument(B, "LinState", "B")
        init_state = _matrix_argument(init_state, "LinState", "init_state")
        bias = _matrix_argument(bias, "LinState", "bias")
        nid = _lsrl.add_linstate(input, A, B, init_state, bias, name)
        _lsrl.Node.__init__(self, input._graph, nid)

    @property
    def state(self) -> Matrix:
        """The state of this node object's own calls (``node(x)``): init_state until called."""
        if getattr(self, "_state", None) is None:
            self._state = self.init_state
        return self._state

    def reset(self) -> None:
        """Back to init_state (for calls of this node object)."""
        self._state = None

    def forward(self, x) -> Matrix:
        self._state = self.A @ self.state + self.B @ self._column(x, self.input.dim) + self.bias
        return self._state

    @property
    def A(self) -> Matrix:
        return Matrix._wrap(self._A)

    @property
    def B(self) -> Matrix:
        return Matrix._wrap(self._B)

    @property
    def init_state(self) -> Matrix:
        return Matrix._wrap(self._init)

    @property
    def bias(self) -> Matrix:
        return Matrix._wrap(self._bias)

    @property
    def size_str(self) -> str:
        return f"{self.input.dim}->{self.dim}"


class Concat(Variable):
    """``Concat(inputs)``: the inputs stacked vertically (the same node may repeat)."""

    _default_name = "Concat"

    def __init__(self, inputs, name: str | None = None):
        if isinstance(inputs, Variable):
            raise TypeError("Concat takes a list of nodes, e.g. Concat([x, y])")
        inputs = list(inputs)
        for i, x in enumerate(inputs):
            _require_node(x, "Concat", f"input {i}")
        graph = inputs[0]._graph if inputs else None
        nid = _lsrl.add_concat(inputs, name)
        _lsrl.Node.__init__(self, graph, nid)

    @property
    def input(self) -> list:
        return [_wrap(self._graph, i) for i in self._input_ids]

    def forward(self, *args) -> Matrix:
        inputs = self.input
        if len(args) != len(inputs):
            raise ValueError(f"Input size mismatch: Concat expected {len(inputs)} values but got {len(args)}")
        return Matrix.vstack(*[self._column(a, i.dim) for a, i in zip(args, inputs)])

    @property
    def size_str(self) -> str:
        return f"({','.join(str(i.dim) for i in self.input)})->{self.dim}"


class Multiplicative(Variable):
    """``Multiplicative(input, name="Multiplicative")``: x[:k] * x[k:] element-wise for
    an input of even width 2k (the C++ Multi)."""

    _default_name = "Multiplicative"

    def __init__(self, input: Variable, name: str | None = None):
        _require_node(input, "Multiplicative")
        _lsrl.Node.__init__(self, input._graph, _lsrl.add_multi(input, name))

    def forward(self, x) -> Matrix:
        x = self._column(x, 2 * self.dim)
        return Matrix.elementwise_multiplication(x[: self.dim, :], x[self.dim :, :])


Multi = Multiplicative

_CLASSES = {
    "Input": Input,
    "Linear": Linear,
    "Slice": Slice,
    "ReLU": ReLU,
    "LinState": LinState,
    "Concat": Concat,
    "Multi": Multiplicative,
}


def _wrap(graph, node_id: int) -> Variable:
    """The node object of the right class for one node of `graph`."""
    cls = _CLASSES[graph.op_of(node_id)]
    node = cls.__new__(cls)
    _lsrl.Node.__init__(node, graph, node_id)
    return node


def _adopt(ref) -> Variable:
    """A node handle returned by the C++ side as its node object."""
    return _wrap(ref._graph, ref._id)


def f_relu_identity(x: Variable) -> Variable:
    """x as [I, -I] @ Concat([ReLU(x), ReLU(-x)]): the paper's package defines this sugar
    here, beside the primitives; it is lsrl.sugar_blocks.f_relu_identity."""
    from .sugar_blocks import f_relu_identity as sugar

    return sugar(x)
