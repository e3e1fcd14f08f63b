#!/usr/bin/python3
"""The seed models' training experiments of docs/results.md, as sweeps (docs/sweeps.md).

    scripts/experiments/run.py list
    scripts/experiments/run.py run table1 [--out results/] [--workers 2] [--scheduler URL]
                                          [--set steps=200 ...]
    scripts/experiments/run.py table table1 [--out results/ | --results FILE.jsonl]
    scripts/experiments/run.py ship table1 [--out results/] [--models examples/models/]

Each experiment is the sweep spec examples/sweeps/<name>.json with a "table" section.
`run` is `lsrl sweep` of that spec into OUT/<name>.jsonl, its checkpoints and logs in
OUT/<name>.checkpoints/ (a rerun finishes what is missing). `table` prints the
experiment's markdown table from a sweep's output (its runs in the spec's grid; an output
may hold other runs, as when a second stage starts from a copy of the first's): per row
the held-out accuracy as mean ± std over its seeds (and each seed) beside the paper's
figure. `ship` copies, per model kind
of the experiment, its best run (highest held-out accuracy, among the rows the table's
"ship" prefix names) to examples/models/<kind>.safetensors with its .log.jsonl beside it
and <kind>.json (the run's record: command, config, seed, accuracy, wall time, and
"expected": what the row reaches over its seeds, the paper's figure and chance).
Needs the built `lsrl` binary ($LSRL_CLI, else build/release/app/cli/lsrl).
"""

import argparse
import glob
import json
import os
import shutil
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SPECS = os.path.join(ROOT, "examples", "sweeps")


def cli():
    return os.environ.get("LSRL_CLI") or os.path.join(ROOT, "build", "release", "app", "cli",
                                                      "lsrl")


def experiments():
    """{name: spec} of the sweep specs that are experiments (they have a "table")."""
    out = {}
    for path in sorted(glob.glob(os.path.join(SPECS, "*.json"))):
        with open(path, encoding="utf-8") as f:
            spec = json.load(f)
        if spec.get("job") == "train" and "table" in spec:
            out[os.path.basename(path)[: -len(".json")]] = spec
    return out


def spec_path(name):
    return os.path.join(SPECS, name + ".json")


def results_path(name, out):
    return os.path.join(out, name + ".jsonl")


def row_of(spec, params):
    return spec["table"]["row"].format(**params)


def _value(params, axis):
    for part in axis.split("."):
        params = params.get(part, {}) if isinstance(params, dict) else {}
    return params


def _contains(params, entry):
    return all(_contains(params.get(k), v) if isinstance(v, dict) and
               isinstance(params.get(k), dict) else params.get(k) == v
               for k, v in entry.items())


def _axis_matches(spec, params):
    """Per grid axis but the seed, in order: (the index of the run's value or entry among
    the axis's, or None; the axis's length; whether the run has no value for it)."""
    for axis, values in spec.get("grid", {}).items():
        if axis == "seed":
            continue
        if axis == "with" or axis.startswith("with_"):
            match = [i for i, entry in enumerate(values) if _contains(params, entry)]
            missing = False
        else:
            value = _value(params, axis)
            match = [i for i, v in enumerate(values) if v == value]
            missing = value == {}
        yield (match[0] if match else None), len(values), missing


def grid_position(spec, params):
    """Where a run's parameters stand in the spec's grid (axes but the seed, in order), so
    that the table lists rows as the spec writes them."""
    return [length if index is None else index
            for index, length, _ in _axis_matches(spec, params)]


def in_grid(spec, params):
    """Whether a run's parameters are a point of the spec's grid (the seed aside): an output
    may also hold other sweeps' runs, e.g. the learning rates a later stage did not keep."""
    return all(index is not None or missing for index, _, missing in _axis_matches(spec, params))


def records(spec, path):
    """{(row, steps): [record]} of the sweep output's finished runs in the spec's grid, each
    list sorted by seed; the failed records; and how many runs were outside the grid."""
    groups, failed, outside = {}, [], 0
    with open(path, encoding="utf-8") as f:
        for line in f:
            try:
                record = json.loads(line)
            except json.JSONDecodeError:
                continue  # a last line cut short by a crash
            if record.get("job") != "train":
                continue
            params = record["params"]
            if not in_grid(spec, params):
                outside += 1
                continue
            if record.get("status") != "ok":
                failed.append(record)
                continue
            key = (row_of(spec, params), params.get("steps"))
            groups.setdefault(key, []).append(record)
    for runs in groups.values():
        runs.sort(key=lambda r: r["params"].get("seed", 0))
    return groups, failed, outside


