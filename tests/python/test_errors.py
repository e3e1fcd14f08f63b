"""Wrong dimensions and other bad input reach Python as exceptions with the C++ core's
text (ValueError for every lsrl::Error, TypeError for a non-node where a node belongs).

- Builders and operators: the messages of core/graph/graph.cpp, builder.cpp and
  sugar.cpp, asserted verbatim as the C++ tests (graph_test.cpp, sugar_test.cpp) state
  them, and a failed call leaves the program unchanged.
- Graph files with problems: running or compiling them from Python fails with exactly
  the problems `lsrl check` lists and the text `lsrl run` / `lsrl compile` print (the
  messages of core/graph/checks.cpp, as checks_test.cpp asserts them); a file the loader
  refuses gives the CLI's text too.
- Running: token width mismatch, NaN and infinite inputs (primitives_test.cpp's texts).
- Nodes of two different programs combined.
- Bad arguments: sizes, widths and indices that are negative, zero where invalid, beyond
  the documented bounds (docs/python.md) or no integers at all, and NaN/inf matrix
  entries, are ValueError / TypeError naming the argument and the value; a sympy value
  whose exact form is not found is refused within seconds.
"""

import json
import os
import time
import unittest

import numpy as np

import lsrl
from helpers import CliTestCase
from lsrl import (
    Concat,
    ForEach,
    GraphSimplificationError,
    Input,
    Linear,
    LinState,
    Matrix,
    MatrixMode,
    Multiplicative,
    ReLU,
    Slice,
    f_and,
    f_bump,
    f_eq,
    f_ifelse,
    f_ifelse_mul,
    f_ifelse_step,
    f_larger,
    f_not,
    f_or,
    f_smaller,
)

MIXED = ("the nodes belong to two different programs (each lsrl.Input starts its own graph; "
         "build every node of a program from one Input)")


