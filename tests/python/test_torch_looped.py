"""lsrl.torch.looped.Looped against the C++ "looped" seed model (float64 parity of the
output and every trace array, at the seeded init and at perturbed weights), the spec's
hand-checked examples, and gradients.

Run: PYTHONPATH=<lsrl package> /usr/bin/python3 -m unittest tests/python/test_torch_looped.py
"""

import unittest

import numpy as np
import torch

from lsrl import _lsrl
from twin_parity import perturbed, seeded_weights, twin
from lsrl.torch.looped import Looped

KIND = "looped"
SMALL = {"d": 8, "heads": 2, "d_ff": 16, "d_freq": 6, "loops": 3, "d_out": 5}

# Every mode at least once; small sizes.
CONFIGS = {
    "tmlt_cos_sin": {},
    "tmlt_interleaved_causal_biases": {
        "pe_layout": "sin_cos_interleaved",
        "d_freq": 7,  # odd: the last PE entry is 0
        "causal": True,
        "qkvo_bias": True,
        "ff_bias": False,
    },
    "plain_norm_none_relu_one_loop": {
        "timestep": "plain",
        "norm": "none",
        "activation": "relu",
        "loops": 1,
        "scale_rsqrt_s": False,
        "softmax_lambda": 2.5,
    },
    "tmlt_inject_x0_zero_head_dim": {
        "inject": "add_input",
        "x0": "zero",
        "heads": 3,
        "head_dim": 4,
        "modulation_init": "zero",
        "rms_eps": 0.01,
    },
    "plain_loops_0": {"timestep": "plain", "loops": 0},
    "tmlt_loops_0": {"loops": 0, "qkvo_bias": True},
    "plain_baseline_compat_causal": {
        "timestep": "plain",
        "baseline_compat": True,
        "causal": True,
        "loops": 2,
    },
    "plain_hardmax": {"timestep": "plain", "scoring": "hardmax", "scale_rsqrt_s": False},
}


def _init(overrides):
    return seeded_weights(KIND, {**SMALL, **overrides})


def _perturbed(weights, seed, scale=0.2):
    return perturbed(weights, seed, scale)


def _twin(cfg, weights):
    return twin(KIND, cfg, weights)


class ParityTest(unittest.TestCase):
    def assertClose(self, got, want, what):
        want = np.asarray(want, dtype=np.float64)
        got = np.asarray(got, dtype=np.float64)
        self.assertEqual(got.shape, want.shape, what)
        if want.size == 0:
            return 0.0
        scale = max(1.0, float(np.max(np.abs(want))))
        err = float(np.max(np.abs(got - want))) / scale
        self.assertLessEqual(err, 1e-9, f"{what}: relative error {err:.3g}")
        return err

    def check(self, name, cfg, weights, x, loops=None):
        """Twin vs C++ on each sequence of x [B, T, d]; returns the worst relative error."""
        module = _twin(cfg, weights)
        trace = {}
        with torch.no_grad():
            out = module(torch.from_numpy(x), trace, loops=loops)
        cpp_cfg = dict(cfg) if loops is None else {**cfg, "loops": loops}
        worst = 0.0
        for b in range(x.shape[0]):
            want, want_trace = _lsrl.seed_model_run(KIND, cpp_cfg, weights, x[b])
            worst = max(worst, self.assertClose(out[b].detach().numpy(), want, f"{name}[{b}] out"))
            self.assertEqual(set(want_trace) - set(trace), set(), f"{name}: missing arrays")
            for key, value in want_trace.items():
                err = self.assertClose(trace[key][b].detach().numpy(), value, f"{name}[{b}] {key}")
                worst = max(worst, err)
        return worst

    def test_configs_init_and_perturbed(self):
        rng = np.random.default_rng(11)
        for i, (name, overrides) in enumerate(CONFIGS.items()):
            with self.subTest(config=name):
                cfg, weights = _init(overrides)
                x = rng.standard_normal((3, 5, cfg["d"]))
                self.check(name + " init", cfg, weights, x)
                self.check(name + " perturbed", cfg, _perturbed(weights, 100 + i), x)

    def test_state_dict_matches_cpp_names_and_shapes(self):
        for name, overrides in CONFIGS.items():
            with self.subTest(config=name):
                cfg, weights = _init(overrides)
                mine = {k: tuple(v.shape) for k, v in Looped(cfg).state_dict().items()}
                self.assertEqual(mine, {k: v.shape for k, v in weights.items()})

    def test_loops_override(self):
        cfg, weights = _init({})
        weights = _perturbed(weights, 7)
        x = np.random.default_rng(3).standard_normal((2, 4, cfg["d"]))
        for loops in (0, 1, 5):
            with self.subTest(loops=loops):
                self.check(f"loops={loops}", cfg, weights, x, loops=loops)

    def test_sudoku_task(self):
        cfg, weights = _init({"d": 16, "heads": 2, "d_ff": 32, "loops": 3, "d_out": 5})
        cfg = {**cfg, "sudoku_box": 2}
        x, y = _lsrl.seed_task_batch(KIND, cfg, "sudoku", 5, 2)
        x = np.asarray(x, dtype=np.float64)
        self.assertEqual(x.shape, (2, 16, 16))
        self.assertEqual(np.asarray(y).shape, (2, 16))
        self.check("sudoku", cfg, _perturbed(weights, 9, 0.1), x)

    def test_gradients_finite(self):
        for name in ("tmlt_interleaved_causal_biases", "tmlt_inject_x0_zero_head_dim"):
            with self.subTest(config=name):
                cfg, weights = _init(CONFIGS[name])
                module = _twin(cfg, _perturbed(weights, 5)).float()
                gen = torch.Generator().manual_seed(0)
                x = torch.randn(4, 6, cfg["d"], generator=gen)
                target = torch.randint(0, cfg["d_out"], (4, 6), generator=gen)
                logits = module(x)
                loss = torch.nn.functional.cross_entropy(logits.reshape(-1, cfg["d_out"]),
                                                         target.reshape(-1))
                loss.backward()
                for pname, p in module.named_parameters():
                    self.assertIsNotNone(p.grad, pname)
                    self.assertTrue(bool(torch.isfinite(p.grad).all()), pname)
                    self.assertGreater(float(p.grad.abs().sum()), 0.0, pname)


