"""ForEach from Python: calling it, choosing the backend, compiling, files and weights.

- ForEach(output, verbose=..., keep_graph_history=...) called on d x T numpy arrays of
  int, unsigned, float and bool dtypes (columns are tokens), lsrl.Matrix and nested
  lists; the backend follows the global matrix mode unless a call names one.
- simplify() / debranch_graph() replace the program by a path whose outputs equal the
  program's; steps, rule_counts and simplification_history (graphs kept with
  keep_graph_history=True); max_steps and optimize.
- save_json / load_json and save / load round trips (a finished compile saves as a model
  file, so paths too wide for a graph file reload); a pickle file is refused with an
  error naming pickles and is never unpickled (a trap object would create a file).
- export_weights writes safetensors and npz; the npz read with numpy.load runs, by hand,
  to the program's outputs.

Expected outputs are worked out by hand (running sums, majority counts).
"""

import contextlib
import copy
import io
import json
import os
import pickle
import tempfile
import unittest

import numpy as np

import lsrl
from helpers import Sidecar, fractions, read_graph
from lsrl import (
    Concat,
    ForEach,
    Input,
    Linear,
    LinState,
    Matrix,
    MatrixMode,
    ReLU,
    f_ifelse,
    f_ifelse_mul,
    f_larger,
    f_not,
    utils,
)
from lsrl.matrix_tools import matrix_mode


def running_sum_and_triple():
    """Input [a, b]: outputs [a_1 + ... + a_t, 3 b_t]."""
    x = Input(2)
    total = LinState(x[0], Matrix.eye(1), Matrix.eye(1), Matrix.zeros(1, 1))
    return ForEach(Concat([total, x[1] * 3]), verbose=False)


def more_ones(mu=10):
    """1 while the bits seen so far hold more ones than zeros (paper Fig. 1)."""
    x = Input(1)
    ones = LinState(x, A=Matrix.eye(1), B=Matrix.eye(1), init_state=Matrix.zeros(1, 1))
    zeros = LinState(f_not(x), A=Matrix.eye(1), B=Matrix.eye(1), init_state=Matrix.zeros(1, 1))
    return ForEach(f_larger(ones, zeros, scale=mu), verbose=False)


def majority(bits):
    return [float(2 * sum(bits[: t + 1]) > t + 1) for t in range(len(bits))]


def branching_program():
    """A program with branches, conditionals, a state and a product (to compile):
    input [c, v]; out = [v if c > 1/2 else -v, sum of v, c * v]."""
    x = Input(2)
    c, v = x[0], x[1]
    cond = f_larger(c, "1/2")
    picked = f_ifelse(cond, t_val=v, f_val=-v, large_constant=10**4)
    total = LinState(v, Matrix.eye(1), Matrix.eye(1), Matrix.zeros(1, 1))
    product = f_ifelse_mul(cond, t_val=v, f_val=None)
    return ForEach(Concat([picked, total, product]), verbose=False)


def branching_expected(tokens):
    out, total = [], 0
    for c, v in tokens:
        total += v
        out.append([v if c > 0.5 else -v, total, v if c > 0.5 else 0])
    return np.array(out, dtype=float).T


BRANCHING_TOKENS = [[1, 3], [0, 5], [1, -2], [0, 0], [1, 7], [0, -4]]


