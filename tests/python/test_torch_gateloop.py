"""Parity of lsrl.torch.gateloop.GateLoop with the C++ float64 GateLoop seed model.

Every config (data / fixed transitions, both magnitude and phase activations, d_h 1, 2 and
4, one and two layers, output projection, the layer norm / channel mixing / residual
switches) is built from `_lsrl.seed_model_init` weights, optionally perturbed, and run on a
small batch; logits and the trace arrays must match `_lsrl.seed_model_run` sequence by
sequence to 1e-9 relative. Also: the operator's hand-checked vectors (docs/models.md,
gateloop_modes_test), chunk-length independence, autograd (gradcheck and a float32
training step) and the config errors.

Run: PYTHONPATH=<build>/python /usr/bin/python3 -m unittest tests/python/test_torch_gateloop.py
"""

import math
import sys
import unittest

import numpy as np
import torch

from lsrl import _lsrl
from lsrl.torch.gateloop import GateLoop, gateloop_operator

KIND = "gateloop"
TOL = 1e-9
TRACED = ("output", "a_magnitude", "a_phase", "memory_length", "y", "layer_output")

# The C++ default config (GateLoopConfig::toJson), for the checks that need no C++.
DEFAULT_CONFIG = {
    "d_model": 8, "layers": 1, "d_h": 1, "d_channel_mixing": 16, "d_out": 50,
    "magnitude_activation": "sigmoid", "phase_activation": "identity", "transitions": "data",
    "output_projection": False, "layer_norm": True, "channel_mixing": True, "residual": True,
    "mode": "recurrent", "seed": 0, "task_length": 64, "task_resets": 3, "max_number": 4,
    "modulus": 50,
}

# (name, config overrides, weight noise, chunk); task_length keeps seed_task_batch short.
CONFIGS = [
    ("default", {"task_length": 20}, 0.0, 8),
    ("data_expexp_pitanh_dh2_l2", {"magnitude_activation": "exp_exp",
                                   "phase_activation": "pi_tanh", "d_h": 2, "layers": 2},
     0.3, 8),
    ("fixed_sigmoid_pitanh_dh2_l2_outproj", {"transitions": "fixed", "d_h": 2, "layers": 2,
                                             "phase_activation": "pi_tanh",
                                             "output_projection": True}, 0.3, 5),
    ("fixed_expexp_identity", {"transitions": "fixed", "magnitude_activation": "exp_exp"},
     0.3, 8),
    ("data_sigmoid_outproj_l2_attention_mode", {"output_projection": True, "layers": 2,
                                                "mode": "attention"}, 0.3, 3),
    ("switches_off_dh4", {"layer_norm": False, "channel_mixing": False, "residual": False,
                          "d_h": 4, "layers": 2, "mode": "scan"}, 0.3, 1),
    ("ffn_no_norm_no_residual", {"layer_norm": False, "residual": False,
                                 "magnitude_activation": "exp_exp", "layers": 2}, 0.5, 4),
]


def _worst(got, want):
    """max |got - want| / max(1, max |want|) over the finite entries of want; the non-finite
    entries must be the same in both (inf memory lengths where log|a| rounds to -0)."""
    finite = np.isfinite(want)
    if not np.array_equal(finite, np.isfinite(got)):
        return math.inf
    if not np.array_equal(got[~finite], want[~finite]):
        return math.inf
    if not finite.any():
        return 0.0
    diff = np.abs(got[finite] - want[finite]).max()
    return float(diff / max(1.0, np.abs(want[finite]).max()))


