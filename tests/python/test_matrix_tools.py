"""lsrl.Matrix, the matrix modes and lsrl.utils from Python.

- Matrix: eye / ones / zeros / diag, numpy(), entries from numpy arrays of several dtypes,
  nested lists and scalars (ints, floats, fractions.Fraction, exact strings such as "1/3",
  "sqrt(3)/2", "cos(pi/5)"), element access, arithmetic, exact comparison.
- MatrixMode NUMERIC / SYMBOLIC, set_global_matrix_mode and the matrix_mode context
  manager; exact (SYMBOLIC) is the default.
- lsrl.Exact compares equal to the Python numbers it stands for.
- lsrl.utils: construct_prompt and create_test_target_function (and the tok2tok prompt
  helpers), checked against values worked out by hand and against `lsrl prompt`.

Expected values are computed here from the definitions (Fractions, math.cos), never
read back through the code under test.
"""

import json
import math
import os
import subprocess
import sys
import unittest
from fractions import Fraction

import numpy as np

import lsrl
from helpers import CliTestCase, fractions
from lsrl import Exact, Matrix, MatrixMode, utils
from lsrl.matrix_tools import get_global_matrix_mode, matrix_mode, set_global_matrix_mode


class Construction(unittest.TestCase):
    def test_eye_ones_zeros(self):
        self.assertEqual(fractions(Matrix.eye(3)), [[1, 0, 0], [0, 1, 0], [0, 0, 1]])
        self.assertEqual(fractions(Matrix.ones(2, 3)), [[1, 1, 1], [1, 1, 1]])
        self.assertEqual(fractions(Matrix.zeros(2, 1)), [[0], [0]])
        self.assertEqual(Matrix.zeros(4, 5).shape, (4, 5))
        self.assertEqual((Matrix.ones(2, 3).rows, Matrix.ones(2, 3).cols), (2, 3))
        for m in (Matrix.eye(2), Matrix.ones(1, 1), Matrix.zeros(1, 2)):
            self.assertIs(m.mode, MatrixMode.SYMBOLIC)
        self.assertIs(Matrix.eye(2, mode=MatrixMode.NUMERIC).mode, MatrixMode.NUMERIC)

    def test_diag_builds_block_diagonals(self):
        # an int n is an n x n identity (the paper's convention), other scalars 1 x 1
        d = Matrix.diag(2, Matrix([[5]]), "1/3", np.array([[1, 2], [3, 4]]))
        self.assertEqual(fractions(d), [
            [1, 0, 0, 0, 0, 0],
            [0, 1, 0, 0, 0, 0],
            [0, 0, 5, 0, 0, 0],
            [0, 0, 0, Fraction(1, 3), 0, 0],
            [0, 0, 0, 0, 1, 2],
            [0, 0, 0, 0, 3, 4],
        ])
        self.assertEqual(fractions(Matrix.diag(Fraction(1, 2), "-1")),
                         [[Fraction(1, 2), 0], [0, -1]])
        self.assertEqual(Matrix.diag(Matrix([[1, 2]]), Matrix([[3], [4]])).shape, (3, 3))

    def test_numpy_gives_float64(self):
        m = Matrix([[1, "1/3"], ["cos(pi/5)", -2]])
        a = m.numpy()
        self.assertIsInstance(a, np.ndarray)
        self.assertEqual(a.dtype, np.float64)
        self.assertEqual(a.shape, (2, 2))
        self.assertEqual(a[0, 1], float(Fraction(1, 3)))
        self.assertAlmostEqual(a[1, 0], math.cos(math.pi / 5), places=15)
        self.assertEqual(a[1, 1], -2.0)
        np.testing.assert_array_equal(np.asarray(m), a)  # __array__

    def test_entries_from_numpy_dtypes(self):
        cases = {
            np.int8: ([[-128, 0], [5, 127]], [[-128, 0], [5, 127]]),
            np.int16: ([[-3, 0], [0, 300]], [[-3, 0], [0, 300]]),
            np.int32: ([[1, 2], [3, 4]], [[1, 2], [3, 4]]),
            np.int64: ([[-(2**62), 0], [0, 7]], [[-(2**62), 0], [0, 7]]),
            np.uint8: ([[255, 0], [1, 2]], [[255, 0], [1, 2]]),
            np.uint64: ([[2**64 - 1, 0], [0, 1]], [[2**64 - 1, 0], [0, 1]]),
            np.float16: ([[0.1, 0], [0, 2.5]],
                         [[Fraction(float(np.float16(0.1))), 0], [0, Fraction(5, 2)]]),
            np.float32: ([[0.1, 0], [0, -2.5]],
                         [[Fraction(float(np.float32(0.1))), 0], [0, Fraction(-5, 2)]]),
            np.float64: ([[0.1, 0], [0, 1e300]], [[Fraction(0.1), 0], [0, Fraction(1e300)]]),
            np.bool_: ([[True, False], [False, True]], [[1, 0], [0, 1]]),
        }
        for dtype, (values, want) in cases.items():
            with self.subTest(dtype=dtype.__name__):
                m = Matrix(np.array(values, dtype=dtype))
                self.assertIs(m.mode, MatrixMode.SYMBOLIC)
                self.assertEqual(fractions(m), want)
        # a float is its binary value, not the decimal it was written as
        self.assertNotEqual(Matrix(np.array([[0.1]])).at(0, 0), Fraction(1, 10))

    def test_array_shapes(self):
        self.assertEqual(Matrix(np.array([1, 2, 3])).shape, (3, 1))  # 1-D is a column
        self.assertEqual(fractions(Matrix(np.array(5))), [[5]])
        self.assertEqual(fractions(Matrix(np.array([[Fraction(1, 3)], ["1/7"]], dtype=object))),
                         [[Fraction(1, 3)], [Fraction(1, 7)]])
        with self.assertRaisesRegex(ValueError, "expected a 1-D or 2-D array, got 3 dimensions"):
            Matrix(np.zeros((2, 2, 2)))

    def test_entries_from_nested_lists_and_scalars(self):
        m = Matrix([[1, 0.5, Fraction(2, 3)], ("1/3", "-7/4", 10**40)])
        self.assertEqual(fractions(m), [[1, Fraction(1, 2), Fraction(2, 3)],
                                        [Fraction(1, 3), Fraction(-7, 4), 10**40]])
        self.assertEqual(fractions(Matrix([1, 2])), [[1], [2]])  # a flat list is a column
        for scalar, want in ((3, 3), (2.5, Fraction(5, 2)), (Fraction(-1, 9), Fraction(-1, 9)),
                             ("1/3", Fraction(1, 3)), ("-2", -2), (True, 1), (np.int32(4), 4)):
            with self.subTest(scalar=scalar):
                self.assertEqual(fractions(Matrix(scalar)), [[want]])
        with self.assertRaises(ValueError) as cm:
            Matrix([[1, 2], [3]])
        self.assertEqual(str(cm.exception),
                         "a nested list has rows of different lengths: row 0 has 2 entries, "
                         "row 1 has 1")
        with self.assertRaisesRegex(ValueError, r"mixes rows and numbers \(row 1\)"):
            Matrix([[1, 2], 3])
        with self.assertRaisesRegex(ValueError, "expected a number, got NoneType"):
            Matrix([[None]])
        with self.assertRaisesRegex(ValueError, "cannot parse \"abc\""):
            Matrix("abc")

    def test_irrational_strings_are_exact(self):
        m = Matrix([["sqrt(3)/2", "cos(pi/5)", "sin(pi/6)"]])
        sqrt3_half, cos_pi5, sin_pi6 = m.at(0, 0), m.at(0, 1), m.at(0, 2)
        self.assertIsInstance(sqrt3_half, Exact)
        self.assertEqual(sqrt3_half, Exact("cos(pi/6)"))
        self.assertEqual(sqrt3_half * sqrt3_half, Fraction(3, 4))
        self.assertFalse(sqrt3_half.is_rational())
        self.assertEqual(cos_pi5, (1 + Exact.sqrt(5)) / 4)  # the golden ratio / 2
        self.assertEqual(sin_pi6, Fraction(1, 2))
        self.assertTrue(sin_pi6.is_rational())
        self.assertAlmostEqual(float(cos_pi5), math.cos(math.pi / 5), places=15)
        self.assertEqual(Exact.cos_pi(1, 3), Fraction(1, 2))
        self.assertEqual(Exact.sin_pi(1, 2), 1)


