"""Shared helpers of the Python API tests (run with PYTHONPATH=<build>/python).

- Reading programs: ops_from, next_id, node_at, groups, last_group, param, fractions,
  exacts.
- Running: run_both, column_tokens, token_columns, expect_outputs.
- The research scripts: run_experiment_script.
- The `lsrl` CLI: find_cli, CliTestCase (a temporary folder and run_cli).
- Graph and model files read with the json module only: read_graph, graph_differences,
  op_counts, Sidecar (safetensors, parsed by hand as docs/weights-format.md shows).
"""

import json
import os
import struct
import subprocess
import sys
import tempfile
import unittest
from fractions import Fraction

import numpy as np

import lsrl

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE_DIR = os.path.dirname(os.path.dirname(HERE))
EXAMPLES_DIR = os.path.join(SOURCE_DIR, "examples")


# ---- reading programs ----------------------------------------------------------------


def ops_from(node_or_graph, first: int) -> list:
    """The op names of the nodes created from id `first` on, in creation order."""
    g = node_or_graph._graph if isinstance(node_or_graph, lsrl.Variable) else node_or_graph
    return [g.op_of(i) for i in range(first, g.node_count)]


def next_id(node) -> int:
    return node._graph.node_count


def node_at(node, node_id: int):
    """The node object of id `node_id` in `node`'s graph."""
    return lsrl.basic_blocks._wrap(node._graph, node_id)


def groups(node) -> list:
    """The sugar groups of the node's graph (dicts: id, function, params, parent, nodes,
    output), in creation order."""
    return node._graph.groups()


def last_group(node, function: str):
    """The group of `function` created last in the node's graph (None when there is none)."""
    found = [g for g in groups(node) if g["function"] == function]
    return found[-1] if found else None


def param(group, key: str) -> str:
    """One parameter of a group as its recorded text ("<missing>" when absent)."""
    return dict(group["params"]).get(key, "<missing>")


def fractions(matrix) -> list:
    """An exact (SYMBOLIC) lsrl.Matrix of rational values as nested lists of Fractions,
    read entry by entry (m.at(i, j) is an lsrl.Exact)."""
    assert matrix.mode is lsrl.MatrixMode.SYMBOLIC, matrix.mode
    return [[matrix.at(i, j).to_fraction() for j in range(matrix.cols)] for i in range(matrix.rows)]


def exacts(matrix) -> list:
    """An exact (SYMBOLIC) lsrl.Matrix as nested lists of lsrl.Exact (irrationals too)."""
    assert matrix.mode is lsrl.MatrixMode.SYMBOLIC, matrix.mode
    return [[matrix.at(i, j) for j in range(matrix.cols)] for i in range(matrix.rows)]


# ---- running -------------------------------------------------------------------------


def run_both(loop, x):
    """The ForEach's output exactly (as Fractions) and in float64, each a whole sequence."""
    exact = loop.run(x, backend="exact")
    floats = loop.run(x, backend="float64")
    assert exact.mode is lsrl.MatrixMode.SYMBOLIC
    assert floats.mode is lsrl.MatrixMode.NUMERIC
    return fractions(exact), floats.numpy()


def column_tokens(values) -> np.ndarray:
    """Scalar tokens as a 1 x T object array (exact values survive)."""
    return np.array([list(values)], dtype=object)


def token_columns(tokens) -> np.ndarray:
    """T tokens (each a list of d values: ints, Fractions, exact strings) as the d x T
    object array a ForEach takes (exact values survive)."""
    tokens = [list(t) for t in tokens]
    width = len(tokens[0]) if tokens else 0
    out = np.empty((width, len(tokens)), dtype=object)
    for t, token in enumerate(tokens):
        out[:, t] = token
    return out


def expect_outputs(test, loop, tokens, expected, atol=0.0):
    """Runs `loop` on `tokens` (T lists of d values) with both backends: the exact outputs
    must equal `expected` (T lists of exact values) and the float64 ones must be within
    `atol` of them (atol=0: equal to the nearest doubles)."""
    exact, floats = run_both(loop, token_columns(tokens))
    want = [[Fraction(v) for v in out] for out in expected]
    test.assertEqual([list(col) for col in zip(*exact)], want, "exact backend")
    test.assertEqual(floats.shape, (len(want[0]) if want else loop.output.dim, len(want)))
    np.testing.assert_allclose(floats.T, np.array(want, dtype=float).reshape(floats.T.shape),
                               rtol=0, atol=atol, err_msg="float64 backend")


# ---- the research scripts ------------------------------------------------------------


