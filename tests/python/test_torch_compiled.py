"""lsrl.torch.from_compiled / save_compiled (docs/python.md, "Compiled programs as PyTorch
modules"): for every target, the module answers as the C++ target does.

- float64 (constants fitted for float64): within 1e-9 of the C++ float64 target forward
  (what `lsrl run` computes) on random inputs in the program's domain, relative to
  max(1, |output|), fed whole and in two pieces (the state carried over);
- fp32 (constants fitted for fp32, every parameter and operation float32): 0 wrong answers
  on 200 inputs (tok2tok and more_ones: the rounded output is the program's answer;
  vec2vec: within 1e-3 of it);
- save_compiled of an untrained float64 module gives the file `lsrl export` gives, tensor
  for tensor, and `lsrl run` answers with it bit for bit as with the exported file;
- one optimiser step changes every tensor that has a non-zero gradient, and most have one.
"""

import json
import os
import subprocess
import unittest
from fractions import Fraction

import numpy as np
import torch

import lsrl
import lsrl.torch as lt
from helpers import CliTestCase, Sidecar

# (target, options): every target; gru with its default (pytorch) update, which reads the
# box and horizon, and hawk, whose conv window needs the horizon.
TARGETS = ["linear-rnn", "gated-linear-rnn", "rnn", "gated-rnn", "gru", "lstm", "hawk"]
HORIZON = 72


def options(target, box):
    if target == "gru":
        return {"box": box, "horizon": HORIZON}
    if target == "hawk":
        return {"horizon": HORIZON}
    return {}


