"""Helpers of the paper's notebooks (``lsrl.utils``), built on the C++ prompt builders of
core/programs/prompts.h so that prompts match the CLI's (`lsrl prompt`).

Layouts follow the paper: ``construct_prompt`` returns one ROW per prompt token (the
ForEach input is its transpose, with the query token first).
"""

from __future__ import annotations

import sys
from typing import Callable

import numpy as np

from . import _lsrl
from .graph_drawing import plot_and_save_graph
from .matrix_tools import Matrix, MatrixMode

__all__ = [
    "construct_prompt",
    "create_test_target_function",
    "is_directed_path_graph",
    "tok2tok_input",
    "tok2tok_expected",
    "random_dictionary",
    "is_symbolic",
    "is_fully_symbolic",
    "diag_matrices_and_eyes",
    "plot_and_save_graph",
]


def construct_prompt(fun: Callable, in_dim: int, out_dim: int, N: int, exact: bool = False):
    """The vec2vec prompt of paper Lst. 1 for f: [0,1]^in_dim -> R^out_dim on an N-cell grid.

    Returns an array of shape (N**in_dim, 1 + in_dim + out_dim), one row per cell
    [1/N, lower corner of the cell, f(centre of the cell)], cells in lexicographic order of
    their indices (the last varies fastest), as the paper's helper. ``fun`` gets the centre
    as a float64 array and returns out_dim values. exact=True returns an lsrl.Matrix
    (SYMBOLIC) instead, with 1/N and the corners exact and f's values as their exact binary
    value. The model's input is ``np.vstack((query_token, prompt)).T`` with the query token
    [x, 0 (out_dim + 1)].
    """

    def f(centre):
        values = np.asarray(fun(np.asarray(centre, dtype=np.float64)), dtype=np.float64).ravel()
        if values.size != out_dim:
            raise ValueError(f"the target function returned {values.size} values, expected {out_dim}")
        return values.tolist()

    rows = _lsrl.vec2vec_prompt(in_dim, out_dim, N, f)
    if exact:
        return Matrix._wrap(rows, MatrixMode.SYMBOLIC)
    return rows.numpy()


def create_test_target_function(in_dim: int, out_dim: int, n_control_points: int = 5,
                                smoothness: float = 1.0, seed: int | None = None) -> Callable:
    """A smooth random f: [0,1]^in_dim -> R^out_dim, as in the paper's notebooks: random
    control values in [-3, 3]^out_dim at random control points in [-0.1, 1.1]^in_dim, mixed
    with weights exp(-|x - p_k| / smoothness), normalised.

    seed=None draws the control points from numpy's global generator (the paper's
    behaviour); an integer seed gives the C++ function of the same construction that the
    CLI uses (`lsrl prompt`), identical on every platform. The function takes an array of
    in_dim values and returns an array of out_dim values.
    """
    if seed is not None:
        g = _lsrl.smooth_test_function(in_dim, out_dim, int(seed), n_control_points, float(smoothness))
        return lambda x: np.asarray(g(np.asarray(x, dtype=np.float64).ravel().tolist()))

    control_points = np.random.rand(n_control_points, in_dim) * 1.2 - 0.1
    control_values = np.random.rand(n_control_points, out_dim) * 6 - 3

    def target_function(x):
        distances = np.linalg.norm(control_points - np.asarray(x, dtype=np.float64), axis=1)
        weights = np.exp(-distances / smoothness)
        weights /= np.sum(weights)
        return np.sum(weights[:, None] * control_values, axis=0)

    return target_function


def is_directed_path_graph(G) -> bool:
    """True when G (ForEach.graph(), or a networkx-like graph) is one directed path."""
    nodes = list(G.nodes())
    if not nodes:
        return False
    starts = ends = 0
    for n in nodes:
        i, o = G.in_degree(n), G.out_degree(n)
        if (i, o) == (0, 1):
            starts += 1
        elif (i, o) == (1, 0):
            ends += 1
        elif (i, o) != (1, 1):
            return False
    return (starts, ends) == (1, 1) or (len(nodes) == 1)


def _items(dictionary) -> list:
    if isinstance(dictionary, dict):
        dictionary = dictionary.items()
    return [([int(t) for t in k], [int(t) for t in v]) for k, v in dictionary]


def tok2tok_input(dictionary, query, vocab: int = 0) -> np.ndarray:
    """The tok2tok input (paper Lst. 2): the query, then each key followed by its value,
    as a 1 x T int64 array ready for a ForEach call. `dictionary` maps key tuples to value
    tuples (or is a list of (key, value) pairs); keys, values and the query share one length
    L; vocab > 0 also checks that every token is below it. Invalid input is a ValueError."""
    query = [int(t) for t in query]
    tokens = _lsrl.tok2tok_input(_items(dictionary), query, len(query), vocab)
    return tokens.numpy().astype(np.int64).reshape(1, -1)


def tok2tok_expected(dictionary, query, vocab: int = 0) -> list:
    """The value stored under `query`: what the program outputs at its last L steps."""
    query = [int(t) for t in query]
    return _lsrl.tok2tok_expected(_items(dictionary), query, len(query), vocab)


def random_dictionary(K: int, L: int, V: int, seed: int):
    """K random entries (unique keys) of length L over tokens 0..V-1 and a query drawn from
    the keys, deterministic from the seed (the CLI's generator): (dict, query)."""
    items, query = _lsrl.random_dictionary(K, L, V, seed)
    return {tuple(k): tuple(v) for k, v in items}, tuple(query)


def is_symbolic(x) -> bool:
    """True for a sympy value or matrix (what ``Matrix.matrix`` is in SYMBOLIC mode)."""
    if "sympy" not in sys.modules:  # then x cannot be one
        return False
    import sympy

    return isinstance(x, (sympy.Basic, sympy.MatrixBase))


def is_fully_symbolic(x) -> bool:
    """True for a sympy value or matrix without floating-point numbers in it."""
    return is_symbolic(x) and len(x.atoms(sys.modules["sympy"].Float)) == 0


def diag_matrices_and_eyes(matrices) -> sympy.SparseMatrix:
    """The block-diagonal sympy.SparseMatrix of `matrices`: sympy matrices are blocks, an
    int n is an n x n identity block (the paper's helper behind ``Matrix.diag``)."""
    import sympy

    rows = cols = 0
    entries = {}
    for m in matrices:
        if isinstance(m, bool) or not isinstance(m, (int, sympy.MatrixBase)):
            raise ValueError(f"Invalid matrix type: {type(m)}")
        if isinstance(m, int):
            entries.update({(rows + i, cols + i): sympy.S.One for i in range(m)})
            m_rows = m_cols = m
        else:
            entries.update({(rows + i, cols + j): v for (i, j), v in sympy.SparseMatrix(m).todok().items()})
            m_rows, m_cols = m.shape
        rows, cols = rows + m_rows, cols + m_cols
    return sympy.SparseMatrix(rows, cols, entries)