def run_experiment_script(name, *args, timeout=300):
    """Runs scripts/experiments/<name> with this lsrl module importable; the finished
    process (stdout and stderr as text)."""
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(lsrl.__file__)))
    return subprocess.run([sys.executable, os.path.join(SOURCE_DIR, "scripts", "experiments",
                                                        name), *args],
                          env=env, capture_output=True, text=True, timeout=timeout)


# ---- the CLI -------------------------------------------------------------------------


def find_cli():
    """The `lsrl` binary: $LSRL_CLI, else the one built next to the imported package
    (<build>/python/lsrl -> <build>/app/cli/lsrl), else build/release of the
    source tree. Skips the calling test when there is none."""
    cli = os.environ.get("LSRL_CLI")
    if cli:
        return cli
    package_dir = os.path.dirname(os.path.abspath(lsrl.__file__))  # <build>/python/lsrl
    builds = [os.path.dirname(os.path.dirname(package_dir))]
    builds.append(os.path.join(SOURCE_DIR, "build", "release"))
    candidates = [os.path.join(build, "app", "cli", "lsrl") for build in builds]
    for path in candidates:
        if os.path.exists(path):
            return path
    raise unittest.SkipTest("set LSRL_CLI to the lsrl binary")


class CliTestCase(unittest.TestCase):
    """A test case with the CLI (self.cli) and a temporary folder (self.path(name))."""

    @classmethod
    def setUpClass(cls):
        cls.cli = find_cli()
        cls._tmp = tempfile.TemporaryDirectory(prefix="lsrl-python-test-")
        cls.tmp = cls._tmp.name

    @classmethod
    def tearDownClass(cls):
        cls._tmp.cleanup()

    def run_cli(self, *args):
        """stdout of a CLI call that must succeed."""
        r = self.call_cli(*args)
        if r.returncode != 0:
            self.fail(f"lsrl {' '.join(args)} failed ({r.returncode}):\n{r.stderr}{r.stdout}")
        return r.stdout

    def call_cli(self, *args):
        """The CompletedProcess of a CLI call (any exit code)."""
        return subprocess.run([self.cli, *args], capture_output=True, text=True, timeout=300)

    def cli_error(self, command, *args):
        """The message of a CLI call that must fail: its stderr without the
        "lsrl COMMAND: error: " prefix and the final newline."""
        r = self.call_cli(command, *args)
        self.assertNotEqual(r.returncode, 0, f"lsrl {command} {' '.join(args)} succeeded")
        prefix = f"lsrl {command}: error: "
        self.assertTrue(r.stderr.startswith(prefix), r.stderr)
        return r.stderr[len(prefix):].rstrip("\n")

    def path(self, name):
        return os.path.join(self.tmp, name)

    def cpp_program(self, name, params, file):
        """`lsrl program NAME --set k=v ... -o file`; returns file."""
        args = ["program", name]
        for key, value in params.items():
            args += ["--set", f"{key}={value}"]
        self.run_cli(*args, "-o", file)
        return file


# ---- reading graph and model files -----------------------------------------------------


def canonical(value):
    """An exact value from a graph file: ints and rationals as Fraction, anything else
    (cos(pi/6), sqrt(3)/2 ...: both writers print it with the same grammar) as text."""
    if isinstance(value, bool):
        raise AssertionError(f"unexpected boolean value {value!r}")
    if isinstance(value, int):
        return Fraction(value)
    if isinstance(value, float):
        return Fraction(value)
    if isinstance(value, str):
        try:
            return Fraction(value)
        except (ValueError, ZeroDivisionError):
            return value
    raise AssertionError(f"unexpected value {value!r}")


class Sidecar:
    """A safetensors file (a model file's sidecar, or exported weights), read with numpy."""

    def __init__(self, path):
        with open(path, "rb") as f:
            data = f.read()
        (length,) = struct.unpack("<Q", data[:8])
        self.header = json.loads(data[8 : 8 + length])
        self.data = data[8 + length :]

    def tensor(self, key):
        entry = self.header[key]
        dtype = {"F64": "<f8", "F32": "<f4"}[entry["dtype"]]
        begin, end = entry["data_offsets"]
        return np.frombuffer(self.data[begin:end], dtype=dtype).reshape(entry["shape"])

    def tensors(self) -> dict:
        """Every tensor by name (the metadata left out)."""
        return {k: self.tensor(k) for k in self.header if k != "__metadata__"}


def sidecar_values(ref, sidecar, key):
    """The non-zeros (row-major) of a sidecar reference, with its exact overrides."""
    values = [Fraction(float(v)) for v in sidecar.tensor(key)]
    for position, text in ref.get("exact", []):
        values[position] = canonical(text)
    return values


