"""The six primitives and their operators from Python, mirroring the C++ tests
tests/graph/graph_test.cpp (ids, lowering of the operators, slices, always_positive,
topological order, statistics) and tests/executor/primitives_test.cpp (what each primitive
computes, exactly and in float64, and the ForEach semantics).

The expected values are the C++ tests' own, worked out by hand from the definitions
(docs/spec/language.md §1): a Python program must build the same nodes and compute the same
numbers as the C++ API.
"""

import math
import unittest
from fractions import Fraction

import numpy as np

import lsrl
from helpers import expect_outputs, fractions, next_id, ops_from, token_columns
from lsrl import Concat, ForEach, Input, Linear, LinState, Matrix, Multiplicative, ReLU, Slice


def loop_of(node):
    return ForEach(node, verbose=False)


class Lowering(unittest.TestCase):
    """graph_test.cpp: which nodes the builders and operators create, in which order."""

    def test_ids_are_creation_order(self):
        x = Input(2)
        r = ReLU(x)
        s = x[1]
        self.assertEqual((x.id, r.id, s.id), (0, 1, 2))
        self.assertEqual(ops_from(x, 0), ["Input", "ReLU", "Slice"])

    def test_sum_of_two_nodes_is_concat_plus_linear(self):
        x = Input(2)
        y = ReLU(x)
        s = x + y
        self.assertEqual(ops_from(x, 0), ["Input", "ReLU", "Concat", "Linear"])
        concat = s.input
        self.assertIsInstance(concat, Concat)
        self.assertEqual(concat.id, 2)
        self.assertEqual(concat.input, [x, y])
        self.assertIsInstance(s, Linear)
        self.assertEqual(fractions(s.A), [[1, 0, 1, 0], [0, 1, 0, 1]])
        self.assertEqual(fractions(s.b), [[0], [0]])
        d = x - y
        self.assertEqual(fractions(d.A), [[1, 0, -1, 0], [0, 1, 0, -1]])

    def test_scalar_operators_are_one_linear(self):
        x = Input(1)
        a = x - Fraction(1, 2)
        b = 3 - x
        c = 2 * x
        d = x / 4
        self.assertEqual(x._graph.node_count, 5)
        self.assertEqual(ops_from(x, 1), ["Linear"] * 4)
        self.assertEqual((fractions(a.A), fractions(a.b)), ([[1]], [[Fraction(-1, 2)]]))
        self.assertEqual((fractions(b.A), fractions(b.b)), ([[-1]], [[3]]))
        self.assertEqual((fractions(c.A), fractions(c.b)), ([[2]], [[0]]))
        self.assertEqual(fractions(d.A), [[Fraction(1, 4)]])

    def test_scalar_operands_of_every_kind_are_exact(self):
        x = Input(1)
        self.assertEqual(fractions((x + "1/3").b), [[Fraction(1, 3)]])
        self.assertEqual(fractions((x + 0.1).b), [[Fraction(0.1)]])  # the binary value
        self.assertEqual(fractions((x * Fraction(2, 7)).A), [[Fraction(2, 7)]])
        self.assertEqual(fractions((x * np.int64(5)).A), [[5]])
        self.assertEqual(fractions((x + 10**30).b), [[10**30]])
        self.assertEqual(fractions((-x).A), [[-1]])
        self.assertEqual(fractions((1 + x).b), [[1]])
        self.assertTrue((x * "sqrt(3)").A.at(0, 0) == lsrl.Exact("sqrt(3)"))

    def test_division_by_zero_is_an_error(self):
        x = Input(1)
        for zero in (0, 0.0, Fraction(0), "0"):
            with self.subTest(zero=zero):
                with self.assertRaises(ValueError) as cm:
                    x / zero
                self.assertEqual(str(cm.exception), "division by zero: node 0 divided by 0")

    def test_slice_is_a_tagged_linear(self):
        x = Input(4)
        s = Slice(x, 1, 3)
        self.assertIsInstance(s, lsrl.Slice)
        self.assertIsInstance(s, lsrl.Linear)
        self.assertEqual(s.op, "Slice")
        self.assertEqual((s.start, s.end, s.dim), (1, 3, 2))
        self.assertEqual(fractions(s.A), [[0, 1, 0, 0], [0, 0, 1, 0]])
        self.assertEqual(fractions(s.b), [[0], [0]])
        self.assertEqual(s.name, "Slice[1:3]")
        with self.assertRaises(ValueError) as cm:
            x[2:5]
        self.assertIn("out of range", str(cm.exception))
        self.assertIn("width 4", str(cm.exception))

    def test_indexing_builds_slices(self):
        x = Input(4)
        for key, (start, end) in ((1, (1, 2)), (-1, (3, 4)), (slice(1, 3), (1, 3)),
                                  (slice(None, 2), (0, 2)), (slice(2, None), (2, 4)),
                                  (slice(-3, -1), (1, 3)), (slice(None), (0, 4))):
            with self.subTest(key=key):
                first = next_id(x)
                s = x[key]
                self.assertEqual(ops_from(x, first), ["Slice"])
                self.assertIsInstance(s, Slice)
                self.assertEqual((s.start, s.end, s.dim), (start, end, end - start))
                self.assertEqual(s.input, x)
        self.assertIsInstance(x[np.int64(2)], Slice)
        with self.assertRaisesRegex(ValueError, "Slice does not support steps"):
            x[0:4:2]
        with self.assertRaisesRegex(ValueError, "Unsupported type for slicing: str"):
            x["a"]
        with self.assertRaisesRegex(ValueError, r"range \[4:5\] is out of range"):
            x[4]

    def test_always_positive_propagation(self):
        x = Input(2)
        r = ReLU(x)
        self.assertFalse(x.always_positive)
        self.assertTrue(r.always_positive)
        self.assertTrue((r + r).always_positive)
        self.assertFalse((r + x).always_positive)
        self.assertTrue((r * 3).always_positive)
        self.assertFalse((r * -3).always_positive)
        self.assertTrue((r + 1).always_positive)
        self.assertFalse((r - 1).always_positive)
        self.assertTrue(r[0].always_positive)
        self.assertTrue(Concat([r, r]).always_positive)
        self.assertFalse(Concat([r, x]).always_positive)

    def test_always_positive_is_settable(self):
        x = Input(1)
        y = x * 2
        self.assertFalse(y.always_positive)
        y.always_positive = True
        self.assertTrue(y.always_positive)
        self.assertTrue(y[0].always_positive)  # a slice inherits it
        self.assertTrue((y + 1).always_positive)

    def test_topological_order_is_kahn_smallest_id_first(self):
        x = Input(1)  # 0
        a = ReLU(x)  # 1
        dead = ReLU(a)  # 2: does not reach the output
        b = x * 2  # 3
        c = ReLU(b)  # 4
        d = Concat([c, a])  # 5
        ReLU(d)  # 6: after the output
        order = [n.id for n in loop_of(d).topological_sort()]
        self.assertEqual(order, [0, 1, 3, 4, 5])
        self.assertEqual([n.id for n in d.topological_sort()], [0, 1, 3, 4, 5])
        self.assertNotIn(dead, loop_of(d).topological_sort())
        self.assertEqual([type(n) for n in loop_of(d).topological_sort()],
                         [Input, ReLU, Linear, ReLU, Concat])

    def test_stats_count_slices_separately_and_branches(self):
        x = Input(2)
        out = x[0] + x[1]
        st = loop_of(out).stats()
        self.assertEqual(st["counts_by_op"]["Slice"], 2)
        self.assertEqual(st["counts_by_op"]["Linear"], 1)
        self.assertEqual(st["counts_by_op"]["Concat"], 1)
        self.assertEqual(st["total_nodes"], 5)
        self.assertEqual(st["branch_nodes"], 1)  # the Input feeds both slices
        self.assertEqual((st["input_dim"], st["output_dim"]), (2, 1))

    def test_conductor_is_the_lcm_of_all_values(self):
        x = Input(1)
        z = x * lsrl.Exact.sqrt(3) * "cos(pi/5)"
        conductor = loop_of(z).stats()["conductor"]
        self.assertEqual(conductor % 12, 0)
        self.assertEqual(conductor % 10, 0)


