"""Sweep specs (docs/sweeps.md): a job, fixed parameters and a grid, expanded into tasks.

    {"job": "noise", "program": "tok2tok", "sigmas": [0, 1e-7],
     "set": {"L": 3, "entries": 4, "queries": 2},
     "grid": {"variant": ["direct", "optimized"], "seed": [1, 2, 3]}}

Every key but "job", "name", "grid" and "checkpoints" is a parameter of every task; each
point of the grid (the Cartesian product of its axes, in the order written) adds its
values. A task's id is a hash of its job and parameters, so that a rerun of the same spec
recognises the tasks it finished.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os

from .jobs import JOBS

_META = ("job", "name", "grid", "checkpoints")


class SpecError(ValueError):
    """A spec that cannot be run; the message names the file and the key."""


def load(path) -> dict:
    path = os.fspath(path)
    try:
        with open(path, encoding="utf-8") as f:
            spec = json.load(f)
    except OSError as e:
        raise SpecError(f"{path}: cannot read the spec ({e.strerror})") from None
    except json.JSONDecodeError as e:
        raise SpecError(f"{path}: not JSON ({e.msg} at line {e.lineno})") from None
    check(spec, path)
    if "checkpoints" in spec and not os.path.isabs(spec["checkpoints"]):
        # relative to the spec, so that the same spec runs from any folder
        spec["checkpoints"] = os.path.join(os.path.dirname(os.path.abspath(path)),
                                           spec["checkpoints"])
    return spec


def check(spec, where: str = "the spec") -> None:
    if not isinstance(spec, dict):
        raise SpecError(f"{where}: expected a JSON object, got {type(spec).__name__}")
    job = spec.get("job")
    if job not in JOBS:
        raise SpecError(f"{where}: \"job\" must be one of {', '.join(sorted(JOBS))}, got "
                        f"{json.dumps(job)}")
    grid = spec.get("grid", {})
    if not isinstance(grid, dict):
        raise SpecError(f"{where}: \"grid\" must be an object of axes, got {json.dumps(grid)}")
    for axis, values in grid.items():
        if not isinstance(values, list) or not values:
            raise SpecError(f"{where}: grid axis \"{axis}\" must be a non-empty list, got "
                            f"{json.dumps(values)}")
        if axis in _META:
            raise SpecError(f"{where}: \"{axis}\" cannot be a grid axis")
    clash = sorted(set(grid) & (set(spec) - set(_META)))
    if clash:
        raise SpecError(f"{where}: \"{clash[0]}\" is both a fixed parameter and a grid axis")
    if job == "train" and "checkpoints" not in spec:
        raise SpecError(f"{where}: a train sweep needs \"checkpoints\" (the folder its "
                        "workers write checkpoints to; shared on a real cluster)")
    for params in points(spec):
        try:
            JOBS[job].check(params, where)
        except ValueError as e:
            raise SpecError(str(e)) from None


def points(spec: dict) -> list:
    """The parameters of every task, in grid order."""
    fixed = {k: v for k, v in spec.items() if k not in _META}
    grid = spec.get("grid", {})
    axes = list(grid)
    out = []
    for values in itertools.product(*(grid[a] for a in axes)):
        params = dict(fixed)
        params.update(zip(axes, values))
        out.append(params)
    return out


def task_id(job: str, params: dict) -> str:
    text = json.dumps({"job": job, "params": params}, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def tasks(spec: dict) -> list:
    """[(id, params)] of a checked spec."""
    out, seen = [], set()
    for params in points(spec):
        tid = task_id(spec["job"], params)
        if tid in seen:
            raise SpecError(f"the grid holds the same task twice: {json.dumps(params)}")
        seen.add(tid)
        out.append((tid, params))
    return out