def ordered(spec, groups):
    """The groups' keys in the spec's grid order, then by steps."""
    return sorted(groups, key=lambda k: (grid_position(spec, groups[k][0]["params"]),
                                         k[1] or 0))


def accuracy(record):
    return record["figures"].get("eval_accuracy")


def metric_of(spec):
    """The figure a table reports (table.metric, default the held-out accuracy), whether it
    is shown as a percentage, and its sign (1: higher is better)."""
    metric = spec["table"].get("metric", "eval_accuracy")
    lower_better = "perplexity" in metric or "loss" in metric
    return metric, "accuracy" in metric, -1 if lower_better else 1


def _shown(value, percent):
    return f"{100 * value:.1f}" if percent else f"{value:.3f}"


def _age_bins(runs):
    """The age bins of the runs' eval_accuracy_by_age, ordered by their lower bound."""
    bins = {b for r in runs for b in (r["figures"].get("eval_accuracy_by_age") or {})}
    return sorted(bins, key=lambda b: int(b.lstrip(">").split("-")[0]))


def table(name, path):
    spec = experiments()[name]
    groups, failed, outside = records(spec, path)
    paper = spec["table"].get("paper", {})
    metric, percent, _ = metric_of(spec)
    samples = sorted({r["params"].get("eval_samples") for g in groups.values() for r in g},
                     key=str)
    what = "held-out accuracy" if metric == "eval_accuracy" else f"held-out {metric}"
    others = f"; {outside} run(s) of other grids not shown" if outside else ""
    print(f"**{spec['name']}** ({what} over {', '.join(map(str, samples))} samples; "
          f"{path}{others})\n")
    print("| row | steps | paper | ours: mean ± std | median [min, max] | per seed | "
          "wall per run |")
    print("|---|---|---|---|---|---|---|")
    keys = ordered(spec, groups)
    for key in keys:
        row, steps = key
        runs = [r for r in groups[key] if r["figures"].get(metric) is not None]
        if not runs:
            continue
        values = [r["figures"][metric] for r in runs]
        std = statistics.stdev(values) if len(values) > 1 else 0.0
        seeds = " / ".join(f"{_shown(r['figures'][metric], percent)} "
                           f"(s{r['params'].get('seed')})" for r in runs)
        wall = statistics.mean(r["wall_s"] for r in runs)
        print(f"| {row} | {steps} | {paper.get(row, '-')} | "
              f"{_shown(statistics.mean(values), percent)} ± {_shown(std, percent)} | "
              f"{_shown(statistics.median(values), percent)} [{_shown(min(values), percent)}, "
              f"{_shown(max(values), percent)}] | {seeds} | {_minutes(wall)} |")
    for row in paper:
        if not any(k[0] == row for k in groups):
            print(f"| {row} | | {paper[row]} | (not run) | | | |")
    bins = _age_bins([r for g in groups.values() for r in g])
    if bins:
        print("\nAccuracy (%) by age, the tokens since the queried pair was written: median "
              "over the seeds [min, max]\n")
        print("| row | steps | " + " | ".join(bins) + " |")
        print("|---|---|" + "---|" * len(bins))
        for row, steps in keys:
            cells = []
            for b in bins:
                accs = [r["figures"]["eval_accuracy_by_age"][b]["accuracy"]
                        for r in groups[(row, steps)]
                        if b in (r["figures"].get("eval_accuracy_by_age") or {})]
                cells.append(f"{100 * statistics.median(accs):.1f} [{100 * min(accs):.0f}, "
                             f"{100 * max(accs):.0f}]" if accs else "")
            print(f"| {row} | {steps} | " + " | ".join(cells) + " |")
    if failed:
        print(f"\n{len(failed)} run(s) failed:")
        for r in failed:
            print(f"- {row_of(spec, r['params'])} seed {r['params'].get('seed')}: "
                  f"{r.get('error', '?')}")


