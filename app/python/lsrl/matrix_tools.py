"""Matrices in two modes, as in the paper's ``lsrl.matrix_tools``.

SYMBOLIC (the default) keeps exact values (the C++ ``ExactMatrix``: rationals and the
algebraic numbers of Q(cos 2*pi/N), such as sqrt(3)/2); NUMERIC keeps a float64 numpy
array. The global mode also picks the backend of ``ForEach`` calls and compiles:
SYMBOLIC runs exactly, NUMERIC in float64.

Every value a program stores is exact whatever the mode: a NUMERIC matrix passed to a
node is converted exactly (a float is its binary value, 0.5 -> 1/2).

As in the paper's package, ``Matrix.matrix`` is a ``sympy.SparseMatrix`` in SYMBOLIC mode
and a ``scipy.sparse`` matrix in NUMERIC mode, sympy numbers (``Rational``, ``sqrt(2)``,
``cos(pi/15)``) mix with matrices exactly, and matrices of different modes do not mix.
A SYMBOLIC matrix holding a value outside the exact numbers (``sympy.pi``) keeps it as
sympy; such a matrix computes and prints, but a node refuses it (lsrl/sympy_bridge.py).
"""

from __future__ import annotations

import operator
from contextlib import contextmanager
from enum import Enum
from fractions import Fraction

import numpy as np
from . import _lsrl

__all__ = [
    "Matrix",
    "MatrixMode",
    "set_global_matrix_mode",
    "get_global_matrix_mode",
    "matrix_mode",
]


class MatrixMode(Enum):
    NUMERIC = 1  # float64
    SYMBOLIC = 2  # exact


_global_mode = MatrixMode.SYMBOLIC


def set_global_matrix_mode(mode: MatrixMode) -> None:
    global _global_mode
    _global_mode = _check_mode(mode)


def get_global_matrix_mode() -> MatrixMode:
    return _global_mode


@contextmanager
def matrix_mode(mode: MatrixMode):
    """Sets the global mode inside a ``with`` block and restores it after."""
    global _global_mode
    previous = _global_mode
    _global_mode = _check_mode(mode)
    try:
        yield
    finally:
        _global_mode = previous


def _check_mode(mode) -> MatrixMode:
    if not isinstance(mode, MatrixMode):
        raise ValueError(f"Invalid matrix mode: {mode!r} (expected MatrixMode.NUMERIC or MatrixMode.SYMBOLIC)")
    return mode


def _mode(mode) -> MatrixMode:
    return _global_mode if mode is None else _check_mode(mode)


def backend_of(backend=None) -> str:
    """"exact" or "float64": the given backend, else the one of the global mode."""
    if backend is None:
        return "exact" if _global_mode is MatrixMode.SYMBOLIC else "float64"
    if isinstance(backend, MatrixMode):
        return "exact" if backend is MatrixMode.SYMBOLIC else "float64"
    if backend not in ("exact", "float64"):
        raise ValueError(f'unknown backend {backend!r}; expected "exact" or "float64"')
    return backend


def _float_array(value) -> np.ndarray:
    """A 2-D float64 array (1-D input is a column)."""
    if isinstance(value, _lsrl.ExactMatrix):
        return value.numpy()
    if _is_sparse(value):
        return np.asarray(value.toarray(), dtype=np.float64)
    if _is_sympy_matrix(value):
        return np.array(value.evalf(), dtype=np.float64)
    if _is_sympy(value):
        return np.array([[float(value)]])
    try:
        a = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        # exact strings ("1/3", "sqrt(2)"), lsrl.Exact values and the like
        return _lsrl.ExactMatrix(value).numpy()
    if a.ndim == 0:
        return a.reshape(1, 1)
    if a.ndim == 1:
        return a.reshape(-1, 1)
    if a.ndim != 2:
        raise ValueError(f"Matrix must be 2-dimensional, got shape {a.shape}")
    return a


def _sympy():
    """sympy, imported on first use: most programs never meet it, and it is slow to import."""
    import sympy

    return sympy


def _scipy_sparse():
    import scipy.sparse

    return scipy.sparse


