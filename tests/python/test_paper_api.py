"""The paper package's API on our module (docs/python.md, "Compatibility"): what a script
written for the authors' `lsrl` package observes.

- Matrix.matrix: a sympy.SparseMatrix with exact entries (SYMBOLIC), scipy.sparse (NUMERIC).
- sympy numbers in Matrix arithmetic and node scalars, converted exactly (rationals, sqrt,
  nested radicals, cos/sin of rational multiples of pi) and back; pi stays sympy in a
  Matrix and is refused by a node; matrices of two modes do not mix.
- Indexing a Matrix gives matrices; at() gives values.
- Nodes are callable on values (forward) in the global mode; LinState.state and reset.
- numpy arrays as node matrices are refused (wrap them in Matrix).
- lsrl.utils: is_symbolic, is_fully_symbolic, diag_matrices_and_eyes, plot_and_save_graph.
- ForEach: graph() (networkx-like), fold_same_type, record_simplification_step,
  validate_graph, a history that accumulates, simplify() = the paper's algorithm.
"""

import math
import os
import tempfile
import unittest
from fractions import Fraction

import numpy as np
import scipy.sparse
import sympy

import lsrl
from helpers import fractions
from lsrl import Concat, Exact, ForEach, Input, Linear, LinState, Matrix, MatrixMode, ReLU
from lsrl.matrix_tools import matrix_mode
from lsrl.sympy_bridge import NotExact, from_sympy, to_sympy
from lsrl.utils import diag_matrices_and_eyes, is_fully_symbolic, is_symbolic, plot_and_save_graph


class SympyBridge(unittest.TestCase):
    def test_degrees_become_exact_cosines(self):
        # sympy writes these as nested radicals; each must be the exact cos/sin value
        for degrees in (1, 12, 22.5, 30, 36, 45, 72, 87):
            with self.subTest(degrees=degrees):
                angle = sympy.rad(sympy.nsimplify(degrees))
                k = sympy.nsimplify(degrees) / 180
                self.assertEqual(from_sympy(sympy.cos(angle)), Exact.cos_pi(int(k.p), int(k.q)))
                self.assertEqual(from_sympy(sympy.sin(angle)), Exact.sin_pi(int(k.p), int(k.q)))

    def test_rationals_roots_and_powers(self):
        self.assertEqual(from_sympy(sympy.Rational(-3, 7)).to_fraction(), Fraction(-3, 7))
        self.assertEqual(from_sympy(sympy.S.Half).to_fraction(), Fraction(1, 2))
        self.assertEqual(from_sympy(sympy.sqrt(8)), 2 * Exact.sqrt(2))
        self.assertEqual(from_sympy(2 ** sympy.Rational(-1, 2)) * Exact.sqrt(2), 1)
        self.assertEqual(from_sympy(sympy.sqrt(sympy.Rational(9, 4))).to_fraction(), Fraction(3, 2))
        self.assertEqual(from_sympy((1 + sympy.sqrt(5)) ** 2), 6 + 2 * Exact.sqrt(5))
        self.assertEqual(from_sympy(sympy.Float(0.1)).to_fraction(), Fraction(0.1))  # binary value

    def test_round_trip_to_sympy(self):
        for text in ("1/3", "-7", "cos(pi/15)", "sqrt(3)/2 - 1/4", "cos(pi/5) - cos(2*pi/7)"):
            with self.subTest(text=text):
                x = Exact(text)
                back = to_sympy(x)
                self.assertTrue(is_fully_symbolic(back))
                self.assertAlmostEqual(float(back.evalf(30)), float(x), places=14)
                self.assertEqual(from_sympy(back), x)

    def test_what_is_not_exact_is_refused(self):
        for value, why in ((sympy.pi, "pi"), (sympy.Symbol("t"), "t"), (sympy.exp(1), "E"),
                           (sympy.cos(1), "cos of 1, not a rational multiple of pi")):
            with self.subTest(value=value):
                with self.assertRaises(NotExact) as cm:
                    from_sympy(value)
                self.assertIn(why, str(cm.exception))
                self.assertIn("is not a number LSRL computes exactly", str(cm.exception))
        self.assertTrue(issubclass(NotExact, ValueError))


