"""The sugar functions (the paper's ``lsrl.sugar_blocks``), built by the C++ sugar library
(core/graph/sugar.h): the same nodes in the same order as the paper's reference
implementation, each call recorded as a named group of the graph.

Operands named x, y, lb, ub, t_val, f_val may be nodes or scalars (int, float, Fraction,
exact strings); scalars convert exactly (the default large_constant 1e10 is exactly
10**10). ``scale`` is the step sharpness mu, ``large_constant`` the lambda of the
conditionals.
"""

from __future__ import annotations

from . import _lsrl
from .basic_blocks import Variable, _adopt

__all__ = [
    "f_constant",
    "f_step",
    "f_bump",
    "f_larger",
    "f_smaller",
    "f_eq",
    "f_neq",
    "f_not",
    "f_and",
    "f_or",
    "f_ifelse",
    "f_ifelse_step",
    "f_ifelse_mul",
    "f_ifeq",
    "f_modulo_counter",
    "f_relu_identity",
]


def f_constant(input: Variable, value) -> Variable:
    """The constant vector `value` (a scalar, list or 1-D array), whatever the input:
    Linear(0, value)."""
    return _adopt(_lsrl.f_constant(input, value))


def f_step(input: Variable, scale=1000) -> Variable:
    """0 for z <= 0, 1 for z >= 1/scale, linear in between: ReLU(scale z) - scale ReLU(z - 1/scale)."""
    return _adopt(_lsrl.f_step(input, scale))


def f_bump(input: Variable, lb, ub, scale=1000) -> Variable:
    """step(z - lb) - step(z - ub): about 1 on [lb, ub]; lb and ub both numbers or both nodes."""
    return _adopt(_lsrl.f_bump(input, lb, ub, scale))


def f_larger(x, y, scale=1000) -> Variable:
    """1 where x > y (by at least 1/scale), else 0: step(x - y)."""
    return _adopt(_lsrl.f_larger(x, y, scale))


def f_smaller(x, y, scale=1000) -> Variable:
    """1 where x < y (by at least 1/scale), else 0: step(y - x)."""
    return _adopt(_lsrl.f_smaller(x, y, scale))


def f_eq(x, y, scale=1000) -> Variable:
    """1 where x == y (up to 1/scale), else 0."""
    return _adopt(_lsrl.f_eq(x, y, scale))


def f_neq(x, y, scale=1000) -> Variable:
    """1 where x != y (by at least 1/scale), else 0."""
    return _adopt(_lsrl.f_neq(x, y, scale))


def f_not(x: Variable) -> Variable:
    """1 - x (x is 0 or 1)."""
    return _adopt(_lsrl.f_not(x))


def f_and(x: Variable, y: Variable, scale=1000) -> Variable:
    """ReLU(step(x) + step(y) - 1)."""
    return _adopt(_lsrl.f_and(x, y, scale))


def f_or(x: Variable, y: Variable, scale=1000) -> Variable:
    """step(x + y)."""
    return _adopt(_lsrl.f_or(x, y, scale))


def f_ifelse(condition: Variable, t_val, f_val, large_constant=1e10) -> Variable:
    """t_val where condition is 1, f_val where it is 0 (paper Eq. 7, ReLUs only). Either
    value may be None (then 0), not both."""
    return _adopt(_lsrl.f_ifelse(condition, t_val, f_val, large_constant))


def f_ifelse_step(condition: Variable, t_val, f_val, large_constant=1e10, scale=1000) -> Variable:
    """Like f_ifelse, each term gated by its own f_step of condition -/+ 1/2."""
    return _adopt(_lsrl.f_ifelse_step(condition, t_val, f_val, large_constant, scale))


def f_ifelse_mul(condition: Variable, t_val, f_val) -> Variable:
    """condition * t_val + (1 - condition) * f_val with a Multiplicative gate (paper Eq. 10);
    t_val and f_val are nodes of the condition's width or None (then 0), not both."""
    return _adopt(_lsrl.f_ifelse_mul(condition, t_val, f_val))


def f_ifeq(x, y, t_val, f_val, scale=1000, large_constant=1e10) -> Variable:
    """f_ifelse(f_eq(x, y, scale), t_val, f_val, large_constant)."""
    return _adopt(_lsrl.f_ifeq(x, y, t_val, f_val, scale, large_constant))


def f_modulo_counter(dummy_input: Variable, divisor: int, scale=1000) -> Variable:
    """t mod divisor, counting tokens from 0, with a rotating 2-d state (exact cos/sin).
    The one-hot inside is exact only while scale * (1 - cos(pi/divisor)) >= 1: a larger
    divisor needs a larger scale (the error says which)."""
    return _adopt(_lsrl.f_modulo_counter(dummy_input, divisor, scale))


def f_relu_identity(x: Variable) -> Variable:
    """x, computed as [I, -I] @ Concat([ReLU(x), ReLU(-x)])."""
    return _adopt(_lsrl.f_relu_identity(x))
