"""Matrices in two modes, as in the paper's ``lsrl.matrix_tools``.

SYMBOLIC (the default) keeps exact values (the C++ ``ExactMatrix``: rationals and the
algebraic numbers of Q(cos 2*pi/N), such as sqrt(3)/2); NUMERIC keeps a float64 numpy
array. The global mode also picks the backend of ``ForEach`` calls and compiles:
SYMBOLIC runs exactly, NUMERIC in float64.

Every value a program stores is exact whatever the mode: a NUMERIC matrix passed to a
node is converted exactly (a float is its binary value, 0.5 -> 1/2).
"""

from __future__ import annotations

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


def _is_scalar(value) -> bool:
    return isinstance(value, (int, float, Fraction, str, _lsrl.Exact, np.number, np.bool_))


class Matrix:
    """A 2-D matrix in SYMBOLIC (exact) or NUMERIC (float64) mode.

    ``Matrix(x, mode=None)`` takes an ``lsrl.Matrix``, numpy arrays of any numeric dtype
    (1-D is a column), nested lists, or one scalar: ints, floats, ``fractions.Fraction``,
    ``lsrl.Exact`` and exact strings such as ``"1/3"``, ``"sqrt(2)"`` or ``"cos(2*pi/5)"``.
    ``mode`` defaults to the global mode. ``==`` compares exactly and returns a bool.
    """

    __array_priority__ = 1000  # ndarray @ Matrix and friends defer to Matrix
    __hash__ = None

    def __init__(self, matrix, mode: MatrixMode | None = None, skip_symbolic_check: bool = False):
        del skip_symbolic_check  # the paper's flag; exact values need no check here
        self.mode = _mode(mode)
        if isinstance(matrix, Matrix):
            matrix = matrix._m
        if self.mode is MatrixMode.SYMBOLIC:
            self._m = matrix if isinstance(matrix, _lsrl.ExactMatrix) else _lsrl.ExactMatrix(matrix)
        else:
            self._m = _float_array(matrix)

    # ---- construction ------------------------------------------------------------
    @classmethod
    def _wrap(cls, m, mode: MatrixMode | None = None) -> Matrix:
        """An ExactMatrix or float array as a Matrix of `mode` (default: global)."""
        out = cls.__new__(cls)
        out.mode = _mode(mode)
        if out.mode is MatrixMode.SYMBOLIC:
            out._m = m if isinstance(m, _lsrl.ExactMatrix) else _lsrl.ExactMatrix(m)
        else:
            out._m = m.numpy() if isinstance(m, _lsrl.ExactMatrix) else m
        return out

    @classmethod
    def eye(cls, dim: int, mode: MatrixMode | None = None) -> Matrix:
        return cls._wrap(_lsrl.ExactMatrix.identity(dim), mode)

    @classmethod
    def zeros(cls, rows: int, cols: int, mode: MatrixMode | None = None) -> Matrix:
        return cls._wrap(_lsrl.ExactMatrix.zeros(rows, cols), mode)

    @classmethod
    def ones(cls, rows: int, cols: int, mode: MatrixMode | None = None) -> Matrix:
        return cls._wrap(_lsrl.ExactMatrix.filled(rows, cols, 1), mode)

    @classmethod
    def diag(cls, *matrices) -> Matrix:
        """Block diagonal. As in the paper an int n is an n x n identity block; any other
        scalar is a 1 x 1 block, and matrices or arrays are blocks themselves."""
        mode = next((m.mode for m in matrices if isinstance(m, Matrix)), None)
        blocks = []
        for m in matrices:
            if isinstance(m, (int, np.integer)) and not isinstance(m, bool):
                blocks.append(_lsrl.ExactMatrix.identity(int(m)))
            else:
                blocks.append(_exact(m))
        return cls._wrap(_lsrl.ExactMatrix.block_diagonal(blocks), mode)

    @classmethod
    def hstack(cls, *matrices) -> Matrix:
        return cls._stack(matrices, _lsrl.ExactMatrix.hstack, np.hstack)

    @classmethod
    def vstack(cls, *matrices) -> Matrix:
        return cls._stack(matrices, _lsrl.ExactMatrix.vstack, np.vstack)

    @classmethod
    def _stack(cls, matrices, exact_stack, float_stack) -> Matrix:
        if not matrices:
            raise ValueError("stacking needs at least one matrix")
        first = matrices[0]
        mode = first.mode if isinstance(first, Matrix) else _global_mode
        if mode is MatrixMode.SYMBOLIC:
            return cls._wrap(exact_stack([_exact(m) for m in matrices]), mode)
        try:
            return cls._wrap(float_stack([Matrix(m, mode)._m for m in matrices]), mode)
        except ValueError as e:
            shapes = ", ".join(str(Matrix(m, mode).shape) for m in matrices)
            raise ValueError(f"cannot stack matrices of shapes {shapes}") from e

    @classmethod
    def elementwise_multiplication(cls, m1: Matrix, m2: Matrix) -> Matrix:
        if m1.mode is MatrixMode.SYMBOLIC:
            return cls._wrap(m1._m.hadamard(_exact(m2)), m1.mode)
        return cls._wrap(m1._m * Matrix(m2, m1.mode)._m, m1.mode)

    @classmethod
    def SliceMatrix(cls, input_dim: int, start: int, end: int, mode: MatrixMode | None = None) -> Matrix:
        """The 0/1 matrix selecting rows [start, end) of a vector of width input_dim."""
        return cls._wrap(_lsrl.ExactMatrix.selection(start, end, input_dim), mode)

    # ---- shape and conversion ------------------------------------------------------
    @property
    def rows(self) -> int:
        return self._m.rows if self.mode is MatrixMode.SYMBOLIC else self._m.shape[0]

    @property
    def cols(self) -> int:
        return self._m.cols if self.mode is MatrixMode.SYMBOLIC else self._m.shape[1]

    @property
    def shape(self) -> tuple:
        return (self.rows, self.cols)

    @property
    def T(self) -> Matrix:
        if self.mode is MatrixMode.SYMBOLIC:
            return Matrix._wrap(self._m.transpose(), self.mode)
        return Matrix._wrap(self._m.T.copy(), self.mode)

    def numpy(self) -> np.ndarray:
        """The values as a float64 array (nearest doubles of exact values)."""
        if self.mode is MatrixMode.SYMBOLIC:
            return self._m.numpy()
        return self._m.copy()

    def tolist(self) -> list:
        """Nested lists: exact strings ("1/3") in SYMBOLIC mode, floats in NUMERIC mode."""
        if self.mode is MatrixMode.SYMBOLIC:
            return self._m.tolist()
        return self._m.tolist()

    def exact(self) -> Matrix:
        """The same values as a SYMBOLIC matrix (floats convert to their exact binary value)."""
        return Matrix._wrap(self._exact_matrix(), MatrixMode.SYMBOLIC)

    def to_mode(self, mode: MatrixMode) -> Matrix:
        return Matrix(self, mode)

    def _exact_matrix(self):
        """The exact matrix that nodes store (used by the C++ conversions)."""
        if self.mode is MatrixMode.SYMBOLIC:
            return self._m
        return _lsrl.ExactMatrix(self._m)

    def __array__(self, dtype=None):
        a = self.numpy()
        return a if dtype is None else a.astype(dtype)

    def __float__(self) -> float:
        if self.shape != (1, 1):
            raise TypeError(f"only a 1x1 Matrix converts to float, this one is {self.rows}x{self.cols}")
        return float(self.numpy()[0, 0])

    # ---- element access --------------------------------------------------------------
    def __getitem__(self, key):
        """m[i, j] is one value (lsrl.Exact in SYMBOLIC mode, float in NUMERIC mode), as is
        m[i] on a column; slices give matrices (no steps)."""
        if isinstance(key, tuple):
            if len(key) != 2:
                raise IndexError("Matrix supports only 2D indexing")
            r, c = key
        elif self.cols == 1 or isinstance(key, slice):
            if self.cols != 1:
                raise IndexError("Cannot slice the rows of a matrix with several columns with one index; use m[rows, cols]")
            r, c = key, 0
        else:
            raise IndexError("Cannot get a single element from a matrix with multiple columns; use m[i, j]")
        if not isinstance(r, slice) and not isinstance(c, slice):
            i, j = _index(r, self.rows), _index(c, self.cols)
            if self.mode is MatrixMode.SYMBOLIC:
                return self._m.at(i, j)
            return float(self._m[i, j])
        r0, r1 = _range(r, self.rows)
        c0, c1 = _range(c, self.cols)
        if self.mode is MatrixMode.SYMBOLIC:
            return Matrix._wrap(self._m.submatrix(r0, r1, c0, c1), self.mode)
        return Matrix._wrap(self._m[r0:r1, c0:c1].copy(), self.mode)

    # ---- arithmetic ----------------------------------------------------------------
    def _operand(self, other):
        """`other` as a matrix of this mode, or None for a scalar."""
        if isinstance(other, Matrix) or isinstance(other, (list, tuple, np.ndarray, _lsrl.ExactMatrix)):
            return Matrix(other, self.mode)
        return None

    def _filled(self, value):
        return Matrix._wrap(_lsrl.ExactMatrix.filled(self.rows, self.cols, value), self.mode)

    def __add__(self, other) -> Matrix:
        o = self._operand(other)
        if self.mode is MatrixMode.SYMBOLIC:
            return Matrix._wrap(self._m.add((o if o is not None else self._filled(other))._m), self.mode)
        return Matrix._wrap(self._m + (o._m if o is not None else _float(other)), self.mode)

    __radd__ = __add__

    def __neg__(self) -> Matrix:
        return self * -1

    def __sub__(self, other) -> Matrix:
        o = self._operand(other)
        if self.mode is MatrixMode.SYMBOLIC:
            return Matrix._wrap(self._m.sub((o if o is not None else self._filled(other))._m), self.mode)
        return Matrix._wrap(self._m - (o._m if o is not None else _float(other)), self.mode)

    def __rsub__(self, other) -> Matrix:
        return (-self) + other

    def __mul__(self, other) -> Matrix:
        if not _is_scalar(other):
            raise ValueError(f"Cannot multiply {self.rows}x{self.cols} Matrix with {type(other).__name__}: need a scalar (use @ for matrix multiplication)")
        if self.mode is MatrixMode.SYMBOLIC:
            return Matrix._wrap(self._m.scaled(other), self.mode)
        return Matrix._wrap(self._m * _float(other), self.mode)

    __rmul__ = __mul__

    def __truediv__(self, other) -> Matrix:
        if not _is_scalar(other):
            raise ValueError("a Matrix divides only by a scalar")
        if self.mode is MatrixMode.SYMBOLIC:
            return Matrix._wrap(self._m.scaled(1 / _lsrl.Exact(other)), self.mode)
        return Matrix._wrap(self._m / _float(other), self.mode)

    def __matmul__(self, other) -> Matrix:
        o = Matrix(other, self.mode)
        if self.mode is MatrixMode.SYMBOLIC:
            return Matrix._wrap(self._m.matmul(o._m), self.mode)
        if self.cols != o.rows:
            raise ValueError(f"matrix product: {self.rows}x{self.cols} times {o.rows}x{o.cols}")
        return Matrix._wrap(self._m @ o._m, self.mode)

    def __rmatmul__(self, other) -> Matrix:
        return Matrix(other, self.mode) @ self

    def ReLU(self) -> Matrix:
        if self.mode is MatrixMode.SYMBOLIC:
            entries = [(i, j, v) for i, j, v in self._m.entries() if v > 0]
            out = [[0] * self.cols for _ in range(self.rows)]
            for i, j, v in entries:
                out[i][j] = v
            return Matrix(out, self.mode)
        return Matrix._wrap(np.maximum(self._m, 0.0), self.mode)

    def __eq__(self, other) -> bool:
        """Exact comparison of shapes and values (a NUMERIC side counts by its exact
        binary values)."""
        if not isinstance(other, (Matrix, list, tuple, np.ndarray, _lsrl.ExactMatrix)):
            return NotImplemented
        try:
            o = other._exact_matrix() if isinstance(other, Matrix) else _lsrl.ExactMatrix(other)
        except ValueError:
            return False
        return bool(self._exact_matrix() == o)

    def __ne__(self, other) -> bool:
        r = self.__eq__(other)
        return r if r is NotImplemented else not r

    def __str__(self) -> str:
        if self.mode is MatrixMode.SYMBOLIC:
            rows = self._m.tolist()
            width = max((len(v) for row in rows for v in row), default=1)
            body = "\n".join("[" + " ".join(v.rjust(width) for v in row) + "]" for row in rows)
        else:
            body = str(self._m)
        return f"{self.mode.name}:\n{body}"

    def __repr__(self) -> str:
        return f"Matrix({self.tolist()!r}, mode=MatrixMode.{self.mode.name})"


def _float(value) -> float:
    return float(_lsrl.Exact(value)) if isinstance(value, str) else float(value)


def _exact(value):
    if isinstance(value, Matrix):
        return value._exact_matrix()
    if isinstance(value, _lsrl.ExactMatrix):
        return value
    return _lsrl.ExactMatrix(value)


def _index(i, n: int) -> int:
    i = int(i)
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
