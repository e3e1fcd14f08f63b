#!/usr/bin/python3
"""The seed models' training experiments of docs/results.md, scaled to a 2-core CPU.

    scripts/experiments/run.py list
    scripts/experiments/run.py run table1 [--jobs 2] [--out results/] [--only minGRU-3]
    scripts/experiments/run.py table table1 [--out results/]
    scripts/experiments/run.py ship table1 [--out results/]

`run` trains every row × seed of an experiment with `lsrl train` (one torch thread per
job, `--jobs` at once), skipping runs whose checkpoint already exists, and writes per run
OUT/<experiment>/<row>-s<seed>.safetensors, .log.jsonl and .json (the final record and
the wall time). `table` prints the experiment's markdown table: per row the held-out
accuracy as mean ± std over its seeds (and each seed), beside the paper's figure. `ship` copies, per model kind of the experiment, its best run (highest
held-out accuracy, among the rows the experiment's "ship" prefix names) to examples/models/<kind>.safetensors with its .log.jsonl beside it and
<kind>.json (the run's record: command, config, seed, accuracy, wall time, and "expected":
what the row reaches over its seeds, the paper's figure and chance).
Needs the built `lsrl` binary ($LSRL_CLI, else build/release/app/cli/lsrl).
"""

import argparse
import concurrent.futures
import json
import os
import shutil
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# Selective copying at T = 128 with 8 data tokens (the paper: T = 4096, 16 tokens). The
# pilots at T = 256 with d_model 32 stalled near 40% within the 30-minute budget.
_COPY = {"task_length": 128, "data_tokens": 8, "d_model": 64, "d_h": 128, "mode": "parallel"}


def _copy_row(kind, layers, paper):
    return {"name": f"{kind}-{layers}", "model": kind, "task": "selective_copy",
            "config": dict(_COPY, layers=layers), "steps": 5000, "batch": 16, "lr": 3e-3,
            "log_every": 250, "paper": paper}


EXPERIMENTS = {
    "table1": {
        "title": "minGRU paper, Table 1: selective copying, accuracy by depth",
        "chance": 1 / 16,
        "paper_setting": "T = 4,096 with 16 data tokens, 400k steps",
        "seeds": [0, 1],  # 3 layers × 5000 steps is ~20 min a run alone: two seeds fit
        "eval_samples": 1000,
        "rows": [_copy_row("mingru", 1, "37.0"), _copy_row("mingru", 2, "96.8"),
                 _copy_row("mingru", 3, "99.5"), _copy_row("minlstm", 1, "37.6"),
                 _copy_row("minlstm", 2, "85.7"), _copy_row("minlstm", 3, "96.0")],
    },
    "horizon": {
        "title": "GateLoop, Memory Horizon: data-controlled vs fixed transitions",
        "chance": 1 / 50,
        "paper_setting": "length 1,024",
        "seeds": [0, 1, 2],
        "eval_samples": 1000,
        "rows": [{"name": f"gateloop-{t}", "model": "gateloop", "task": "memory_horizon",
                  "config": {"transitions": t, "d_model": 32, "layers": 2,
                             "d_channel_mixing": 64, "task_length": 64},
                  "steps": 3000, "lr": 3e-3, "paper": p}
                 for t, p in (("data", "0.43"), ("fixed", "0.25"))],
    },
    "recall": {
        "title": "Lattice: associative recall at m = 8 slots of width d = 16, by stored pairs",
        "chance": 1 / 16,
        "ship": "nosr-",  # the explorer shows Lattice itself, not the baselines
        "seeds": [0, 1, 2],
        "eval_samples": 1000,
        "rows": [{"name": f"{name}-p{pairs}", "model": "lattice", "task": "assoc_recall",
                  "config": {"d": 16, "m": 8, "d_in": 16 + 32, "recall_pairs": pairs,
                             "recall_queries": 8, **config},
                  "steps": 2000, "lr": 3e-3, "paper": "-"}
                 for pairs in (4, 8, 12, 16, 24)
                 for name, config in (
                     ("nosr-dec", {"mode": "nosr", "variant": "dec"}),
                     ("nosr-sim", {"mode": "nosr", "variant": "sim"}),
                     ("linear_attention", {"mode": "linear_attention"}),
                     ("delta", {"mode": "delta"}),
                     ("gated_deltanet", {"mode": "gated_deltanet", "mu_mode": "sigmoid"}))],
    },
    "loops": {
        "title": "Looped transformer, Table 2 trend: 4×4 Sudoku by loops, ± timestep encoding",
        "chance": 1 / 4,
        "ship": "tmlt-r8",  # the explorer's view walks the loops of the TMLT
        "seeds": [0, 1, 2],
        "eval_samples": 1000,
        "rows": [{"name": f"{ts}-r{r}", "model": "looped", "task": "sudoku",
                  "config": {"timestep": ts, "loops": r, "d": 32, "heads": 4, "d_ff": 64,
                             "d_out": 5, "sudoku_blanks": 10},
                  "steps": 1500, "lr": 3e-3, "paper": "-"}
                 for ts in ("plain", "tmlt") for r in (2, 4, 8)],
    },
}