def _bridge():
    from . import sympy_bridge

    return sympy_bridge


def _is_sympy(value) -> bool:
    """A sympy object (checked by module, so that sympy need not be imported to say no)."""
    return type(value).__module__.startswith("sympy.")


def _is_sympy_matrix(value) -> bool:
    return _is_sympy(value) and isinstance(value, _sympy().MatrixBase)


def _is_sparse(value) -> bool:
    return type(value).__module__.startswith("scipy.sparse")


def _is_scalar(value) -> bool:
    return isinstance(value, (int, float, Fraction, str, _lsrl.Exact, np.number, np.bool_)) or (
        _is_sympy(value) and not _is_sympy_matrix(value))


def _exact_or_sympy(value):
    """The SYMBOLIC storage of `value`: an ExactMatrix, or a sympy.SparseMatrix when an
    entry is a sympy value outside the exact numbers (such as pi)."""
    if _is_sparse(value):
        value = value.toarray()
    if _is_sympy(value) and not _is_sympy_matrix(value):
        value = _sympy().Matrix([[value]])
    if isinstance(value, (list, tuple)) and _holds_sympy(value):
        value = _sympy().Matrix(value)
    if _is_sympy_matrix(value):
        if value.rows == 0 or value.cols == 0:
            raise ValueError(f"Matrix must have at least one row and one column, got {value.shape}")
        try:
            return _bridge().matrix_from_sympy(value)
        except _bridge().NotExact:
            return _sympy().SparseMatrix(value)
    return _lsrl.ExactMatrix(value)


def _holds_sympy(rows) -> bool:
    return any(_is_sympy(v) or (isinstance(v, (list, tuple)) and _holds_sympy(v)) for v in rows)


