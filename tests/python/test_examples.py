"""The Python example programs (examples/*.py) against the C++ built-ins.

- Each example, in every conditional variant and for a few parameter values, builds
  exactly the graph that `lsrl program NAME --set ...` builds: node for node the same
  op, width, inputs, slice tag, exact matrices and vectors, name, always_positive flag
  and sugar group, and the same groups. Both graphs are written as graph files (the
  Python one with save_json) and read here with the json module.
- The examples give the right answers when run from Python (exact and float64).
- simplify(optimize=True) from Python gives the model `lsrl compile` gives (exact and
  float64); the paper's algorithm, simplify()'s default, is checked against
  `lsrl compile --no-optimize` in test_paper_listings.py.
- `lsrl compile examples/X.py` (the CLI running the file in a subprocess) gives the
  model it gives for the built-in program.

Environment: PYTHONPATH holding the `lsrl` package; LSRL_CLI, the `lsrl` binary (when
unset, helpers.find_cli takes the one built next to the package). Run by hand:
    LSRL_CLI=build/release/app/cli/lsrl PYTHONPATH=build/release/python \
        /usr/bin/python3 -m unittest discover -s tests/python -p 'test_examples.py' -v
"""

import importlib.util
import itertools
import json
import os
import random
import subprocess
import sys
import unittest

import numpy as np

import lsrl
from helpers import (
    EXAMPLES_DIR,
    PATH_KEYS,
    CliTestCase,
    canonical,
    graph_differences,
    op_counts,
    read_graph,
)
from lsrl.matrix_tools import MatrixMode, matrix_mode

CONDITIONALS = (
    "direct",
    "optimized",
    "step_optimized",
    "multiplicative",
    "multiplicative_optimized",
)