class NodeAttributes(unittest.TestCase):
    """The attributes of the paper's node classes: A, B, b, bias, init_state as
    lsrl.Matrix (exact), dim, name, input."""

    def test_linear_attributes(self):
        x = Input(2, name="x")
        y = Linear(x, [[1, "1/2"], [0, -1], [3, 0]], Matrix(np.array([1, 0, -2])), name="mix")
        self.assertIsInstance(y.A, Matrix)
        self.assertIs(y.A.mode, lsrl.MatrixMode.SYMBOLIC)
        self.assertEqual(fractions(y.A), [[1, Fraction(1, 2)], [0, -1], [3, 0]])
        self.assertEqual(fractions(y.b), [[1], [0], [-2]])
        self.assertEqual((y.dim, y.name, y.op, y.size_str), (3, "mix", "Linear", "2->3"))
        self.assertEqual(y.input, x)
        self.assertEqual(x.name, "x")
        z = Linear(x, Matrix.eye(2), None)
        self.assertEqual(fractions(z.b), [[0], [0]])
        self.assertEqual(z.name, "Linear")
        z.name = "renamed"
        self.assertEqual(z.name, "renamed")

    def test_matrices_of_every_form_store_the_same_values(self):
        x = Input(2)
        want = [[Fraction(1, 2), 0], [0, 3]]
        for A in ([[0.5, 0], [0, 3]], Matrix(np.array([[0.5, 0.0], [0.0, 3.0]])),
                  [["1/2", 0], [0, "3"]], Matrix([[Fraction(1, 2), 0], [0, 3]]),
                  Matrix(np.array([[0.5, 0], [0, 3]]), mode=lsrl.MatrixMode.NUMERIC)):
            with self.subTest(A=type(A).__name__):
                self.assertEqual(fractions(Linear(x, A, [[1], [2]]).A), want)

    def test_linstate_attributes(self):
        x = Input(1)
        s = LinState(x, A=[[0, 1], [1, 0]], B=[[1], [0]], init_state=[[1], [2]],
                     name="swap", bias=[0, "1/3"])
        for m in (s.A, s.B, s.init_state, s.bias):
            self.assertIsInstance(m, Matrix)
        self.assertEqual(fractions(s.A), [[0, 1], [1, 0]])
        self.assertEqual(fractions(s.B), [[1], [0]])
        self.assertEqual(fractions(s.init_state), [[1], [2]])
        self.assertEqual(fractions(s.bias), [[0], [Fraction(1, 3)]])
        self.assertEqual((s.dim, s.name, s.op), (2, "swap", "LinState"))
        plain = LinState(x, Matrix.eye(1), Matrix.eye(1), Matrix.zeros(1, 1))
        self.assertEqual(fractions(plain.bias), [[0]])
        self.assertEqual(plain.name, "LinState")

    def test_concat_relu_multiplicative_attributes(self):
        x = Input(4)
        head = x[0:2]
        c = Concat([x, head])
        self.assertEqual((c.dim, c.input, c.size_str), (6, [x, head], "(4,2)->6"))
        m = Multiplicative(c)
        self.assertIs(lsrl.Multi, Multiplicative)
        self.assertEqual((m.dim, m.op, m.name), (3, "Multi", "Multiplicative"))
        r = ReLU(x)
        self.assertEqual((r.dim, r.name), (4, "ReLU"))
        with self.assertRaises(AttributeError):
            r.A

    def test_node_objects_are_views_of_the_graph(self):
        x = Input(1)
        y = ReLU(x)
        loop = loop_of(y)
        self.assertEqual(loop.output, y)
        self.assertEqual(hash(loop.output), hash(y))
        self.assertEqual(loop.topological_sort(), [x, y])
        self.assertNotEqual(y, Input(1))  # same id in another program

    def test_state_variables_of_a_compiled_model(self):
        """isinstance(n, LinState) over topological_sort() of a compiled model finds its
        one stacked state, whose A, B, bias and init_state count ones and zeros."""
        x = Input(1)
        ones = LinState(x, A=Matrix.eye(1), B=Matrix.eye(1), init_state=Matrix.zeros(1, 1))
        zeros = LinState(lsrl.f_not(x), A=Matrix.eye(1), B=Matrix.eye(1),
                         init_state=Matrix.zeros(1, 1))
        loop = loop_of(lsrl.f_larger(ones, zeros, scale=10))
        loop.simplify()
        states = [n for n in loop.topological_sort() if isinstance(n, lsrl.LinState)]
        self.assertEqual(len(states), 1)
        self.assertEqual(loop.get_state_variables(), states)
        s = states[0]
        self.assertEqual(s.dim, 2)
        self.assertEqual((s.A.shape, s.B.shape, s.init_state.shape, s.bias.shape),
                         ((2, 2), (2, 1), (2, 1), (2, 1)))
        # Run the recurrence s_t = A s_{t-1} + B x_t + bias by hand with its attributes.
        state = s.init_state.numpy()
        bits = [1, 1, 0, 1, 0, 0, 0]
        for bit in bits:
            state = s.A.numpy() @ state + s.B.numpy() * bit + s.bias.numpy()
        self.assertEqual(sorted(state[:, 0].tolist()), sorted([3.0, 4.0]))