class Matrix:
    """A 2-D matrix in SYMBOLIC (exact) or NUMERIC (float64) mode.

    ``Matrix(x, mode=None)`` takes an ``lsrl.Matrix``, numpy arrays of any numeric dtype
    (1-D is a column), nested lists, sympy matrices, scipy.sparse matrices, or one scalar:
    ints, floats, ``fractions.Fraction``, ``lsrl.Exact``, sympy numbers and exact strings
    such as ``"1/3"``, ``"sqrt(2)"`` or ``"cos(2*pi/5)"``. ``mode`` defaults to the global
    mode. ``==`` compares exactly and returns a bool. Indexing returns matrices, as in the
    paper (``m[0, 1]`` is 1 x 1); ``m.at(i, j)`` is the value itself.
    """

    __array_priority__ = 1000  # ndarray @ Matrix and friends defer to Matrix
    __hash__ = None

    def __init__(self, matrix, mode: MatrixMode | None = None, skip_symbolic_check: bool = False):
        del skip_symbolic_check  # the paper's flag; exact values need no check here
        self.mode = _mode(mode)
        if isinstance(matrix, Matrix):
            matrix = matrix._m
        if self.mode is MatrixMode.SYMBOLIC:
            self._m = matrix if isinstance(matrix, _lsrl.ExactMatrix) else _exact_or_sympy(matrix)
        else:
            self._m = _finite(_float_array(matrix))
        self._sympy = None

    # ---- construction ------------------------------------------------------------
    @classmethod
    def _wrap(cls, m, mode: MatrixMode | None = None) -> Matrix:
        """An ExactMatrix, float array or sympy matrix as a Matrix of `mode` (default: global)."""
        out = cls.__new__(cls)
        out.mode = _mode(mode)
        out._sympy = None
        if out.mode is MatrixMode.SYMBOLIC:
            out._m = m if isinstance(m, _lsrl.ExactMatrix) or _is_sympy_matrix(m) else _lsrl.ExactMatrix(m)
        else:
            out._m = _float_array(m) if not isinstance(m, np.ndarray) else m
        return out

    @classmethod
    def eye(cls, dim: int, mode: MatrixMode | None = None) -> Matrix:
        return cls._wrap(_lsrl.ExactMatrix.identity(dim, what="Matrix.eye"), mode)

    @classmethod
    def zeros(cls, rows: int, cols: int, mode: MatrixMode | None = None) -> Matrix:
        return cls._wrap(_lsrl.ExactMatrix.zeros(rows, cols, what="Matrix.zeros"), mode)

    @classmethod
    def ones(cls, rows: int, cols: int, mode: MatrixMode | None = None) -> Matrix:
        return cls._wrap(_lsrl.ExactMatrix.filled(rows, cols, 1, what="Matrix.ones"), mode)

    @classmethod
    def diag(cls, *matrices) -> Matrix:
        """Block diagonal. As in the paper an int n is an n x n identity block; any other
        scalar is a 1 x 1 block, and matrices or arrays are blocks themselves."""
        mode = _common_mode(matrices)
        blocks = []
        for k, m in enumerate(matrices):
            if isinstance(m, (int, np.integer)) and not isinstance(m, bool):
                blocks.append(_lsrl.ExactMatrix.identity(m, what=f"Matrix.diag: block {k}"))
            else:
                blocks.append(_exact(m))
        return cls._wrap(_lsrl.ExactMatrix.block_diagonal(blocks), mode)

    @classmethod
    def hstack(cls, *matrices) -> Matrix:
        return cls._stack(matrices, _lsrl.ExactMatrix.hstack, np.hstack,
                          lambda *ms: _sympy().SparseMatrix.hstack(*ms))

    @classmethod
    def vstack(cls, *matrices) -> Matrix:
        return cls._stack(matrices, _lsrl.ExactMatrix.vstack, np.vstack,
                          lambda *ms: _sympy().SparseMatrix.vstack(*ms))

    @classmethod
    def _stack(cls, matrices, exact_stack, float_stack, sympy_stack) -> Matrix:
        if not matrices:
            raise ValueError("stacking needs at least one matrix")
        mode = _common_mode(matrices)
        parts = [Matrix(m, mode) for m in matrices]
        try:
            if mode is MatrixMode.NUMERIC:
                return cls._wrap(float_stack([p._m for p in parts]), mode)
            if any(p._general for p in parts):
                return cls._wrap(sympy_stack(*[p.matrix for p in parts]), mode)
            return cls._wrap(exact_stack([p._m for p in parts]), mode)
        except (ValueError, _sympy().ShapeError) as e:
            shapes = ", ".join(str(p.shape) for p in parts)
            raise ValueError(f"cannot stack matrices of shapes {shapes}") from e

    @classmethod
    def elementwise_multiplication(cls, m1: Matrix, m2: Matrix) -> Matrix:
        mode = _common_mode((m1, m2))
        a, b = Matrix(m1, mode), Matrix(m2, mode)
        if a.shape != b.shape:
            raise ValueError(f"element-wise product: shapes {a.shape} and {b.shape} differ")
        if mode is MatrixMode.NUMERIC:
            return cls._wrap(a._m * b._m, mode)
        if a._general or b._general:
            return cls._wrap(_sympy().SparseMatrix(a.matrix.multiply_elementwise(b.matrix)), mode)
        return cls._wrap(a._m.hadamard(b._m), mode)

    @classmethod
    def SliceMatrix(cls, input_dim: int, start: int, end: int, mode: MatrixMode | None = None) -> Matrix:
        """The 0/1 matrix selecting rows [start, end) of a vector of width input_dim."""
        return cls._wrap(_lsrl.ExactMatrix.selection(start, end, input_dim, what="Matrix.SliceMatrix"), mode)

    # ---- shape and conversion ------------------------------------------------------
    @property
    def _general(self) -> bool:
        """True for a SYMBOLIC matrix kept as sympy (a value outside the exact numbers)."""
        return _is_sympy_matrix(self._m)

    @property
    def rows(self) -> int:
        return self._m.shape[0] if not isinstance(self._m, _lsrl.ExactMatrix) else self._m.rows

    @property
    def cols(self) -> int:
        return self._m.shape[1] if not isinstance(self._m, _lsrl.ExactMatrix) else self._m.cols

    @property
    def shape(self) -> tuple:
        return (self.rows, self.cols)

    @property
    def matrix(self):
        """The values as the paper's package keeps them: a sympy.SparseMatrix (exact
        entries) in SYMBOLIC mode, a scipy.sparse CSR matrix in NUMERIC mode."""
        if self.mode is MatrixMode.NUMERIC:
            return _scipy_sparse().csr_matrix(self._m)
        if self._sympy is None:
            self._sympy = _sympy().SparseMatrix(self._m) if self._general else _bridge().matrix_to_sympy(self._m)
        return self._sympy

    @property
    def T(self) -> Matrix:
        if self.mode is MatrixMode.NUMERIC:
            return Matrix._wrap(self._m.T.copy(), self.mode)
        if self._general:
            return Matrix._wrap(_sympy().SparseMatrix(self._m.T), self.mode)
        return Matrix._wrap(self._m.transpose(), self.mode)

    def numpy(self) -> np.ndarray:
        """The values as a float64 array (nearest doubles of exact values)."""
        if self.mode is MatrixMode.NUMERIC:
            return self._m.copy()
        return _float_array(self._m)

    def tolist(self) -> list:
        """Nested lists: exact strings ("1/3") in SYMBOLIC mode, floats in NUMERIC mode."""
        if self._general:
            return [[str(self._m[i, j]) for j in range(self.cols)] for i in range(self.rows)]
        return self._m.tolist()

    def exact(self) -> Matrix:
        """The same values as a SYMBOLIC matrix (floats convert to their exact binary value)."""
        return Matrix._wrap(self._exact_matrix(), MatrixMode.SYMBOLIC)

    def to_mode(self, mode: MatrixMode) -> Matrix:
        return Matrix(self, mode)

    def _exact_matrix(self):
        """The exact matrix that nodes store (used by the C++ conversions); a ValueError
        naming the entry when a value is outside the exact numbers."""
        if self.mode is MatrixMode.NUMERIC:
            return _lsrl.ExactMatrix(self._m)
        if not self._general:
            return self._m
        return _bridge().matrix_from_sympy(self._m)  # NotExact is a ValueError naming the entry

    def __array__(self, dtype=None):
        a = self.numpy()
        return a if dtype is None else a.astype(dtype)

    def __float__(self) -> float:
        if self.shape != (1, 1):
            raise TypeError(f"only a 1x1 Matrix converts to float, this one is {self.rows}x{self.cols}")
        return float(self.numpy()[0, 0])

    # ---- element access --------------------------------------------------------------
    def at(self, i: int, j: int = 0):
        """One value: an lsrl.Exact in SYMBOLIC mode (a sympy number when the matrix holds
        values outside the exact numbers), a float in NUMERIC mode."""
        i, j = _index(i, self.rows), _index(j, self.cols)
        if self.mode is MatrixMode.NUMERIC:
            return float(self._m[i, j])
        return self._m[i, j] if self._general else self._m.at(i, j)

    def __getitem__(self, key) -> Matrix:
        """A sub-matrix, always 2-D as in the paper: m[i] and m[a:b] on a column, m[i, j],
        m[i, :], m[:, j], m[a:b, c:d] (no steps)."""
        if isinstance(key, tuple):
            if len(key) != 2:
                raise IndexError("Matrix supports only 2D indexing")
            r, c = key
        elif self.cols == 1:
            r, c = key, 0
        else:
            raise IndexError("Cannot get a single element from a matrix with multiple columns; use m[i, j]")
        r0, r1 = _range(r, self.rows)
        c0, c1 = _range(c, self.cols)
        if self.mode is MatrixMode.NUMERIC:
            return Matrix._wrap(self._m[r0:r1, c0:c1].copy(), self.mode)
        if self._general:
            return Matrix._wrap(_sympy().SparseMatrix(self._m[r0:r1, c0:c1]), self.mode)
        return Matrix._wrap(self._m.submatrix(r0, r1, c0, c1), self.mode)

    # ---- arithmetic ----------------------------------------------------------------
    def _operand(self, other):
        """`other` as a matrix of this mode, or None for a scalar. Matrices of the other
        mode are refused, as in the paper."""
        if isinstance(other, Matrix):
            if other.mode is not self.mode:
                raise ValueError("Cannot operate on matrices with different modes: "
                                 f"{self.mode.name} and {other.mode.name}")
            return other
        if (isinstance(other, (list, tuple, np.ndarray, _lsrl.ExactMatrix)) or _is_sympy_matrix(other)
                or _is_sparse(other)):
            return Matrix(other, self.mode)
        if not _is_scalar(other):
            raise ValueError(f"Cannot combine a {self.rows}x{self.cols} Matrix with {type(other).__name__}")
        return None

    def _scalar(self, value):
        """A scalar for this mode: a float (NUMERIC), an lsrl.Exact, or a sympy number
        outside the exact numbers (SYMBOLIC; the result is then kept as sympy)."""
        if self.mode is MatrixMode.NUMERIC:
            return _float(value)
        if _is_sympy(value):
            try:
                return _bridge().from_sympy(value)
            except _bridge().NotExact:
                return value
        return _lsrl.Exact(value)

    def _general_result(self, other, op) -> Matrix:
        """op on sympy matrices: for a SYMBOLIC operand outside the exact numbers."""
        if isinstance(other, Matrix):
            other = other.matrix
        elif not _is_sympy(other):
            other = _sympy_scalar(other)
        return Matrix._wrap(_sympy().SparseMatrix(op(self.matrix, other)), self.mode)

    def _elementwise(self, other, exact_op, float_op, sympy_op) -> Matrix:
        o = self._operand(other)
        if self.mode is MatrixMode.NUMERIC:
            return Matrix._wrap(float_op(self._m, o._m if o is not None else _float(other)), self.mode)
        if o is None:
            s = self._scalar(other)
            if _is_sympy(s) or self._general:
                return self._general_result(_sympy().ones(self.rows, self.cols) * _sympy_scalar(s), sympy_op)
            o = Matrix._wrap(_lsrl.ExactMatrix.filled(self.rows, self.cols, s), self.mode)
        if self._general or o._general:
            return self._general_result(o, sympy_op)
        return Matrix._wrap(exact_op(self._m, o._m), self.mode)

    def __add__(self, other) -> Matrix:
        return self._elementwise(other, lambda a, b: a.add(b), lambda a, b: a + b, lambda a, b: a + b)

    __radd__ = __add__

    def __neg__(self) -> Matrix:
        return self * -1

    def __sub__(self, other) -> Matrix:
        return self._elementwise(other, lambda a, b: a.sub(b), lambda a, b: a - b, lambda a, b: a - b)

    def __rsub__(self, other) -> Matrix:
        return (-self) + other

    def __mul__(self, other) -> Matrix:
        if not _is_scalar(other):
            raise ValueError(f"Cannot multiply {self.rows}x{self.cols} Matrix with {type(other).__name__}: need a scalar (use @ for matrix multiplication)")
        s = self._scalar(other)
        if self.mode is MatrixMode.NUMERIC:
            return Matrix._wrap(self._m * s, self.mode)
        if _is_sympy(s) or self._general:
            return self._general_result(_sympy_scalar(s), lambda a, b: a * b)
        return Matrix._wrap(self._m.scaled(s), self.mode)

    __rmul__ = __mul__

    def __truediv__(self, other) -> Matrix:
        if not _is_scalar(other):
            raise ValueError("a Matrix divides only by a scalar")
        s = self._scalar(other)
        if s == 0:
            raise ValueError("Division by zero")
        if self.mode is MatrixMode.NUMERIC:
            return Matrix._wrap(self._m / s, self.mode)
        if _is_sympy(s) or self._general:
            return self._general_result(_sympy_scalar(s), lambda a, b: a / b)
        return Matrix._wrap(self._m.scaled(1 / s), self.mode)

    def __matmul__(self, other) -> Matrix:
        o = self._operand(other)
        if o is None:
            raise ValueError(f"Cannot multiply a {self.rows}x{self.cols} Matrix with "
                             f"{type(other).__name__} by @: need a Matrix")
        if self.cols != o.rows:
            raise ValueError(f"matrix product: {self.rows}x{self.cols} times {o.rows}x{o.cols}")
        if self.mode is MatrixMode.NUMERIC:
            return Matrix._wrap(self._m @ o._m, self.mode)
        if self._general or o._general:
            return self._general_result(o, lambda a, b: a * b)
        return Matrix._wrap(self._m.matmul(o._m), self.mode)

    def __rmatmul__(self, other) -> Matrix:
        return Matrix(other, self.mode) @ self

    def ReLU(self) -> Matrix:
        if self.mode is MatrixMode.NUMERIC:
            return Matrix._wrap(np.maximum(self._m, 0.0), self.mode)
        if self._general:
            return Matrix._wrap(_sympy().SparseMatrix(self._m.applyfunc(lambda t: _sympy().Max(t, 0))), self.mode)
        kept = [(i, j, v) for i, j, v in self._m.entries() if v > 0]
        return Matrix._wrap(_lsrl.ExactMatrix.from_entries(self.rows, self.cols, kept), self.mode)

    def __eq__(self, other) -> bool:
        """Exact comparison of shapes and values (a NUMERIC side counts by its exact
        binary values)."""
        if not isinstance(other, (Matrix, list, tuple, np.ndarray, _lsrl.ExactMatrix)):
            return NotImplemented
        if isinstance(other, Matrix) and (self._general or other._general):
            return self.shape == other.shape and _sympy().simplify(self.matrix - other.matrix).is_zero_matrix
        try:
            o = other._exact_matrix() if isinstance(other, Matrix) else _lsrl.ExactMatrix(other)
            return bool(self._exact_matrix() == o)
        except ValueError:
            return False

    def __ne__(self, other) -> bool:
        r = self.__eq__(other)
        return r if r is NotImplemented else not r

    def __str__(self) -> str:
        if self.mode is MatrixMode.SYMBOLIC:
            rows = self.tolist()
            width = max((len(v) for row in rows for v in row), default=1)
            body = "\n".join("[" + " ".join(v.rjust(width) for v in row) + "]" for row in rows)
        else:
            body = str(self._m)
        return f"{self.mode.name}:\n{body}"

    def __repr__(self) -> str:
        return f"Matrix({self.tolist()!r}, mode=MatrixMode.{self.mode.name})"


