"""lsrl.torch.min_rnn: the PyTorch twins of the C++ minGRU and minLSTM seed models.

- Parity with the C++ float64 model (_lsrl.seed_model_init / seed_model_run): both cells ×
  both variants × every mode (log_space with the log variant only), 1 and 3 layers,
  layer_norm and residual off once; at the seeded init and with perturbed weights; random
  real input rows and the selective_copy task batch (seed_task_batch). Outputs and every
  trace array agree to 1e-9 · max(1, max|C++|); the trace names are the C++ ones.
- The twin alone: the spec's hand-worked vectors (recurrences §6.3, M1–M4), the three
  modes agree (states and gradients) on a longer sequence, finite gradients for every
  parameter, float32, empty sequences, config errors.
"""

import math
import unittest

import numpy as np
import torch

from lsrl import _lsrl
from lsrl.torch import min_rnn
from lsrl.torch.min_rnn import MinGRU, MinLSTM

CLASSES = {"mingru": MinGRU, "minlstm": MinLSTM}
SMALL = {"d_model": 4, "d_h": 6, "d_out": 5, "vocabulary": 7, "task_length": 8,
         "data_tokens": 2}  # fmt: skip


def parity_configs():
    """Every cell × variant × mode, alternating 1 and 3 layers; norm and skip off once."""
    configs = []
    n = 0
    for kind in ("mingru", "minlstm"):
        for variant, modes in (("log", ("sequential", "parallel", "log_space")),
                               ("vanilla", ("sequential", "parallel"))):
            for mode in modes:
                cfg = dict(SMALL, variant=variant, mode=mode, layers=1 + 2 * (n % 2), seed=n)
                configs.append((kind, cfg))
                n += 1
    for kind in ("mingru", "minlstm"):
        for variant, mode in (("log", "log_space"), ("vanilla", "parallel")):
            configs.append((kind, dict(SMALL, variant=variant, mode=mode, layers=3,
                                       layer_norm=False, residual=False, seed=n)))
            n += 1
    return configs


def random_rows(rng, batch, steps, width):
    """A batch of one-hot rows with some real-valued rows mixed in (C++ accepts any)."""
    x = np.eye(width)[rng.integers(0, width, size=(batch, steps))]
    real = rng.random((batch, steps)) < 0.3
    x[real] = rng.normal(0, 1.5, size=(int(real.sum()), width))
    return x


def perturbed(weights, rng, scale=0.5):
    """Every tensor plus seeded noise, so parity is not only at the init."""
    return {k: np.asarray(v) + rng.normal(0, scale, size=np.shape(v)) for k, v in weights.items()}


def twin(kind, cfg, weights):
    module = CLASSES[kind](cfg).double()
    module.load_state_dict({k: torch.from_numpy(np.asarray(v, dtype=np.float64))
                            for k, v in weights.items()})
    return module


class ParityMixin:
    def assert_parity(self, kind, cfg, weights, x, label):
        """Twin vs C++ on every sequence of x [B][T][w]: the output and every trace array."""
        module = twin(kind, cfg, weights)
        trace = {}
        with torch.no_grad():
            out = module(torch.from_numpy(x), trace)
        worst = 0.0
        for b in range(x.shape[0]):
            ref_out, ref_trace = _lsrl.seed_model_run(kind, cfg, weights, x[b])
            self.assertEqual(set(trace), set(ref_trace), label)
            arrays = dict(ref_trace, **{"(run output)": ref_out})
            for name, ref in arrays.items():
                ref = np.asarray(ref, dtype=np.float64)
                got = (out if name == "(run output)" else trace[name])[b].numpy()
                self.assertEqual(got.shape, ref.shape, f"{label}: {name}")
                if name.endswith("mode_difference"):
                    # Each side's own modes agree; the rounding residues themselves differ.
                    self.assertTrue(np.all((got <= 1e-10) | np.isnan(ref) & np.isnan(got)),
                                    f"{label}: {name} {got}")
                    self.assertTrue(np.all((ref <= 1e-10) | np.isnan(ref)), f"{label}: {name}")
                    continue
                err = float(np.max(np.abs(got - ref))) if ref.size else 0.0
                scale = max(1.0, float(np.max(np.abs(ref))) if ref.size else 1.0)
                self.assertLessEqual(err, 1e-9 * scale, f"{label}: {name} (b={b})")
                worst = max(worst, err / scale)
        return worst


