"""lsrl.torch.lattice.Lattice against the C++ "lattice" seed model: float64 parity of the
output and every trace array (every supported mode and variant, one and two heads, m < d,
m = d and m > d, the output gate, sigmoid gamma / mu, silu and tanh, the causal conv and l2
keys of docs/spec/seed-models.md 1.8, and the token model of 1.8a with its layer<l>/
arrays), at the seeded init and at perturbed weights, through the eps guard (a zero slot),
on the assoc_recall task; the header's hand-checked step; finite gradients; s0 "fixed" kept
out of training; S_0 orthonormal at init; the state dict's names; the refused configs.

Run: PYTHONPATH=<lsrl package> /usr/bin/python3 -m unittest tests/python/test_torch_lattice.py
"""

import unittest

import numpy as np
import torch

from lsrl import _lsrl
from twin_parity import perturbed, seeded_weights, twin
from lsrl.torch.lattice import Lattice

KIND = "lattice"
SMALL = {"d_in": 5, "d": 4, "m": 3}

CONFIGS = {
    "nosr_dec_m_lt_d": {},
    "nosr_dec_heads2_m_eq_d_silu": {"heads": 2, "m": 4, "activation": "silu"},
    "nosr_closed_form_gate": {"beta": "closed_form", "output_gate": True},
    "nosr_enc_mu_sigmoid": {"variant": "enc", "mu_mode": "sigmoid"},
    "nosr_sim_tanh_heads2": {"variant": "sim", "heads": 2, "activation": "tanh"},
    "nosr_m_gt_d": {"m": 6, "d": 3},
    "osr_dec": {"mode": "osr"},
    "osr_enc_heads2": {"mode": "osr", "variant": "enc", "heads": 2, "m": 4},
    "l1_dec": {"mode": "l1", "lambda": 0.1},
    "output_normalised": {"mode": "output_normalised", "heads": 2},
    "delta_gamma_constant": {"mode": "delta", "gamma_mode": "constant", "gamma": 0.7},
    "delta_heads2_m_eq_d": {"mode": "delta", "heads": 2, "m": 4},
    "linear_attention": {"mode": "linear_attention", "heads": 2},
    "linear_attention_m_eq_d": {"mode": "linear_attention", "m": 4},
    "mamba2_mu_constant": {"mode": "mamba2", "mu": 0.8},
    "mamba2_mu_sigmoid_heads2": {"mode": "mamba2", "mu_mode": "sigmoid", "heads": 2, "m": 4},
    "gated_deltanet_sigmoids": {"mode": "gated_deltanet", "mu_mode": "sigmoid"},
    "gated_deltanet_heads2_gate_silu": {
        "mode": "gated_deltanet",
        "heads": 2,
        "m": 4,
        "output_gate": True,
        "activation": "silu",
        "gamma_mode": "constant",
        "gamma": 0.5,
        "mu": 0.9,
    },
}

# The block of 1.8 on projected input.
BLOCK_CONFIGS = {
    "conv_l2_nosr": {"conv": 4, "qk_norm": "l2", "heads": 2},
    "conv_l2_delta_gate": {"conv": 3, "qk_norm": "l2", "mode": "delta", "output_gate": True},
    "conv_only_enc_silu": {"conv": 2, "variant": "enc", "activation": "silu"},
    "l2_only_gated_deltanet": {"qk_norm": "l2", "mode": "gated_deltanet", "mu_mode": "sigmoid"},
}

# The token model of 1.8a: 2 layers of 2 heads, conv, l2 keys, an MLP, in each of these modes.
TOKENS = {
    "input": "tokens",
    "d_in": 9,
    "d_model": 12,
    "heads": 2,
    "d": 4,
    "m": 3,
    "layers": 2,
    "d_ff": 16,
    "d_out": 7,
    "conv": 4,
    "qk_norm": "l2",
    "init": "random_orthonormal",
}
TOKEN_MODES = {
    "nosr": {"mu_mode": "sigmoid"},
    "delta": {},
    "gated_deltanet": {"mu_mode": "sigmoid"},
    "linear_attention": {"activation": "silu"},
}

B, T = 3, 7
USES_MU = ("nosr", "osr", "l1", "mamba2", "gated_deltanet")


def _init(overrides):
    return seeded_weights(KIND, {**SMALL, **overrides})


def _perturbed(weights, seed, scale=0.3):
    return perturbed(weights, seed, scale)


def _twin(cfg, weights):
    return twin(KIND, cfg, weights)


def _inputs(cfg, seed):
    return np.random.default_rng(seed).standard_normal((B, T, cfg["d_in"]))