def load_example(name):
    """examples/<name>.py as a module (its module-level `program` is built once)."""
    path = os.path.join(EXAMPLES_DIR, name + ".py")
    spec = importlib.util.spec_from_file_location("example_" + name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


more_ones = load_example("more_ones_or_zeros")
ua_continuous = load_example("ua_continuous")
ua_tok2tok = load_example("ua_tok2tok")


# The Python builders, called with the C++ built-ins' parameters.
def build_python(name, params):
    kwargs = dict(params)
    if "lambda" in kwargs:
        kwargs["lam"] = kwargs.pop("lambda")
    if name == "more_ones":
        return more_ones.more_ones_or_zeros(**kwargs)
    if name == "vec2vec":
        return ua_continuous.ua_continuous(**kwargs)
    return ua_tok2tok.ua_tok2tok(**kwargs)


def cases():
    """(program, parameters) pairs checked graph for graph."""
    yield "more_ones", {}
    yield "more_ones", {"mu": 3}
    for conditional in CONDITIONALS:
        for n, m in ((1, 1), (2, 1), (2, 3)):
            yield "vec2vec", {"n": n, "m": m, "conditional": conditional}
        for L in (1, 2, 3):
            yield "tok2tok", {"L": L, "conditional": conditional}
    # non-default constants reach every step and every conditional
    for conditional in ("direct", "step_optimized", "optimized"):
        yield "vec2vec", {"n": 2, "m": 2, "conditional": conditional, "mu": 500, "lambda": 10**9}
        yield "tok2tok", {"L": 2, "conditional": conditional, "mu": 4000, "lambda": 10**12}


# Paper counts (docs/spec/ua-programs.md): Linear / ReLU / Concat / LinState / Slice / Multi / Input.
EXPECTED_COUNTS = {
    ("more_ones", None): (6, 2, 2, 2, 0, 0, 1),
    ("vec2vec", "direct"): (75, 25, 27, 3, 6, 0, 1),
    ("vec2vec", "optimized"): (59, 22, 18, 3, 5, 0, 1),
    ("vec2vec", "step_optimized"): (81, 29, 23, 3, 4, 0, 1),
    ("vec2vec", "multiplicative"): (53, 17, 15, 3, 6, 2, 1),
    ("vec2vec", "multiplicative_optimized"): (47, 17, 15, 3, 4, 2, 1),
    ("tok2tok", "direct"): (558, 214, 192, 9, 6, 0, 1),
    ("tok2tok", "optimized"): (361, 154, 102, 9, 3, 0, 1),
    ("tok2tok", "step_optimized"): (600, 242, 164, 9, 3, 0, 1),
    ("tok2tok", "multiplicative"): (404, 158, 108, 9, 6, 14, 1),
    ("tok2tok", "multiplicative_optimized"): (362, 158, 108, 9, 3, 14, 1),
}


class SameGraphAsBuiltin(CliTestCase):
    def test_every_variant_builds_the_builtin_graph(self):
        for k, (name, params) in enumerate(cases()):
            with self.subTest(program=name, **params):
                py_file = self.path(f"py_{k}.json")
                build_python(name, params).save_json(py_file)
                cpp_file = self.cpp_program(name, params, self.path(f"cpp_{k}.json"))
                python, cpp = read_graph(py_file), read_graph(cpp_file)
                diff = graph_differences(python, cpp)
                self.assertEqual(diff, [], "\n".join(diff))
                self.assertGreater(len(cpp["nodes"]), 1)

    def test_node_counts_are_the_papers(self):
        for (name, conditional), expected in EXPECTED_COUNTS.items():
            params = {} if conditional is None else {"conditional": conditional}
            if name == "tok2tok":
                params["L"] = 3
            with self.subTest(program=name, conditional=conditional):
                py_file = self.path(f"counts_{name}_{conditional}.json")
                build_python(name, params).save_json(py_file)
                counts = op_counts(read_graph(py_file))
                got = tuple(counts.get(op, 0) for op in
                            ("Linear", "ReLU", "Concat", "LinState", "Slice", "Multi", "Input"))
                self.assertEqual(got, expected)

    def test_module_level_program_has_the_defaults(self):
        for module, name, params in ((more_ones, "more_ones", {}),
                                     (ua_continuous, "vec2vec", {}),
                                     (ua_tok2tok, "tok2tok", {})):
            with self.subTest(program=name):
                py_file = self.path(f"module_{name}.json")
                module.program.save_json(py_file)
                cpp_file = self.cpp_program(name, params, self.path(f"module_cpp_{name}.json"))
                diff = graph_differences(read_graph(py_file), read_graph(cpp_file))
                self.assertEqual(diff, [], "\n".join(diff))

    def test_unknown_conditional_is_refused(self):
        for build in (ua_continuous.ua_continuous, ua_tok2tok.ua_tok2tok):
            with self.assertRaisesRegex(ValueError, "valid values are: direct, optimized"):
                build(conditional="multiplicative_direct")


# ---- answers from Python -------------------------------------------------------------


def run(program, tokens, mode):
    """Outputs (T x output width, floats) of the program on d x T tokens."""
    with matrix_mode(mode):
        return np.asarray(program.run(tokens).numpy(), dtype=float).T


MODES = (MatrixMode.SYMBOLIC, MatrixMode.NUMERIC)


class Answers(unittest.TestCase):
    def test_more_ones_counts_the_majority(self):
        rng = random.Random(7)
        sequences = [[1], [0], [1, 0], [1, 0, 1, 1, 0, 0, 0, 1], [0, 0, 1, 1, 1, 1]]
        sequences += [[rng.randint(0, 1) for _ in range(rng.randint(1, 25))] for _ in range(5)]
        program = more_ones.more_ones_or_zeros()
        for bits in sequences:
            expected = [float(sum(bits[: t + 1]) * 2 > t + 1) for t in range(len(bits))]
            for mode in MODES:
                with self.subTest(bits=bits, mode=mode.name):
                    out = run(program, np.array([bits]), mode)
                    self.assertEqual(out.shape, (len(bits), 1))
                    np.testing.assert_allclose(out[:, 0], expected, atol=1e-9)

    def tok2tok_case(self, program, dictionary, query, L, mode):
        tokens = ua_tok2tok.tok2tok_prompt(dictionary, query)
        out = run(program, tokens, mode)
        expected = dict((tuple(k), v) for k, v in dictionary)[tuple(query)]
        self.assertEqual(out.shape, (tokens.shape[1], 1))
        np.testing.assert_allclose(out[-L:, 0], expected, atol=1e-9)

    def test_tok2tok_gives_the_value_of_the_query(self):
        with open(os.path.join(EXAMPLES_DIR, "tok2tok_input.json")) as f:
            example = json.load(f)  # the bundled prompt: 4 2 6 -> 9 2 5
        # the paper's Fig. 3 (letters as tokens, ? = 0): CAN -> OTT
        capitals = [([1, 21, 19], [22, 9, 5]), ([2, 21, 12], [19, 15, 6]),
                    ([3, 1, 14], [15, 20, 20]), ([4, 5, 14], [3, 15, 16]),
                    ([5, 14, 7], [12, 15, 14])]
        for conditional in CONDITIONALS:
            program = ua_tok2tok.ua_tok2tok(L=3, conditional=conditional)
            for mode in MODES:
                with self.subTest(conditional=conditional, mode=mode.name):
                    self.tok2tok_case(program, example["dictionary"], example["query"], 3, mode)
                    self.tok2tok_case(program, capitals, [3, 1, 14], 3, mode)
                    self.tok2tok_case(program, capitals, [5, 14, 7], 3, mode)

    def test_tok2tok_other_lengths(self):
        rng = random.Random(3)
        for L in (1, 2, 4):
            keys = rng.sample(list(itertools.product(range(5), repeat=L)), min(4, 5**L))
            dictionary = [(list(k), [rng.randrange(5) for _ in range(L)]) for k in keys]
            for conditional in ("direct", "multiplicative_optimized"):
                program = ua_tok2tok.ua_tok2tok(L=L, conditional=conditional)
                for query, _ in dictionary:
                    with self.subTest(L=L, conditional=conditional, query=query):
                        self.tok2tok_case(program, dictionary, query, L, MatrixMode.SYMBOLIC)

    def test_vec2vec_bundled_prompt_exactly(self):
        with open(os.path.join(EXAMPLES_DIR, "vec2vec_input.json")) as f:
            example = json.load(f)  # n = 2, m = 1, N = 4, exact decimals
        tokens = [[str(v) for v in token] for token in example["tokens"]]
        columns = lsrl.Matrix([list(row) for row in zip(*tokens)])  # d x T, exact
        expected = [canonical(v) for v in example["expected"]]
        for conditional in CONDITIONALS:
            program = ua_continuous.ua_continuous(n=2, m=1, conditional=conditional)
            with self.subTest(conditional=conditional):
                with matrix_mode(MatrixMode.SYMBOLIC):
                    out = program(columns)
                # the last output exactly (tolist gives exact strings), and its nearest doubles
                self.assertEqual([canonical(row[-1]) for row in out.tolist()], expected)
                np.testing.assert_allclose(np.asarray(out.numpy(), dtype=float)[:, -1],
                                           [float(v) for v in expected], rtol=0, atol=1e-15)

    def test_vec2vec_matches_the_target_function(self):
        def target(x):  # [0,1]^n -> R^2
            return np.array([np.sin(3 * x.sum()) - 0.5, np.cos(2 * x[0]) * x[-1]])

        for n, N, x in ((1, 10, [0.37]), (2, 6, [0.3, 0.7]), (2, 6, [0.95, 0.05])):
            prompt = ua_continuous.continuous_prompt(target, x, n=n, m=2, N=N)
            centre = (np.floor(np.array(x) * N) + 0.5) / N
            for conditional in CONDITIONALS:
                program = ua_continuous.ua_continuous(n=n, m=2, conditional=conditional)
                for mode in MODES:
                    with self.subTest(n=n, x=x, conditional=conditional, mode=mode.name):
                        out = run(program, prompt, mode)
                        self.assertEqual(out.shape, (prompt.shape[1], 2))
                        np.testing.assert_allclose(out[-1], target(centre), atol=1e-9)


# ---- compiling ------------------------------------------------------------------------

COMPILE_CASES = (
    ("more_ones", {}),
    ("vec2vec", {"n": 2, "m": 1, "conditional": "direct"}),
    ("vec2vec", {"n": 1, "m": 2, "conditional": "multiplicative"}),
    ("tok2tok", {"L": 2, "conditional": "optimized"}),
    ("tok2tok", {"L": 3, "conditional": "direct"}),
    ("tok2tok", {"L": 3, "conditional": "multiplicative_optimized"}),
)


class CompileAsTheCli(CliTestCase):
    def test_simplify_gives_the_cli_model(self):
        for k, (name, params) in enumerate(COMPILE_CASES):
            for backend, mode in (("exact", MatrixMode.SYMBOLIC), ("float64", MatrixMode.NUMERIC)):
                with self.subTest(program=name, backend=backend, **params):
                    cpp_file = self.cpp_program(name, params, self.path(f"c_{k}.json"))
                    model = self.path(f"c_{k}_{backend}_model.json")
                    # The constants as built, as Python's simplify keeps them.
                    self.run_cli("compile", cpp_file, "--backend", backend, "--precision",
                                 "exact", "-o", model)
                    program = build_python(name, params)
                    with matrix_mode(mode):
                        program.simplify(optimize=True)  # the CLI's default
                    py_file = self.path(f"c_{k}_{backend}_py.json")
                    program.save_json(py_file)
                    python, cpp = read_graph(py_file), read_graph(model)
                    # a compiled path holds no sugar groups; names follow the compiler
                    diff = graph_differences(python, cpp, keys=PATH_KEYS, groups=False)
                    self.assertEqual(diff, [], "\n".join(diff))
                    self.assertLess(len(cpp["nodes"]), 200)

    def test_cli_compiles_the_example_files(self):
        for file, name in (("more_ones_or_zeros.py", "more_ones"), ("ua_tok2tok.py", "tok2tok"),
                           ("ua_continuous.py", "vec2vec")):
            with self.subTest(file=file):
                from_py = self.path(f"f_{name}_py_model.json")
                self.run_cli("compile", os.path.join(EXAMPLES_DIR, file), "--backend", "exact",
                             "-o", from_py)
                builtin = self.cpp_program(name, {}, self.path(f"f_{name}.json"))
                from_builtin = self.path(f"f_{name}_model.json")
                self.run_cli("compile", builtin, "--backend", "exact", "--precision", "exact",
                             "-o", from_builtin)
                diff = graph_differences(read_graph(from_py), read_graph(from_builtin),
                                         groups=False)
                self.assertEqual(diff, [], "\n".join(diff))


class Demos(unittest.TestCase):
    def test_the_demos_run(self):
        for file, expected in (("more_ones_or_zeros.py", "correct"),
                               ("ua_tok2tok.py", "answer : OTT"),
                               ("ua_continuous.py", "program output")):
            with self.subTest(file=file):
                r = subprocess.run([sys.executable, os.path.join(EXAMPLES_DIR, file)],
                                   capture_output=True, text=True, timeout=300)
                self.assertEqual(r.returncode, 0, r.stderr)
                self.assertIn(expected, r.stdout)


if __name__ == "__main__":
    unittest.main()