class BuilderErrors(unittest.TestCase):
    def assert_error(self, call, text, kind=ValueError):
        with self.assertRaises(kind) as cm:
            call()
        self.assertEqual(str(cm.exception), text)

    def test_operators(self):
        x = Input(2)
        y = x[0]
        self.assert_error(lambda: x + y,
                          "dimension mismatch for sum: node 0 has width 2, node 1 has width 1")
        self.assert_error(lambda: x - y,
                          "dimension mismatch for difference: node 0 has width 2, node 1 has "
                          "width 1")
        self.assert_error(lambda: x / 0, "division by zero: node 0 divided by 0")
        self.assert_error(lambda: x * x, "nodes multiply only by scalars; for an element-wise "
                          "product of two nodes use Multiplicative(Concat([x, y]))", TypeError)

    def test_primitives(self):
        x = Input(5)
        cases = [
            (lambda: Linear(x, Matrix.eye(3), None),
             "Linear node 1: A columns (input width of node 0) expected 5, got 3"),
            (lambda: Linear(x, Matrix.ones(2, 5), [1, 2, 3]),
             "Linear node 1: b length expected 2, got 3"),
            (lambda: Linear(x, Matrix.zeros(0, 5), None),
             "Linear node 1: width 0 is outside 1..1048576"),
            (lambda: LinState(x, Matrix.zeros(2, 3), Matrix.zeros(2, 5), None),
             "LinState node 1: A must be square: A columns expected 2, got 3"),
            (lambda: LinState(x, Matrix.zeros(2, 2), Matrix.zeros(1, 5), None),
             "LinState node 1: B rows expected 2, got 1"),
            (lambda: LinState(x, Matrix.zeros(2, 2), Matrix.zeros(2, 4), None),
             "LinState node 1: B columns (input width of node 0) expected 5, got 4"),
            (lambda: LinState(x, Matrix.zeros(2, 2), Matrix.zeros(2, 5), [1, 2, 3]),
             "LinState node 1: init_state length expected 2, got 3"),
            (lambda: LinState(x, Matrix.zeros(2, 2), Matrix.zeros(2, 5), None, bias=[1]),
             "LinState node 1: bias length expected 2, got 1"),
            (lambda: Slice(x, 3, 3),
             "Slice node 1: range [3:3] is out of range for input node 0 of width 5 "
             "(need 0 <= start < end <= 5)"),
            (lambda: x[2:7],
             "Slice node 1: range [2:7] is out of range for input node 0 of width 5 "
             "(need 0 <= start < end <= 5)"),
            (lambda: Multiplicative(x),
             "Multi node 1: input node 0 has odd width 5, expected an even width 2k"),
            (lambda: Concat([]), "Concat needs at least one input, got none"),
            (lambda: Input(0), "Input: dim must be between 1 and 1048576, got 0"),
            (lambda: Input(1 << 30), "Input: dim must be between 1 and 1048576, got 1073741824"),
            (lambda: Linear(x, Matrix.ones(2, 5), Matrix.ones(2, 2)),
             "Linear: b must be a column (rows x 1) or a 1-D array, got a 2x2 matrix"),
            # numpy arrays are refused as the paper's package refuses them (the mode of their
            # floats is stated by wrapping them in Matrix)
            (lambda: Linear(x, np.ones((2, 5)), None),
             "Linear: A is a numpy array; pass an lsrl.Matrix (Matrix(A)), as the paper's "
             "Linear and LinState require"),
            (lambda: LinState(x, Matrix.eye(2), Matrix.zeros(2, 5), np.zeros(2)),
             "LinState: init_state is a numpy array; pass an lsrl.Matrix (Matrix(init_state)), "
             "as the paper's Linear and LinState require"),
        ]
        for call, text in cases:
            with self.subTest(text=text):
                self.assert_error(call, text)
                self.assertEqual(x._graph.node_count, 1)  # a failed call adds no node

    def test_sugar_dimension_mismatches(self):
        inp = Input(5)
        a = inp[0:2]  # node 1
        b = inp[2:5]  # node 2
        cases = [
            (lambda: f_larger(a, b), "f_larger: dimension mismatch: x (node 1) has width 2, "
                                     "y (node 2) has width 3"),
            (lambda: f_smaller(a, b), "f_smaller: dimension mismatch: x (node 1) has width 2, "
                                      "y (node 2) has width 3"),
            (lambda: f_eq(a, b), "f_eq: dimension mismatch: x (node 1) has width 2, "
                                 "y (node 2) has width 3"),
            (lambda: f_and(a, b), "f_and: dimension mismatch: x (node 1) has width 2, "
                                  "y (node 2) has width 3"),
            (lambda: f_or(a, b), "f_or: dimension mismatch: x (node 1) has width 2, "
                                 "y (node 2) has width 3"),
            (lambda: f_bump(a, lb=b, ub=b), "f_bump: dimension mismatch: input (node 1) has "
                                            "width 2, lb (node 2) has width 3"),
            (lambda: f_ifelse(a, t_val=b, f_val=None),
             "f_ifelse: dimension mismatch: condition (node 1) has width 2, t_val (node 2) has "
             "width 3"),
            (lambda: f_ifelse_step(a, t_val=None, f_val=b),
             "f_ifelse_step: dimension mismatch: condition (node 1) has width 2, f_val (node 2) "
             "has width 3"),
            (lambda: f_ifelse_mul(a, t_val=b, f_val=None),
             "f_ifelse_mul: dimension mismatch: condition (node 1) has width 2, t_val (node 2) "
             "has width 3"),
            (lambda: f_bump(a, lb=a, ub=1),
             "f_bump: the lower and upper bounds must be both nodes or both numbers, got "
             "lb = node 1 and ub = 1"),
            (lambda: f_ifelse(a, t_val=None, f_val=None),
             "f_ifelse: at least one of t_val and f_val must be given"),
            (lambda: f_larger(1, 2),
             "f_larger: at least one operand must be a node, got the constants 1 and 2"),
            (lambda: lsrl.f_step(a, scale=-3), "f_step: scale must be positive, got -3"),
            (lambda: lsrl.f_modulo_counter(a, divisor=0),
             "f_modulo_counter: divisor must be between 1 and 2048, got 0"),
            (lambda: f_not(3), "f_not: x must be a node, got int"),
        ]
        count = inp._graph.node_count
        for call, text in cases:
            with self.subTest(text=text):
                self.assert_error(call, text)
                self.assertEqual(inp._graph.node_count, count)
        self.assertEqual(inp._graph.groups(), [])  # no group left behind either

    def test_type_errors_for_non_nodes(self):
        x = Input(2)
        self.assert_error(lambda: ReLU(3), "ReLU: input must be an lsrl node, got int", TypeError)
        self.assert_error(lambda: Linear([[1]], [[1]], None),
                          "Linear: input must be an lsrl node, got list", TypeError)
        self.assert_error(lambda: Concat(x), "Concat takes a list of nodes, e.g. Concat([x, y])",
                          TypeError)
        self.assert_error(lambda: Concat([x, 3]), "Concat: input 1 must be an lsrl node, got int",
                          TypeError)
        self.assert_error(lambda: ForEach([x]), "ForEach needs an lsrl node as its output, got "
                                                "list", TypeError)
        with self.assertRaises(TypeError):
            lsrl.Variable()

    def test_bad_values(self):
        x = Input(1)
        self.assert_error(lambda: x + "x/y", "cannot parse \"x/y\" at position 0: expected a "
                                             "number, got 'x'")
        self.assert_error(lambda: Linear(x, [[None]], None),
                          "entry (0, 0): expected a number, got NoneType")
        self.assert_error(lambda: Linear(x, [[1], [2, 3]], None),
                          "a nested list has rows of different lengths: row 0 has 1 entries, "
                          "row 1 has 2")