def _one_hot(cfg, seed, length=T):
    tokens = np.random.default_rng(seed).integers(0, cfg["d_in"], (B, length))
    return np.eye(cfg["d_in"])[tokens]


def _token_init(mode, **over):
    return _init({**TOKENS, "mode": mode, **TOKEN_MODES[mode], **over})


def _gram(s0):
    """S_0 S_0^T per head (slots as rows), float64."""
    s0 = torch.as_tensor(s0, dtype=torch.float64)
    return s0 @ s0.transpose(-1, -2)


class ParityTest(unittest.TestCase):
    worst = {}  # array name -> worst relative error over all checks (printed at the end)

    @classmethod
    def tearDownClass(cls):
        if cls.worst:
            name = max(cls.worst, key=cls.worst.get)
            print(f"\n  lattice parity: worst relative error {cls.worst[name]:.2e} ({name})")

    def assertClose(self, got, want, what):
        want = np.asarray(want, dtype=np.float64)
        got = np.asarray(got, dtype=np.float64)
        self.assertEqual(got.shape, want.shape, what)
        if want.size == 0:
            return
        scale = max(1.0, float(np.max(np.abs(want))))
        err = float(np.max(np.abs(got - want))) / scale
        key = what.split(": ")[-1]
        ParityTest.worst[key] = max(ParityTest.worst.get(key, 0.0), err)
        self.assertLessEqual(err, 1e-9, f"{what}: relative error {err:.3e}")

    def check(self, cfg, weights, x, label):
        module = _twin(cfg, weights)
        trace = {}
        with torch.no_grad():
            out = module(torch.from_numpy(x), trace).numpy()
        for b in range(x.shape[0]):
            want, want_trace = _lsrl.seed_model_run(KIND, cfg, weights, x[b])
            self.assertClose(out[b], want, f"{label} seq {b}: output")
            for name, arr in want_trace.items():
                self.assertIn(name, trace, f"{label}: trace array {name} missing")
                self.assertClose(trace[name][b].numpy(), arr, f"{label} seq {b}: {name}")
            # No arrays the C++ trace does not have (e.g. "error" in linear attention).
            self.assertEqual(sorted(trace), sorted(want_trace), label)

    def test_init_weights(self):
        for i, (name, over) in enumerate(CONFIGS.items()):
            with self.subTest(config=name):
                cfg, weights = _init(over)
                self.check(cfg, weights, _inputs(cfg, 100 + i), name)

    def test_perturbed_weights(self):
        for i, (name, over) in enumerate(CONFIGS.items()):
            with self.subTest(config=name):
                cfg, weights = _init({**over, "seed": 3})
                self.check(cfg, _perturbed(weights, 200 + i), _inputs(cfg, 300 + i), name)

    def test_zero_slot_guard(self):
        # A (near-)zero slot (s.s < eps^2) takes P = I and no division. With its k row kept it gets
        # an unscaled write on the first token; with k's row zeroed it never gets a write, so
        # the guard holds on every token (NOSR: s~ = 0 is not normalised either).
        for mode in ("nosr", "osr", "l1", "delta", "output_normalised"):
            for variant in ("dec", "enc"):
                for silent in (False, True):
                    with self.subTest(mode=mode, variant=variant, silent=silent):
                        cfg, weights = _init({"mode": mode, "variant": variant, "mu": 0.5})
                        weights = _perturbed(weights, 7)
                        weights["s0"][0, 1] *= 1e-13  # not exactly 0: s.s < eps^2 still
                        if silent:
                            weights["w_k"][0, 1] = 0.0
                            weights["b_k"][0, 1] = 0.0
                        label = f"{mode}/{variant} zero slot{' silent' if silent else ''}"
                        self.check(cfg, weights, _inputs(cfg, 9), label)

    def test_conv_and_l2_keys(self):
        for i, (name, over) in enumerate(BLOCK_CONFIGS.items()):
            with self.subTest(config=name):
                cfg, weights = _init({**over, "seed": 4})
                self.check(cfg, weights, _inputs(cfg, 400 + i), name)
                self.check(cfg, _perturbed(weights, 500 + i), _inputs(cfg, 600 + i), name)

    def test_token_model(self):
        for i, mode in enumerate(TOKEN_MODES):
            with self.subTest(mode=mode):
                cfg, weights = _token_init(mode, seed=5 + i)
                x = _one_hot(cfg, 700 + i, length=9)
                self.check(cfg, weights, x, f"tokens {mode}")
                self.check(cfg, _perturbed(weights, 800 + i, 0.2), x, f"tokens {mode} perturbed")
                # Every layer and head traced, the logits as "output".
                _, trace = _lsrl.seed_model_run(KIND, cfg, weights, x[0])
                for p in ("", "head1/", "layer1/", "layer1/head1/"):
                    self.assertIn(p + "slots", trace)
                self.assertEqual(trace["output"].shape, (9, 7))

    @unittest.skipUnless(hasattr(_lsrl, "seed_task_batch"), "needs _lsrl.seed_task_batch")
    def test_assoc_recall(self):
        for over in ({}, {"mode": "delta"}, {"mode": "linear_attention", "m": 8}):
            with self.subTest(**over):
                cfg, weights = _init({"d_in": 24, "d": 8, "m": 4, "recall_pairs": 4, **over})
                x, y = _lsrl.seed_task_batch(KIND, cfg, "assoc_recall", 5, 3)
                x = np.asarray(x, dtype=np.float64)
                self.assertEqual(x.shape[-1], 24)
                self.check(cfg, _perturbed(weights, 11), x, f"assoc_recall {over}")


