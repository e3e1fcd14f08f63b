"""The sugar functions from Python, mirroring the C++ tests
tests/graph/sugar_test.cpp (the lowering: which primitives each function creates, in
which order, with which matrices, and the group it records with its parameters) and
tests/graph/sugar_run_test.cpp (the values: step edges, comparisons, bump, logic truth
tables, the conditionals, f_ifeq, the modulo counter, f_relu_identity), exactly and in
float64.

Calls use the paper's parameter names (scale, large_constant, lb, ub, t_val, f_val,
divisor, dummy_input) as keywords, so a renamed parameter fails here. The expected
values are the C++ tests' own, worked out by hand from docs/spec/language.md section 2.
"""

import unittest
from fractions import Fraction

from helpers import (
    exacts,
    expect_outputs,
    fractions,
    groups,
    last_group,
    next_id,
    node_at,
    ops_from,
    param,
)
from lsrl import (
    Exact,
    ForEach,
    Input,
    LinState,
    Matrix,
    f_and,
    f_bump,
    f_constant,
    f_eq,
    f_ifelse,
    f_ifelse_mul,
    f_ifelse_step,
    f_ifeq,
    f_larger,
    f_modulo_counter,
    f_neq,
    f_not,
    f_or,
    f_relu_identity,
    f_smaller,
    f_step,
)

STEP = ["Linear", "ReLU", "Linear", "ReLU", "Linear", "Concat", "Linear"]
VAR_MINUS_VAR = ["Concat", "Linear"]
ONE_LINEAR = ["Linear"]


def eye(n, scale=1):
    return [[scale if i == j else 0 for j in range(n)] for i in range(n)]


def hstack(*blocks):
    return [sum((list(b[i]) for b in blocks), []) for i in range(len(blocks[0]))]


class Fixture:
    """x and y: the two halves of an Input of width 2 * dim (as sugar_test.cpp's)."""

    def __init__(self, dim=1):
        self.input = Input(2 * dim)
        self.x = self.input[0:dim]
        self.y = self.input[dim : 2 * dim]

    def next(self):
        return next_id(self.input)

    def ops_from(self, first):
        return ops_from(self.input, first)

    def node(self, node_id):
        return node_at(self.input, node_id)


def node_text(node):
    return f"node {node.id}"


