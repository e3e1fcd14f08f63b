"""Weights fitted by `lsrl compile --precision fp32` (docs/precision.md), run in fp32 by a
small NumPy forward pass of the exported safetensors, written here from
docs/architectures.md (NF family: s_t = A s_{t-1} + B u_t + bias, f and g ReLU stacks on
s, y = f * g for gated layers, readout). Every tensor and every operation is float32.
The same forward in float64 gives the float64 reference.

tok2tok (direct: a linear-rnn, multiplicative: a gated-linear-rnn) must answer the
expected tokens; vec2vec must land within 1e-3 of the exact model's output. The weights
compiled with the paper's constants go wrong in the same forward (what the pass fixes).
"""

import json
import unittest
from fractions import Fraction

import numpy as np

from helpers import CliTestCase, Sidecar


def forward(tensors, meta, tokens, dtype):
    t = {k: v.astype(dtype) for k, v in tensors.items()}
    layers = meta["nf_layers"]
    states = [t[f"layers.{k}.state.s0"].copy() for k in range(len(layers))]
    out = []
    for u in tokens:
        y = np.asarray(u, dtype=dtype)
        for k, layer in enumerate(layers):
            p = f"layers.{k}."
            states[k] = t[p + "state.A"] @ states[k] + t[p + "state.B"] @ y + t[p + "state.bias"]
            f = states[k]
            for j in range(len(layer["f_widths"])):
                f = np.maximum(t[p + f"f.{j}.weight"] @ f + t[p + f"f.{j}.bias"], dtype(0))
            if layer["role"] == "gated":
                g = states[k]
                for j in range(len(layer["g_widths"])):
                    g = np.maximum(t[p + f"g.{j}.weight"] @ g + t[p + f"g.{j}.bias"], dtype(0))
                f = f * g
            y = f
        out.append(t["readout.weight"] @ y + t["readout.bias"])
    assert all(v.dtype == dtype for v in out)
    return np.array(out, dtype=np.float64)


class Fp32Weights(CliTestCase):
    def weights(self, name, sets, precision_args):
        program = self.cpp_program(name, sets, self.path(f"{name}.json"))
        model = self.path("m.json")
        self.run_cli("compile", program, *precision_args, "-o", model)
        st = self.path("w.safetensors")
        self.run_cli("export", model, "--format", "safetensors", "-o", st)
        sidecar = Sidecar(st)
        meta = json.loads(sidecar.header["__metadata__"]["lsrl"])
        return model, sidecar.tensors(), meta

    def tokens(self, prompt):
        with open(prompt) as f:
            data = json.load(f)
        rows = [[float(Fraction(str(v))) for v in row] for row in data["tokens"]]
        return rows, data["expected"]

    def test_tok2tok_answers_right_in_fp32(self):
        for variant, arch in [("direct", "linear_rnn"), ("multiplicative", "gated_linear_rnn")]:
            fitted = self.weights("tok2tok", {"L": 3, "conditional": variant},
                                  ["--precision", "fp32", "--box", "0,9", "--horizon", "160"])
            as_built = self.weights("tok2tok", {"L": 3, "conditional": variant},
                                    ["--precision", "exact"])
            _, tensors, meta = fitted
            self.assertEqual(meta["arch"], arch)
            self.assertEqual(meta["precision"]["precision"], "fp32")
            wrong_as_built = 0
            for seed in range(6):
                prompt = self.path(f"in{seed}.json")
                self.run_cli("prompt", "tok2tok", "--random", str(4 + 4 * seed), "--seed",
                             str(seed), "-o", prompt)
                rows, expected = self.tokens(prompt)
                for dtype in (np.float32, np.float64):
                    out = forward(tensors, meta, rows, dtype)[-3:, 0]
                    np.testing.assert_array_equal(np.rint(out), expected,
                                                  err_msg=f"{variant} seed {seed} {dtype}")
                    self.assertLess(np.max(np.abs(out - expected)), 1e-3)
                out = forward(as_built[1], as_built[2], rows, np.float32)[-3:, 0]
                wrong_as_built += int(np.any(np.rint(out) != expected))
            self.assertGreater(wrong_as_built, 0, f"{variant}: the paper's constants in fp32")

    def test_vec2vec_within_1e3_of_the_exact_model(self):
        model, tensors, meta = self.weights(
            "vec2vec", {"conditional": "direct"},
            ["--precision", "fp32", "--box", "-3,3", "--horizon", "100"])
        for seed in range(4):
            prompt = self.path(f"v{seed}.json")
            self.run_cli("prompt", "vec2vec", "-N", "8", "--mu", "100", "--seed", str(seed),
                         "-o", prompt)
            rows, _ = self.tokens(prompt)
            exact = json.loads(self.run_cli("run", model, "--input", prompt, "--exact"))
            want = float(Fraction(str(exact["outputs"][-1][0])))
            got = forward(tensors, meta, rows, np.float32)[-1, 0]
            self.assertLess(abs(got - want), 1e-3, f"seed {seed}: {got} vs {want}")


if __name__ == "__main__":
    unittest.main()