class ConfigErrorsTest(unittest.TestCase):
    def test_bad_values_raise(self):
        for key, value in (("timestep", "adaln"), ("norm", "layer"), ("scoring", "sparsemax"),
                           ("activation", "tanh"), ("softmax_lambda", 0.0)):
            with self.subTest(key=key):
                with self.assertRaises(ValueError):
                    Looped({**SMALL, key: value})
        with self.assertRaises(ValueError):
            Looped({**SMALL, "heads": 3})  # does not divide d without head_dim

    def test_wrong_width_raises(self):
        with self.assertRaises(ValueError):
            Looped(SMALL)(torch.zeros(1, 2, 7))


def _set(module, name, rows):
    param = dict(module.named_parameters())[name]
    with torch.no_grad():
        param.copy_(torch.tensor(rows, dtype=torch.float64).reshape(param.shape))


class HandCheckedTest(unittest.TestCase):
    """The worked examples of the spec (docs/spec/seed-models.md §T6.1, §6.2)."""

    BLOCK = {
        "attn.q.weight": [[1, 0], [0, 1]],
        "attn.k.weight": [[0.5, -0.5], [0.5, 0.5]],
        "attn.v.weight": [[1, 1], [0, 1]],
        "attn.o.weight": [[1, 0], [0, -1]],
        "mlp.fc1.weight": [[1, -1], [0.5, 1]],
        "mlp.fc1.bias": [0, -0.25],
        "mlp.fc2.weight": [[1, 0.5], [-1, 1]],
        "mlp.fc2.bias": [0.1, 0],
        "readout.weight": [[1, 0], [0, 1]],
        "readout.bias": [0, 0],
    }
    TIME = {
        "timestep.fc1.weight": [[0.5, 0, 0.5, 0], [0, 1, 0, -1]],
        "timestep.fc1.bias": [0, 0.1],
        "timestep.fc2.weight": [[1, 0.5], [-0.5, 1]],
        "timestep.fc2.bias": [0, 0],
        "modulation.weight": [[0.2, 0], [0, 0.2], [0.1, 0.1], [-0.1, 0.1],
                              [0.1, 0], [0, -0.1], [0.05, 0.05], [0, 0.1]],
        "modulation.bias": [0.5, 0.5, 0.5, 0.5, 0, 0, 0, 0],
    }
    E = torch.tensor([[[1.0, 0.0], [0.5, -1.0]]], dtype=torch.float64)

    def toy(self, **overrides):
        cfg = {"d": 2, "heads": 1, "head_dim": 2, "d_ff": 2, "d_freq": 4, "loops": 2, "d_out": 2,
               "rms_eps": 0.0, "activation": "relu", **overrides}
        module = Looped(cfg).double()
        for name, rows in {**self.BLOCK, **(self.TIME if module.tmlt else {})}.items():
            _set(module, name, rows)
        return module

    def test_tmlt_block(self):
        trace = {}
        out = self.toy()(self.E, trace)[0]
        want = [[3.63985781, 0.43959496], [3.52243550, -2.17480881]]
        np.testing.assert_allclose(out.detach().numpy(), want, atol=2e-8)
        np.testing.assert_allclose(trace["hidden"][0, 1].detach().numpy(),
                                   [[2.11401118, 0.36713544], [1.80895194, -1.52152245]],
                                   atol=2e-8)
        np.testing.assert_allclose(trace["attention"][0, 0, 0].detach().numpy(),
                                   [[0.44917876, 0.55082124], [0.27721372, 0.72278628]], atol=2e-8)
        np.testing.assert_allclose(trace["gamma"][0, 1].detach().numpy(),
                                   [[0.62228719, 0.57522742], [0.59875731, 0.47647012]], atol=2e-8)
        np.testing.assert_allclose(trace["alpha"][0, 0].detach().numpy(),
                                   [[1.04874988, 0.95570596], [1.04652196, 1.04429404]], atol=2e-8)
        np.testing.assert_allclose(trace["te"][0, 1].detach().numpy(), [0.86808818, 0.58556660],
                                   atol=2e-8)
        np.testing.assert_allclose(trace["step_norm"][0].detach().numpy(), [1.83334399, 2.38668542],
                                   atol=2e-8)

    def test_variants(self):
        cases = {
            "causal": ({"causal": True}, [[4.88465498, -0.96860694], [3.47449023, -2.11640607]]),
            "inject": ({"inject": "add_input"},
                       [[5.62412653, 0.17414384], [4.33613455, -4.08197084]]),
            "gelu": ({"activation": "gelu"}, [[3.31822584, 0.46247545], [3.35449395, -2.26956677]]),
            "eps": ({"rms_eps": 1e-6}, [[3.63985694, 0.43959407], [3.52243297, -2.17480720]]),
        }
        for name, (overrides, want) in cases.items():
            with self.subTest(variant=name):
                out = self.toy(**overrides)(self.E)[0]
                np.testing.assert_allclose(out.detach().numpy(), want, atol=2e-8)
        # γ = 0: identity; α = γ = 1 (by W_5 = 0, b_5 = 1 on γ) equals the plain block.
        still = self.toy()
        _set(still, "modulation.weight", [[0, 0]] * 8)
        _set(still, "modulation.bias", [0] * 8)
        np.testing.assert_allclose(still(self.E).detach().numpy(), self.E.detach().numpy(), atol=0)
        plain_want = [[4.84827960, 1.52342109], [4.96312481, -2.90708638]]
        plain = self.toy(timestep="plain")(self.E)[0]
        np.testing.assert_allclose(plain.detach().numpy(), plain_want, atol=2e-8)
        _set(still, "modulation.bias", [1, 1, 1, 1, 0, 0, 0, 0])
        np.testing.assert_allclose(still(self.E)[0].detach().numpy(), plain_want, atol=2e-8)

    def test_contextual_mapping(self):
        B, eps, M = 4.0, 0.5, 7.0
        cfg = {"d": 5, "heads": 1, "head_dim": 1, "d_ff": 3, "loops": 3, "d_out": 1,
               "timestep": "plain", "scoring": "hardmax", "scale_rsqrt_s": False, "norm": "none",
               "activation": "relu"}
        rows = {
            "attn.q.weight": [[0, 0, 1, 0, 0]],
            "attn.k.weight": [[0, 1, 0, 0, 0]],
            "attn.v.weight": [[1, 0, 0, 0, 0]],
            "attn.o.weight": [[0], [0], [0], [1], [0]],
            "mlp.fc1.weight": [[0, 1, 0, -1, 0], [0, 0, 0, 1, 0], [0, 0, 0, 0, 1]],
            "mlp.fc1.bias": [eps, 0, 0],
            "mlp.fc2.weight": [[0, 0, 0], [-M, 0, 0], [0, 0, 0], [0, -1, 0], [0, 1, B - 1]],
            "mlp.fc2.bias": [0, 0, 0, 0, 0],
            "readout.weight": [[0, 0, 0, 0, 1]],
            "readout.bias": [0],
        }
        z = [1.0, 3.0, 2.0]
        x = torch.tensor([[[v, v, 1, 0, 0] for v in z]], dtype=torch.float64)
        for scoring, lam, want, tol in (("hardmax", 1.0, [3, 14, 57], 0),
                                        ("softmax", 5.0, [2.993217, 13.966179, 56.865592], 1e-6),
                                        ("softmax", 10.0, [2.999955, 13.999773, 56.999093], 1e-6)):
            with self.subTest(scoring=scoring, lam=lam):
                module = Looped({**cfg, "scoring": scoring, "softmax_lambda": lam}).double()
                for name, r in rows.items():
                    _set(module, name, r)
                trace = {}
                module(x, trace)
                got = trace["readout"][0, :, :, 0].detach().numpy()  # [loops][N]
                for t in range(3):
                    np.testing.assert_allclose(got[t], [want[t]] * 3, atol=tol)
                if scoring == "hardmax":
                    picked = trace["attention"][0, :, 0].argmax(dim=-1)[:, 0].tolist()
                    self.assertEqual(picked, [1, 2, 0])  # tokens 2, 3, 1


if __name__ == "__main__":
    unittest.main()