class Lowering(unittest.TestCase):
    def test_constant_is_one_zero_linear(self):
        f = Fixture(2)
        first = f.next()
        c = f_constant(f.x, [3, Fraction(1, 2), 0])
        self.assertEqual(f.ops_from(first), ONE_LINEAR)
        self.assertEqual(c.dim, 3)
        self.assertEqual(fractions(c.A), [[0, 0]] * 3)
        self.assertEqual(fractions(c.b), [[3], [Fraction(1, 2)], [0]])
        self.assertTrue(c.always_positive)
        self.assertEqual(c.group, "f_constant")
        gr = last_group(c, "f_constant")
        self.assertEqual(param(gr, "input"), node_text(f.x))
        self.assertEqual(param(gr, "value"), "[3, 1/2, 0]")
        self.assertFalse(f_constant(f.x, [-1]).always_positive)
        self.assertEqual(fractions(f_constant(f.x, "2/3").b), [[Fraction(2, 3)]])
        with self.assertRaisesRegex(ValueError, "f_constant: the value must have at least one"):
            f_constant(f.x, [])

    def test_step_lowering(self):
        f = Fixture(2)
        first = f.next()
        s = f_step(f.x, scale=1000)
        self.assertEqual(f.ops_from(first), STEP)
        self.assertTrue(s.always_positive)
        self.assertEqual(s.dim, 2)
        # Linear(mu I), ReLU, Linear(I, -1/mu), ReLU, Linear(mu I), Concat, Linear([I, -I]).
        scaled = f.node(first)
        self.assertEqual(fractions(scaled.A), eye(2, 1000))
        self.assertEqual(fractions(scaled.b), [[0], [0]])
        shifted = f.node(first + 2)
        self.assertEqual(fractions(shifted.A), eye(2))
        self.assertEqual(fractions(shifted.b), [[Fraction(-1, 1000)]] * 2)
        self.assertEqual(shifted.input, f.x)
        self.assertEqual(fractions(f.node(first + 4).A), eye(2, 1000))
        self.assertEqual(f.node(first + 5).input, [f.node(first + 1), f.node(first + 4)])
        self.assertEqual(fractions(f.node(first + 6).A), hstack(eye(2), eye(2, -1)))
        gr = last_group(s, "f_step")
        self.assertEqual(gr["output"], s.id)
        self.assertIsNone(gr["parent"])
        self.assertEqual(gr["nodes"], list(range(first, f.next())))
        self.assertEqual(param(gr, "input"), node_text(f.x))
        self.assertEqual(param(gr, "scale"), "1000")
        self.assertEqual({f.node(i).group for i in gr["nodes"]}, {"f_step"})
        for bad in (0, -3):
            with self.subTest(scale=bad):
                with self.assertRaisesRegex(ValueError, "f_step: scale must be positive"):
                    f_step(f.x, scale=bad)
        # A fractional scale is fine: 1/mu stays exact.
        first = f.next()
        f_step(f.x, scale=Fraction(1, 10))
        self.assertEqual(fractions(f.node(first + 2).b), [[-10], [-10]])
        self.assertEqual(param(last_group(s, "f_step"), "scale"), "1/10")

    def test_larger_smaller_operand_forms(self):
        f = Fixture()
        first = f.next()
        r = f_larger(f.x, 0.5)  # x - c: one Linear
        self.assertEqual(f.ops_from(first), ONE_LINEAR + STEP)
        self.assertEqual(fractions(f.node(first).A), [[1]])
        self.assertEqual(fractions(f.node(first).b), [[Fraction(-1, 2)]])
        self.assertTrue(r.always_positive)
        gr = last_group(r, "f_larger")
        self.assertEqual(param(gr, "x"), node_text(f.x))
        self.assertEqual(param(gr, "y"), "1/2")
        self.assertEqual(param(gr, "scale"), "1000")
        self.assertEqual(len(gr["nodes"]), 8)
        self.assertEqual(gr["output"], r.id)
        # the nested f_step has f_larger as parent
        self.assertEqual(last_group(r, "f_step")["parent"], gr["id"])

        first = f.next()
        f_larger(Exact(2), f.y)  # c - y: one Linear(-I, c)
        self.assertEqual(f.ops_from(first), ONE_LINEAR + STEP)
        self.assertEqual(fractions(f.node(first).A), [[-1]])
        self.assertEqual(fractions(f.node(first).b), [[2]])
        self.assertEqual(f.node(first).input, f.y)

        first = f.next()
        f_larger(f.x, f.y)  # node - node: Concat + Linear
        self.assertEqual(f.ops_from(first), VAR_MINUS_VAR + STEP)
        self.assertEqual(f.node(first).input, [f.x, f.y])

        first = f.next()
        f_smaller(f.x, 0.5)  # step(c - x)
        self.assertEqual(f.ops_from(first), ONE_LINEAR + STEP)
        self.assertEqual(fractions(f.node(first).A), [[-1]])
        self.assertEqual(fractions(f.node(first).b), [[Fraction(1, 2)]])
        self.assertEqual(len(last_group(r, "f_smaller")["params"]), 3)

        first = f.next()
        f_smaller(f.x, f.y)  # step(y - x)
        self.assertEqual(f.node(first).input, [f.y, f.x])

        first = f.next()
        f_larger(f.x, 1, scale=10)
        self.assertEqual(param(last_group(r, "f_larger"), "scale"), "10")
        self.assertEqual(fractions(f.node(first + 1).A), [[10]])

    def test_scalars_are_recorded_exactly(self):
        f = Fixture()
        for value, text in ((0.25, "1/4"), (Fraction(-3, 4), "-3/4"),
                            (10**12, "1000000000000"), (True, "1")):
            with self.subTest(value=value):
                r = f_larger(f.x, value)
                self.assertEqual(param(last_group(r, "f_larger"), "y"), text)
        # an irrational value is recorded in the exact grammar (sqrt(2) = 2*cos(pi/4))
        text = param(last_group(f_larger(f.x, "sqrt(2)"), "f_larger"), "y")
        self.assertEqual(Exact(text), Exact.sqrt(2))

    def test_constants_where_nodes_are_required(self):
        f = Fixture()
        for call in (lambda: f_larger(1, 2), lambda: f_smaller(Exact(1), Exact(2)),
                     lambda: f_eq(1, 1), lambda: f_neq(1, 2),
                     lambda: f_ifeq(1, 2, t_val=f.x, f_val=None),
                     lambda: f_not(3), lambda: f_step(3), lambda: f_and(f.x, 1),
                     lambda: f_ifelse_mul(f.x, t_val=1, f_val=None),
                     lambda: f_modulo_counter(2, divisor=3)):
            with self.assertRaises(ValueError):
                call()
        with self.assertRaises(ValueError) as cm:
            f_larger(1, 2)
        self.assertEqual(str(cm.exception),
                         "f_larger: at least one operand must be a node, got the constants 1 and 2")

    def test_dimension_mismatches_name_nodes_and_widths(self):
        inp = Input(5)
        a = inp[0:2]
        b = inp[2:5]
        c1 = inp[0]
        calls = {
            "f_larger": lambda: f_larger(a, b),
            "f_smaller": lambda: f_smaller(a, b),
            "f_eq": lambda: f_eq(a, b),
            "f_neq": lambda: f_neq(a, b),
            "f_and": lambda: f_and(a, b),
            "f_or": lambda: f_or(a, b),
            "x - y": lambda: a - b,
            "f_bump": lambda: f_bump(a, lb=b, ub=b),
            "f_ifelse": lambda: f_ifelse(a, t_val=b, f_val=None),
            "f_ifelse_step": lambda: f_ifelse_step(a, t_val=None, f_val=b),
            "f_ifelse_mul": lambda: f_ifelse_mul(a, t_val=b, f_val=None),
        }
        for name, call in calls.items():
            with self.subTest(function=name):
                with self.assertRaises(ValueError) as cm:
                    call()
                msg = str(cm.exception)
                self.assertIn(f"node {a.id}", msg)
                self.assertIn("width 2", msg)
                self.assertIn("width 3", msg)
        for call in (lambda: f_ifelse_mul(c1, t_val=None, f_val=b),
                     lambda: f_bump(a, lb=a, ub=1),  # mixed bounds
                     lambda: f_ifelse(c1, t_val=None, f_val=None),
                     lambda: f_ifelse_step(c1, t_val=None, f_val=None),
                     lambda: f_ifelse_mul(c1, t_val=None, f_val=None)):
            with self.assertRaises(ValueError):
                call()
        # A failed call leaves no group open: the next sugar call is top-level.
        n = f_not(c1)
        self.assertEqual(groups(n)[-1]["function"], "f_not")
        self.assertIsNone(groups(n)[-1]["parent"])

    def test_two_programs_cannot_mix(self):
        f1 = Fixture()
        f2 = Fixture()
        for call in (lambda: f_larger(f1.x, f2.x), lambda: f_and(f1.x, f2.x),
                     lambda: f_ifelse(f1.x, t_val=f2.x, f_val=None)):
            with self.assertRaisesRegex(ValueError, "two different programs"):
                call()

    def test_bump_lowering(self):
        f = Fixture()
        first = f.next()
        b = f_bump(f.x, lb=1, ub=2)
        self.assertEqual(f.ops_from(first),
                         ONE_LINEAR + STEP + ONE_LINEAR + STEP + VAR_MINUS_VAR)
        self.assertTrue(b.always_positive)
        gr = last_group(b, "f_bump")
        self.assertEqual((param(gr, "lb"), param(gr, "ub")), ("1", "2"))
        self.assertEqual(len(gr["nodes"]), 18)

        inp = Input(3)
        z, lb, ub = inp[0], inp[1], inp[2]
        first = next_id(inp)
        f_bump(z, lb=lb, ub=ub, scale=100)
        self.assertEqual(ops_from(inp, first),
                         VAR_MINUS_VAR + STEP + VAR_MINUS_VAR + STEP + VAR_MINUS_VAR)
        self.assertEqual(node_at(inp, first).input, [z, lb])
        self.assertEqual(node_at(inp, first + 9).input, [z, ub])

    def test_eq_neq_lowering(self):
        f = Fixture()
        first = f.next()
        e = f_eq(f.x, f.y)
        # step(x - y), step(y - x), sum, -1, *(-1), step
        self.assertEqual(f.ops_from(first),
                         VAR_MINUS_VAR + STEP + VAR_MINUS_VAR + STEP + VAR_MINUS_VAR
                         + ONE_LINEAR + ONE_LINEAR + STEP)
        self.assertTrue(e.always_positive)
        self.assertEqual(fractions(f.node(first + 20).b), [[-1]])
        self.assertEqual(fractions(f.node(first + 21).A), [[-1]])

        first = f.next()
        n = f_neq(f.x, 3)
        self.assertEqual(f.ops_from(first),
                         ONE_LINEAR + STEP + ONE_LINEAR + STEP + VAR_MINUS_VAR + STEP)
        self.assertTrue(n.always_positive)
        gr = last_group(n, "f_neq")
        self.assertEqual(param(gr, "y"), "3")
        # three nested steps, all children of f_neq
        children = [g for g in groups(n) if g["parent"] == gr["id"]]
        self.assertEqual([g["function"] for g in children], ["f_step"] * 3)

    def test_not_and_or_lowering(self):
        f = Fixture()
        first = f.next()
        n = f_not(f.x)
        self.assertEqual(f.ops_from(first), ONE_LINEAR)
        self.assertEqual((fractions(n.A), fractions(n.b)), ([[-1]], [[1]]))
        self.assertTrue(n.always_positive)

        first = f.next()
        a = f_and(f.x, f.y)
        self.assertEqual(f.ops_from(first), STEP + STEP + VAR_MINUS_VAR + ONE_LINEAR + ["ReLU"])
        self.assertTrue(a.always_positive)
        self.assertEqual(len(last_group(a, "f_and")["nodes"]), 18)

        first = f.next()
        o = f_or(f.x, f.y)
        self.assertEqual(f.ops_from(first), VAR_MINUS_VAR + STEP)
        self.assertTrue(o.always_positive)
        self.assertEqual(fractions(f.node(first + 1).A), [[1, 1]])  # x + y

    # The pieces of one f_ifelse term.
    F_TERM = ["Linear", "Concat", "Linear", "ReLU"]
    T_TERM = ["Linear", "Linear", "Concat", "Linear", "ReLU"]

    def test_ifelse_direct_lowering(self):
        f = Fixture()
        c, t = f.x, f.y
        fv = f_constant(f.x, [7])
        first = f.next()
        r = f_ifelse(c, t_val=t, f_val=fv, large_constant=100)
        # T1, T2, sum, T3, sub, T4, sub
        self.assertEqual(f.ops_from(first),
                         self.F_TERM + self.T_TERM + VAR_MINUS_VAR + self.F_TERM
                         + VAR_MINUS_VAR + self.T_TERM + VAR_MINUS_VAR)
        self.assertFalse(r.always_positive)
        # T1 = ReLU(c * (-lambda) + f)
        self.assertEqual(fractions(f.node(first).A), [[-100]])
        self.assertEqual(f.node(first + 1).input, [f.node(first), fv])
        # T2 = ReLU(f_not(c) * (-lambda) + t)
        self.assertEqual(fractions(f.node(first + 4).b), [[1]])
        self.assertEqual(f.node(first + 6).input, [f.node(first + 5), t])
        # T1 + T2
        self.assertEqual(f.node(first + 9).input, [f.node(first + 3), f.node(first + 8)])
        self.assertEqual(fractions(f.node(first + 10).A), [[1, 1]])
        # T3 = ReLU(c * (-lambda) - f)
        self.assertEqual(fractions(f.node(first + 13).A), [[1, -1]])
        gr = last_group(r, "f_ifelse")
        self.assertEqual(param(gr, "condition"), node_text(c))
        self.assertEqual(param(gr, "t_val"), node_text(t))
        self.assertEqual(param(gr, "f_val"), node_text(fv))
        self.assertEqual(param(gr, "large_constant"), "100")
        self.assertEqual(len(gr["nodes"]), 24)

        # Omitted branches drop their terms (no unary-plus node).
        first = f.next()
        f_ifelse(c, t_val=t, f_val=None)
        self.assertEqual(f.ops_from(first), self.T_TERM + self.T_TERM + VAR_MINUS_VAR)
        gr = last_group(r, "f_ifelse")
        self.assertEqual(param(gr, "f_val"), "none")
        self.assertEqual(param(gr, "large_constant"), "10000000000")  # the default 1e10
        first = f.next()
        f_ifelse(c, t_val=None, f_val=t)
        self.assertEqual(f.ops_from(first), self.F_TERM + self.F_TERM + VAR_MINUS_VAR)

        # Constant branches are one Linear each.
        first = f.next()
        f_ifelse(c, t_val=3, f_val=Exact(-2))
        self.assertEqual(f.ops_from(first),
                         ["Linear", "Linear", "ReLU"] + ["Linear", "Linear", "Linear", "ReLU"]
                         + VAR_MINUS_VAR + ["Linear", "Linear", "ReLU"] + VAR_MINUS_VAR
                         + ["Linear", "Linear", "Linear", "ReLU"] + VAR_MINUS_VAR)
        gr = last_group(r, "f_ifelse")
        self.assertEqual((param(gr, "t_val"), param(gr, "f_val")), ("3", "-2"))
        with self.assertRaisesRegex(ValueError, "large_constant must be positive"):
            f_ifelse(c, t_val=t, f_val=None, large_constant=0)

    def test_ifelse_step_lowering(self):
        f = Fixture()
        c, t = f.x, f.y
        # One term: Linear(+-(c - 1/2)), f_step, Linear(lambda *), Linear(-lambda + *),
        # Concat + Linear, ReLU.
        term = ONE_LINEAR + STEP + ONE_LINEAR + ONE_LINEAR + VAR_MINUS_VAR + ["ReLU"]
        first = f.next()
        r = f_ifelse_step(c, t_val=t, f_val=None, large_constant=100, scale=10)
        self.assertEqual(f.ops_from(first), term + term + VAR_MINUS_VAR)
        # The t gate opens for c - 1/2 > 0.
        self.assertEqual(fractions(f.node(first).A), [[1]])
        self.assertEqual(fractions(f.node(first).b), [[Fraction(-1, 2)]])
        self.assertEqual(fractions(f.node(first + 8).A), [[100]])
        self.assertEqual(fractions(f.node(first + 9).A), [[1]])
        self.assertEqual(fractions(f.node(first + 9).b), [[-100]])
        self.assertEqual(f.node(first + 10).input, [f.node(first + 9), t])
        gr = last_group(r, "f_ifelse_step")
        self.assertEqual(len(gr["nodes"]), 28)
        self.assertEqual(param(gr, "scale"), "10")
        self.assertEqual(param(gr, "large_constant"), "100")
        self.assertEqual(param(gr, "f_val"), "none")

        first = f.next()
        f_ifelse_step(c, t_val=None, f_val=t)
        self.assertEqual(f.ops_from(first), term + term + VAR_MINUS_VAR)
        # The f gate opens for 1/2 - c > 0.
        self.assertEqual(fractions(f.node(first).A), [[-1]])
        self.assertEqual(fractions(f.node(first).b), [[Fraction(1, 2)]])

        # Both: ((T1 + T2) - T3) - T4 as docs/spec/language.md writes it.
        first = f.next()
        f_ifelse_step(c, t_val=t, f_val=t)
        self.assertEqual(f.ops_from(first), term + term + VAR_MINUS_VAR + term + VAR_MINUS_VAR
                         + term + VAR_MINUS_VAR)
        self.assertEqual(fractions(f.node(first).b), [[Fraction(1, 2)]])  # T1: f
        self.assertEqual(fractions(f.node(first + 13).b), [[Fraction(-1, 2)]])  # T2: t

    def test_ifelse_mul_lowering(self):
        inp = Input(6)
        c, t, fv = inp[0:2], inp[2:4], inp[4:6]
        first = next_id(inp)
        r = f_ifelse_mul(c, t_val=t, f_val=fv)
        self.assertEqual(ops_from(inp, first), ["Linear", "Concat", "Multi", "Linear"])
        self.assertEqual(node_at(inp, first + 1).input, [c, node_at(inp, first), t, fv])
        self.assertEqual(node_at(inp, first + 2).dim, 4)
        self.assertEqual(r.dim, 2)
        self.assertEqual(fractions(r.A), hstack(eye(2), eye(2)))
        gr = last_group(r, "f_ifelse_mul")
        self.assertEqual(len(gr["params"]), 3)
        self.assertEqual(param(gr, "f_val"), node_text(fv))

        first = next_id(inp)
        f_ifelse_mul(c, t_val=t, f_val=None)
        self.assertEqual(ops_from(inp, first), ["Concat", "Multi"])
        self.assertEqual(node_at(inp, first).input, [c, t])

        first = next_id(inp)
        f_ifelse_mul(c, t_val=None, f_val=fv)
        self.assertEqual(ops_from(inp, first), ["Linear", "Concat", "Multi"])
        self.assertEqual(node_at(inp, first + 1).input, [node_at(inp, first), fv])

    def test_ifeq_is_eq_then_ifelse(self):
        f = Fixture()
        first = f.next()
        r = f_ifeq(f.x, f.y, t_val=f.x, f_val=None, scale=1000, large_constant=50)
        self.assertEqual(f.next() - first, 29 + 12)
        outer = last_group(r, "f_ifeq")
        self.assertEqual(len(outer["nodes"]), 41)
        self.assertEqual(last_group(r, "f_eq")["parent"], outer["id"])
        self.assertEqual(last_group(r, "f_ifelse")["parent"], outer["id"])
        self.assertEqual(param(last_group(r, "f_ifelse"), "large_constant"), "50")
        self.assertEqual(param(outer, "f_val"), "none")

    def test_modulo_counter_lowering(self):
        inp = Input(3)
        first = next_id(inp)
        r = f_modulo_counter(dummy_input=inp, divisor=3)
        self.assertEqual(ops_from(inp, first), ["LinState", "Linear"] + ONE_LINEAR + STEP
                         + ["Linear"])
        cycler = node_at(inp, first)
        self.assertIsInstance(cycler, LinState)
        self.assertEqual(cycler.input, inp)
        self.assertEqual(fractions(cycler.B), [[0, 0, 0], [0, 0, 0]])
        c = Exact(Fraction(-1, 2))  # cos(2 pi/3)
        s = Exact("sqrt(3)") / 2  # sin(2 pi/3)
        self.assertEqual(exacts(cycler.A), [[c, -s], [s, c]])
        self.assertEqual(exacts(cycler.init_state), [[c], [-s]])
        self.assertTrue(cycler.A == Matrix([["-1/2", "-sqrt(3)/2"],
                                            ["sin(2*pi/3)", "cos(2*pi/3)"]]))
        indicator = node_at(inp, first + 1)
        self.assertEqual(exacts(indicator.A), [[1, 0], [c, s], [c, -s]])
        # f_larger(indicator, cos(pi/3) = 1/2)
        self.assertEqual(fractions(node_at(inp, first + 2).b), [[Fraction(-1, 2)]] * 3)
        self.assertEqual(fractions(r.A), [[0, 1, 2]])
        self.assertTrue(r.always_positive)
        gr = last_group(r, "f_modulo_counter")
        self.assertEqual(param(gr, "divisor"), "3")
        self.assertEqual(param(gr, "dummy_input"), node_text(inp))
        self.assertEqual(last_group(r, "f_larger")["parent"], gr["id"])
        self.assertEqual(len(gr["nodes"]), 11)
        self.assertEqual(inp._graph.conductor % 3, 0)

    def test_modulo_counter_scale_limit(self):
        inp = Input(1)
        f_modulo_counter(inp, divisor=70)
        f_modulo_counter(inp, divisor=1)
        f_modulo_counter(inp, divisor=2, scale=1)
        with self.assertRaisesRegex(ValueError, "mu = 10000 "):
            f_modulo_counter(inp, divisor=71)
        with self.assertRaisesRegex(ValueError, "mu = 100000 "):
            f_modulo_counter(inp, divisor=300)
        f_modulo_counter(inp, divisor=71, scale=10000)
        with self.assertRaisesRegex(ValueError, "divisor must be between 1 and 2048, got 0"):
            f_modulo_counter(inp, divisor=0)
        with self.assertRaisesRegex(ValueError, "scale must be positive, got 0"):
            f_modulo_counter(inp, divisor=3, scale=0)

    def test_relu_identity_lowering(self):
        f = Fixture(2)
        first = f.next()
        r = f_relu_identity(f.x)
        self.assertEqual(f.ops_from(first), ["ReLU", "Linear", "ReLU", "Concat", "Linear"])
        self.assertEqual(fractions(f.node(first + 1).A), eye(2, -1))
        self.assertEqual(fractions(r.A), hstack(eye(2), eye(2, -1)))
        self.assertIsNotNone(last_group(r, "f_relu_identity"))