class ElementsAndArithmetic(unittest.TestCase):
    def test_element_access(self):
        m = Matrix([[1, "1/3"], [5, 7]])
        # indexing gives matrices, as in the paper; at() gives the value
        self.assertIsInstance(m[0, 1], Matrix)
        self.assertEqual(m[0, 1], [["1/3"]])
        self.assertEqual(m.at(0, 1), Fraction(1, 3))
        self.assertEqual(m.at(-1, -1), 7)
        self.assertEqual(fractions(m[1, :]), [[5, 7]])
        self.assertEqual(fractions(m[0:1, :]), [[1, Fraction(1, 3)]])
        self.assertEqual(fractions(m[:, 1]), [[Fraction(1, 3)], [7]])
        column = Matrix([4, 5, 6])
        self.assertEqual(column[1], [[5]])
        self.assertEqual(column.at(1), 5)
        self.assertEqual(fractions(column[1:]), [[5], [6]])
        with self.assertRaises(IndexError):
            m[0]
        with self.assertRaises(IndexError):
            m[2, 0]

    def test_exact_arithmetic(self):
        a = Matrix([["1/3", 1], [0, 2]])
        b = Matrix([["1/6", 0], [1, 0]])
        self.assertEqual(fractions(a + b), [[Fraction(1, 2), 1], [1, 2]])
        self.assertEqual(fractions(a - b), [[Fraction(1, 6), 1], [-1, 2]])
        self.assertEqual(fractions(a * 3), [[1, 3], [0, 6]])
        self.assertEqual(fractions(3 * a), [[1, 3], [0, 6]])
        self.assertEqual(fractions(a / 2), [[Fraction(1, 6), Fraction(1, 2)], [0, 1]])
        self.assertEqual(fractions(-a), [[Fraction(-1, 3), -1], [0, -2]])
        self.assertEqual(fractions(a @ b), [[Fraction(1, 18) + 1, 0], [2, 0]])
        self.assertEqual(fractions(a.T), [[Fraction(1, 3), 0], [1, 2]])
        self.assertEqual(fractions(Matrix.hstack(a, b))[0], [Fraction(1, 3), 1, Fraction(1, 6), 0])
        self.assertEqual(Matrix.vstack(a, b).shape, (4, 2))
        self.assertEqual(fractions(Matrix.elementwise_multiplication(a, b)),
                         [[Fraction(1, 18), 0], [0, 0]])
        self.assertEqual(fractions(Matrix([[-1, 2]]).ReLU()), [[0, 2]])
        self.assertEqual(fractions(Matrix.SliceMatrix(4, 1, 3)), [[0, 1, 0, 0], [0, 0, 1, 0]])
        self.assertEqual(float(Matrix([["1/4"]])), 0.25)
        with self.assertRaises(ValueError):
            a @ Matrix([[1, 2, 3]])
        with self.assertRaises(ValueError):
            a * a

    def test_equality_is_exact(self):
        self.assertTrue(Matrix([["1/3"]]) == [[Fraction(1, 3)]])
        self.assertTrue(Matrix([["1/10"]]) != [[0.1]])  # 0.1 is not 1/10 exactly
        self.assertTrue(Matrix([[0.5]], mode=MatrixMode.NUMERIC) == [["1/2"]])
        self.assertTrue(Matrix([[1, 2]]) != Matrix([[1], [2]]))  # shapes differ
        self.assertIsInstance(Matrix([[1]]) == Matrix([[1]]), bool)
        self.assertTrue(Matrix([["sqrt(2)"]]) @ Matrix([["sqrt(2)"]]) == [[2]])

    def test_exact_numbers_compare_with_python_numbers(self):
        third = Exact("1/3")
        self.assertEqual(third, Fraction(1, 3))
        self.assertEqual(Exact("2/6"), third)
        self.assertEqual(Exact(0.5), 0.5)
        self.assertEqual(Exact(0.1), Fraction(0.1))
        self.assertNotEqual(Exact("1/10"), 0.1)
        self.assertEqual(Exact(10**30), 10**30)
        self.assertEqual(hash(Exact("1/2")), hash(Fraction(1, 2)))
        self.assertEqual(hash(Exact(3)), hash(3))
        self.assertNotEqual(Exact("sqrt(2)"), math.sqrt(2))
        self.assertLess(Exact("sqrt(2)"), Fraction(1415, 1000))
        self.assertGreater(Exact("sqrt(2)"), Fraction(1414, 1000))
        self.assertEqual(third.to_fraction(), Fraction(1, 3))
        self.assertEqual(str(third), "1/3")
        self.assertEqual(Exact("1/3") + Fraction(1, 6), Fraction(1, 2))
        with self.assertRaisesRegex(ValueError, "irrational"):
            Exact("sqrt(2)").to_fraction()

    def test_tolist_and_str_show_exact_values(self):
        m = Matrix([[1, "1/3"], ["sqrt(3)/2", 0]])
        self.assertEqual(m.tolist(), [["1", "1/3"], ["cos(pi/6)", "0"]])
        self.assertEqual(str(m), "SYMBOLIC:\n[        1       1/3]\n[cos(pi/6)         0]")
        self.assertEqual(repr(m),
                         "Matrix([['1', '1/3'], ['cos(pi/6)', '0']], mode=MatrixMode.SYMBOLIC)")

    def test_numeric_tolist_and_str(self):
        m = Matrix([[1, 0.5]], mode=MatrixMode.NUMERIC)
        self.assertEqual(m.tolist(), [[1.0, 0.5]])
        self.assertIn("NUMERIC", str(m))