class GateLoopParity(unittest.TestCase):
    worst = {}

    @classmethod
    def tearDownClass(cls):
        if cls.worst:
            line = ", ".join(f"{k} {v:.1e}" for k, v in sorted(cls.worst.items()))
            print(f"\n[gateloop parity: max relative error per config: {line}]", file=sys.stderr)

    def _model(self, overrides, noise, chunk, seed=0):
        cfg, weights = _lsrl.seed_model_init(KIND, dict(overrides, seed=seed))
        if noise:
            rng = np.random.default_rng(1234)
            weights = {k: v + noise * rng.standard_normal(v.shape) for k, v in weights.items()}
        twin = GateLoop(cfg, chunk=chunk).double()
        twin.load_state_dict({k: torch.from_numpy(np.array(v)) for k, v in weights.items()})
        return cfg, weights, twin

    def _compare(self, name, cfg, weights, twin, x):
        trace = {}
        with torch.no_grad():
            out = twin(torch.from_numpy(x), trace)
        self.assertEqual(tuple(out.shape), (x.shape[0], x.shape[1], cfg["d_out"]))
        worst = 0.0
        for b in range(x.shape[0]):
            ref_out, ref_trace = _lsrl.seed_model_run(KIND, cfg, weights, x[b])
            arrays = {"output": np.asarray(ref_out)}
            for key, value in ref_trace.items():
                base = key.split(".", 1)[1] if key.startswith("layer") and "." in key else key
                if base in TRACED:
                    arrays[key] = np.asarray(value)
            for l in range(cfg["layers"]):
                pre = "" if l == 0 else f"layer{l}."
                for base in TRACED[1:]:
                    self.assertIn(pre + base, arrays, f"{name}: C++ trace lacks {pre + base}")
            self.assertEqual(set(trace), set(arrays), name)
            for key, want in arrays.items():
                got = trace[key][b].detach().numpy()
                self.assertEqual(got.shape, want.shape, f"{name}: {key}")
                err = _worst(got, want)
                self.assertLessEqual(err, TOL, f"{name}: {key} sequence {b}")
                worst = max(worst, err)
        self.worst[name] = max(self.worst.get(name, 0.0), worst)

    def test_random_inputs(self):
        rng = np.random.default_rng(7)
        for name, overrides, noise, chunk in CONFIGS:
            with self.subTest(config=name):
                cfg, weights, twin = self._model(overrides, noise, chunk)
                x = rng.standard_normal((2, 19, cfg["max_number"] + 2))
                self._compare(name, cfg, weights, twin, x)

    def test_memory_horizon_task_batch(self):
        overrides = {"d_h": 2, "layers": 2, "task_length": 40}
        cfg, weights, twin = self._model(overrides, 0.2, 8, seed=3)
        x, _ = _lsrl.seed_task_batch(KIND, cfg, "memory_horizon", 5, 3)
        x = np.asarray(x, dtype=np.float64)
        self.assertEqual(x.shape, (3, 40, cfg["max_number"] + 2))
        self._compare("memory_horizon_task", cfg, weights, twin, x)

    def test_state_dict_matches_cpp_weights(self):
        for name, overrides, _, _ in CONFIGS:
            with self.subTest(config=name):
                cfg, weights = _lsrl.seed_model_init(KIND, overrides)
                twin = GateLoop(cfg)
                got = {k: tuple(v.shape) for k, v in twin.state_dict().items()}
                self.assertEqual(got, {k: tuple(np.shape(v)) for k, v in weights.items()})

    def test_gradients_are_finite_in_float32(self):
        cfg, weights, twin = self._model({"d_h": 2, "layers": 2, "output_projection": True,
                                          "task_length": 48}, 0.0, 8)
        twin = twin.float()
        x, y = _lsrl.seed_task_batch(KIND, cfg, "memory_horizon", 1, 4)
        logits = twin(torch.tensor(np.asarray(x), dtype=torch.float32))
        loss = torch.nn.functional.cross_entropy(
            logits.reshape(-1, cfg["d_out"]), torch.as_tensor(np.asarray(y)).reshape(-1),
            ignore_index=-1)
        loss.backward()
        for pname, p in twin.named_parameters():
            self.assertIsNotNone(p.grad, pname)
            self.assertTrue(torch.isfinite(p.grad).all(), pname)
            self.assertGreater(p.grad.abs().sum().item(), 0.0, pname)