MU_STEP = Fraction(1, 1000)  # 1/mu
HALF_STEP = Fraction(1, 2000)  # 1/(2 mu)


class Values(unittest.TestCase):
    """sugar_run_test.cpp: the functions' values, exactly and in float64 (to 1e-9)."""

    def expect_map(self, width, body, tokens, expected):
        """A program body(Input(width)) with a scalar output on each token."""
        out = body(Input(width))
        expect_outputs(self, ForEach(out, verbose=False), tokens, [[v] for v in expected],
                       atol=1e-9)

    def test_step_edge_values(self):
        z = [-5, -MU_STEP, 0, HALF_STEP, MU_STEP, 2 * MU_STEP, 7]
        self.expect_map(1, f_step, [[v] for v in z], [0, 0, 0, Fraction(1, 2), 1, 1, 1])
        # another scale: 0 at 0, 1/2 at 1/(2 mu), 1 at 1/mu
        self.expect_map(1, lambda x: f_step(x, scale=4),
                        [[0], [Fraction(1, 8)], [Fraction(1, 4)], [1]],
                        [0, Fraction(1, 2), 1, 1])

    def test_step_is_element_wise(self):
        x = Input(3)
        expect_outputs(self, ForEach(f_step(x), verbose=False),
                       [[-1, HALF_STEP, 3], [MU_STEP, 0, Fraction(1, 4000)]],
                       [[0, Fraction(1, 2), 1], [1, 0, Fraction(1, 4)]], atol=1e-9)

    PAIRS = [[1, 2], [2, 1], [3, 3], [3 + MU_STEP, 3], [3 + HALF_STEP, 3]]

    def test_comparisons(self):
        self.expect_map(2, lambda x: f_larger(x[0], x[1]), self.PAIRS,
                        [0, 1, 0, 1, Fraction(1, 2)])
        self.expect_map(2, lambda x: f_smaller(x[1], x[0]), self.PAIRS,
                        [0, 1, 0, 1, Fraction(1, 2)])
        # Within 1/mu both equality tests see a fractional step, and the outer step rounds
        # it up: f_eq and f_neq are both 1 at a distance of 1/(2 mu) (precision 1/mu).
        self.expect_map(2, lambda x: f_eq(x[0], x[1]), self.PAIRS, [0, 0, 1, 0, 1])
        self.expect_map(2, lambda x: f_neq(x[0], x[1]), self.PAIRS, [1, 1, 0, 1, 1])
        # constants on either side
        halves = [[0], [1], [Fraction(1, 2)]]
        self.expect_map(1, lambda x: f_larger(x, 0.5), halves, [0, 1, 0])
        self.expect_map(1, lambda x: f_larger(Fraction(1, 2), x), halves, [1, 0, 0])
        self.expect_map(1, lambda x: f_smaller(x, "1/2"), halves, [1, 0, 0])
        self.expect_map(1, lambda x: f_eq(x, 4), [[4], [5], [3]], [1, 0, 0])
        self.expect_map(1, lambda x: f_neq(4, x), [[4], [5], [3]], [0, 1, 1])

    def test_bump(self):
        z = [[0], [1], [Fraction(3, 2)], [2], [2 + MU_STEP], [5]]
        expected = [0, 0, 1, 1, 0, 0]
        self.expect_map(1, lambda x: f_bump(x, lb=1, ub=2), z, expected)
        # bounds as nodes
        self.expect_map(1, lambda x: f_bump(x, lb=f_constant(x, 1), ub=f_constant(x, 2)),
                        z, expected)

    def test_logic_truth_tables(self):
        bits = [[0, 0], [0, 1], [1, 0], [1, 1]]
        self.expect_map(2, lambda x: f_and(x[0], x[1]), bits, [0, 0, 0, 1])
        self.expect_map(2, lambda x: f_or(x[0], x[1]), bits, [0, 1, 1, 1])
        self.expect_map(2, lambda x: f_not(x[0]), bits, [1, 1, 0, 0])

    def expect_ifelse(self, build, with_t, with_f):
        """build(c, t, f) on tokens [c, t, f] for c in {0, 1}."""
        tokens, expected = [], []
        for t, f in ((3, -7), (-2, Fraction(5, 2)), (0, 9)):
            for c in (0, 1):
                tokens.append([c, t, f])
                expected.append((t if with_t else 0) if c == 1 else (f if with_f else 0))
        self.expect_map(3, lambda x: build(x[0], x[1], x[2]), tokens, expected)

    def test_ifelse_direct(self):
        self.expect_ifelse(lambda c, t, f: f_ifelse(c, t_val=t, f_val=f), True, True)
        self.expect_ifelse(lambda c, t, f: f_ifelse(c, t_val=t, f_val=None), True, False)
        self.expect_ifelse(lambda c, t, f: f_ifelse(c, t_val=None, f_val=f), False, True)
        # constant branches
        self.expect_map(1, lambda c: f_ifelse(c, t_val=4, f_val=Exact(-1)), [[0], [1]], [-1, 4])
        self.expect_map(1, lambda c: f_ifelse(c, t_val="1/3", f_val=None, large_constant=100),
                        [[0], [1]], [0, Fraction(1, 3)])

    def test_ifelse_step(self):
        self.expect_ifelse(lambda c, t, f: f_ifelse_step(c, t_val=t, f_val=f), True, True)
        self.expect_ifelse(lambda c, t, f: f_ifelse_step(c, t_val=t, f_val=None), True, False)
        self.expect_ifelse(lambda c, t, f: f_ifelse_step(c, t_val=None, f_val=f), False, True)

    def test_ifelse_mul(self):
        self.expect_ifelse(lambda c, t, f: f_ifelse_mul(c, t_val=t, f_val=f), True, True)
        self.expect_ifelse(lambda c, t, f: f_ifelse_mul(c, t_val=t, f_val=None), True, False)
        self.expect_ifelse(lambda c, t, f: f_ifelse_mul(c, t_val=None, f_val=f), False, True)
        # the multiplicative form also blends for a fractional c: 1/4 * 8 + 3/4 * 4
        self.expect_map(3, lambda x: f_ifelse_mul(x[0], t_val=x[1], f_val=x[2]),
                        [[Fraction(1, 4), 8, 4]], [5])

    def test_ifeq(self):
        self.expect_map(2, lambda x: f_ifeq(x[0], 3, t_val=x[1], f_val=Exact(-1)),
                        [[3, 8], [4, 8], [3, -6]], [8, -1, -6])

    def test_modulo_counter_counts_exactly(self):
        for n in range(1, 9):
            with self.subTest(divisor=n):
                steps = range(3 * n + 2)
                self.expect_map(1, lambda x: f_modulo_counter(x, divisor=n),
                                [[t % 5] for t in steps],  # the token's value does not matter
                                [t % n for t in steps])
        # a divisor that needs a larger scale
        self.expect_map(1, lambda x: f_modulo_counter(x, divisor=90, scale=10000),
                        [[0]] * 200, [t % 90 for t in range(200)])

    def test_relu_identity_and_constant(self):
        self.expect_map(1, f_relu_identity, [[-3], [0], [Fraction(7, 3)]],
                        [-3, 0, Fraction(7, 3)])
        self.expect_map(1, lambda x: f_constant(x, [Fraction(-2, 3)]), [[-3], [5]],
                        [Fraction(-2, 3), Fraction(-2, 3)])


if __name__ == "__main__":
    unittest.main()
