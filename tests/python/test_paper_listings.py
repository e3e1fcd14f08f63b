"""Programs written the way the paper writes them, run unchanged from Python.

- The Fig. 1 listing ("more ones or zeros"), text as in the paper with
  `from lsrl import *`, executed as is: right answers on random bit strings, before and
  after compiling (one LinState in the compiled model).
- A small key/value lookup in the style of the paper's tok2tok program (Lst. 2),
  written with the paper's API (Input, LinState, Matrix, f_modulo_counter, f_eq, f_and,
  f_ifelse, ...): right answers on random dictionaries.
- Compiling from Python (simplify()) gives, node for node, the model that
  `lsrl compile FILE.json --backend exact` gives for the same program saved with
  save_json, and the CLI's model runs to the same outputs from Python.

Expected outputs come from the definition of each task (majority so far, the value
stored under the query), computed here in plain Python.
"""

import random
import unittest

import numpy as np

import lsrl
from helpers import PATH_KEYS, CliTestCase, graph_differences, read_graph

# Fig. 1 of the paper, run verbatim (only this text; nothing else in its namespace).
FIG1_LISTING = '''
from lsrl import *

input = Input(dim=1)

# count the ones and the zeros seen so far
ones = LinState(input, A=Matrix.eye(1), B=Matrix.eye(1), init_state=Matrix.zeros(1, 1))
zeros = LinState(f_not(input), A=Matrix.eye(1), B=Matrix.eye(1),
                 init_state=Matrix.zeros(1, 1))

# 1 if there are more ones than zeros, else 0
output = f_larger(ones, zeros, scale=10)

program = ForEach(output, verbose=False)
'''


def fig1_program():
    namespace = {}
    exec(FIG1_LISTING, namespace)
    return namespace["program"]


def majority(bits):
    return [int(2 * sum(bits[: t + 1]) > t + 1) for t in range(len(bits))]


def random_bit_strings(seed, count=12):
    rng = random.Random(seed)
    strings = [[0], [1], [1, 0], [0, 1, 1], [1, 1, 0, 0, 0]]
    strings += [[rng.randint(0, 1) for _ in range(rng.randint(1, 40))] for _ in range(count)]
    return strings


# A key/value lookup (keys and values one token each): the prompt is the query, then
# key value key value ...; from the token after the matching key on, the output is the
# value stored under the query (0 before it).
LOOKUP_LISTING = '''
from lsrl import *

input = Input(dim=1)

# 1 at the keys (odd positions), 0 at the query and the values
is_key = f_eq(f_modulo_counter(input, 2), 1)

# the query: the first token, kept in a state
count = LinState(f_constant(input, 1), A=Matrix.eye(1), B=Matrix.eye(1),
                 init_state=Matrix.zeros(1, 1))
is_first = f_smaller(count, 1.5)
query = LinState(f_ifelse(is_first, t_val=input, f_val=None), A=Matrix.eye(1),
                 B=Matrix.eye(1), init_state=Matrix.zeros(1, 1))

# a key equal to the query, remembered for one step by a shift register
match = f_and(is_key, f_eq(input, query))
register = LinState(match, A=Matrix([[0, 0], [1, 0]]), B=Matrix([[1], [0]]),
                    init_state=Matrix.zeros(2, 1))
after_match = register[1]

# the token after the matching key is the value: keep it
answer = LinState(f_ifelse(after_match, t_val=input, f_val=None), A=Matrix.eye(1),
                  B=Matrix.eye(1), init_state=Matrix.zeros(1, 1))

program = ForEach(answer, verbose=False)
'''


def lookup_program():
    namespace = {}
    exec(LOOKUP_LISTING, namespace)
    return namespace["program"]


def lookup_expected(tokens):
    """The output at each step: the value stored under the query once it has been read."""
    query, out, answer = tokens[0], [], 0
    for t, token in enumerate(tokens):
        if t >= 2 and t % 2 == 0 and tokens[t - 1] == query:
            answer = token
        out.append(answer)
    return out


def random_lookups(seed, count=10, vocab=10):
    rng = random.Random(seed)
    cases = []
    for _ in range(count):
        keys = rng.sample(range(vocab), rng.randint(1, 6))
        dictionary = {(k,): (rng.randrange(vocab),) for k in keys}
        query = (rng.choice(keys),)
        cases.append(lsrl.utils.tok2tok_input(dictionary, query)[0].tolist())
    cases.append([4, 1, 7, 4, 9, 2, 3])  # the query is the second key
    cases.append([5, 1, 7, 4, 9])  # no key matches: 0 throughout
    return cases