class ArgumentErrors(unittest.TestCase):
    def assert_errors(self, cases, kind):
        for call, text in cases:
            with self.subTest(text=text):
                with self.assertRaises(kind) as cm:
                    call()
                self.assertEqual(str(cm.exception), text)

    def test_sizes_out_of_range_name_the_argument_and_the_bound(self):
        x = Input(4)
        self.assert_errors([
            (lambda: Matrix.eye(-5), "Matrix.eye: dim must be between 0 and 1048576, got -5"),
            (lambda: Matrix.eye(10**12),
             "Matrix.eye: dim must be between 0 and 1048576, got 1000000000000"),
            (lambda: Matrix.zeros(3, -1), "Matrix.zeros: cols must be between 0 and 1048576, got -1"),
            (lambda: Matrix.ones(-2, 3), "Matrix.ones: rows must be between 0 and 1048576, got -2"),
            (lambda: Matrix.ones(1 << 20, 1 << 20),
             "Matrix.ones: a 1048576x1048576 matrix has 1099511627776 entries, more than 2^28"),
            (lambda: Matrix.diag(2, -3),
             "Matrix.diag: block 1: dim must be between 0 and 1048576, got -3"),
            (lambda: Matrix.SliceMatrix(5, -1, 2),
             "Matrix.SliceMatrix: start must be between 0 and 5, got -1"),
            (lambda: Matrix.SliceMatrix(5, 3, 7), "Matrix.SliceMatrix: end must be between 3 and 5, got 7"),
            (lambda: Input(10**12), "Input: dim must be between 1 and 1048576, got 1000000000000"),
            (lambda: Input(-1), "Input: dim must be between 1 and 1048576, got -1"),
            (lambda: Input(10**400),
             "Input: dim must be between 1 and 1048576, got an integer of 1329 bits"),
            (lambda: Slice(x, 0, 10**12), "Slice: end must be between 0 and 1048576, got 1000000000000"),
            (lambda: x[10**12], "Slice: start must be between 0 and 1048576, got 1000000000000"),
            (lambda: lsrl.f_modulo_counter(x, divisor=10**12),
             "f_modulo_counter: divisor must be between 1 and 2048, got 1000000000000"),
        ], ValueError)
        self.assertEqual(x._graph.node_count, 1)  # nothing was added
        self.assertEqual(Matrix.eye(np.int64(2)), Matrix.eye(2))  # numpy integers are integers
        self.assertEqual(Matrix.zeros(0, 3).shape, (0, 3))  # an empty matrix is a matrix

    def test_sizes_that_are_no_integers_are_type_errors(self):
        x = Input(4)
        self.assert_errors([
            (lambda: Matrix.eye(2.5), "Matrix.eye: dim must be an integer, got float 2.5"),
            (lambda: Matrix.zeros("3", 1), "Matrix.zeros: rows must be an integer, got str '3'"),
            (lambda: Input(True), "Input: dim must be an integer, got bool True"),
            (lambda: Input(None), "Input: dim must be an integer, got NoneType None"),
            (lambda: Slice(x, 0.0, 1), "Slice: start must be an integer, got float 0.0"),
            (lambda: lsrl.f_modulo_counter(x, divisor=2.0),
             "f_modulo_counter: divisor must be an integer, got float 2.0"),
            (lambda: Matrix.eye(3).at(0.5, 0), "a Matrix index must be an integer or a slice, got float"),
            (lambda: Matrix.eye("x" * 10000),
             'Matrix.eye: dim must be an integer, got str "\'' + "x" * 76 + '..." (10,002 characters)'),
        ], TypeError)

    def test_non_finite_matrix_entries_are_refused_by_entry(self):
        nan, inf = float("nan"), float("inf")
        self.assert_errors([
            (lambda: Matrix(np.array([[1.0, nan]]), MatrixMode.NUMERIC),
             "Matrix: entry (0, 1) is nan; entries must be finite numbers"),
            (lambda: Matrix([[0], [-inf]], MatrixMode.NUMERIC),
             "Matrix: entry (1, 0) is -inf; entries must be finite numbers"),
            (lambda: Matrix(np.array([[0.0], [inf]])), "entry (1, 0): non-finite value inf"),
            (lambda: Matrix([[1, nan]]), "entry (0, 1): non-finite value nan"),
            (lambda: Linear(Input(1), Matrix([[nan]], MatrixMode.NUMERIC), None),
             "Matrix: entry (0, 0) is nan; entries must be finite numbers"),
        ], ValueError)

    def test_export_arguments(self):
        loop = ForEach(ReLU(Input(1)), verbose=False)
        self.assert_errors([
            (lambda: loop.export_weights(os.devnull, horizon=10**12),
             "export_weights: horizon must be between 0 and 1000000000, got 1000000000000"),
            (lambda: loop.export_weights(os.devnull, horizon=-1),
             "export_weights: horizon must be between 0 and 1000000000, got -1"),
            (lambda: loop.export_weights(os.devnull, box=(0, float("nan"))),
             "export_weights: box: non-finite value nan"),
        ], ValueError)
        with self.assertRaises(TypeError) as cm:
            loop.export_weights(os.devnull, horizon=2.5)
        self.assertEqual(str(cm.exception), "export_weights: horizon must be an integer, got float 2.5")

    def test_sympy_values_without_an_exact_form_are_refused_within_seconds(self):
        import sympy

        # Neither is in any field Q(cos 2*pi/N); the search for their square root once ran
        # for over 600 s (sqrt(5 + sqrt(7))) and 19 s (sqrt(1 + sqrt(2))).
        for value, shown in ((sympy.sqrt(5 + sympy.sqrt(7)), "sqrt(sqrt(7) + 5)"),
                             (sympy.sqrt(1 + sympy.sqrt(2)), "sqrt(1 + sqrt(2))")):
            with self.subTest(value=shown):
                start = time.monotonic()
                with self.assertRaises(ValueError) as cm:
                    Linear(Input(1), Matrix([[value]]), None)
                self.assertLess(time.monotonic() - start, 10)
                message = str(cm.exception)
                self.assertIn(f"{shown} is not in Q(cos 2*pi/N) for any N tried (N = ", message)
                self.assertRegex(message, r"; (gave up after [0-9.]+ s|fields of degree up to 12)\)")
        # Values that are in such a field still convert exactly, and at once.
        start = time.monotonic()
        m = Matrix([[sympy.sqrt(2), sympy.cos(2 * sympy.pi / 7)]])
        self.assertEqual((m.at(0, 0), m.at(0, 1)), (lsrl.Exact("sqrt(2)"), lsrl.Exact("cos(2*pi/7)")))
        self.assertEqual(Matrix([[sympy.sqrt(sympy.sqrt(5) / 8 + sympy.Rational(5, 8))]]).at(0, 0),
                         lsrl.Exact("cos(pi/10)"))
        self.assertLess(time.monotonic() - start, 10)


