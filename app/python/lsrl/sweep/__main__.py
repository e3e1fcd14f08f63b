"""`lsrl sweep SPEC.json [--scheduler tcp://HOST:8786] [--out RESULTS.jsonl]` (the command
line of lsrl.sweep; docs/sweeps.md). Exit 0 when every task is done, 1 when some failed
(each is in the output with its error), 2 for a bad spec, 130 when interrupted."""

import argparse
import json
import os
import sys

from . import SpecError, run


def main(argv=None) -> int:
    p = argparse.ArgumentParser(
        prog="lsrl sweep",
        description="Runs a sweep spec's tasks (lsrl noise, lsrl train, lsrl bench precision "
        "over a grid) on a Dask cluster: the scheduler given, else a local cluster of "
        "processes on this machine. Results stream into a JSON-lines file, one line per "
        "task; a rerun with the same spec and output runs only what is missing.")
    p.add_argument("spec", help="the sweep spec (JSON; docs/sweeps.md)")
    p.add_argument("--scheduler", help="a running dask-scheduler, e.g. tcp://host:8786 "
                   "(default: a local cluster started for this sweep)")
    p.add_argument("--out", help="results, one JSON line per task (default: SPEC with "
                   ".results.jsonl for .json)")
    p.add_argument("--workers", type=int, help="local cluster: worker processes (default: "
                   "one per core)")
    p.add_argument("--retries", type=int, default=1, help="runs again of a failed task "
                   "before it is reported (default 1)")
    p.add_argument("--cli", help="the lsrl binary the workers run (default: $LSRL_CLI, or "
                   "the one beside this package)")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                   help="fix a parameter of every task (VALUE is JSON, else text; KEY may "
                   "name an object's key, e.g. set.layers=2); a grid axis becomes that one "
                   "value. Repeatable. E.g. --set steps=200 cuts a training sweep")
    p.add_argument("--checkpoints", help="where training tasks write their checkpoints "
                   "(default: the spec's \"checkpoints\", else RESULTS with .checkpoints for "
                   ".jsonl)")
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")
    args = p.parse_args(argv)
    overrides = {}
    for item in args.set:
        key, sep, text = item.partition("=")
        if not sep or not key:
            p.error(f"--set needs KEY=VALUE, got {item!r}")
        try:
            overrides[key] = json.loads(text)
        except json.JSONDecodeError:
            overrides[key] = text
    if args.workers is not None and args.workers < 1:
        p.error("--workers must be at least 1")
    if args.retries < 0:
        p.error("--retries must be at least 0")
    out = args.out or (args.spec[:-5] if args.spec.endswith(".json") else args.spec) + \
        ".results.jsonl"
    try:
        summary = run(args.spec, out, scheduler=args.scheduler, workers=args.workers,
                      cli=args.cli, retries=args.retries, progress=not args.quiet,
                      overrides=overrides, checkpoints=args.checkpoints)
    except SpecError as e:
        sys.stderr.write(f"lsrl sweep: error: {e}\n")
        return 2
    except ValueError as e:  # a task's parameters
        sys.stderr.write(f"lsrl sweep: error: {e}\n")
        return 2
    except KeyboardInterrupt:
        sys.stderr.write(f"\nlsrl sweep: interrupted; finished tasks are in {out}, run "
                         "again to finish the rest\n")
        return 130
    print(f'{{"total": {summary["total"]}, "skipped": {summary["skipped"]}, '
          f'"done": {summary["done"]}, "failed": {summary["failed"]}, '
          f'"out": "{os.path.abspath(out)}"}}')
    return 1 if summary["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