class Calling(unittest.TestCase):
    TOKENS = [[1, 0, 1, 1], [0, 1, 1, 0]]  # d x T: columns are tokens
    EXPECTED = [[1, 1, 2, 3], [0, 3, 3, 0]]

    def test_columns_are_tokens_for_every_dtype(self):
        loop = running_sum_and_triple()
        for dtype in (np.int8, np.int32, np.int64, np.uint8, np.uint64, np.float32, np.float64,
                      np.bool_):
            for backend in ("exact", "float64"):
                with self.subTest(dtype=dtype.__name__, backend=backend):
                    out = loop(np.array(self.TOKENS, dtype=dtype), backend=backend)
                    self.assertEqual(out.shape, (2, 4))
                    np.testing.assert_array_equal(out.numpy(), self.EXPECTED)

    def test_other_input_forms(self):
        loop = running_sum_and_triple()
        for tokens in (self.TOKENS, Matrix(self.TOKENS),
                       Matrix(self.TOKENS, mode=MatrixMode.NUMERIC),
                       np.array(self.TOKENS, dtype=object)):
            for backend in ("exact", "float64"):
                with self.subTest(kind=type(tokens).__name__, backend=backend):
                    np.testing.assert_array_equal(loop(tokens, backend=backend).numpy(),
                                                  self.EXPECTED)
        # a 1-D array is one token
        np.testing.assert_array_equal(loop.run(np.array([4, 5])).numpy(), [[4], [15]])

    def test_exact_tokens_stay_exact(self):
        loop = running_sum_and_triple()
        tokens = np.array([["1/3", "1/6"], ["sqrt(2)", 0]], dtype=object)
        out = loop(tokens, backend="exact")
        self.assertEqual(out.at(0, 1), lsrl.Exact("1/2"))
        self.assertEqual(out.at(1, 0), 3 * lsrl.Exact.sqrt(2))

    def test_output_and_input_nodes(self):
        x = Input(1)
        y = x * 2
        loop = ForEach(y, verbose=False)
        self.assertEqual(loop.output, y)
        self.assertEqual(loop.input, x)
        loop.output = x  # the paper's notebooks re-point a loop
        np.testing.assert_array_equal(loop(np.array([[3]])).numpy(), [[3]])
        with self.assertRaises(TypeError):
            ForEach(3)
        self.assertEqual(repr(ForEach(y, verbose=False)), "<lsrl.ForEach 1->1, 2 nodes>")


class Backends(unittest.TestCase):
    def program(self):
        # sqrt(2) * sqrt(2) * x - 2x: exactly 0, a rounding error in float64
        x = Input(1)
        return ForEach(x * "sqrt(2)" * "sqrt(2)" - x * 2, verbose=False)

    def test_named_backends(self):
        loop = self.program()
        tokens = np.array([[1.0, -3.0]])
        for exact in ("exact", MatrixMode.SYMBOLIC):
            out = loop(tokens, backend=exact)
            self.assertIs(out.mode, MatrixMode.SYMBOLIC)
            self.assertEqual(fractions(out), [[0, 0]])
        for floats in ("float64", MatrixMode.NUMERIC):
            out = loop(tokens, backend=floats)
            self.assertIs(out.mode, MatrixMode.NUMERIC)
            self.assertNotEqual(out.numpy()[0, 0], 0.0)
            self.assertAlmostEqual(out.numpy()[0, 0], 0.0, places=14)
        with self.assertRaisesRegex(ValueError, "unknown backend 'fp16'"):
            loop(tokens, backend="fp16")

    def test_default_backend_follows_the_global_mode(self):
        loop = self.program()
        tokens = np.array([[1.0]])
        with matrix_mode(MatrixMode.NUMERIC):
            self.assertIs(loop(tokens).mode, MatrixMode.NUMERIC)
        with matrix_mode(MatrixMode.SYMBOLIC):
            self.assertIs(loop(tokens).mode, MatrixMode.SYMBOLIC)
            self.assertEqual(fractions(loop(tokens)), [[0]])