class TwoPrograms(unittest.TestCase):
    def test_nodes_of_two_programs_are_not_combined(self):
        x, other = Input(1), Input(1)
        cases = [
            (lambda: x + other, "x + y: " + MIXED),
            (lambda: x - other, "x - y: " + MIXED),
            (lambda: Concat([x, other]), "Concat: " + MIXED),
            (lambda: f_larger(x, other), "f_larger: " + MIXED),
            (lambda: f_and(x, other), "f_and: " + MIXED),
            (lambda: f_ifelse(x, t_val=other, f_val=None), "f_ifelse: " + MIXED),
            (lambda: f_bump(x, lb=other, ub=other), "f_bump: " + MIXED),
        ]
        for call, text in cases:
            with self.subTest(text=text):
                with self.assertRaises(ValueError) as cm:
                    call()
                self.assertEqual(str(cm.exception), text)
        self.assertEqual((x._graph.node_count, other._graph.node_count), (1, 1))


def accumulator():
    """primitives_test.cpp's accumulatorGraph: [s_t, ReLU(12 - s_t)], s_t = s_{t-1} + x_t."""
    x = Input(1)
    s = LinState(x, [[1]], [[1]], [10])
    return ForEach(Concat([s, ReLU(Linear(s, [[-1]], [12]))]), verbose=False)


