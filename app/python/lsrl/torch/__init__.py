"""PyTorch twins of the seed models, for training them (docs/models.md, "Training").

One ``torch.nn.Module`` per seed model (minGRU, minLSTM, GateLoop, Lattice, the looped
transformer), with the C++ models' config keys and tensor names, so that a trained
``state_dict`` is a weights file ``lsrl model run --weights`` loads, and back again. The
C++ float64 models are the reference: tests/python/test_torch_*.py hold each twin to them.

    import lsrl.torch as lt
    model = lt.make_model("mingru", {"layers": 2})     # the C++ seeded initialisation
    x, y = lt.task_batch(model, "selective_copy", seed=0, count=32)
    logits = model(x)                                  # [32, T, d_out]
    lt.save_checkpoint(model, "m.safetensors", task="selective_copy")
    model, meta = lt.load_checkpoint("m.safetensors")

Needs Debian's python3-torch (1.13); the rest of the lsrl package does not.
"""

import importlib

import numpy as np
import torch

from .. import _lsrl

# kind -> (module, class) of its twin
_TWINS = {
    "mingru": ("min_rnn", "MinGRU"),
    "minlstm": ("min_rnn", "MinLSTM"),
    "gateloop": ("gateloop", "GateLoop"),
    "lattice": ("lattice", "Lattice"),
    "looped": ("looped", "Looped"),
}


def kinds():
    return sorted(_TWINS)


def twin_class(kind):
    if kind not in _TWINS:
        raise ValueError(f"unknown model {kind!r} (known: {', '.join(kinds())})")
    module, name = _TWINS[kind]
    return getattr(importlib.import_module(f"{__name__}.{module}"), name)


def full_config(kind, config=None):
    """Every key of the model's config: the C++ defaults for the missing ones (errors name
    a bad key the way ``lsrl model`` does)."""
    cfg, _ = _lsrl.seed_model_init(kind, config or {})
    return cfg


def _attach(model, kind, config):
    model.kind = kind
    model.config = config
    return model


def model_from_weights(kind, config, weights, dtype=torch.float64):
    """The twin of ``kind`` with ``config`` and these weights ({name: array})."""
    # The dtype first: load_state_dict copies into the parameters' dtype (float64 weights
    # into a float32 module would be rounded).
    model = twin_class(kind)(config).to(dtype)
    model.load_state_dict({k: torch.from_numpy(np.asarray(v)) for k, v in weights.items()})
    return _attach(model, kind, config)


def make_model(kind, config=None, dtype=torch.float64):
    """The twin with the C++ model's seeded initialisation (config["seed"])."""
    cfg, weights = _lsrl.seed_model_init(kind, config or {})
    return model_from_weights(kind, cfg, weights, dtype)


def weights_of(model):
    """{name: float64 ndarray} of a twin, what the C++ model and weights files take."""
    return {k: v.detach().to(torch.float64).cpu().numpy() for k, v in model.state_dict().items()}


def scored_tasks(kind, config=None):
    return _lsrl.seed_scored_tasks(kind, config or {})


def task_batch(model, task, seed, count, dtype=None, ages=False):
    """(x [count, T, w], y [count, T] long, −1 = no target): samples seed … seed+count−1
    of the C++ generator ``lsrl model`` and the explorer use. With ``ages`` also a [count,
    T] long tensor: per target, the tokens since its answer was given (recall tasks; −1 =
    none, everywhere for a task without ages)."""
    batch = _lsrl.seed_task_batch(model.kind, model.config, task, int(seed), int(count),
                                  with_ages=bool(ages))
    dtype = dtype or next(model.parameters()).dtype
    x, y = torch.from_numpy(batch[0]).to(dtype), torch.from_numpy(batch[1])
    return (x, y, torch.from_numpy(batch[2])) if ages else (x, y)


def save_checkpoint(model, path, task=None, training=None):
    """A weights file ``lsrl model run --weights`` loads, with the task and the training
    record in its metadata (the C++ model is built from it first, so a bad twin fails
    here rather than in the explorer)."""
    meta = {}
    if task is not None:
        meta["task"] = task
    if training is not None:
        meta["training"] = training
    _lsrl.seed_model_save(model.kind, model.config, weights_of(model), str(path), meta)


def load_checkpoint(path, dtype=torch.float64):
    """(twin, metadata) of a weights file of any seed model."""
    kind, config, weights, meta = _lsrl.seed_model_load(str(path))
    return model_from_weights(kind, config, weights, dtype), meta


from .compiled import CompiledNetwork, cpp_forward, from_compiled, network_of, save_compiled  # noqa: E402,F401
