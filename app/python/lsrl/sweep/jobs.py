"""The jobs a sweep runs (docs/sweeps.md): each task is one call of the command that runs
the job on one machine today (`lsrl noise`, `lsrl train`, `lsrl bench precision`), made on
a worker, with its output parsed into the task's figures.

A job checks a task's parameters before anything runs (`check`), builds the command
(`command`), names the files it writes outside its own scratch folder (`outputs`) and reads
what the command wrote (`figures`, given the command it ran). They get the task's id and
the sweep's checkpoint folder, which only training uses. Every job also takes "label", a
free text that names the task in "run" formats and tables (docs/sweeps.md) and is passed
to no command.
"""

from __future__ import annotations

import csv
import json
import os
import subprocess
import tempfile
import time

# Options passed through as --name VALUE (the parameter's key with "_" as "-").
_TRAIN_OPTIONS = ("task", "config", "init", "steps", "batch", "lr", "clip", "warmup",
                  "weight_decay", "log_every", "eval_samples", "dtype", "time_limit")
_PRECISION_OPTIONS = ("cases", "lengths", "horizon", "seed")


def _need(params, key, kind, where):
    if key not in params:
        raise ValueError(f"{where}: a {kind} task needs \"{key}\" (fixed or a grid axis)")


def _listed(value) -> str:
    return ",".join(str(v) for v in value) if isinstance(value, list) else str(value)


def _unknown(params, known, kind, where):
    extra = sorted(set(params) - set(known) - {"label"})
    if extra:
        raise ValueError(f"{where}: a {kind} task has no parameter \"{extra[0]}\" (known: "
                         f"{', '.join(sorted(known))})")


class Noise:
    """`lsrl noise`: one seed of the Fig. 4 experiment for the variants and σ given.
    Parameters: program; seed; variant or variants; sigma or sigmas; set {key: value};
    precision; optimize (default true). Figures: {"rows": [{variant, sigma, seed, metric}]},
    the rows the serial run writes for that seed."""

    known = ("program", "seed", "variant", "variants", "sigma", "sigmas", "set", "precision",
             "optimize")

    @staticmethod
    def outputs(params, checkpoints, tid):
        return []

    @staticmethod
    def check(params, where):
        _unknown(params, Noise.known, "noise", where)
        for key in ("program", "seed"):
            _need(params, key, "noise", where)
        if not isinstance(params["seed"], int) or params["seed"] < 0:
            raise ValueError(f"{where}: seed must be a whole number ≥ 0, got {params['seed']!r}")

    @staticmethod
    def command(params, cli, workdir, checkpoints, tid):
        argv = [cli, "noise", params["program"], "-o", os.path.join(workdir, "rows.csv"),
                "--seeds", "1", "--first-seed", str(params["seed"]), "--threads", "1",
                "--quiet"]
        variants = params.get("variants", params.get("variant"))
        if variants is not None:
            argv += ["--variants", _listed(variants)]
        sigmas = params.get("sigmas", params.get("sigma"))
        if sigmas is not None:
            argv += ["--sigmas", _listed(sigmas)]
        for key, value in params.get("set", {}).items():
            argv += ["--set", f"{key}={value}"]
        if "precision" in params:
            argv += ["--precision", params["precision"]]
        if params.get("optimize", True) is False:
            argv.append("--no-optimize")
        return argv

    @staticmethod
    def figures(params, workdir, stdout, checkpoints, tid, argv):
        with open(os.path.join(workdir, "rows.csv"), newline="", encoding="utf-8") as f:
            rows = list(csv.DictReader(f))
        return {"rows": [{"variant": r["variant"], "sigma": float(r["sigma"]),
                          "seed": int(r["seed"]), "metric": float(r["metric"])} for r in rows]}