class Fig1(unittest.TestCase):
    def test_the_listing_counts_the_majority(self):
        program = fig1_program()
        self.assertIsInstance(program, lsrl.ForEach)
        for bits in random_bit_strings(1):
            for backend in ("exact", "float64"):
                with self.subTest(bits=bits, backend=backend):
                    out = program.run(np.array([bits]), backend=backend).numpy()
                    self.assertEqual(out.shape, (1, len(bits)))
                    np.testing.assert_array_equal(out[0], majority(bits))

    def test_compiled_listing_is_one_linear_rnn_layer(self):
        program = fig1_program()
        program.simplify()
        self.assertTrue(program.is_path())
        states = [n for n in program.topological_sort() if isinstance(n, lsrl.LinState)]
        self.assertEqual(len(states), 1)
        self.assertEqual(states[0].dim, 2)
        for bits in random_bit_strings(2):
            with self.subTest(bits=bits):
                np.testing.assert_array_equal(program.run(np.array([bits])).numpy()[0],
                                              majority(bits))


class Lookup(unittest.TestCase):
    def test_expected_outputs_by_hand(self):
        self.assertEqual(lookup_expected([4, 1, 7, 4, 9, 2, 3]), [0, 0, 0, 0, 9, 9, 9])
        self.assertEqual(lookup_expected([1, 1, 7, 4, 9]), [0, 0, 7, 7, 7])

    def test_the_lookup_returns_the_value_of_the_query(self):
        program = lookup_program()
        for tokens in random_lookups(3):
            for backend in ("exact", "float64"):
                with self.subTest(tokens=tokens, backend=backend):
                    out = program.run(np.array([tokens]), backend=backend).numpy()[0]
                    np.testing.assert_allclose(out, lookup_expected(tokens), atol=1e-9)
        # the last output is what the prompt helpers say is stored under the query
        dictionary = {(3,): (8,), (6,): (2,), (0,): (5,)}
        tokens = lsrl.utils.tok2tok_input(dictionary, (6,))
        self.assertEqual(program(tokens).numpy()[0, -1],
                         lsrl.utils.tok2tok_expected(dictionary, (6,))[0])

    def test_compiled_lookup_gives_the_same_answers(self):
        program = lookup_program()
        program.simplify()
        self.assertTrue(program.is_path())
        for tokens in random_lookups(4, count=5):
            with self.subTest(tokens=tokens):
                np.testing.assert_array_equal(program.run(np.array([tokens])).numpy()[0],
                                              lookup_expected(tokens))


class CompileLikeTheCli(CliTestCase):
    def test_simplify_gives_the_cli_model(self):
        for name, build, cases in (("fig1", fig1_program, random_bit_strings(5, 4)),
                                   ("lookup", lookup_program, random_lookups(6, 4))):
            for optimize, flags in ((True, []), (False, ["--no-optimize"])):
                with self.subTest(program=name, optimize=optimize):
                    # simplify() defaults to the paper's algorithm, the CLI to optimize
                    program = build()
                    graph_file = self.path(f"{name}.json")
                    program.save_json(graph_file)
                    cli_model = self.path(f"{name}_cli_model.json")
                    self.run_cli("compile", graph_file, "--backend", "exact", *flags, "-o", cli_model)
                    if optimize:
                        program.simplify(backend="exact", optimize=True)
                    else:
                        program.simplify(backend="exact")
                    py_model = self.path(f"{name}_py_model.json")
                    program.save_json(py_model)
                    python, cpp = read_graph(py_model), read_graph(cli_model)
                    diff = graph_differences(python, cpp, keys=PATH_KEYS, groups=False)
                    self.assertEqual(diff, [], "\n".join(diff))
                    self.assertEqual([n["op"] for n in python["nodes"]],
                                     [n.op for n in program.topological_sort()])
                    # the CLI's model, loaded in Python, answers as the program does
                    loaded = lsrl.ForEach.load_json(cli_model, verbose=False)
                    self.assertTrue(loaded.is_path())
                    for tokens in cases:
                        x = np.array([tokens])
                        self.assertTrue(loaded.run(x) == program.run(x))

    def test_compiling_the_saved_listing_twice_gives_one_model(self):
        """The graph file of a program compiles to the same model as the program itself,
        however often it is saved and loaded in between."""
        program = fig1_program()
        first = self.path("fig1_a.json")
        program.save_json(first)
        again = lsrl.ForEach.load_json(first, verbose=False)
        second = self.path("fig1_b.json")
        again.save_json(second)
        self.assertEqual(read_graph(first), read_graph(second))
        a, b = self.path("a_model.json"), self.path("b_model.json")
        self.run_cli("compile", first, "--backend", "exact", "-o", a)
        again.simplify()
        again.save_json(b)
        diff = graph_differences(read_graph(b), read_graph(a), keys=PATH_KEYS, groups=False)
        self.assertEqual(diff, [], "\n".join(diff))


if __name__ == "__main__":
    unittest.main()