class Modes(unittest.TestCase):
    def setUp(self):
        self.addCleanup(set_global_matrix_mode, get_global_matrix_mode())

    def test_exact_is_the_default(self):
        code = ("import lsrl; "
                "print(lsrl.get_global_matrix_mode().name, lsrl.Matrix([[1]]).mode.name)")
        r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           env=os.environ, timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.split(), ["SYMBOLIC", "SYMBOLIC"])

    def test_numeric_matrices_hold_float64_arrays(self):
        m = Matrix([[1, "1/3"]], mode=MatrixMode.NUMERIC)
        self.assertIs(m.mode, MatrixMode.NUMERIC)
        self.assertEqual(m.at(0, 1), float(Fraction(1, 3)))
        self.assertIsInstance(m.at(0, 1), float)
        exact = m.exact()
        self.assertIs(exact.mode, MatrixMode.SYMBOLIC)
        self.assertEqual(exact.at(0, 1), Fraction(float(Fraction(1, 3))))  # its binary value
        self.assertIs(Matrix(m, mode=MatrixMode.SYMBOLIC).mode, MatrixMode.SYMBOLIC)
        self.assertIs(exact.to_mode(MatrixMode.NUMERIC).mode, MatrixMode.NUMERIC)
        self.assertEqual((Matrix.eye(2, mode=MatrixMode.NUMERIC) * 3).numpy().tolist(),
                         [[3.0, 0.0], [0.0, 3.0]])

    def test_set_global_matrix_mode(self):
        set_global_matrix_mode(MatrixMode.NUMERIC)
        self.assertIs(get_global_matrix_mode(), MatrixMode.NUMERIC)
        self.assertIs(lsrl.get_global_matrix_mode(), MatrixMode.NUMERIC)
        self.assertIs(Matrix([[1]]).mode, MatrixMode.NUMERIC)
        self.assertIs(Matrix.eye(2).mode, MatrixMode.NUMERIC)
        set_global_matrix_mode(MatrixMode.SYMBOLIC)
        self.assertIs(Matrix([[1]]).mode, MatrixMode.SYMBOLIC)
        with self.assertRaisesRegex(ValueError, "Invalid matrix mode: 'numeric'"):
            set_global_matrix_mode("numeric")
        self.assertIs(get_global_matrix_mode(), MatrixMode.SYMBOLIC)

    def test_matrix_mode_context_manager_restores(self):
        set_global_matrix_mode(MatrixMode.SYMBOLIC)
        with matrix_mode(MatrixMode.NUMERIC):
            self.assertIs(get_global_matrix_mode(), MatrixMode.NUMERIC)
            self.assertIs(Matrix([[1]]).mode, MatrixMode.NUMERIC)
            with lsrl.matrix_mode(MatrixMode.SYMBOLIC):
                self.assertIs(Matrix([[1]]).mode, MatrixMode.SYMBOLIC)
            self.assertIs(get_global_matrix_mode(), MatrixMode.NUMERIC)
        self.assertIs(get_global_matrix_mode(), MatrixMode.SYMBOLIC)
        with self.assertRaises(RuntimeError):
            with matrix_mode(MatrixMode.NUMERIC):
                raise RuntimeError("inside")
        self.assertIs(get_global_matrix_mode(), MatrixMode.SYMBOLIC)

    def test_mode_picks_the_run_backend(self):
        x = lsrl.Input(1)
        loop = lsrl.ForEach(x * "sqrt(2)" * "sqrt(2)" - x * 2, verbose=False)
        tokens = np.array([[1.0, 3.0]])
        with matrix_mode(MatrixMode.SYMBOLIC):
            exact = loop(tokens)
        with matrix_mode(MatrixMode.NUMERIC):
            floats = loop(tokens)
        self.assertIs(exact.mode, MatrixMode.SYMBOLIC)
        self.assertEqual(fractions(exact), [[0, 0]])  # sqrt(2)^2 - 2 is exactly 0
        self.assertIs(floats.mode, MatrixMode.NUMERIC)
        r2 = math.sqrt(2)
        np.testing.assert_array_equal(floats.numpy(), [[r2 * r2 - 2, 3 * r2 * r2 - 6]])
        self.assertNotEqual(floats.numpy()[0, 0], 0.0)


