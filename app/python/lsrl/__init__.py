"""LSRL programs in Python, with the paper's API, over the C++ core of LSRL Studio.

    import lsrl
    x = lsrl.Input(dim=1)
    ones = lsrl.LinState(x, A=lsrl.Matrix.ones(1, 1), B=lsrl.Matrix.ones(1, 1),
                         init_state=lsrl.Matrix.zeros(1, 1))
    loop = lsrl.ForEach(lsrl.f_larger(ones, 2))
    loop(np.array([[1, 1, 1]])).numpy()   # -> [[0, 0, 1]]

Matrices and scalars are exact unless the global matrix mode is NUMERIC
(lsrl.matrix_tools); errors from the core are ValueErrors with the core's message.
"""

try:
    import numpy  # noqa: F401  (tokens and float64 matrices are numpy arrays)
except ImportError as e:
    import sys as _sys

    raise ImportError(
        f"lsrl needs numpy, which this Python ({_sys.executable}) does not have: run Debian's "
        "/usr/bin/python3 (package python3-numpy), the Python the module is built for") from e

from . import _lsrl
from . import basic_blocks, matrix_tools, sugar_blocks, utils
from ._lsrl import Exact
# The primitives and the f_* functions, as their modules' __all__ list them.
from .basic_blocks import *  # noqa: F401,F403
from .matrix_tools import Matrix, MatrixMode, get_global_matrix_mode, matrix_mode, set_global_matrix_mode
from .program import ForEach, GraphSimplificationError, ProgramGraph
from .sugar_blocks import *  # noqa: F401,F403

__all__ = (
    basic_blocks.__all__
    + [
        "Exact",
        "ForEach",
        "ProgramGraph",
        "GraphSimplificationError",
        "Matrix",
        "MatrixMode",
        "matrix_mode",
        "set_global_matrix_mode",
        "get_global_matrix_mode",
        "matrix_tools",
        "utils",
    ]
    + sugar_blocks.__all__
)