class Running(unittest.TestCase):
    """primitives_test.cpp: what each primitive computes, exactly and in float64."""

    def test_linear_general_sparse_rows(self):
        x = Input(2)
        y = Linear(x, [[1, 2], [0, -1], [3, 0]], [1, 0, -2])
        expect_outputs(self, loop_of(y), [[2, 3]], [[9, -3, 4]])

    def test_linear_one_entry_per_row(self):
        x = Input(2)
        y = Linear(x, [[0, 5], [-1, 0], [0, 0]], [0, 1, 2])
        expect_outputs(self, loop_of(y), [[2, 3]], [[15, -1, 2]])

    def test_linear_scaled_identity(self):
        x = Input(2)
        y = Linear(x, Matrix.eye(2) * Fraction(3, 2), [1, -1])
        expect_outputs(self, loop_of(y), [[2, 3]], [[4, Fraction(7, 2)]])

    def test_selection_linear(self):
        x = Input(2)
        y = Linear(x, [[0, 1], [1, 0], [0, 1]], [0, 0, 0])
        expect_outputs(self, loop_of(y), [[2, 3]], [[3, 2, 3]])

    def test_relu_contiguous_and_gathered(self):
        x = Input(3)
        expect_outputs(self, loop_of(ReLU(x)), [[Fraction(-3, 2), 0, 2]], [[0, 0, 2]])
        a = Input(3)
        r = ReLU(Concat([a[2:3], a[0:1]]))
        expect_outputs(self, loop_of(r), [[-1, 5, 2], [4, 5, -2]], [[2, 0], [0, 4]])

    def test_relu_of_minus_zero_and_tiny_values(self):
        x = Input(3)
        out = loop_of(ReLU(x))(np.array([[-0.0], [1e-300], [-1e-300]]), backend="float64")
        values = out.numpy()[:, 0]
        self.assertEqual(values[0], 0.0)
        self.assertFalse(math.copysign(1.0, values[0]) < 0)
        self.assertEqual(values[1], 1e-300)
        self.assertEqual(values[2], 0.0)

    def test_linstate_value_is_the_state_after_the_update(self):
        # s_t = s_{t-1}/2 + x_t + 1, s_0 = 2: the value at step 0 is already updated.
        x = Input(1)
        s = LinState(x, [[Fraction(1, 2)]], [[1]], [2], bias=[1])
        expect_outputs(self, loop_of(s), [[1], [1], [0]],
                       [[3], [Fraction(7, 2)], [Fraction(11, 4)]])

    def test_linstate_with_non_diagonal_state_matrix(self):
        # A swaps the two components: the update must read the OLD state throughout.
        x = Input(1)
        s = LinState(x, [[0, 1], [1, 0]], [[1], [0]], [1, 2], bias=[0, 1])
        expect_outputs(self, loop_of(s), [[5], [0], [1]], [[7, 2], [2, 8], [9, 3]])

    def test_linstate_with_diagonal_state_matrix(self):
        x = Input(1)
        s = LinState(x, Matrix.diag(Matrix([[2]]), Matrix([[-1]])), [[1], [1]], [1, 1])
        expect_outputs(self, loop_of(s), [[1], [1], [0]], [[3, 0], [7, 1], [14, -1]])

    def test_linstate_without_input_dependence_counts_tokens(self):
        x = Input(1)
        s = LinState(x, [[1]], Matrix.zeros(1, 1), [-1], bias=[1])
        expect_outputs(self, loop_of(s), [[9], [9], [9]], [[0], [1], [2]])

    def test_concat_with_repeated_inputs(self):
        x = Input(2)
        y = Linear(x, [[1, 1]], [0])
        c = Concat([x, y, x])
        self.assertEqual(c.dim, 5)
        expect_outputs(self, loop_of(c), [[2, 3]], [[2, 3, 5, 2, 3]])
        z = Linear(c, [[1, 0, 1, 1, -1]], [0])
        expect_outputs(self, loop_of(z), [[2, 3]], [[6]])  # 2 + 5 + 2 - 3

    def test_multiplicative_multiplies_the_halves(self):
        x = Input(4)
        expect_outputs(self, loop_of(Multiplicative(x)), [[1, 2, 3, 4]], [[3, 8]])
        a = Input(4)
        c = Concat([a[1], a[0], a[3], a[2]])
        expect_outputs(self, loop_of(Multiplicative(c)), [[1, 2, 3, Fraction(-1, 2)]],
                       [[-1, 3]])

    def test_slices_of_slices_and_states(self):
        x = Input(4)
        s = LinState(x, Matrix.eye(4), Matrix.eye(4), [0, 0, 0, 0])
        out = Concat([s[1:4][1:2], x[0], s[1:3]])
        expect_outputs(self, loop_of(out), [[1, 2, 3, 4], [1, 2, 3, 4]],
                       [[3, 1, 2, 3], [6, 1, 4, 6]])

    def test_identity_program_returns_the_token(self):
        x = Input(3)
        expect_outputs(self, loop_of(x), [[1, -2, Fraction(7, 2)]], [[1, -2, Fraction(7, 2)]])

    def test_token_independent_nodes(self):
        x = Input(1)
        c = Linear(x, Matrix.zeros(2, 1), [1, -2])
        r = ReLU(c)
        p = Multiplicative(Concat([r, c]))  # [1 * 1, 0 * (-2)]
        expect_outputs(self, loop_of(Concat([x, r, p])), [[5], [-7]],
                       [[5, 1, 0, 1, 0], [-7, 1, 0, 1, 0]])

    def test_output_independent_of_the_input_still_checks_tokens(self):
        x = Input(2)
        c = Linear(x, Matrix.zeros(1, 2), [7])
        expect_outputs(self, loop_of(c), [[1, 2]], [[7]])
        for backend in ("exact", "float64"):
            with self.subTest(backend=backend):
                with self.assertRaises(ValueError):
                    loop_of(c)(np.array([[1]]), backend=backend)