class MatrixAsInThePaper(unittest.TestCase):
    def test_matrix_attribute_types(self):
        symbolic = Matrix([[1, 0.5], ["1/3", "sqrt(2)"]], mode=MatrixMode.SYMBOLIC)
        self.assertIsInstance(symbolic.matrix, sympy.SparseMatrix)
        self.assertEqual(symbolic.matrix, sympy.SparseMatrix([[1, sympy.S.Half],
                                                              [sympy.Rational(1, 3), sympy.sqrt(2)]]))
        self.assertTrue(is_fully_symbolic(symbolic.matrix))
        numeric = Matrix([[1, 0.5], [0, 2]], mode=MatrixMode.NUMERIC)
        self.assertTrue(scipy.sparse.issparse(numeric.matrix))
        np.testing.assert_array_equal(numeric.matrix.toarray(), [[1, 0.5], [0, 2]])

    def test_construction_from_sympy_and_scipy(self):
        m = Matrix(sympy.Matrix([[sympy.cos(sympy.rad(12)), sympy.Rational(1, 2)]]))
        self.assertEqual(m.at(0, 0), Exact.cos_pi(1, 15))
        self.assertEqual(m.at(0, 1), Fraction(1, 2))
        s = Matrix(scipy.sparse.csr_matrix(np.array([[0, 2.5], [1, 0]])))
        self.assertEqual(fractions(s), [[0, Fraction(5, 2)], [1, 0]])
        n = Matrix(sympy.Matrix([[sympy.pi]]), mode=MatrixMode.NUMERIC)
        self.assertAlmostEqual(float(n), math.pi)

    def test_sympy_scalars_in_arithmetic(self):
        m = Matrix([[1, 3], [2, 1]])
        self.assertEqual(fractions(m * sympy.Rational(1, 2)), [[Fraction(1, 2), Fraction(3, 2)], [1, Fraction(1, 2)]])
        self.assertEqual((m + sympy.sqrt(2)).at(0, 0), 1 + Exact.sqrt(2))
        self.assertEqual(fractions(sympy.Integer(2) * m - m), fractions(m))
        # pi is no exact number: the result keeps it as sympy, and computes
        with_pi = m * sympy.pi
        self.assertTrue(is_fully_symbolic(with_pi.matrix))
        self.assertEqual(with_pi.matrix[0, 1], 3 * sympy.pi)
        np.testing.assert_allclose(with_pi.numpy(), np.array([[1, 3], [2, 1]]) * math.pi)
        np.testing.assert_allclose((with_pi + 1).T.numpy(), np.array([[1, 2], [3, 1]]) * math.pi + 1)
        # ... but a node refuses it, naming the entry
        with self.assertRaisesRegex(ValueError, r"entry \(0, 0\): pi is not a number LSRL computes exactly"):
            Linear(Input(2), with_pi, None)
        with matrix_mode(MatrixMode.NUMERIC):
            np.testing.assert_allclose((Matrix([[1.0]]) * sympy.pi).numpy(), [[math.pi]])

    def test_modes_do_not_mix(self):
        numeric = Matrix([[1]], mode=MatrixMode.NUMERIC)
        symbolic = Matrix([[1]], mode=MatrixMode.SYMBOLIC)
        for op in (lambda: numeric + symbolic, lambda: symbolic - numeric, lambda: numeric @ symbolic,
                   lambda: Matrix.vstack(numeric, symbolic)):
            with self.assertRaises(ValueError):
                op()

    def test_indexing_gives_matrices(self):
        m = Matrix([[1, 3], [2, 1]])
        for key, want in (((1, 1), [[1]]), ((0, slice(None)), [[1, 3]]), ((slice(None), 1), [[3], [1]])):
            with self.subTest(key=key):
                part = m[key]
                self.assertIsInstance(part, Matrix)
                self.assertEqual(fractions(part), want)
        column = Matrix([[4], [5], [6]])
        self.assertEqual(fractions(column[1]), [[5]])
        self.assertEqual(fractions(column[:2]), [[4], [5]])
        self.assertEqual(column.at(2), 6)
        with self.assertRaises(IndexError):
            m[0]