class RunErrors(unittest.TestCase):
    def error_of(self, loop, tokens, backend):
        with self.assertRaises(ValueError) as cm:
            loop(tokens, backend=backend)
        return str(cm.exception)

    def test_non_finite_float64_inputs_name_token_and_feature(self):
        relu = ForEach(ReLU(Input(2)), verbose=False)
        nan, inf = float("nan"), float("inf")
        for tokens, text in (
            (np.array([[0, 1], [0, nan]]),
             "token 1, feature 1 is NaN: inputs must be finite numbers"),
            (np.array([[-inf], [0]]),
             "token 0, feature 0 is -infinity: inputs must be finite numbers"),
            (np.array([[0, 0, inf], [0, 0, 0]]),
             "token 2, feature 0 is +infinity: inputs must be finite numbers"),
        ):
            with self.subTest(text=text):
                self.assertEqual(self.error_of(relu, tokens, "float64"), text)

    def test_non_finite_exact_inputs_name_token_and_feature(self):
        # BUG (app/python/bindings/program.cpp, Runner::runExact): the tokens go through
        # toExactMatrix -> Exact(double), whose error is the bare "non-finite value inf";
        # the core's text for the same tokens (run/executor.h exactTokens, asserted in
        # primitives_test.cpp) names the token and the feature.
        relu = ForEach(ReLU(Input(2)), verbose=False)
        tokens = np.array([[0, 0, float("inf")], [0, 0, 0]])
        self.assertEqual(self.error_of(relu, tokens, "exact"),
                         "token 2, feature 0 is +infinity: inputs must be finite numbers")

    def test_non_finite_exact_inputs_are_refused(self):
        relu = ForEach(ReLU(Input(1)), verbose=False)
        for value in (float("nan"), float("inf"), -float("inf")):
            with self.subTest(value=value):
                self.error_of(relu, np.array([[0.0, value]]), "exact")

    def test_token_width_mismatch_is_refused(self):
        loop = accumulator()
        messages = set()
        for tokens in (np.array([[0, 1], [2, 3]]), np.array([[0.5], [1.5]]), [[0, 1], [2, 3]],
                       Matrix([[0], [1]]), np.zeros((0, 3))):
            for backend in ("exact", "float64"):
                with self.subTest(tokens=repr(tokens), backend=backend):
                    messages.add(self.error_of(loop, tokens, backend))
        self.assertEqual(len(messages), 2, messages)  # width 2 and width 0, whatever the form

    def test_token_width_mismatch_has_the_cores_text(self):
        # BUG (app/python/bindings/program.cpp, mismatch()): the bindings check the width
        # themselves and raise the paper's reference-implementation text "Input size
        # mismatch: expected input dimension 1 but got 2" instead of the core executor's
        # "token 0 has width 2, the program's Input expects 1" (run/executor.cpp, asserted
        # in primitives_test.cpp; `lsrl run` prints it after "sequence 0: ").
        loop = accumulator()
        for backend in ("exact", "float64"):
            self.assertEqual(self.error_of(loop, np.array([[0, 1], [2, 3]]), backend),
                             "token 0 has width 2, the program's Input expects 1")

    def test_arrays_of_three_dimensions_are_refused(self):
        loop = accumulator()
        for backend in ("exact", "float64"):
            with self.subTest(backend=backend):
                self.assertIn("got 3 dimensions", self.error_of(loop, np.zeros((1, 2, 2)),
                                                                backend))