class TestParityWithCpp(ParityMixin, unittest.TestCase):
    def test_state_dict_names_and_shapes(self):
        for kind, cfg in parity_configs():
            full, weights = _lsrl.seed_model_init(kind, cfg)
            got = {k: tuple(v.shape) for k, v in CLASSES[kind](full).state_dict().items()}
            self.assertEqual(got, {k: tuple(np.shape(v)) for k, v in weights.items()}, kind)

    def test_random_inputs_at_init_and_perturbed(self):
        rng = np.random.default_rng(11)
        worst = 0.0
        for kind, cfg in parity_configs():
            full, weights = _lsrl.seed_model_init(kind, cfg)
            label = f"{kind} {cfg}"
            x = random_rows(rng, 3, 9, full["vocabulary"])
            worst = max(worst, self.assert_parity(kind, full, weights, x, label + " init"))
            noisy = perturbed(weights, rng)
            worst = max(worst, self.assert_parity(kind, full, noisy, x, label + " perturbed"))
        print(f"\n  min_rnn parity, random inputs: max relative error {worst:.2e}")

    def test_selective_copy_task(self):
        rng = np.random.default_rng(5)
        worst = 0.0
        for kind, variant, mode, layers in (("mingru", "log", "log_space", 1),
                                            ("mingru", "vanilla", "sequential", 2),
                                            ("minlstm", "log", "parallel", 2),
                                            ("minlstm", "vanilla", "parallel", 1)):
            cfg = {"variant": variant, "mode": mode, "layers": layers}
            full, weights = _lsrl.seed_model_init(kind, cfg)
            x, y = _lsrl.seed_task_batch(kind, full, "selective_copy", 3, 2)
            x = np.asarray(x, dtype=np.float64)
            self.assertEqual(x.shape[:2], np.shape(y))
            noisy = perturbed(weights, rng, 0.3)
            worst = max(worst, self.assert_parity(kind, full, noisy, x, f"{kind} task {cfg}"))
        print(f"\n  min_rnn parity, selective_copy: max relative error {worst:.2e}")