class CallableNodes(unittest.TestCase):
    def test_forward_of_each_kind(self):
        for mode in MatrixMode:
            with self.subTest(mode=mode.name), matrix_mode(mode):
                x = Input(2)
                lin = Linear(x, Matrix([[1, -1], [2, 0]]), Matrix([[1], [0]]))
                out = lin(np.array([3, 5]))
                self.assertIs(out.mode, mode)
                np.testing.assert_array_equal(out.numpy(), [[-1], [6]])
                np.testing.assert_array_equal(ReLU(x)(np.array([-2, 4])).numpy(), [[0], [4]])
                np.testing.assert_array_equal(Concat([x, x])([1, 2], np.array([3, 4])).numpy(),
                                              [[1], [2], [3], [4]])
                mul = lsrl.Multiplicative(Concat([x, x]))
                np.testing.assert_array_equal(mul(np.array([1, 2, 3, 4])).numpy(), [[3], [8]])
                np.testing.assert_array_equal(x[1](np.array([7, 9])).numpy(), [[9]])
                if mode is MatrixMode.SYMBOLIC:
                    self.assertTrue(is_symbolic(out.matrix))
                with self.assertRaisesRegex(ValueError, r"Input size mismatch: Linear .* expected \(2, 1\)"):
                    lin(np.array([1, 2, 3]))

    def test_linstate_steps_its_own_state(self):
        x = Input(1)
        s = LinState(x, A=Matrix([[2]]), B=Matrix([[1]]), init_state=Matrix([[1]]))
        self.assertEqual(fractions(s.state), [[1]])
        self.assertEqual(fractions(s(3)), [[5]])  # 2*1 + 3
        self.assertEqual(fractions(s(0)), [[10]])
        self.assertEqual(fractions(s.state), [[10]])
        s.reset()
        self.assertEqual(fractions(s(sympy.Rational(1, 2))), [[Fraction(5, 2)]])

    def test_numpy_node_matrices_are_refused(self):
        x = Input(2)
        with self.assertRaisesRegex(ValueError, r"Linear: A is a numpy array; pass an lsrl.Matrix"):
            Linear(x, np.eye(2), Matrix.zeros(2, 1))
        with self.assertRaisesRegex(ValueError, r"LinState: bias is a numpy array"):
            LinState(x, Matrix.eye(2), Matrix.eye(2), Matrix.zeros(2, 1), bias=np.zeros((2, 1)))
        self.assertEqual(Linear(x, Matrix(np.eye(2)), Matrix.zeros(2, 1)).dim, 2)

    def test_sympy_scalars_on_nodes(self):
        x = Input(1)
        y = x * sympy.sqrt(2) + sympy.Rational(1, 3)
        self.assertEqual(ForEach(y, verbose=False).run(np.array([[3]])).at(0, 0),
                         3 * Exact.sqrt(2) + Exact("1/3"))
        with self.assertRaisesRegex(ValueError, "pi is not a number LSRL computes exactly"):
            x * sympy.pi


class Utils(unittest.TestCase):
    def test_symbolic_predicates(self):
        self.assertTrue(is_symbolic(sympy.Rational(1, 2)))
        self.assertTrue(is_symbolic(sympy.Matrix([[1]])))
        self.assertFalse(is_symbolic(np.eye(2)))
        self.assertFalse(is_symbolic(Matrix([[1]])))
        self.assertTrue(is_fully_symbolic(sympy.Matrix([[sympy.sqrt(2)]])))
        self.assertFalse(is_fully_symbolic(sympy.Matrix([[sympy.Float(0.5)]])))

    def test_diag_matrices_and_eyes(self):
        d = diag_matrices_and_eyes([sympy.SparseMatrix([[1, 2]]), 2, sympy.Matrix([[3]])])
        self.assertIsInstance(d, sympy.SparseMatrix)
        self.assertEqual(d, sympy.Matrix([[1, 2, 0, 0, 0], [0, 0, 1, 0, 0], [0, 0, 0, 1, 0],
                                          [0, 0, 0, 0, 3]]))
        with self.assertRaisesRegex(ValueError, "Invalid matrix type"):
            diag_matrices_and_eyes([np.eye(2)])

    def test_plot_and_save_graph(self):
        x = Input(2, name="x")
        loop = ForEach(Concat([ReLU(x), x[0]]), verbose=False)
        dot = plot_and_save_graph(loop.graph())
        self.assertIn("digraph", dot)
        self.assertIn('label="x\\n2"', dot)
        self.assertEqual(len([line for line in dot.splitlines() if " -> n" in line]), 4)
        with tempfile.TemporaryDirectory() as folder:
            png = os.path.join(folder, "deep", "graph.png")
            plot_and_save_graph(loop.graph(), png, node_types_instead_of_name=True)
            with open(png, "rb") as f:
                self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")
            svg = os.path.join(folder, "graph.svg")
            plot_and_save_graph(x.graph(), svg)
            with open(svg) as f:
                self.assertIn("<svg", f.read())
            with self.assertRaisesRegex(RuntimeError, "dot could not draw"):
                plot_and_save_graph(loop.graph(), os.path.join(folder, "graph.nosuchformat"))