def cli():
    return os.environ.get("LSRL_CLI") or os.path.join(ROOT, "build", "release", "app", "cli",
                                                      "lsrl")


def command(row, seed, out, eval_samples):
    args = ["train", row["model"], "--task", row["task"], "--steps", str(row["steps"]),
            "--lr", str(row["lr"]), "--seed", str(seed), "--threads", "1",
            "--eval-samples", str(eval_samples), "--log-every", str(row.get("log_every", 50)),
            "-o", out]
    if "batch" in row:
        args += ["--batch", str(row["batch"])]
    for key, value in row["config"].items():
        args += ["--set", f"{key}={json.dumps(value)}"]
    return args


def run_one(name, row, seed, folder, eval_samples):
    stem = os.path.join(folder, f"{row['name']}-s{seed}")
    if os.path.exists(stem + ".json"):
        return stem, "done before"
    args = command(row, seed, stem + ".safetensors", eval_samples)
    start = time.monotonic()
    proc = subprocess.run([cli(), *args], capture_output=True, text=True)
    wall = time.monotonic() - start
    if proc.returncode != 0:
        return stem, f"FAILED ({proc.returncode}): {proc.stderr[-500:]}"
    final = json.loads(proc.stdout.strip().splitlines()[-1])
    record = {"experiment": name, "row": row["name"], "seed": seed, "wall_s": round(wall, 1),
              "command": "lsrl " + " ".join(args), **final}
    with open(stem + ".json", "w", encoding="utf-8") as f:
        json.dump(record, f)
    return stem, f"{final.get('eval_accuracy', float('nan')):.3f} in {wall:.0f} s"


def run(name, out, jobs, only):
    exp = EXPERIMENTS[name]
    folder = os.path.join(out, name)
    os.makedirs(folder, exist_ok=True)
    todo = [(row, seed) for row in exp["rows"] for seed in exp["seeds"]
            if not only or row["name"] in only]
    # Longest first, so the last runs to finish are short ones and both jobs stay busy.
    todo.sort(key=lambda rs: -rs[0]["steps"] * rs[0]["config"].get("layers", 1))
    with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        futures = [pool.submit(run_one, name, row, seed, folder, exp["eval_samples"])
                   for row, seed in todo]
        for f in concurrent.futures.as_completed(futures):
            stem, what = f.result()
            print(f"{os.path.basename(stem)}: {what}", flush=True)