class BehaviourTest(unittest.TestCase):
    def test_header_example(self):
        # lattice_step.h: S_0 = [e1 e2], k = (1, 0), v = (0, 0, 1), q = (1, 1), gamma = mu = 1
        # gives y = S_1 q = (0.707107, 1, 0.707107). Identity projections feed the token.
        m, d = 2, 3
        width = 2 * m + d
        module = Lattice({"d": d, "m": m, "d_in": width, "gamma_mode": "constant"}).double()
        eye = torch.eye(width, dtype=torch.float64)
        with torch.no_grad():
            module.w_k.copy_(eye[:m][None])
            module.w_v.copy_(eye[m : m + d][None])
            module.w_q.copy_(eye[m + d :][None])
            module.s0.copy_(torch.eye(d, dtype=torch.float64)[:m][None])
        x = torch.tensor([[[1.0, 0, 0, 0, 1, 1, 1]]], dtype=torch.float64)
        trace = {}
        y = module(x, trace)[0, 0]
        r = 0.5**0.5
        np.testing.assert_allclose(y.detach().numpy(), [r, 1, r], atol=1e-12)
        # NOSR keeps unit slots, and the update is orthogonal to the slot it moves.
        np.testing.assert_allclose(trace["slot_norms"][0, 0].numpy(), [1, 1], atol=1e-12)
        dots = (trace["delta"][0, 0] * trace["slots_initial"][0]).sum(-1)
        np.testing.assert_allclose(dots.numpy(), [0, 0], atol=1e-12)

    def test_gradients_finite(self):
        torch.manual_seed(0)
        for name, over in CONFIGS.items():
            with self.subTest(config=name):
                cfg, weights = _init({**over, "seed": 1})
                module = _twin(cfg, _perturbed(weights, 1)).float()
                x = torch.randn(4, 6, cfg["d_in"])
                loss = module(x).pow(2).mean()
                loss.backward()
                for pname, p in module.named_parameters():
                    # gamma feeds no linear_attention / mamba2 update, mu only some forms.
                    mode = cfg["mode"]
                    if pname.endswith("gamma") and mode in ("linear_attention", "mamba2"):
                        continue
                    if pname.endswith("_mu") and mode not in USES_MU:
                        continue
                    self.assertIsNotNone(p.grad, f"{name}: {pname} has no gradient")
                    self.assertTrue(torch.isfinite(p.grad).all(), f"{name}: {pname}")
                    self.assertGreater(float(p.grad.abs().sum()), 0.0, f"{name}: {pname}")

    def test_gradients_finite_through_guard(self):
        # Zero slots that stay zero and mu = 0: every guarded branch, float32.
        for mode in ("nosr", "osr", "l1", "output_normalised", "delta", "gated_deltanet"):
            for beta in ("norm", "closed_form"):
                with self.subTest(mode=mode, beta=beta):
                    cfg = {"d": 3, "m": 5, "d_in": 4, "mode": mode, "beta": beta, "mu": 0.0}
                    module = Lattice(cfg)
                    with torch.no_grad():
                        module.s0.zero_()
                        module.w_k.zero_()
                    x = torch.randn(2, 4, 4)
                    x[:, 1] = 0
                    module(x).sum().backward()
                    for pname, p in module.named_parameters():
                        if p.grad is not None:
                            self.assertTrue(torch.isfinite(p.grad).all(), f"{mode}: {pname}")

    def test_state_dict_names(self):
        cfg, weights = _init({"heads": 2, "mu_mode": "sigmoid", "output_gate": True})
        module = Lattice(cfg)
        shapes = {k: tuple(v.shape) for k, v in module.state_dict().items()}
        self.assertEqual(shapes, {k: v.shape for k, v in weights.items()})

    def test_token_state_dict_names(self):
        cfg, weights = _token_init("nosr")
        module = Lattice(cfg)
        shapes = {k: tuple(v.shape) for k, v in module.state_dict().items()}
        self.assertEqual(shapes, {k: v.shape for k, v in weights.items()})
        for name in ("embed.weight", "layers.0.w_k", "layers.1.conv_q", "layers.1.norm1.weight",
                     "layers.0.ff2.bias", "norm_f.bias", "head.weight"):
            self.assertIn(name, shapes)

    def test_s0_fixed_is_not_trained(self):
        for cfg, weights in (_init({"s0": "fixed", "heads": 2, "output_gate": True}),
                             _token_init("delta", s0="fixed")):
            with self.subTest(input=cfg["input"]):
                module = _twin(cfg, _perturbed(weights, 3, 0.2))
                self.assertTrue(any(n.endswith("s0") for n in module.state_dict()))
                x = torch.from_numpy(_one_hot(cfg, 4) if cfg["input"] == "tokens"
                                     else _inputs(cfg, 4))
                module(x).pow(2).mean().backward()
                for pname, p in module.named_parameters():
                    if pname.endswith("s0"):
                        self.assertFalse(p.requires_grad, pname)
                        self.assertIsNone(p.grad, pname)
                    else:
                        self.assertIsNotNone(p.grad, pname)
                # A fixed S_0 stays as it was through an optimiser's step.
                before = {n: p.detach().clone() for n, p in module.named_parameters()}
                torch.optim.Adam(module.parameters(), lr=0.1).step()
                for pname, p in module.named_parameters():
                    if pname.endswith("s0"):
                        self.assertTrue(torch.equal(p, before[pname]), pname)
        # "trained" (the default): s0 gets a gradient like every weight.
        cfg, weights = _init({"heads": 2})
        module = _twin(cfg, weights)
        module(torch.from_numpy(_inputs(cfg, 5))).pow(2).mean().backward()
        self.assertIsNotNone(module.s0.grad)

    def test_s0_orthonormal_at_init(self):
        # init "random_orthonormal" with m <= d: S_0 S_0^T = I for every head and layer, in the
        # C++ seeded weights (what make_model loads) and in the twin's own init.
        over = {"init": "random_orthonormal", "m": 4, "d": 6, "heads": 3}
        for cfg in ({**SMALL, **over}, {**TOKENS, **over, "layers": 3}):
            with self.subTest(input=cfg.get("input", "projected")):
                _, weights = _init(cfg)
                s0s = [v for k, v in weights.items() if k.endswith("s0")]
                self.assertEqual(len(s0s), cfg.get("layers", 1))
                default = torch.get_default_dtype()
                torch.set_default_dtype(torch.float64)
                try:
                    twin_s0s = [p for n, p in Lattice(cfg).named_parameters() if n.endswith("s0")]
                finally:
                    torch.set_default_dtype(default)
                for s0 in s0s + [p.detach() for p in twin_s0s]:
                    eye = torch.eye(4, dtype=torch.float64).expand(3, 4, 4)
                    self.assertLessEqual(float((_gram(s0) - eye).abs().max()), 1e-12)
                # A float32 twin holds the same slots rounded.
                for p in Lattice(cfg).named_parameters():
                    if p[0].endswith("s0"):
                        self.assertLessEqual(float((_gram(p[1].detach()) - eye).abs().max()), 1e-6)

    def test_token_gradients_finite(self):
        for mode in TOKEN_MODES:
            with self.subTest(mode=mode):
                cfg, weights = _token_init(mode, seed=2)
                module = _twin(cfg, _perturbed(weights, 2, 0.2)).float()
                x = torch.from_numpy(_one_hot(cfg, 6)).float()
                module(x).pow(2).mean().backward()
                for pname, p in module.named_parameters():
                    if pname.endswith("gamma") and mode == "linear_attention":
                        continue
                    self.assertIsNotNone(p.grad, f"{mode}: {pname}")
                    self.assertTrue(torch.isfinite(p.grad).all(), f"{mode}: {pname}")

    def test_refused_configs(self):
        for over in ({"input": "direct"}, {"chunk": 2}, {"mode": "nope"}, {"activation": "relu"},
                     {"qk_norm": "l1"}, {"s0": "frozen"}, {"conv": -1}, {"layers": 0},
                     {"input": "tokens", "d_ff": -1}):
            with self.subTest(**over):
                with self.assertRaises(ValueError):
                    Lattice({**SMALL, **over})


if __name__ == "__main__":
    unittest.main()