class GateLoopStandalone(unittest.TestCase):
    """Checks that need no C++: the spec's vectors, chunking, autograd, errors."""

    def _config(self, **overrides):
        return dict(DEFAULT_CONFIG, **overrides)

    def test_g1_operator_vector(self):
        # gateloop_modes_test's G1: two channels, d_h = 1, a from sigmoid / identity.
        ln3, ln4, pi = math.log(3), math.log(4), math.pi
        gamma = torch.tensor([[[0, ln4], [ln3, ln4], [0, -ln3]]], dtype=torch.float64)
        theta = torch.tensor([[[0, pi / 2], [0, pi / 2], [0, pi]]], dtype=torch.float64)
        k = torch.tensor([[[1, 1], [2, 0.5], [0, 1]]], dtype=torch.float64)
        v = torch.tensor([[[1, 2], [-1, 5], [3, 1]]], dtype=torch.float64)
        q = torch.tensor([[[1, 1], [1, 1], [2, 1]]], dtype=torch.float64)
        want = np.array([[1, 2], [-1.25, 2.5 + 1.6j], [-1.25, 0.375 - 0.4j]])
        log_mag = torch.nn.functional.logsigmoid(gamma)
        for chunk in (1, 2, 3):
            yr, yi = gateloop_operator(log_mag, theta, q, k, v, 1, chunk)
            np.testing.assert_allclose(yr[0].numpy() + 1j * yi[0].numpy(), want, atol=1e-12)

    def test_g2_operator_vector(self):
        # G2: one head with d_h = 2 and the transitions given directly.
        a = np.array([[0.5, 0.5j], [0.5, -0.5], [0.8j, 0.25]])

        def t(z):
            return torch.tensor(np.asarray(z, dtype=np.float64)).reshape(1, 3, 2)

        k, v, q = t([1, 0, 1, 1, 0, 2]), t([1, 2, 0, 1, 1, -1]), t([1, 0, 0, 1, 1, 1])
        want = np.array([[1, 2], [0, 1], [2.0 + 0.4j, -1.75 + 1.6j]])
        for chunk in (1, 2, 3):
            yr, yi = gateloop_operator(t(np.log(np.abs(a))), t(np.angle(a)), q, k, v, 2, chunk)
            np.testing.assert_allclose(yr[0].numpy() + 1j * yi[0].numpy(), want, atol=1e-12)

    def test_chunk_length_does_not_change_the_result(self):
        cfg = self._config(d_h=2, layers=2, magnitude_activation="exp_exp", seed=4)
        torch.manual_seed(0)
        x = torch.randn(2, 23, cfg["max_number"] + 2, dtype=torch.float64)
        ref = GateLoop(cfg, chunk=1).double()  # torch-seeded C++-like init: not trivial
        with torch.no_grad():
            want = ref(x)
            for chunk in (2, 7, 8, 23, 64):
                twin = GateLoop(cfg, chunk=chunk).double()
                twin.load_state_dict(ref.state_dict())
                self.assertLess((twin(x) - want).abs().max().item(), 1e-12, f"chunk {chunk}")

    def test_operator_gradcheck(self):
        torch.manual_seed(1)
        shape = (1, 5, 4)
        log_mag = (-torch.rand(shape, dtype=torch.float64) - 0.05).requires_grad_()
        angle = torch.randn(shape, dtype=torch.float64, requires_grad=True)
        q, k, v = (torch.randn(shape, dtype=torch.float64, requires_grad=True) for _ in range(3))
        for d_h, chunk in ((1, 2), (2, 3), (2, 1)):
            self.assertTrue(torch.autograd.gradcheck(
                lambda *a: gateloop_operator(*a, d_h, chunk), (log_mag, angle, q, k, v)))

    def test_empty_sequence(self):
        cfg = self._config()
        out = GateLoop(cfg).double()(torch.zeros(2, 0, cfg["max_number"] + 2))
        self.assertEqual(tuple(out.shape), (2, 0, cfg["d_out"]))

    def test_config_errors(self):
        cfg = self._config()
        with self.assertRaisesRegex(ValueError, "softmax"):
            GateLoop(dict(cfg, mode="softmax"))
        with self.assertRaisesRegex(ValueError, "d_h"):
            GateLoop(dict(cfg, d_h=3))
        with self.assertRaisesRegex(ValueError, "unknown keys"):
            GateLoop(dict(cfg, heads=2))
        with self.assertRaisesRegex(ValueError, "magnitude_activation"):
            GateLoop(dict(cfg, magnitude_activation="relu"))
        with self.assertRaisesRegex(ValueError, "chunk"):
            GateLoop(cfg, chunk=0)
        with self.assertRaisesRegex(ValueError, "missing"):
            GateLoop({k: v for k, v in cfg.items() if k != "residual"})


if __name__ == "__main__":
    unittest.main()