class Utils(unittest.TestCase):
    def test_construct_prompt_rows(self):
        # f(c) = [c0 + c1, 2 c0] on the 2 x 2 grid: rows [1/N, lower corner, f(centre)]
        rows = utils.construct_prompt(lambda c: [c[0] + c[1], 2 * c[0]], in_dim=2, out_dim=2, N=2)
        self.assertIsInstance(rows, np.ndarray)
        np.testing.assert_array_equal(rows, [
            [0.5, 0.0, 0.0, 0.5, 0.5],
            [0.5, 0.0, 0.5, 1.0, 0.5],
            [0.5, 0.5, 0.0, 1.0, 1.5],
            [0.5, 0.5, 0.5, 1.5, 1.5],
        ])
        self.assertEqual(utils.construct_prompt(lambda c: [0.0], 3, 1, 4).shape, (64, 5))

    def test_construct_prompt_exact(self):
        m = utils.construct_prompt(lambda c: [c[0] * 2], in_dim=1, out_dim=1, N=3, exact=True)
        self.assertIs(m.mode, MatrixMode.SYMBOLIC)
        self.assertEqual(m.shape, (3, 3))
        third = Fraction(1, 3)
        centres = [(k + Fraction(1, 2)) * third for k in range(3)]
        self.assertEqual(fractions(m), [[third, k * third, Fraction(float(2 * float(c)))]
                                        for k, c in enumerate(centres)])

    def test_construct_prompt_checks_the_function(self):
        with self.assertRaisesRegex(ValueError,
                                    "the target function returned 3 values, expected 2"):
            utils.construct_prompt(lambda c: [1, 2, 3], 1, 2, 2)

    def test_seeded_target_function(self):
        f = utils.create_test_target_function(2, 3, seed=5)
        g = utils.create_test_target_function(2, 3, seed=5)
        h = utils.create_test_target_function(2, 3, seed=6)
        x = [0.2, 0.4]
        self.assertEqual(f(x).shape, (3,))
        np.testing.assert_array_equal(f(x), g(np.array(x)))
        self.assertFalse(np.allclose(f(x), h(x)))
        self.check_smooth_and_bounded(f, 2)

    def test_unseeded_target_function_uses_numpys_generator(self):
        np.random.seed(11)
        f = utils.create_test_target_function(1, 2)
        np.random.seed(11)
        g = utils.create_test_target_function(1, 2)
        x = np.array([0.3])
        self.assertEqual(f(x).shape, (2,))
        np.testing.assert_array_equal(f(x), g(x))
        self.check_smooth_and_bounded(f, 1)

    def check_smooth_and_bounded(self, f, n):
        """A normalised mix of control values in [-3, 3]: bounded, and continuous."""
        rng = np.random.default_rng(0)
        for _ in range(20):
            x = rng.random(n)
            y = f(x)
            self.assertTrue(np.all(np.abs(y) <= 3.0), y)
            np.testing.assert_allclose(f(x + 1e-7), y, atol=1e-5)

    def test_tok2tok_prompt_helpers(self):
        dictionary = {(1, 2): (3, 4), (5, 6): (7, 8)}
        tokens = utils.tok2tok_input(dictionary, (5, 6))
        np.testing.assert_array_equal(tokens, [[5, 6, 1, 2, 3, 4, 5, 6, 7, 8]])
        self.assertEqual(list(utils.tok2tok_expected(dictionary, (5, 6))), [7, 8])
        with self.assertRaises(ValueError):
            utils.tok2tok_input(dictionary, (9, 9))  # the query is not a key
        d, q = utils.random_dictionary(K=4, L=2, V=5, seed=1)
        self.assertEqual(len(d), 4)
        self.assertIn(q, d)
        self.assertTrue(all(0 <= t < 5 for k, v in d.items() for t in k + v))
        self.assertEqual(utils.random_dictionary(K=4, L=2, V=5, seed=1), (d, q))


class UtilsAgainstTheCli(CliTestCase):
    def test_seeded_prompt_is_the_clis(self):
        """construct_prompt(create_test_target_function(seed=S)) gives the cells of
        `lsrl prompt vec2vec --function smooth --seed S` (which rounds f to 9 decimals)."""
        file = self.path("prompt.json")
        self.run_cli("prompt", "vec2vec", "--function", "smooth", "--seed", "5", "-n", "2",
                     "-m", "3", "-N", "3", "--query", "0.3,0.3", "-o", file)
        with open(file) as fp:
            doc = json.load(fp)
        cli_rows = np.array([[float(Fraction(v)) for v in token] for token in doc["tokens"][1:]])
        f = utils.create_test_target_function(2, 3, seed=5)
        rows = utils.construct_prompt(f, 2, 3, 3)
        self.assertEqual(rows.shape, cli_rows.shape)
        np.testing.assert_allclose(rows, cli_rows, rtol=0, atol=1e-9)
        # the answer: f at the centre (1/6, 1/6) of the query's cell [0, 1/3)^2
        np.testing.assert_allclose(f([1 / 6, 1 / 6]),
                                   [float(Fraction(v)) for v in doc["expected"]], atol=1e-9)


if __name__ == "__main__":
    unittest.main()