class Compiling(unittest.TestCase):
    def assert_same_outputs(self, compiled, original, tokens, exact=True):
        """The same outputs in float64 and, for an exact compile, exactly (a float64
        compile stores float64 roundings of the exact values)."""
        columns = np.array(tokens).T
        if exact:
            self.assertTrue(compiled(columns, backend="exact")
                            == original(columns, backend="exact"))
        np.testing.assert_allclose(compiled(columns, backend="float64").numpy(),
                                   original(columns, backend="float64").numpy(), atol=1e-9)

    def test_simplify_gives_a_path_with_the_programs_outputs(self):
        for backend in ("exact", "float64"):
            with self.subTest(backend=backend):
                original = branching_program()
                compiled = branching_program()
                np.testing.assert_allclose(
                    original(np.array(BRANCHING_TOKENS).T, backend="float64").numpy(),
                    branching_expected(BRANCHING_TOKENS), atol=1e-9)
                self.assertFalse(compiled.is_path())
                self.assertIs(compiled.simplify(backend=backend), compiled)
                self.assertTrue(compiled.is_path())
                self.assertTrue(utils.is_directed_path_graph(compiled.graph()))
                ops = {n.op for n in compiled.topological_sort()}
                self.assertLessEqual(ops, {"Input", "Linear", "ReLU", "LinState", "Multi"})
                self.assertIn("Multi", ops)
                self.assertEqual(compiled.compile_result.backend, backend)
                self.assert_same_outputs(compiled, original, BRANCHING_TOKENS,
                                         exact=backend == "exact")

    def test_debranch_graph_is_simplify(self):
        a = branching_program().simplify()
        b = branching_program().debranch_graph()
        self.assertEqual(a.to_json(), b.to_json())
        self.assertEqual(a.steps, b.steps)

    def test_steps_and_rule_counts(self):
        loop = more_ones().simplify()
        rules = [rule for rule, graph in loop.simplification_history]
        self.assertEqual(len(rules), loop.steps)
        self.assertGreater(loop.steps, 0)
        self.assertEqual(sum(loop.rule_counts.values()), loop.steps)
        self.assertEqual({r: rules.count(r) for r in rules}, loop.rule_counts)
        self.assertLessEqual(set(rules), set(lsrl._lsrl.compile_rule_names()))
        self.assertEqual([g for r, g in loop.simplification_history], [None] * loop.steps)

    def test_graph_history(self):
        loop = ForEach(more_ones().output, verbose=False, keep_graph_history=True)
        before = len(loop.topological_sort())
        loop.simplify()
        history = loop.simplification_history
        self.assertEqual(len(history), loop.steps)
        rule, first = history[0]
        self.assertIsInstance(rule, str)
        self.assertIsInstance(first, lsrl.ProgramGraph)
        self.assertLessEqual(abs(first.number_of_nodes() - before), 1)  # one rule applied
        rule, last = history[-1]
        self.assertEqual(last.number_of_nodes(), len(loop.topological_sort()))
        self.assertEqual([n.op for n in last.nodes()], [n.op for n in loop.topological_sort()])
        self.assertTrue(utils.is_directed_path_graph(last))
        self.assertFalse(utils.is_directed_path_graph(first))
        self.assertEqual(len(history[1:3]), 2)
        with self.assertRaises(IndexError):
            history[loop.steps]

    def test_max_steps_stops_early(self):
        original = branching_program()
        loop = branching_program().simplify(max_steps=2)
        self.assertEqual(loop.steps, 2)
        self.assertTrue(loop.compile_result.stopped)
        self.assertFalse(loop.is_path())
        self.assert_same_outputs(loop, original, BRANCHING_TOKENS)
        loop.simplify()  # finishes from where it stopped
        self.assertTrue(loop.is_path())
        self.assert_same_outputs(loop, original, BRANCHING_TOKENS)

    def test_unoptimised_compile(self):
        original = branching_program()
        plain = branching_program().simplify(optimize=False)
        self.assertTrue(plain.is_path())
        self.assert_same_outputs(plain, original, BRANCHING_TOKENS)

    def test_verbose_prints_a_summary(self):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            loop = more_ones()
            loop.verbose = True
            loop.simplify()
        self.assertIn("lsrl: compiled (exact)", out.getvalue())
        quiet = io.StringIO()
        with contextlib.redirect_stdout(quiet):
            more_ones().simplify()
        self.assertEqual(quiet.getvalue(), "")

    def test_old_nodes_stay_usable(self):
        loop = more_ones()
        output = loop.output
        loop.simplify()
        bits = [1, 0, 0, 1, 1]
        np.testing.assert_array_equal(ForEach(output, verbose=False)(np.array([bits])).numpy(),
                                      [majority(bits)])

    def test_stats_and_parameter_count(self):
        x = Input(2)
        hidden = lsrl.Linear(x, Matrix.ones(3, 2), [1, 2, 3])  # 6 + 3
        state = LinState(hidden, Matrix.eye(3), Matrix.eye(3), [0, 0, 0], bias=[1, 1, 1])  # 9 + 9 + 3
        loop = ForEach(lsrl.ReLU(state), verbose=False)
        self.assertEqual(loop.parameter_count, 30)
        stats = loop.stats()
        self.assertEqual((stats["state_dim"], stats["total_nodes"]), (3, 4))
        self.assertEqual(stats["nonzero_parameters"], 6 + 3 + 3 + 3 + 3)
        graph = loop.graph()
        nodes = graph.nodes()
        self.assertEqual([n.op for n in nodes], ["Input", "Linear", "LinState", "ReLU"])
        self.assertEqual(graph.edges(), list(zip(nodes, nodes[1:])))
        self.assertEqual(graph.successors(nodes[0]), [nodes[1]])
        self.assertEqual(graph.predecessors(nodes[3]), [nodes[2]])
        self.assertEqual((graph.in_degree(nodes[0]), graph.out_degree(nodes[3])), (0, 0))