class TestTwinAlone(unittest.TestCase):
    """The spec's worked examples (recurrences §6.3) and properties, without the C++."""

    ln3, ln4 = math.log(3), math.log(4)
    h_pre = torch.tensor([[[1, -2], [0.5, 4], [-1, 0]]], dtype=torch.float64)
    h0 = torch.tensor([0.0, 1.0], dtype=torch.float64)

    def states(self, log_a, log_w, variant, modes):
        h0 = min_rnn.initial_state(self.h0, variant)
        return {m: min_rnn.run_recurrence(log_a, log_w, self.h_pre, h0, variant, m)[0]
                for m in modes}

    def assert_close(self, got, expected, tol=1e-6):
        err = float((got - torch.tensor(expected, dtype=torch.float64)).abs().max())
        self.assertLess(err, tol, f"{got} vs {expected}")

    def test_m1_m2_min_gru(self):
        k = torch.tensor([[[0, self.ln3], [-self.ln3, 0], [self.ln4, -self.ln4]]],
                         dtype=torch.float64)
        log_a, log_w = min_rnn.min_gru_gates(k)
        self.assert_close(log_w.exp()[0], [[0.5, 0.75], [0.25, 0.5], [0.8, 0.2]], 1e-12)
        for h in self.states(log_a, log_w, "vanilla", ("sequential", "parallel")).values():
            self.assert_close(h, [[0.5, -1.25], [0.5, 1.375], [-0.7, 1.1]], 1e-12)
        for h in self.states(log_a, log_w, "log", min_rnn.MODES).values():
            self.assert_close(h, [[1.0, 0.464402], [1.0, 2.482201], [0.415153, 2.085761]])

    def test_m3_min_lstm(self):
        p = torch.tensor([[[0, self.ln3], [self.ln4, -self.ln4], [-self.ln3, self.ln3]]],
                         dtype=torch.float64)
        k = torch.tensor([[[0, -self.ln3], [0, 0], [self.ln3, self.ln3]]], dtype=torch.float64)
        log_a, log_w = min_rnn.min_lstm_gates(p, k)
        self.assert_close(log_a.exp()[0], [[0.5, 0.75], [0.615385, 0.285714], [0.25, 0.5]])
        self.assert_close((log_a.exp() + log_w.exp())[0], [[1, 1]] * 3, 1e-15)
        for h in self.states(log_a, log_w, "vanilla", ("sequential", "parallel")).values():
            self.assert_close(h, [[0.5, 0.25], [0.5, 2.928571], [-0.625, 1.464286]])
        for h in self.states(log_a, log_w, "log", min_rnn.MODES).values():
            self.assert_close(h, [[1.0, 1.154801], [1.0, 3.544229], [0.451706, 2.022114]])

    def test_g_table(self):
        x = torch.tensor([-2, -1, 0, 0.5, 1, 4], dtype=torch.float64)
        self.assert_close(min_rnn.g(x), [0.119203, 0.268941, 0.5, 1, 1.5, 4.5])
        self.assert_close(min_rnn.log_g(x), [-2.126928, -1.313262, -0.693147, 0, 0.405465,
                                             1.504077])

    def test_m4_weight_orientation(self):
        # Embedding, projection and head the identity, so the logits are the states h_t.
        cfg = {"d_model": 2, "d_h": 2, "d_out": 2, "vocabulary": 3, "variant": "vanilla",
               "layer_norm": False, "residual": False}
        module = MinGRU(cfg).double()
        eye = torch.eye(2, dtype=torch.float64)
        t = lambda v: torch.tensor(v, dtype=torch.float64)  # noqa: E731
        module.load_state_dict({
            "embed.weight": t([[1, 0, 0], [0, 1, 0]]),
            "layers.0.z.weight": t([[1, -1], [0.5, 2]]), "layers.0.z.bias": t([0, -1]),
            "layers.0.h.weight": t([[2, 0], [-1, 1]]), "layers.0.h.bias": t([0.5, 0]),
            "layers.0.out.weight": eye, "layers.0.out.bias": t([0, 0]),
            "head.weight": eye, "head.bias": t([0, 0]),
        })  # fmt: skip
        x = t([[[1, 0, 0], [0, 1, 0], [1, 1, 0]]])
        expected = [[1.827646, -0.377541], [1.470587, 0.629522], [1.985294, 0.114841]]
        for mode in ("sequential", "parallel"):
            module.mode = mode
            trace = {}
            self.assert_close(module(x, trace)[0], expected)
            self.assert_close(trace["z"][0], [[0.731059, 0.377541], [0.268941, 0.731059],
                                              [0.5, 0.817574]])

    def test_modes_agree_on_long_sequences_with_gradients(self):
        # T = 300: several tree levels, odd lengths among them.
        for cls in (MinGRU, MinLSTM):
            for variant in ("log", "vanilla"):
                torch.manual_seed(1)
                module = cls({"layers": 2, "variant": variant}).double()
                x = torch.randn(2, 300, 16, dtype=torch.float64)
                results = {}
                for mode in min_rnn.MODES if variant == "log" else min_rnn.MODES[:2]:
                    module.mode = mode
                    module.zero_grad()
                    out = module(x)
                    out.square().mean().backward()
                    grads = torch.cat([p.grad.flatten() for p in module.parameters()])
                    results[mode] = (out.detach(), grads)
                ref_out, ref_grad = results["sequential"]
                for mode, (out, grad) in results.items():
                    label = f"{cls.__name__} {variant} {mode}"
                    self.assertLess(float((out - ref_out).abs().max()), 1e-10, label)
                    self.assertLess(float((grad - ref_grad).abs().max()), 1e-10, label)

    def test_finite_gradients_float32(self):
        for cls in (MinGRU, MinLSTM):
            for variant, mode in (("log", "log_space"), ("log", "parallel"),
                                  ("vanilla", "sequential")):
                torch.manual_seed(2)
                module = cls({"layers": 3, "variant": variant, "mode": mode})
                x = torch.nn.functional.one_hot(torch.randint(0, 16, (4, 40)), 16).float()
                out = module(x)
                self.assertEqual(out.dtype, torch.float32)
                self.assertEqual(tuple(out.shape), (4, 40, 16))
                torch.nn.functional.cross_entropy(out.reshape(-1, 16),
                                                  torch.randint(0, 16, (160,))).backward()
                for name, p in module.named_parameters():
                    self.assertIsNotNone(p.grad, name)
                    self.assertTrue(bool(torch.isfinite(p.grad).all()), f"{name} {mode}")

    def test_saturated_gates_stay_finite(self):
        # Pre-activations far past where σ rounds to 0 or 1: log gates, states, gradients.
        k = torch.tensor([[[-800.0, 800.0], [40.0, -40.0], [0.0, -0.5]]], dtype=torch.float64,
                         requires_grad=True)
        for log_a, log_w in (min_rnn.min_gru_gates(k), min_rnn.min_lstm_gates(k, -k)):
            self.assertTrue(bool(torch.isfinite(log_a).all() and torch.isfinite(log_w).all()))
            hs = [min_rnn.run_recurrence(log_a, log_w, k, torch.full((2,), 0.5,
                                         dtype=torch.float64), "log", m) for m in min_rnn.MODES]
            for h in hs[1:]:  # states reach ~800 here: relative agreement
                self.assertLess(float((h - hs[0]).abs().max()), 1e-13 * 800)
            k.grad = None
            sum(h.sum() for h in hs).backward()
            self.assertTrue(bool(torch.isfinite(k.grad).all()), k.grad)

    def test_empty_sequence(self):
        for mode in min_rnn.MODES:
            module = MinLSTM({"mode": mode})
            self.assertEqual(tuple(module(torch.zeros(2, 0, 16), {}).shape), (2, 0, 16))

    def test_config_errors(self):
        for bad in ({"variant": "vanilla", "mode": "log_space"}, {"mode": "chunked"},
                    {"variant": "exp"}, {"layers": 0}, {"d_h": 2.5}, {"residual": 1},
                    {"extra": 1}):
            with self.assertRaises(ValueError, msg=str(bad)):
                MinGRU(bad)
        module = MinGRU({"variant": "vanilla"})
        with self.assertRaises(ValueError):
            module.mode = "log_space"
        with self.assertRaises(ValueError):
            module(torch.zeros(1, 3, 5))


if __name__ == "__main__":
    unittest.main()