def _common_mode(matrices) -> MatrixMode:
    """The one mode of the Matrix arguments (the global mode when there are none)."""
    modes = {m.mode for m in matrices if isinstance(m, Matrix)}
    if len(modes) > 1:
        raise ValueError("All matrices must have the same mode.")
    return modes.pop() if modes else _global_mode


def _sympy_scalar(value):
    if _is_sympy(value):
        return value
    return _bridge().to_sympy(value)


def _float(value) -> float:
    return float(_lsrl.Exact(value)) if isinstance(value, str) else float(value)


def _exact(value):
    if isinstance(value, Matrix):
        return value._exact_matrix()
    if isinstance(value, _lsrl.ExactMatrix):
        return value
    return _lsrl.ExactMatrix(value)


def _finite(a: np.ndarray) -> np.ndarray:
    """`a`, when every entry is a finite number (a NUMERIC matrix holds no NaN or inf)."""
    bad = np.argwhere(~np.isfinite(a))
    if bad.size:
        i, j = (int(k) for k in bad[0])
        raise ValueError(f"Matrix: entry ({i}, {j}) is {a[i, j]}; entries must be finite numbers")
    return a


def _index(i, n: int) -> int:
    try:
        i = operator.index(i)
    except TypeError:
        raise TypeError(f"a Matrix index must be an integer or a slice, got {type(i).__name__}") from None
    if i < 0:
        i += n
    if not 0 <= i < n:
        raise IndexError(f"index {i} is out of range for size {n}")
    return i


def _range(key, n: int) -> tuple:
    if isinstance(key, slice):
        if key.step not in (None, 1):
            raise IndexError("Matrix does not support steps in slicing")
        start, stop, _ = key.indices(n)
        return start, max(start, stop)
    i = _index(key, n)
    return i, i + 1