class PickleTrap:
    """Unpickling this creates the file `marker` (proof that a pickle was unpickled)."""

    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return (open, (self.marker, "w"))


class Files(unittest.TestCase):
    def setUp(self):
        tmp = tempfile.TemporaryDirectory(prefix="lsrl-foreach-test-")
        self.addCleanup(tmp.cleanup)
        self.tmp = tmp.name

    def path(self, name):
        return os.path.join(self.tmp, name)

    def test_save_json_load_json_round_trip(self):
        loop = branching_program()
        file = self.path("sub/program.json")  # folders are created
        loop.save_json(file, metadata={"note": "round trip"})
        with open(file) as f:
            doc = json.load(f)
        self.assertEqual(doc["metadata"], {"note": "round trip"})
        self.assertEqual([n["op"] for n in doc["nodes"]],
                         [n.op for n in loop.topological_sort()])
        back = ForEach.load_json(file, verbose=False)
        self.assertEqual(back.to_json(), loop.to_json())
        tokens = np.array(BRANCHING_TOKENS).T
        self.assertTrue(back(tokens) == loop(tokens))
        np.testing.assert_allclose(back(tokens, backend="float64").numpy(),
                                   branching_expected(BRANCHING_TOKENS), atol=1e-9)

    def test_save_load_round_trip_of_a_compiled_model(self):
        loop = more_ones().simplify()
        loop.save(self.path("model.json"))
        back = ForEach.load(self.path("model.json"), verbose=False)
        self.assertTrue(back.is_path())
        bits = [0, 1, 1, 0, 1, 0, 0]
        np.testing.assert_array_equal(back(np.array([bits])).numpy(), [majority(bits)])
        self.assertEqual(read_graph(self.path("model.json"))["nodes"][0]["op"], "Input")

    def metadata(self, name):
        with open(self.path(name)) as f:
            return json.load(f).get("metadata") or {}

    def test_a_compiled_path_wider_than_a_graph_file_allows_round_trips(self):
        # 20 parallel branches stack into 20000-wide layers: the middle one is 20000 x 20000
        # counted densely, beyond what a graph file holds (docs/graph-format.md), so a
        # finished compile saves as a model file with a sidecar, as `lsrl compile -o` does.
        branches, width = 20, 1000
        x = Input(1)
        outs = []
        for i in range(branches):
            h = ReLU(Linear(x, A=Matrix.ones(width, 1) * (i + 1), b=Matrix.zeros(width, 1)))
            outs.append(ReLU(Linear(h, A=Matrix.eye(width) * 2, b=Matrix.zeros(width, 1))))
        total = Linear(Concat(outs), A=Matrix.ones(1, branches * width), b=Matrix.zeros(1, 1))
        program = ForEach(total, verbose=False)
        program.save(self.path("program.json"))  # a program stays a graph file
        self.assertNotIn("compiled", self.metadata("program.json"))
        stopped = copy.deepcopy(program).simplify(max_steps=1)  # not yet a path: a program
        stopped.save(self.path("stopped.json"))
        self.assertNotIn("compiled", self.metadata("stopped.json"))

        loop = copy.deepcopy(program).simplify()
        self.assertEqual(max(n.dim for n in loop.topological_sort()), branches * width)
        loop.save_json(self.path("model.json"), metadata={"note": "wide"})
        metadata = self.metadata("model.json")
        self.assertEqual(metadata["compiled"]["backend"], "exact")
        self.assertEqual(metadata["note"], "wide")
        self.assertTrue(os.path.exists(self.path(metadata["sidecar"]["file"])))
        tokens = np.array([[0.5, -1, 2]])
        want = [2 * width * sum(range(1, branches + 1)) * max(t, 0) for t in tokens[0]]
        for name, again in [("loaded", ForEach.load(self.path("model.json"), verbose=False)),
                            ("pickled", pickle.loads(pickle.dumps(loop))),
                            ("copied", copy.deepcopy(loop))]:
            with self.subTest(name):
                self.assertTrue(again.is_path())
                np.testing.assert_array_equal(again.run(tokens, backend="float64").numpy()[0], want)
                again.save(self.path(f"{name}.json"))  # still a model, so it loads again
                back = ForEach.load(self.path(f"{name}.json"), verbose=False)
                np.testing.assert_array_equal(back.run(tokens, backend="float64").numpy()[0], want)

    def test_pickle_files_are_refused_and_never_unpickled(self):
        marker = self.path("unpickled")
        for protocol in range(pickle.HIGHEST_PROTOCOL + 1):
            file = self.path(f"program_{protocol}.pkl")
            with open(file, "wb") as f:
                pickle.dump({"program": PickleTrap(marker)}, f, protocol=protocol)
            for load in (ForEach.load, ForEach.load_json):
                with self.subTest(protocol=protocol, load=load.__name__):
                    with self.assertRaises(ValueError) as cm:
                        load(file)
                    self.assertIn("pickle", str(cm.exception))
                    self.assertIn(file, str(cm.exception))
        self.assertFalse(os.path.exists(marker), "a pickle was unpickled")
        # the trap works: unpickling it would have created the file
        with open(self.path("program_4.pkl"), "rb") as f:
            pickle.load(f)["program"].close()
        self.assertTrue(os.path.exists(marker))

    def test_a_foreach_pickles_through_its_graph_json(self):
        loop = branching_program()
        back = pickle.loads(pickle.dumps(loop))
        self.assertEqual(back.to_json(), loop.to_json())
        clone = copy.deepcopy(loop)
        clone.simplify()
        self.assertFalse(loop.is_path())  # the copy does not share the program
        tokens = np.array(BRANCHING_TOKENS).T
        self.assertTrue(clone(tokens) == loop(tokens))

    def test_saved_groups_name_the_saved_node_ids(self):
        # BUG (app/python/bindings/graph.cpp programOnly, via core Graph::removeNodes in
        # core/graph/graph_edits.cpp): saving a program drops the nodes that do not reach
        # the output and renumbers the rest, but the sugar groups' "node N" parameters keep
        # the old ids, so the file's groups name the wrong nodes.
        x = Input(2)
        x[1]  # node 1: not part of the program below, dropped on save
        r = f_larger(x[0], "1/2")  # x[0] is node 2, f_step's input the Linear node 3
        loop = ForEach(r, verbose=False)
        doc = json.loads(loop.to_json())
        step = next(g for g in doc["groups"] if g["function"] == "f_step")
        larger = next(g for g in doc["groups"] if g["function"] == "f_larger")
        first = min(larger["nodes"])  # the Linear x - 1/2 (saved id)
        self.assertEqual(dict(larger["params"])["x"], f"node {first - 1}")
        self.assertEqual(dict(step["params"])["input"], f"node {first}")