def write_json(path, doc):
    with open(path, "w") as f:
        json.dump(doc, f)
    return path


def zeros(rows, cols):
    return {"shape": [rows, cols], "entries": []}


# Graph files with dimension problems (checks_test.cpp's cases).
BAD_GRAPHS = {
    "linear": {"format": "lsrl-graph", "version": 2, "output": 2, "nodes": [
        {"id": 0, "op": "Input", "dim": 3},
        {"id": 1, "op": "Linear", "dim": 2, "inputs": [0], "A": zeros(2, 2), "b": [0, 0, 0]},
        {"id": 2, "op": "Linear", "name": "wide", "dim": 4, "inputs": [0], "A": zeros(2, 3),
         "b": [0, 0]},
    ]},
    "linstate": {"format": "lsrl-graph", "version": 2, "output": 1, "nodes": [
        {"id": 0, "op": "Input", "dim": 2},
        {"id": 1, "op": "LinState", "dim": 3, "inputs": [0], "A": zeros(3, 2), "B": zeros(2, 1),
         "init": [0, 0], "bias": [0, 0, 0, 0]},
    ]},
    "concat_relu_multi": {"format": "lsrl-graph", "version": 2, "output": 5, "nodes": [
        {"id": 0, "op": "Input", "dim": 3},
        {"id": 1, "op": "Concat", "dim": 5, "inputs": [0, 0]},
        {"id": 2, "op": "ReLU", "dim": 2, "inputs": [0]},
        {"id": 3, "op": "Multi", "dim": 1, "inputs": [0]},
        {"id": 4, "op": "Multi", "dim": 2, "inputs": [5]},
        {"id": 5, "op": "Concat", "dim": 6, "inputs": [0, 0]},
    ]},
    "cycle": {"format": "lsrl-graph", "version": 2, "output": 4, "nodes": [
        {"id": 0, "op": "Input", "dim": 1},
        {"id": 1, "op": "Concat", "dim": 2, "inputs": [0, 3]},
        {"id": 2, "op": "Linear", "name": "mix", "dim": 1, "inputs": [1], "A": zeros(1, 2)},
        {"id": 3, "op": "ReLU", "dim": 1, "inputs": [2]},
        {"id": 4, "op": "ReLU", "dim": 1, "inputs": [3]},
    ]},
}

# What checks_test.cpp asserts for them (core/graph/checks.cpp).
EXPECTED_PROBLEMS = {
    "linear": [
        "Linear node 1: A has 2 columns, expected 3 (the width of its input, node 0).",
        "Linear node 1: b has 3 values, expected 2 (the node's width).",
        "Linear node 2 \"wide\": A has 2 rows, expected 4 (the node's width).",
        "Linear node 2 \"wide\": b has 2 values, expected 4 (the node's width).",
    ],
    "linstate": [
        "LinState node 1: A is 3x2, expected a square 3x3 matrix (the node's width).",
        "LinState node 1: B has 2 rows, expected 3 (the node's width).",
        "LinState node 1: B has 1 columns, expected 2 (the width of its input, node 0).",
        "LinState node 1: init_state has 2 values, expected 3 (the node's width).",
        "LinState node 1: bias has 4 values, expected 3 (the node's width).",
    ],
    "concat_relu_multi": [
        "Concat node 1 has width 5, expected 6 (the sum of its inputs' widths, 3 + 3).",
        "ReLU node 2 has width 2, expected 3 (the width of its input, node 0).",
        "Multi node 3: its input, node 0, has odd width 3, expected an even width 2k (the two "
        "halves are multiplied).",
        "Multi node 4 has width 2, expected 3 (half the width 6 of its input, node 5).",
    ],
    "cycle": [
        "Nodes 1, 2, 3 form a cycle: Concat node 1 -> Linear node 2 \"mix\" -> ReLU node 3 -> "
        "Concat node 1 (each feeds the next); a node may not depend on its own value.",
    ],
}