def accumulator():
    """s_t = s_{t-1} + x_t from s_0 = 10, and ReLU(12 - s_t): primitives_test.cpp's
    accumulatorGraph."""
    x = Input(1)
    s = LinState(x, [[1]], [[1]], [10])
    r = ReLU(Linear(s, [[-1]], [12]))
    return loop_of(Concat([s, r]))


class ForEachSemantics(unittest.TestCase):
    def test_several_tokens_start_from_reset_one_token_continues(self):
        loop = accumulator()
        tokens = [[1], [2], [-4], [Fraction(1, 2)]]
        expected = [[11, 1], [13, 0], [9, 3], [Fraction(19, 2), Fraction(5, 2)]]
        columns = token_columns(tokens)
        for backend in ("exact", "float64"):
            with self.subTest(backend=backend):
                for _ in range(2):  # the same again: a call of several tokens resets
                    np.testing.assert_array_equal(loop(columns, backend=backend).numpy(),
                                                  np.array(expected, dtype=float).T)
                # one token at a time continues from the previous call, as in the paper
                loop.reset()
                steps = [loop(columns[:, t:t + 1], backend=backend).numpy()[:, 0]
                         for t in range(len(tokens))]
                np.testing.assert_array_equal(steps, np.array(expected, dtype=float))
                # after a whole sequence, the next token continues it
                loop(columns[:, :2], backend=backend)
                np.testing.assert_array_equal(loop(columns[:, 2:3], backend=backend).numpy()[:, 0],
                                              np.array(expected[2], dtype=float))
                # run() always starts a new sequence, a one-token one too
                second_then_third = loop.run(columns[:, 1:3], backend=backend).numpy()[:, 1]
                np.testing.assert_array_equal(loop.run(columns[:, 1:2], backend=backend).numpy()[:, 0],
                                              [12, 0])
                # a failing call leaves the state as it was
                with self.assertRaises(ValueError):
                    loop(np.array([[1.0, 2.0]]).T, backend=backend)
                np.testing.assert_array_equal(loop(columns[:, 2:3], backend=backend).numpy()[:, 0],
                                              second_then_third)
                loop.reset()
        expect_outputs(self, loop, tokens, expected)

    def test_float_runs_are_independent_too(self):
        loop = accumulator()
        x = np.array([[1.0, 2.0, -4.0, 0.5]])
        first = loop(x, backend="float64").numpy()
        np.testing.assert_array_equal(first, loop(x, backend="float64").numpy())
        np.testing.assert_array_equal(first, [[11, 13, 9, 9.5], [1, 0, 3, 2.5]])

    def test_empty_sequence_gives_no_outputs(self):
        loop = accumulator()
        for backend in ("exact", "float64"):
            with self.subTest(backend=backend):
                out = loop(np.zeros((1, 0)), backend=backend)
                self.assertEqual(out.shape, (2, 0))
        self.assertEqual(token_columns([]).shape, (0, 0))

    def test_state_comparison_sees_this_tokens_update(self):
        # sugar_run_test.cpp ForEachSemantics: count_t = t + 1; count > 5/2 from t = 2 on.
        x = Input(1)
        count = LinState(lsrl.f_constant(x, 1), Matrix.eye(1), Matrix.eye(1), [0])
        out = lsrl.f_larger(count, Fraction(5, 2))
        expect_outputs(self, loop_of(out), [[0]] * 4, [[0], [0], [1], [1]])
        doubled = LinState(x, Matrix.eye(1), Matrix.eye(1), [10]) * 2
        expect_outputs(self, loop_of(doubled), [[1], [2], [3]], [[22], [26], [32]])


if __name__ == "__main__":
    unittest.main()
