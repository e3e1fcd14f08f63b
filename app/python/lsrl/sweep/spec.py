"""Sweep specs (docs/sweeps.md): a job, fixed parameters and a grid, expanded into tasks.

    {"job": "noise", "program": "tok2tok", "sigmas": [0, 1e-7],
     "set": {"L": 3, "entries": 4, "queries": 2},
     "grid": {"variant": ["direct", "optimized"], "seed": [1, 2, 3]}}

Every key but "job", "name", "grid", "checkpoints" and "table" is a parameter of every
task; each point of the grid (the Cartesian product of its axes, in the order written)
adds its values. An axis is a parameter ("seed"), one key of an object parameter
("set.layers"), or "with" (or "with_<name>", for a second one): objects merged into the
parameters, for variants that change several at once. A task's id is a hash of its job and parameters, so that a rerun of the
same spec recognises the tasks it finished.
"""

from __future__ import annotations

import copy
import hashlib
import itertools
import json
import os

from .jobs import JOBS

_META = ("job", "name", "grid", "checkpoints", "table")


def merges(axis: str) -> bool:
    """Whether a grid axis holds objects merged into the parameters ("with", "with_…")."""
    return axis == "with" or axis.startswith("with_")


class SpecError(ValueError):
    """A spec that cannot be run; the message names the file and the key."""


def load(path, overrides=None) -> dict:
    """The spec in `path`, with `overrides` ({key: value}, see `override`) applied."""
    path = os.fspath(path)
    try:
        with open(path, encoding="utf-8") as f:
            spec = json.load(f)
    except OSError as e:
        raise SpecError(f"{path}: cannot read the spec ({e.strerror})") from None
    except json.JSONDecodeError as e:
        raise SpecError(f"{path}: not JSON ({e.msg} at line {e.lineno})") from None
    if isinstance(spec, dict) and overrides:
        spec = override(spec, overrides, path)
    check(spec, path)
    if "checkpoints" in spec and not os.path.isabs(spec["checkpoints"]):
        # relative to the spec, so that the same spec runs from any folder
        spec["checkpoints"] = os.path.join(os.path.dirname(os.path.abspath(path)),
                                           spec["checkpoints"])
    return spec


def override(spec: dict, overrides: dict, where: str = "the spec") -> dict:
    """A copy of `spec` with each {key: value} fixed: "steps" or "set.layers". A key that
    is a grid axis replaces the axis (`seed=0` runs seed 0 only)."""
    out = copy.deepcopy(spec)
    grid = out.get("grid")
    for key, value in overrides.items():
        if key in _META or merges(key):
            raise SpecError(f"{where}: \"{key}\" cannot be overridden as a parameter")
        if isinstance(grid, dict):
            grid.pop(key, None)
        _assign(out, key, copy.deepcopy(value), where, replace=True)
    return out


def _assign(params: dict, key: str, value, where: str, replace: bool = False) -> None:
    """params[key] = value, where a dotted key names a key of an object parameter."""
    *parents, leaf = key.split(".")
    at = params
    for i, part in enumerate(parents):
        inner = at.setdefault(part, {})
        if not isinstance(inner, dict):
            raise SpecError(f"{where}: \"{key}\" needs \"{'.'.join(parents[:i + 1])}\" to be "
                            f"an object, got {json.dumps(inner)}")
        at = inner
    if leaf in at and not replace:
        raise SpecError(f"{where}: \"{key}\" is both a fixed parameter and a grid axis")
    at[leaf] = value


def _merge(params: dict, entry: dict, where: str, prefix: str = "") -> None:
    """Merges a "with" entry into the parameters; objects merge key by key."""
    for key, value in entry.items():
        name = prefix + key
        if isinstance(value, dict) and isinstance(params.get(key), dict):
            _merge(params[key], value, where, name + ".")
        elif key in params:
            raise SpecError(f"{where}: \"{name}\" is set both by a \"with\" entry and "
                            "elsewhere in the spec")
        else:
            params[key] = copy.deepcopy(value)


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
        if axis.split(".")[0] in _META:
            raise SpecError(f"{where}: \"{axis}\" cannot be a grid axis")
        if merges(axis) and not all(isinstance(v, dict) for v in values):
            raise SpecError(f"{where}: every entry of grid axis \"{axis}\" must be an object "
                            "of parameters")
    if "table" in spec and not isinstance(spec["table"], dict):
        raise SpecError(f"{where}: \"table\" must be an object, got {json.dumps(spec['table'])}")
    for params in points(spec, where):
        try:
            JOBS[job].check(params, where)
        except ValueError as e:
            raise SpecError(str(e)) from None


def points(spec: dict, where: str = "the spec") -> list:
    """The parameters of every task, in grid order."""
    fixed = {k: v for k, v in spec.items() if k not in _META}
    grid = spec.get("grid", {})
    axes = list(grid)
    out = []
    for values in itertools.product(*(grid[a] for a in axes)):
        params = copy.deepcopy(fixed)
        for axis, value in zip(axes, values):
            if merges(axis):
                _merge(params, value, where)
            else:
                _assign(params, axis, value, where)
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