class CompiledModules(CliTestCase):
    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        def make(name, sets):
            file = os.path.join(cls.tmp, f"{name}.json")
            args = [a for key, value in sets.items() for a in ("--set", f"{key}={value}")]
            subprocess.run([cls.cli, "program", name, *args, "-o", file], check=True,
                           capture_output=True)
            return file

        # direct conditionals: no Multiplicative node, so linear-rnn and rnn hold them too
        cls.programs = {
            "tok2tok": (make("tok2tok", {"L": 3, "conditional": "direct"}), (0, 9)),
            "vec2vec": (make("vec2vec", {"conditional": "direct"}), (-3, 3)),
            "more_ones": (make("more_ones", {}), (0, 1)),
        }

    def module(self, program, target, precision):
        path, box = self.programs[program]
        return lt.from_compiled(path, target=target, precision=precision,
                                **options(target, box))

    def random_inputs(self, program, net, count, steps, seed):
        _, (lo, hi) = self.programs[program]
        rng = np.random.default_rng(seed)
        return rng.integers(lo, hi + 1, size=(count, steps, net.metadata["d_in"])).astype(float)

    # ---- parity -------------------------------------------------------------------------

    def test_float64_answers_as_the_cpp_target(self):
        for program in self.programs:
            for target in TARGETS:
                with self.subTest(program=program, target=target):
                    net = self.module(program, target, "float64")
                    self.assertEqual(net.info["target"], target)
                    self.assertTrue(all(p.dtype == torch.float64 for p in net.parameters()))
                    x = self.random_inputs(program, net, 4, 24, seed=len(target))
                    y, _ = net(torch.from_numpy(x))
                    for b in range(len(x)):
                        ref = lt.cpp_forward(net, x[b])
                        err = np.abs(y[b].detach().numpy() - ref) / np.maximum(1, np.abs(ref))
                        self.assertLessEqual(err.max(), 1e-9, f"sequence {b}")
                    first, state = net(torch.from_numpy(x[:, :10]))
                    rest, _ = net(torch.from_numpy(x[:, 10:]), state)
                    torch.testing.assert_close(torch.cat([first, rest], 1), y, rtol=0, atol=0)

    def fp32_wrong_answers(self, program, net):
        """How many of 200 inputs the fp32 module answers wrong."""
        if program == "tok2tok":
            x, want = self.tok2tok_prompts(200)
            y, _ = net(torch.from_numpy(x))
            got = np.rint(y[:, -3:, 0].detach().double().numpy())
            return int(np.sum(np.any(got != want, axis=1)))
        if program == "more_ones":
            x = self.random_inputs(program, net, 200, 16, seed=7)
            loop = lsrl.ForEach.load_json(self.programs[program][0], verbose=False)
            want = np.stack([np.array([[float(Fraction(str(v))) for v in row]
                                       for row in loop.run(seq.T, backend="exact").tolist()]).T
                             for seq in x])
            y, _ = net(torch.from_numpy(x))
            got = np.rint(y.detach().double().numpy())
            return int(np.sum(np.any((got != want).reshape(len(x), -1), axis=1)))
        x, want = [], []
        for seed in range(200):
            prompt = self.path(f"v2v_{seed}.json")
            if not os.path.exists(prompt):
                self.run_cli("prompt", "vec2vec", "-N", "8", "--mu", "100", "--seed", str(seed),
                             "-o", prompt)
            with open(prompt) as f:
                data = json.load(f)
            x.append([[float(Fraction(str(v))) for v in row] for row in data["tokens"]])
            want.append(float(Fraction(str(data["expected"][0]))))
        y, _ = net(torch.from_numpy(np.array(x)))
        got = y[:, -1, 0].detach().double().numpy()
        return int(np.sum(np.abs(got - np.array(want)) > 1e-3))

    def test_fp32_fitted_answers_right(self):
        for program in self.programs:
            for target in TARGETS:
                with self.subTest(program=program, target=target):
                    net = self.module(program, target, "fp32")
                    self.assertEqual(net.info["precision"]["precision"], "fp32")
                    self.assertTrue(all(p.dtype == torch.float32 for p in net.parameters()))
                    self.assertEqual(self.fp32_wrong_answers(program, net), 0)

    def test_relu_rnn_states_are_pytorch_rnn_layers(self):
        net = self.module("tok2tok", "rnn", "float64")
        state = net.get_submodule("layers.0.state")
        self.assertIsInstance(state, torch.nn.RNN)
        self.assertEqual(state.nonlinearity, "relu")
        names = dict(net.named_parameters())
        self.assertIn("layers.0.state.A", names)
        self.assertEqual(sorted(net.state_dict()), sorted(net.tensor_names))

    # ---- back to a weights file -----------------------------------------------------------

    def exported(self, program, target):
        path, box = self.programs[program]
        model = self.path(f"{program}-{target}.model.json")
        flags = []
        for key, value in options(target, box).items():
            flags += [f"--{key}", ",".join(map(str, value)) if key == "box" else str(value)]
        # the same fit and target options, given to the CLI
        self.run_cli("compile", path, "--precision", "float64", "--target", target, *flags,
                     "-o", model)
        st = self.path(f"{program}-{target}.exported.safetensors")
        self.run_cli("export", model, "-o", st)
        return st

    def test_save_compiled_round_trips_bit_for_bit_through_lsrl_run(self):
        for target in TARGETS:
            with self.subTest(target=target):
                net = self.module("tok2tok", target, "float64")
                saved = self.path(f"saved-{target}.safetensors")
                lt.save_compiled(net, saved, training={"steps": 0})
                exported = self.exported("tok2tok", target)
                a, b = Sidecar(saved), Sidecar(exported)
                self.assertEqual(list(a.tensors()), list(b.tensors()))
                for name, value in b.tensors().items():
                    np.testing.assert_array_equal(a.tensors()[name], value, err_msg=name)
                meta = json.loads(a.header["__metadata__"]["lsrl"])
                want = json.loads(b.header["__metadata__"]["lsrl"])
                self.assertEqual(meta["source"], want["source"])
                self.assertEqual(meta["fine_tuned"]["target"], target)
                self.assertEqual(meta["fine_tuned"]["training"], {"steps": 0})
                x = self.random_inputs("tok2tok", net, 3, 20, seed=1)
                batch = self.path("batch.npy")
                np.save(batch, x)
                outs = []
                for weights in (saved, exported):
                    out = self.path(f"out-{os.path.basename(weights)}.npy")
                    self.run_cli("run", weights, "--input", batch, "-o", out)
                    outs.append(np.load(out))
                self.assertEqual(outs[0].tobytes(), outs[1].tobytes())

    def test_save_compiled_refuses_non_finite_weights(self):
        net = self.module("more_ones", "gru", "float64")
        with torch.no_grad():
            net.get_parameter("readout.bias")[0] = float("nan")
        path = self.path("nan.safetensors")
        with self.assertRaisesRegex(ValueError, "readout.bias.*nothing was written"):
            lt.save_compiled(net, path)
        self.assertFalse(os.path.exists(path))

    # ---- training -------------------------------------------------------------------------

    def tok2tok_prompts(self, count):
        x, want = [], []
        for seed in range(count):
            dictionary, query = lsrl._lsrl.random_dictionary(4, 3, 10, seed)
            tokens = lsrl._lsrl.tok2tok_input(dictionary, query, 3).tolist()
            x.append(np.array(tokens, dtype=float).reshape(-1, 1))
            want.append(lsrl._lsrl.tok2tok_expected(dictionary, query, 3))
        return np.stack(x), np.array(want)

    @staticmethod
    def padding(net):
        """hawk's zero padding: the recurrent half of a block that only passes the stream on
        (channels_used 0) is a product of zero factors, whose gradient is 0 (a saddle);
        its output bias is added directly and so learns."""
        if net.metadata["arch"] != "hawk":
            return set()
        return {n for n in net.tensor_names
                for b in net.metadata["blocks"] if b["channels_used"] == 0
                if n.startswith(f"blocks.{b['index']}.recurrent.")
                and n != f"blocks.{b['index']}.recurrent.linear_out.bias"}

    def test_one_step_moves_every_tensor_with_a_gradient(self):
        x, _ = self.tok2tok_prompts(32)  # the inputs the program is for
        for target in TARGETS:
            with self.subTest(target=target):
                net = self.module("tok2tok", target, "float64")
                before = {n: p.detach().clone() for n, p in net.named_parameters()}
                y, _ = net(torch.from_numpy(x))
                loss = torch.nn.functional.mse_loss(y, y.detach() + torch.randn_like(y))
                optimiser = torch.optim.Adam(net.parameters(), lr=1e-2)
                optimiser.zero_grad()
                loss.backward()
                optimiser.step()
                padding = self.padding(net)
                with_gradient = 0
                for name, p in net.named_parameters():
                    self.assertTrue(torch.isfinite(p.grad).all(), name)
                    if p.grad.abs().sum() > 0:
                        with_gradient += name not in padding
                        self.assertFalse(torch.equal(p.detach(), before[name]),
                                         f"{name} has a gradient but did not change")
                    else:
                        self.assertTrue(torch.equal(p.detach(), before[name]), name)
                used = len(before) - len(padding)
                self.assertGreater(with_gradient, used / 2,
                                   f"{with_gradient} of {used} tensors have a gradient")

    # ---- sources and errors -----------------------------------------------------------------

    def test_a_for_each_and_a_model_file_as_sources(self):
        path, _ = self.programs["more_ones"]
        loop = lsrl.ForEach.load_json(path, verbose=False)
        from_loop = lt.from_compiled(loop, target="lstm", precision="exact", name="more_ones")
        from_file = lt.from_compiled(path, target="lstm", precision="exact")
        self.assertEqual(from_loop.metadata["source"], from_file.metadata["source"])
        model = self.path("mo.model.json")
        self.run_cli("compile", path, "--precision", "fp32", "--target", "lstm", "-o", model)
        net = lt.from_compiled(model)
        self.assertEqual(net.info["target"], "lstm")
        self.assertEqual(net.info["compile"]["from"], "model")
        self.assertTrue(all(p.dtype == torch.float32 for p in net.parameters()))
        with self.assertRaisesRegex(ValueError, "compiled with precision fp32"):
            lt.from_compiled(model, precision="float64")

    def test_errors_name_the_option(self):
        path, _ = self.programs["more_ones"]
        with self.assertRaisesRegex(ValueError, "unknown architecture \"transformer\""):
            lt.from_compiled(path, target="transformer")
        with self.assertRaisesRegex(ValueError, "--gru-update does not apply to --target lstm"):
            lt.from_compiled(path, target="lstm", gru_update="paper")
        with self.assertRaisesRegex(ValueError, "--precision fp32 needs --box"):
            lt.from_compiled(lsrl.ForEach.load_json(path, verbose=False), precision="fp32")
        with self.assertRaisesRegex(TypeError, "source must be"):
            lt.from_compiled(42)
        net = lt.from_compiled(path, target="rnn")
        with self.assertRaisesRegex(ValueError, r"inputs must be \[batch, time, 1\]"):
            net(torch.zeros(2, 3, 4))


if __name__ == "__main__":
    unittest.main()