def two_linears_and_a_branch():
    x = Input(2)
    a = Linear(Linear(x, Matrix([[1, 1]]), Matrix([[0]])), Matrix([[3]]), Matrix([[1]]))  # folds
    return ForEach(Concat([a, ReLU(x)]), keep_graph_history=True, verbose=False)


class ForEachAsInThePaper(unittest.TestCase):
    def test_fold_same_type_keeps_branches(self):
        loop = two_linears_and_a_branch()
        x = np.array([[1, -2, 3], [4, 5, -6]])
        before = loop.run(x)
        n_before = loop.graph().number_of_nodes()
        loop.fold_same_type()
        self.assertEqual(loop.graph().number_of_nodes(), n_before - 1)
        self.assertEqual(loop.rule_counts, {"F1 fold Linear-Linear": 1})
        self.assertFalse(lsrl.utils.is_directed_path_graph(loop.graph()))  # Input still branches
        self.assertTrue(loop.run(x) == before)
        loop.simplify()
        self.assertTrue(lsrl.utils.is_directed_path_graph(loop.graph()))
        self.assertTrue(loop.run(x) == before)
        # the history holds both compiles, each step with its graph
        self.assertEqual(len(loop.simplification_history), loop.steps)
        self.assertEqual(loop.simplification_history[0][0], "F1 fold Linear-Linear")
        self.assertEqual(loop.simplification_history[-1][1].number_of_nodes(),
                         loop.graph().number_of_nodes())

    def test_record_validate_and_graph_view(self):
        loop = two_linears_and_a_branch()
        loop.record_simplification_step("by hand")
        self.assertEqual(loop.simplification_history[-1][0], "by hand")
        self.assertEqual(loop.simplification_history[-1][1].number_of_nodes(), 5)
        loop.validate_graph()
        graph = loop.graph()
        self.assertEqual(list(graph.nodes), graph.nodes())
        self.assertEqual(len(graph.edges), 5)
        self.assertTrue(graph.is_directed())
        self.assertEqual(graph.copy().number_of_nodes(), 5)
        self.assertEqual(loop.get_state_variables(), [])
        self.assertEqual(loop.output.graph().number_of_nodes(), 5)

    def test_simplify_is_the_papers_algorithm(self):
        def program():
            x = Input(2)
            rot = Matrix(sympy.Matrix([[sympy.cos(sympy.rad(12)), -sympy.sin(sympy.rad(12))],
                                       [sympy.sin(sympy.rad(12)), sympy.cos(sympy.rad(12))]]))
            parts = [Linear(x, rot, Matrix.zeros(2, 1)), Linear(ReLU(x), rot.T, Matrix.zeros(2, 1)),
                     ReLU(Linear(x, rot, Matrix.zeros(2, 1)))]
            total = Matrix.vstack(Matrix.hstack(Matrix.ones(1, 3), Matrix.zeros(1, 3)),
                                  Matrix.hstack(Matrix.zeros(1, 3), Matrix.ones(1, 3)))
            return ForEach(Linear(Concat(parts), total, Matrix.zeros(2, 1)), verbose=False)

        paper = program().simplify()
        # Input, Linear, ReLU, Linear: the paper's package gives the same four layers
        self.assertEqual([n.op for n in paper.topological_sort()], ["Input", "Linear", "ReLU", "Linear"])
        self.assertEqual(paper.parameter_count, 32)
        self.assertEqual(paper.rule_counts, program().simplify(optimize=False).rule_counts)

    def test_errors_are_the_papers_types(self):
        self.assertTrue(issubclass(lsrl.GraphSimplificationError, ValueError))
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "model.pkl")
            with open(path, "wb") as f:
                f.write(b"\x80\x05K\x01.")
            with self.assertRaisesRegex(ValueError, "pickle"):
                ForEach.load(path)


if __name__ == "__main__":
    unittest.main()