def run_linear_rnn(tensors, meta, tokens):
    """Runs exported linear-rnn weights by hand (docs/architectures.md, NF family):
    per layer s_t = A s_{t-1} + B u_t + bias from s0, then the f layers (ReLU after
    each), the next layer reading y; the readout maps the last y to the output."""
    outputs = []
    layers = meta["nf_layers"]
    states = [tensors[f"layers.{k}.state.s0"].copy() for k in range(len(layers))]
    for u in tokens:
        y = np.asarray(u, dtype=float)
        for k, layer in enumerate(layers):
            p = f"layers.{k}."
            states[k] = (tensors[p + "state.A"] @ states[k] + tensors[p + "state.B"] @ y
                         + tensors[p + "state.bias"])
            y = states[k]
            for j in range(len(layer["f_widths"])):
                y = np.maximum(tensors[p + f"f.{j}.weight"] @ y + tensors[p + f"f.{j}.bias"], 0)
        outputs.append(tensors["readout.weight"] @ y + tensors["readout.bias"])
    return np.array(outputs)


class Weights(unittest.TestCase):
    def setUp(self):
        tmp = tempfile.TemporaryDirectory(prefix="lsrl-weights-test-")
        self.addCleanup(tmp.cleanup)
        self.tmp = tmp.name

    def test_npz_and_safetensors(self):
        loop = more_ones()  # compiled on export, the ForEach itself unchanged
        npz = os.path.join(self.tmp, "w.npz")
        st = os.path.join(self.tmp, "w.safetensors")
        info = loop.export_weights(npz)
        self.assertEqual((info["format"], info["target"], info["output"]),
                         ("npz", "linear-rnn", npz))
        self.assertFalse(loop.is_path())
        self.assertEqual(loop.export_weights(st)["format"], "safetensors")
        with np.load(npz) as z:
            meta = json.loads(z["__metadata__"].tobytes())
            tensors = {k: z[k] for k in z.files if k != "__metadata__"}
        self.assertEqual(info["tensors"], len(tensors))
        self.assertEqual(meta["arch"], "linear_rnn")
        self.assertEqual((meta["d_in"], meta["d_out"]), (1, 1))
        self.assertEqual(list(tensors), meta["tensor_order"])
        self.assertEqual([layer["role"] for layer in meta["nf_layers"]], ["ungated"])
        sidecar = Sidecar(st).tensors()
        self.assertEqual(set(sidecar), set(tensors))
        for name, value in tensors.items():
            np.testing.assert_array_equal(sidecar[name], value, err_msg=name)
        rng = np.random.default_rng(3)
        for _ in range(5):
            bits = rng.integers(0, 2, size=rng.integers(1, 30)).tolist()
            out = run_linear_rnn(tensors, meta, [[b] for b in bits])
            np.testing.assert_allclose(out[:, 0], majority(bits), atol=1e-9)

    def test_targets_and_formats(self):
        product = branching_program()
        info = product.export_weights(os.path.join(self.tmp, "g.npz"))
        self.assertEqual(info["target"], "gated-linear-rnn")  # it has a Multi
        with self.assertRaisesRegex(ValueError, "linear-rnn cannot express a product"):
            product.export_weights(os.path.join(self.tmp, "l.npz"), target="linear-rnn")
        odd_name = os.path.join(self.tmp, "weights.bin")
        self.assertEqual(more_ones().export_weights(odd_name, format="npz")["format"], "npz")
        with np.load(odd_name) as z:
            self.assertIn("readout.weight", z.files)
        with self.assertRaisesRegex(ValueError, 'unknown target "foo"'):
            more_ones().export_weights(os.path.join(self.tmp, "x.npz"), target="foo")
        with self.assertRaisesRegex(ValueError, 'unknown weight file format "csv"'):
            more_ones().export_weights(odd_name, format="csv")
        with self.assertRaisesRegex(ValueError, "linear-rnn .*does not read stacked"):
            more_ones().export_weights(os.path.join(self.tmp, "s.npz"), stacked=True)


if __name__ == "__main__":
    unittest.main()