class Train:
    """`lsrl train`: one run. Parameters: model; seed; set {key: JSON value}; the options of
    `lsrl train` (task, config, init, steps, batch, lr, clip, warmup, weight_decay,
    log_every, eval_samples, dtype, time_limit); run (the checkpoint's name, a format string
    over the parameters, default the task id). The checkpoint and its log go to the spec's
    "checkpoints" folder (written atomically by lsrl train). Figures: the run's last record
    ("done": steps, eval_accuracy, …), the checkpoint's path and the command."""

    known = ("model", "seed", "set", "run") + _TRAIN_OPTIONS

    @staticmethod
    def check(params, where):
        _unknown(params, Train.known, "train", where)
        _need(params, "model", "train", where)
        try:
            Train.checkpoint(params, "", "0" * 16)
        except (KeyError, IndexError, ValueError) as e:
            raise ValueError(f"{where}: \"run\" {json.dumps(params.get('run'))} names what the "
                             f"task does not have ({type(e).__name__}: {e})") from None

    @staticmethod
    def checkpoint(params, checkpoints, tid):
        name = params.get("run", "{id}").format(id=tid, **params)
        return os.path.join(checkpoints, name + ".safetensors")

    @staticmethod
    def outputs(params, checkpoints, tid):
        return [Train.checkpoint(params, checkpoints, tid)]

    @staticmethod
    def command(params, cli, workdir, checkpoints, tid):
        os.makedirs(checkpoints, exist_ok=True)
        out = Train.checkpoint(params, checkpoints, tid)
        argv = [cli, "train", params["model"], "-o", out, "--log",
                out[: -len(".safetensors")] + ".log.jsonl", "--threads", "1"]
        if "seed" in params:
            argv += ["--seed", str(params["seed"])]
        for key in _TRAIN_OPTIONS:
            if key in params:
                argv += ["--" + key.replace("_", "-"), str(params[key])]
        for key, value in params.get("set", {}).items():
            argv += ["--set", f"{key}={json.dumps(value)}"]
        return argv

    @staticmethod
    def figures(params, workdir, stdout, checkpoints, tid, argv):
        records = [json.loads(line) for line in stdout.splitlines() if line.startswith("{")]
        done = next((r for r in reversed(records) if r.get("event") == "done"), None)
        if done is None:
            raise RuntimeError("lsrl train printed no \"done\" record")
        return dict(done, checkpoint=Train.checkpoint(params, checkpoints, tid),
                    command=" ".join(["lsrl", *argv[1:]]))


class Precision:
    """`lsrl bench precision`: wrong answers of the paper's programs as built and fitted.
    Parameters: cases, lengths (a list or one L), horizon, seed. Figures: its JSON line."""

    known = _PRECISION_OPTIONS

    @staticmethod
    def check(params, where):
        _unknown(params, Precision.known, "precision", where)

    @staticmethod
    def outputs(params, checkpoints, tid):
        return []

    @staticmethod
    def command(params, cli, workdir, checkpoints, tid):
        argv = [cli, "bench", "precision"]
        for key in _PRECISION_OPTIONS:
            if key in params:
                argv += ["--" + key, _listed(params[key])]
        return argv

    @staticmethod
    def figures(params, workdir, stdout, checkpoints, tid, argv):
        lines = [line for line in stdout.splitlines() if line.startswith("{")]
        if not lines:
            raise RuntimeError("lsrl bench precision printed no JSON line")
        return json.loads(lines[-1])


JOBS = {"noise": Noise, "train": Train, "precision": Precision}


class TaskFailed(RuntimeError):
    """The command of a task failed; the message is its exit status and the end of its
    standard error."""


def run_task(job: str, tid: str, params: dict, cli: str, checkpoints: str | None) -> dict:
    """Runs one task (on a worker): {"figures": ..., "wall_s": ..., "worker": host:pid}."""
    start = time.monotonic()
    kind = JOBS[job]
    with tempfile.TemporaryDirectory(prefix="lsrl-sweep-") as workdir:
        argv = kind.command(params, cli, workdir, checkpoints, tid)
        proc = subprocess.run(argv, capture_output=True, text=True)
        if proc.returncode != 0:
            tail = "\n".join(proc.stderr.strip().splitlines()[-5:])
            raise TaskFailed(f"{' '.join(argv[1:3])} exited with {proc.returncode}: {tail}")
        figures = kind.figures(params, workdir, proc.stdout, checkpoints, tid, argv)
    return {"figures": figures, "wall_s": round(time.monotonic() - start, 3),
            "worker": f"{os.uname().nodename}:{os.getpid()}"}
