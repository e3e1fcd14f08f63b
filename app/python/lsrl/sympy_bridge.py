"""Exact values to sympy and back (the SYMBOLIC mode of the paper's package speaks sympy).

``to_sympy`` turns an ``lsrl.Exact`` into the sympy number it denotes (rationals become
``sympy.Rational``, field elements the ``cos(k*pi/q)`` terms of their printed form).
``from_sympy`` turns a sympy number into an ``lsrl.Exact`` when it is one: rationals,
``sqrt``, ``cos``/``sin`` of rational multiples of pi, and sums, products, integer powers and
square roots of those (sympy writes cos(pi/15) as nested radicals such as
``sqrt(sqrt(5)/8 + 5/8)``). Anything else (pi itself, symbols, ``exp``) raises
``NotExact``. No floating point decides a value: a square root of a field element is
guessed numerically (an integer relation against a basis of the field) and accepted only
after the guess squares exactly to the radicand. The search is bounded: fields of degree
up to _MAX_SEARCH_DEGREE, tries started within _SEARCH_SECONDS; a square root not found
by then (such as sqrt(5 + sqrt(7)), which is in no such field) raises NotExact. Floats (``sympy.Float``) convert to their
binary value, as floats do everywhere in this package.
"""

from __future__ import annotations

import functools
import math
import re
import time
from fractions import Fraction

import mpmath
import sympy

from . import _lsrl

__all__ = ["NotExact", "to_sympy", "from_sympy", "matrix_to_sympy", "matrix_from_sympy"]

_RATIONAL = re.compile(r"^-?\d+(/\d+)?$")
_PARSE_NAMES = {"cos": sympy.cos, "sin": sympy.sin, "sqrt": sympy.sqrt, "pi": sympy.pi}
_MAX_CONDUCTOR = 4096  # the field cap of core/numbers (docs/exact-numbers.md)
# The square-root search. A PSLQ try over a basis of d numbers at 40 + 6d digits finds a
# true relation within a few hundred steps for d <= 12 (in well under a second), while a
# value with none runs until its precision is spent, seconds at d = 12 and minutes at
# d = 48; so tries are bounded in steps and degree, and the clock bounds them together.
_MAX_SEARCH_DEGREE = 12
_PSLQ_STEPS = 1000
_SEARCH_SECONDS = 2.0


class NotExact(ValueError):
    """A sympy value outside the exact numbers (rationals and Q(cos 2*pi/N))."""


@functools.lru_cache(maxsize=4096)
def _sympy_of_text(text: str):
    if _RATIONAL.match(text):
        return sympy.Rational(text)
    # Printed exact values use only + - * / and cos(p*pi/q) (docs/exact-numbers.md).
    return sympy.sympify(text, locals=_PARSE_NAMES, rational=True)


def to_sympy(value):
    """The sympy number of an lsrl.Exact (or anything lsrl.Exact accepts)."""
    if not isinstance(value, _lsrl.Exact):
        value = _lsrl.Exact(value)
    return _sympy_of_text(str(value))


def matrix_to_sympy(m) -> sympy.SparseMatrix:
    """An _lsrl.ExactMatrix as a sympy.SparseMatrix with exact entries."""
    return sympy.SparseMatrix(m.rows, m.cols, {(i, j): to_sympy(v) for i, j, v in m.entries()})


def matrix_from_sympy(m):
    """A sympy matrix as an _lsrl.ExactMatrix; NotExact naming the first entry that is not
    an exact number."""
    entries = []
    for (i, j), v in sympy.SparseMatrix(m).todok().items():
        try:
            entries.append((i, j, from_sympy(v)))
        except NotExact as e:
            raise NotExact(f"entry ({i}, {j}): {e}") from None
    return _lsrl.ExactMatrix.from_entries(m.rows, m.cols, entries)


def from_sympy(expr) -> _lsrl.Exact:
    """The lsrl.Exact equal to the sympy number `expr`; NotExact when there is none."""
    expr = sympy.sympify(expr)
    try:
        return _exact(expr)
    except NotExact as e:
        raise NotExact(f"{expr} is not a number LSRL computes exactly ({e}); exact values are rationals, "
                       "square roots and cos/sin of rational multiples of pi, with + - * / and sqrt") from None


def _exact(e) -> _lsrl.Exact:
    if e.is_Rational:
        return _lsrl.Exact(Fraction(int(e.p), int(e.q)))
    if e.is_Float:
        return _lsrl.Exact(float(e))
    if e.is_Add:
        total = _lsrl.Exact(0)
        for a in e.args:
            total = total + _exact(a)
        return total
    if e.is_Mul:
        product = _lsrl.Exact(1)
        for a in e.args:
            product = product * _exact(a)
        return product
    if e.is_Pow:
        return _power(e.base, e.exp)
    if isinstance(e, (sympy.cos, sympy.sin)):
        k = sympy.nsimplify(e.args[0] / sympy.pi)
        if not k.is_Rational:
            raise NotExact(f"{e.func.__name__} of {e.args[0]}, not a rational multiple of pi")
        p, q = int(k.p), int(k.q)
        return _lsrl.Exact.cos_pi(p, q) if isinstance(e, sympy.cos) else _lsrl.Exact.sin_pi(p, q)
    raise NotExact(f"{e} is {type(e).__name__}")