class GraphFileProblems(CliTestCase):
    def check_lines(self, file):
        """The problems `lsrl check FILE` lists (without the "FILE: " prefix)."""
        r = self.call_cli("check", file)
        self.assertEqual(r.returncode, 1, r.stderr)
        lines = r.stdout.rstrip("\n").split("\n")
        self.assertRegex(lines[-1], r"^\d+ problem\(s\) found$")
        prefix = file + ": "
        self.assertTrue(all(line.startswith(prefix) for line in lines[:-1]), lines)
        return [line[len(prefix):] for line in lines[:-1]]

    def test_running_lists_the_problems_lsrl_check_finds(self):
        for name, doc in BAD_GRAPHS.items():
            with self.subTest(graph=name):
                file = write_json(self.path(name + ".json"), doc)
                problems = self.check_lines(file)
                self.assertEqual(problems, EXPECTED_PROBLEMS[name])
                loop = ForEach.load_json(file, verbose=False)
                tokens = np.ones((doc["nodes"][0]["dim"], 2))
                for backend in ("exact", "float64"):
                    with self.assertRaises(ValueError) as cm:
                        loop(tokens, backend=backend)
                    self.assertEqual(str(cm.exception), "\n".join(problems))
                inputs = write_json(self.path(name + "_in.json"), {"tokens": tokens.T.tolist()})
                # The CLI locates each problem by the file it read.
                self.assertEqual(self.cli_error("run", file, "--input", inputs),
                                 "\n".join(file + ": " + p for p in problems))

    def test_compiling_fails_as_lsrl_compile_does(self):
        for name, doc in BAD_GRAPHS.items():
            with self.subTest(graph=name):
                file = write_json(self.path(name + ".json"), doc)
                loop = ForEach.load_json(file, verbose=False)
                with self.assertRaises(GraphSimplificationError) as cm:
                    loop.simplify()
                self.assertIsInstance(cm.exception, ValueError)
                self.assertEqual(str(cm.exception),
                                 "\n".join("compile: " + p for p in EXPECTED_PROBLEMS[name]))
                out = self.path(name + "_model.json")
                self.assertEqual(self.cli_error("compile", file, "-o", out), str(cm.exception))
                self.assertFalse(os.path.exists(out))

    def test_files_the_loader_refuses(self):
        files = {
            "unknown_op.json": '{"format": "lsrl-graph", "version": 2, "output": 1, "nodes": ['
                               '{"id": 0, "op": "Input", "dim": 1}, '
                               '{"id": 1, "op": "Foo", "dim": 1, "inputs": [0]}]}',
            "truncated.json": '{"format": "lsrl-graph", "version": 2, "nodes": [',
            "not_a_graph.json": '{"format": "something-else"}',
        }
        for name, text in files.items():
            with self.subTest(file=name):
                file = self.path(name)
                with open(file, "w") as f:
                    f.write(text)
                with self.assertRaises(ValueError) as cm:
                    ForEach.load_json(file)
                self.assertTrue(str(cm.exception).startswith(file + ": "), str(cm.exception))
                self.assertEqual(str(cm.exception), self.cli_error("check", file))
        with self.assertRaises(ValueError) as cm:
            ForEach.load_json(self.path("missing.json"))
        self.assertEqual(str(cm.exception), self.cli_error("check", self.path("missing.json")))

    def test_messages_with_invalid_utf8_come_through(self):
        # BUG (app/python/bindings/module.cpp, the exception translator): an lsrl::Error
        # whose text is not valid UTF-8 (here the JSON parser quoting the raw byte it read)
        # is passed to PyErr_SetString, whose decoding fails, so Python sees a ValueError
        # with no message at all; `lsrl check` prints the message.
        file = self.path("binary.json")
        with open(file, "wb") as f:
            f.write(b'{"format": \xff}')
        with self.assertRaises(ValueError) as cm:
            ForEach.load_json(file)
        self.assertTrue(str(cm.exception).startswith(file + ": line 1, column 12: malformed JSON"),
                        repr(str(cm.exception)))


if __name__ == "__main__":
    unittest.main()
