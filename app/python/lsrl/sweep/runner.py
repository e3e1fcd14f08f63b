"""Runs a sweep's tasks on a Dask cluster and streams their results into a JSON-lines file
(docs/sweeps.md). Only this process writes the file, one whole line per finished task, so
a task that a lost worker ran again elsewhere is written once; a rerun skips the tasks the
file holds as done, so a crash or Ctrl-C loses nothing but the tasks in flight."""

from __future__ import annotations

import json
import logging
import os
import shutil
import sys
import time
import warnings

from . import spec as specs
from .jobs import JOBS, run_task


def default_cli() -> str:
    """$LSRL_CLI, else the build tree's binary beside this package, else `lsrl` on PATH."""
    if os.environ.get("LSRL_CLI"):
        return os.environ["LSRL_CLI"]
    here = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    beside = os.path.join(os.path.dirname(here), "app", "cli", "lsrl")  # <build>/python/lsrl
    if os.path.exists(beside):
        return beside
    return shutil.which("lsrl") or "lsrl"


def finished(out: str) -> dict:
    """{id: record} of the tasks the output holds as done. The file is rewritten without
    its failed records (they run again) and without a last line cut short by a crash."""
    if not os.path.exists(out):
        return {}
    done, keep = {}, []
    with open(out, encoding="utf-8") as f:
        for line in f:
            try:
                record = json.loads(line)
            except json.JSONDecodeError:
                continue
            if record.get("status") == "ok" and record.get("id") not in done:
                done[record["id"]] = record
                keep.append(line if line.endswith("\n") else line + "\n")
    part = out + ".part"
    with open(part, "w", encoding="utf-8") as f:
        f.writelines(keep)
        f.flush()
        os.fsync(f.fileno())
    os.replace(part, out)
    return done


class _Progress:
    """done / running / failed and an ETA on one terminal line (stderr)."""

    def __init__(self, total, skipped, slots, enabled):
        self.total, self.skipped, self.slots = total, skipped, max(1, slots)
        self.done = self.failed = 0
        self.start = time.monotonic()
        self.enabled = enabled
        self.tty = enabled and sys.stderr.isatty()

    def update(self, final=False):
        if not self.enabled or (final and not self.tty):
            return
        left = self.total - self.skipped - self.done - self.failed
        running = min(self.slots, left)
        elapsed = time.monotonic() - self.start
        finished = self.done + self.failed
        eta = f", ETA {_duration(elapsed / finished * left)}" if finished and left else ""
        text = (f"sweep: {self.skipped + self.done}/{self.total} done, {running} running, "
                f"{self.failed} failed{eta} ({_duration(elapsed)})")
        if self.tty and not final:
            sys.stderr.write("\r" + text + "\x1b[K")
        else:
            sys.stderr.write(("\r" if self.tty else "") + text + "\n")
        sys.stderr.flush()


def _duration(seconds: float) -> str:
    seconds = int(round(seconds))
    return f"{seconds // 60}m{seconds % 60:02d}s" if seconds >= 60 else f"{seconds}s"


def _append(out: str, record: dict) -> None:
    line = json.dumps(record, separators=(",", ":")) + "\n"
    with open(out, "a", encoding="utf-8") as f:
        f.write(line)
        f.flush()
        os.fsync(f.fileno())


def checkpoint_folder(spec: dict, out: str) -> str:
    """Where training tasks write: the spec's "checkpoints", else beside the output
    (results.jsonl → results.checkpoints/)."""
    if spec.get("checkpoints"):
        return os.path.abspath(spec["checkpoints"])
    stem = out[: -len(".jsonl")] if out.endswith(".jsonl") else out
    return os.path.abspath(stem + ".checkpoints")


def _refuse_overwrites(job, todo, done, checkpoints, out):
    """A task must not write over a file that another task of the output wrote (the same
    "run" name with other parameters, e.g. a cut rerun into the full run's output)."""
    written = {}
    for record in done.values():
        path = (record.get("figures") or {}).get("checkpoint")
        if path:
            written[os.path.abspath(path)] = record["id"]
    for tid, params in todo:
        for path in JOBS[job].outputs(params, checkpoints, tid):
            path = os.path.abspath(path)
            if path in written:
                raise specs.SpecError(
                    f"task {json.dumps(params)} would overwrite {path}, written by the "
                    f"finished task {written[path]} of {out}; give this sweep its own --out "
                    "(or --checkpoints), or a \"run\" name that tells the two apart")
            written[path] = tid


def _client(scheduler, workers):
    from distributed import Client, LocalCluster  # Debian: python3-distributed

    if scheduler:
        return Client(scheduler), None
    with warnings.catch_warnings():
        # Two sweeps at once: the second's HTTP port moves, which is all the warning says.
        warnings.filterwarnings("ignore", message="Port .* is already in use")
        cluster = LocalCluster(n_workers=workers or os.cpu_count() or 1, threads_per_worker=1,
                               processes=True, dashboard_address=None,
                               silence_logs=logging.ERROR)
    return Client(cluster), cluster


def run(spec, out, scheduler: str | None = None, workers: int | None = None,
        cli: str | None = None, retries: int = 1, progress: bool = True,
        overrides: dict | None = None, checkpoints: str | None = None) -> dict:
    """Runs the spec's tasks that `out` does not hold as done; returns {"total", "skipped",
    "done", "failed"}. `spec`: a dict or a spec file; `overrides` {key: value} fix
    parameters ("steps", "set.layers"; an axis becomes that one value). Without `scheduler`
    ("tcp://host:8786"), a local cluster of `workers` processes (default: one per core).
    Training writes to `checkpoints`, else the spec's, else beside `out`. A failed task is
    retried `retries` times, then written with its error; the others go on.
    KeyboardInterrupt cancels the tasks in flight; what finished stays in `out`."""
    if not isinstance(spec, dict):
        spec = specs.load(spec, overrides)
    else:
        if overrides:
            spec = specs.override(spec, overrides)
        specs.check(spec)
    out = os.fspath(out)
    folder = os.path.abspath(checkpoints) if checkpoints else checkpoint_folder(spec, out)
    todo_all = specs.tasks(spec)
    done = finished(out)
    todo = [(tid, params) for tid, params in todo_all if tid not in done]
    _refuse_overwrites(spec["job"], todo, done, folder, out)
    summary = {"total": len(todo_all), "skipped": len(todo_all) - len(todo), "done": 0,
               "failed": 0}
    if not todo:
        return summary
    cli = os.path.abspath(cli) if cli else default_cli()
    client, cluster = _client(scheduler, workers)
    futures = []
    try:
        from distributed import as_completed

        slots = sum(client.nthreads().values())
        bar = _Progress(summary["total"], summary["skipped"], slots, progress)
        bar.update()
        job = spec["job"]
        by_key = {}
        for tid, params in todo:
            future = client.submit(run_task, job, tid, params, cli, folder,
                                   key=f"lsrl-sweep-{job}-{tid}", retries=retries, pure=False)
            futures.append(future)
            by_key[future.key] = (tid, params)
        for future in as_completed(futures):
            tid, params = by_key[future.key]
            record = {"id": tid, "job": job, "params": params}
            if future.status == "finished":
                record.update(status="ok", **future.result())
                summary["done"] += 1
                bar.done += 1
            else:
                error = future.exception()
                record.update(status="failed", error=f"{type(error).__name__}: {error}")
                summary["failed"] += 1
                bar.failed += 1
            _append(out, record)
            bar.update()
        bar.update(final=True)
        return summary
    except KeyboardInterrupt:
        if futures:
            client.cancel(futures)
        raise
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