def _power(base, exponent) -> _lsrl.Exact:
    """base**exponent for integer and half-integer exponents (x**(p/2) = sqrt(x)**p)."""
    if not exponent.is_Rational or exponent.q not in (1, 2):
        raise NotExact(f"power {exponent}")
    b = _exact(base)
    if exponent.q == 2:
        b = _sqrt(b, base)
    result, n = _lsrl.Exact(1), abs(int(exponent.p))
    while n:  # by squaring
        if n & 1:
            result = result * b
        b, n = b * b, n >> 1
    if exponent < 0:
        if result == 0:
            raise NotExact("division by zero")
        result = _lsrl.Exact(1) / result
    return result


def _sqrt(x: _lsrl.Exact, shown) -> _lsrl.Exact:
    """The exact positive square root of x, when it lies in some field Q(cos 2*pi/M)."""
    if x < 0:
        raise NotExact(f"sqrt of the negative {shown}")
    if x == 0:
        return x
    if x.is_rational():
        f = x.to_fraction()
        root = _rational_sqrt(f)
        if root is not None:
            return _lsrl.Exact(root)
        # sqrt(p/q) = sqrt(p*q)/q
        return _lsrl.Exact.sqrt(f.numerator * f.denominator) / f.denominator
    root, tried, gave_up_after = _field_sqrt(x)
    if root is not None:
        return root
    why = f"gave up after {gave_up_after:.1f} s" if gave_up_after else \
        f"fields of degree up to {_MAX_SEARCH_DEGREE}"
    raise NotExact(f"sqrt({shown}) is not in Q(cos 2*pi/N) for any N tried ({_listed(tried)}; {why})")


@functools.lru_cache(maxsize=256)
def _field_sqrt(x: _lsrl.Exact):
    """(the square root of x or None, the conductors tried, the seconds after which the
    clock stopped the search or None). Cached: a matrix converts its entries when it is built and again when a node
    takes it, and a refusal is the search's slowest answer."""
    n = x.conductor
    candidates = [m for m in {n * k for k in (1, 2, 3, 4, 5, 6, 8, 10, 12)}
                  if m <= _MAX_CONDUCTOR and _field_degree(m) <= _MAX_SEARCH_DEGREE]
    start = time.monotonic()
    tried = []
    for m in sorted(candidates, key=lambda m: (_field_degree(m), m)):  # cheapest first
        if time.monotonic() - start > _SEARCH_SECONDS:
            return None, tuple(tried), time.monotonic() - start
        root = _sqrt_in_field(x, m)
        if root is not None:
            return root, tuple(tried), None
        tried.append(m)
    return None, tuple(tried), None


def _listed(conductors) -> str:
    return "N = " + ", ".join(map(str, conductors)) if conductors else "none"


def _field_degree(m: int) -> int:
    """The degree of Q(cos 2*pi/m) over Q."""
    return _euler_phi(m) // 2 if m > 2 else 1


def _rational_sqrt(f: Fraction):
    p, q = math.isqrt(f.numerator), math.isqrt(f.denominator)
    return Fraction(p, q) if p * p == f.numerator and q * q == f.denominator else None


def _sqrt_in_field(x: _lsrl.Exact, m: int):
    """sqrt(x) as a rational combination of 1, cos(2*pi/m), ..., cos(2*pi*(d-1)/m) (a basis
    of Q(cos 2*pi/m), d its degree), found by PSLQ and checked exactly; None if not there."""
    d = _field_degree(m)
    digits = 40 + 6 * d
    with mpmath.workdps(digits):
        root = mpmath.sqrt(mpmath.mpf(sympy.N(to_sympy(x), digits + 10)))
        basis = [mpmath.cos(2 * mpmath.pi * j / m) for j in range(d)]
        relation = mpmath.pslq([root] + basis, maxcoeff=10**12, maxsteps=_PSLQ_STEPS)
    if not relation or relation[0] == 0:
        return None
    candidate = _lsrl.Exact(0)
    for j, c in enumerate(relation[1:]):
        if c:
            candidate = candidate + _lsrl.Exact(Fraction(-c, relation[0])) * _lsrl.Exact.cos_pi(2 * j, m)
    if candidate > 0 and candidate * candidate == x:
        return candidate
    return None


def _euler_phi(n: int) -> int:
    result, k = n, 2
    while k * k <= n:
        if n % k == 0:
            while n % k == 0:
                n //= k
            result -= result // k
        k += 1
    if n > 1:
        result -= result // n
    return result
