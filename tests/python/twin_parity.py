"""What the twins' parity tests (test_torch_*.py) share: the C++ seeded weights of a config,
the same weights with seeded noise (parity must hold away from the initialisation too), and
the twin holding given weights in float64."""

import numpy as np

import lsrl.torch as lt
from lsrl import _lsrl


def seeded_weights(kind, config):
    """(full config, {name: float64 array}) of the C++ seeded model of `config`."""
    cfg, weights = _lsrl.seed_model_init(kind, config)
    return cfg, {k: np.asarray(v, dtype=np.float64) for k, v in weights.items()}


def perturbed(weights, seed, scale):
    """Every tensor plus scale·N(0, 1) noise from a generator seeded with `seed`."""
    rng = np.random.default_rng(seed)
    return {k: v + scale * rng.standard_normal(v.shape) for k, v in weights.items()}


def twin(kind, cfg, weights):
    """The float64 twin of `kind` with exactly these weights."""
    return lt.model_from_weights(kind, cfg, weights)