def read_matrix(ref, sidecar):
    """{(row, col): value} of the non-zeros, and the shape."""
    rows, cols = ref["shape"]
    out = {}
    if "sidecar" in ref:
        key = ref["sidecar"]
        row_start = sidecar.tensor(key + ".row_start").astype(np.int64)
        col = sidecar.tensor(key + ".col").astype(np.int64)
        values = sidecar_values(ref, sidecar, key + ".val")
        for r in range(rows):
            for k in range(row_start[r], row_start[r + 1]):
                out[(r, int(col[k]))] = values[k]
    else:
        for r, c, v in ref.get("entries", []):
            out[(r, c)] = canonical(v)
    return (rows, cols), {k: v for k, v in out.items() if v != 0}


def read_vector(ref, sidecar, dim):
    """A vector as a list of exact values; missing means all zero of the node's width."""
    if ref is None:
        return [Fraction(0)] * dim
    if isinstance(ref, dict):
        values = [Fraction(float(v)) for v in sidecar.tensor(ref["sidecar"])]
        for position, text in ref.get("exact", []):
            values[position] = canonical(text)
        return values
    return [canonical(v) for v in ref]


def read_graph(path):
    """The parts of a graph (or model) file that define the program, normalised."""
    with open(path) as f:
        doc = json.load(f)
    assert doc["format"] == "lsrl-graph", path
    sidecar = None
    if isinstance(doc.get("metadata"), dict) and "sidecar" in doc["metadata"]:
        sidecar = Sidecar(os.path.join(os.path.dirname(path), doc["metadata"]["sidecar"]["file"]))
    nodes = []
    for i, n in enumerate(doc["nodes"]):
        assert n["id"] == i, f"{path}: nodes[{i}] has id {n['id']}"
        dim = n["dim"]
        node = {
            "id": n["id"],
            "op": n["op"],
            "dim": dim,
            "inputs": n.get("inputs", []),
            "name": n.get("name", ""),
            "always_positive": n.get("always_positive", False),
            "group": n.get("group"),
            "slice": n.get("slice"),
        }
        if n["op"] == "Linear":
            node["A"] = read_matrix(n["A"], sidecar)
            node["b"] = read_vector(n.get("b"), sidecar, dim)
        elif n["op"] == "LinState":
            node["A"] = read_matrix(n["A"], sidecar)
            node["B"] = read_matrix(n["B"], sidecar)
            node["init"] = read_vector(n.get("init"), sidecar, dim)
            node["bias"] = read_vector(n.get("bias"), sidecar, dim)
        nodes.append(node)
    groups = [
        {
            "id": g["id"],
            "function": g["function"],
            "params": [list(p) for p in g.get("params", [])],
            "parent": g.get("parent"),
            "nodes": g["nodes"],
            "output": g.get("output"),
        }
        for g in doc.get("groups", [])
    ]
    return {"output": doc.get("output"), "nodes": nodes, "groups": groups}


NODE_KEYS = ("op", "dim", "inputs", "slice", "A", "b", "B", "init", "bias", "name",
             "always_positive", "group")
# What defines a compiled path: a model file holds no sugar groups and its names follow
# the compiler.
PATH_KEYS = NODE_KEYS[:-3]


def describe(node):
    name = f" '{node['name']}'" if node["name"] else ""
    return f"node {node['id']} ({node['op']}{name}, dim {node['dim']})"


def graph_differences(python, cpp, keys=NODE_KEYS, groups=True, limit=5):
    """Where the two graphs differ, as readable lines (empty when equal)."""
    out = []
    if len(python["nodes"]) != len(cpp["nodes"]):
        out.append(f"{len(python['nodes'])} nodes from Python, {len(cpp['nodes'])} from C++")
    for p, c in zip(python["nodes"], cpp["nodes"]):
        for key in keys:
            if p.get(key) != c.get(key):
                pv, cv = p.get(key), c.get(key)
                if key in ("A", "B"):
                    pv = f"shape {pv[0]}, {len(pv[1])} non-zeros" if pv else pv
                    cv = f"shape {cv[0]}, {len(cv[1])} non-zeros" if cv else cv
                out.append(f"{describe(c)}: {key} is {pv} from Python, {cv} from C++")
                break
        if len(out) >= limit:
            return out
    if python["output"] != cpp["output"]:
        out.append(f"output node {python['output']} from Python, {cpp['output']} from C++")
    if groups and python["groups"] != cpp["groups"]:
        if len(python["groups"]) != len(cpp["groups"]):
            out.append(f"{len(python['groups'])} groups from Python, {len(cpp['groups'])} from C++")
        for p, c in zip(python["groups"], cpp["groups"]):
            if p != c:
                out.append(f"group {c['id']}: {p} from Python, {c} from C++")
                break
    return out[:limit]


def op_counts(graph):
    counts = {}
    for n in graph["nodes"]:
        counts[n["op"]] = counts.get(n["op"], 0) + 1
    return counts