def _minutes(seconds):
    return f"{seconds / 60:.1f} min" if seconds >= 60 else f"{seconds:.0f} s"


def expected(spec, name, row, runs):
    """What training this row reaches (mean and std over its seeds), the paper's figure and
    chance: the context the explorer gives a checkpoint's accuracy."""
    accs = [accuracy(r) for r in runs if accuracy(r) is not None]
    params = runs[0]["params"]
    out = {"accuracy": round(statistics.mean(accs), 3),
           "std": round(statistics.stdev(accs), 3) if len(accs) > 1 else 0.0,
           "seeds": len(accs), "steps": params.get("steps"), "task": params.get("task"),
           "source": f"docs/results.md, {spec['name']} (run.py run {name}), row {row}",
           "chance": round(spec["table"]["chance"], 4)}
    paper = spec["table"].get("paper", {}).get(row)
    if paper:
        value = float(paper)
        out["paper"] = value / 100 if value > 1 else value
        out["paper_setting"] = spec["table"].get("paper_setting", "")
    return out


def ship(name, path, target):
    spec = experiments()[name]
    groups, _, _ = records(spec, path)
    best = {}
    for (row, steps), runs in groups.items():
        if not row.startswith(spec["table"].get("ship", "")):
            continue
        for record in runs:
            acc = accuracy(record)
            kind = record["params"]["model"]
            if acc is not None and (kind not in best or acc > best[kind][0]):
                best[kind] = (acc, record, row, runs)
    os.makedirs(target, exist_ok=True)
    for kind, (acc, record, row, runs) in sorted(best.items()):
        checkpoint = record["figures"]["checkpoint"]
        stem = checkpoint[: -len(".safetensors")]
        shutil.copyfile(checkpoint, os.path.join(target, kind + ".safetensors"))
        shutil.copyfile(stem + ".log.jsonl", os.path.join(target, kind + ".log.jsonl"))
        params = record["params"]
        with open(os.path.join(target, kind + ".json"), "w", encoding="utf-8") as f:
            json.dump({"experiment": name, "row": row, "task": params.get("task"),
                       "config": params.get("set", {}), "seed": params.get("seed"),
                       "wall_s": record["wall_s"], **record["figures"],
                       "checkpoint": os.path.basename(checkpoint),
                       "expected": expected(spec, name, row, runs)}, f, indent=1)
            f.write("\n")
        print(f"{kind}: {os.path.basename(stem)} ({100 * acc:.1f}%)")


def run(name, out, workers, scheduler, overrides):
    os.makedirs(out, exist_ok=True)
    argv = [cli(), "sweep", spec_path(name), "--out", results_path(name, out)]
    if workers:
        argv += ["--workers", str(workers)]
    if scheduler:
        argv += ["--scheduler", scheduler]
    for item in overrides:
        argv += ["--set", item]
    return subprocess.call(argv)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("action", choices=["list", "run", "table", "ship"])
    p.add_argument("experiment", nargs="?")
    p.add_argument("--out", default=os.path.join(ROOT, "results"),
                   help="the folder of the sweeps' outputs (default: results/)")
    p.add_argument("--results", help="table/ship: this sweep output instead of "
                   "OUT/<experiment>.jsonl")
    p.add_argument("--models", default=os.path.join(ROOT, "examples", "models"),
                   help="ship: the folder to ship to (default: examples/models/)")
    p.add_argument("--workers", type=int, help="run: local worker processes (default: one "
                   "per core)")
    p.add_argument("--scheduler", help="run: a dask-scheduler's address instead of a local "
                   "cluster")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                   help="run: passed to lsrl sweep (e.g. steps=200)")
    args = p.parse_args()
    known = experiments()
    if args.action == "list":
        for name, spec in known.items():
            print(f"{name}: {spec['name']} (examples/sweeps/{name}.json)")
        return 0
    if args.experiment not in known:
        p.error(f"experiment must be one of {', '.join(known)}")
    if args.action == "run":
        return run(args.experiment, args.out, args.workers, args.scheduler, args.set)
    path = args.results or results_path(args.experiment, args.out)
    if not os.path.exists(path):
        p.error(f"{path}: no sweep output (run.py run {args.experiment} writes it)")
    if args.action == "ship":
        ship(args.experiment, path, args.models)
    else:
        table(args.experiment, path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