def table(name, out):
    exp = EXPERIMENTS[name]
    folder = os.path.join(out, name)
    print(f"**{exp['title']}** (held-out accuracy over {exp['eval_samples']} samples, "
          f"seeds {', '.join(map(str, exp['seeds']))})\n")
    print("| row | paper | ours: mean ± std | per seed | wall per run |")
    print("|---|---|---|---|---|")
    for row in exp["rows"]:
        records = []
        for seed in exp["seeds"]:
            path = os.path.join(folder, f"{row['name']}-s{seed}.json")
            if os.path.exists(path):
                with open(path, encoding="utf-8") as f:
                    records.append(json.load(f))
        accs = [r["eval_accuracy"] for r in records if "eval_accuracy" in r]
        if not accs:
            print(f"| {row['name']} | {row['paper']} | (not run) | | |")
            continue
        std = statistics.stdev(accs) if len(accs) > 1 else 0.0
        walls = [r["wall_s"] for r in records]
        print(f"| {row['name']} | {row['paper']} | {100 * statistics.mean(accs):.1f} ± "
              f"{100 * std:.1f} | {' / '.join(f'{100 * a:.1f}' for a in accs)} | "
              f"{statistics.mean(walls) / 60:.1f} min |")


def expected(exp, name, row, folder):
    """What training this row reaches (mean and std over its seeds), the paper's figure and
    chance: the context the explorer gives a checkpoint's accuracy."""
    accs = []
    for seed in exp["seeds"]:
        path = os.path.join(folder, f"{row['name']}-s{seed}.json")
        if os.path.exists(path):
            with open(path, encoding="utf-8") as f:
                accs.append(json.load(f).get("eval_accuracy"))
    accs = [a for a in accs if a is not None]
    out = {"accuracy": round(statistics.mean(accs), 3),
           "std": round(statistics.stdev(accs), 3) if len(accs) > 1 else 0.0,
           "seeds": len(accs), "steps": row["steps"], "task": row["task"],
           "source": f"docs/results.md, {exp['title']} (run.py run {name}), row {row['name']}",
           "chance": round(exp["chance"], 4)}
    if row["paper"] != "-":
        paper = float(row["paper"])
        out["paper"] = paper / 100 if paper > 1 else paper
        out["paper_setting"] = exp.get("paper_setting", "")
    return out


def ship(name, out):
    exp = EXPERIMENTS[name]
    folder = os.path.join(out, name)
    best = {}
    for row in exp["rows"]:
        if not row["name"].startswith(exp.get("ship", "")):
            continue
        for seed in exp["seeds"]:
            stem = os.path.join(folder, f"{row['name']}-s{seed}")
            if not os.path.exists(stem + ".json"):
                continue
            with open(stem + ".json", encoding="utf-8") as f:
                record = json.load(f)
            acc = record.get("eval_accuracy", -1)
            if row["model"] not in best or acc > best[row["model"]][0]:
                best[row["model"]] = (acc, stem, record, row)
    target = os.path.join(ROOT, "examples", "models")
    os.makedirs(target, exist_ok=True)
    for kind, (acc, stem, record, row) in sorted(best.items()):
        shutil.copyfile(stem + ".safetensors", os.path.join(target, kind + ".safetensors"))
        shutil.copyfile(stem + ".log.jsonl", os.path.join(target, kind + ".log.jsonl"))
        with open(os.path.join(target, kind + ".json"), "w", encoding="utf-8") as f:
            json.dump({"experiment": name, "row": row["name"], "task": row["task"],
                       "config": row["config"], **record,
                       "expected": expected(exp, name, row, folder)}, f, indent=1)
            f.write("\n")
        print(f"{kind}: {os.path.basename(stem)} ({100 * acc:.1f}%)")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("action", choices=["list", "run", "table", "ship"])
    p.add_argument("experiment", nargs="?")
    p.add_argument("--out", default=os.path.join(ROOT, "results"))
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--only", nargs="*", help="row names")
    args = p.parse_args()
    if args.action == "list":
        for name, exp in EXPERIMENTS.items():
            runs = len(exp["rows"]) * len(exp["seeds"])
            print(f"{name}: {exp['title']} ({runs} runs)")
        return 0
    if args.experiment not in EXPERIMENTS:
        p.error(f"experiment must be one of {', '.join(EXPERIMENTS)}")
    if args.action == "run":
        run(args.experiment, args.out, args.jobs, args.only)
    elif args.action == "ship":
        ship(args.experiment, args.out)
    else:
        table(args.experiment, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
