#!/usr/bin/python3
"""How far does a trained seed model's output move when its input moves by a rounding error?

    PYTHONPATH=build/release/python scripts/experiments/sensitivity.py CHECKPOINT \
        [--task T] [--samples 4] [--first-seed 0] [--eps 1e-13]

Runs the PyTorch twin in float64 on task samples (seeds first … first+N−1 of the
checkpoint's task), scales the input by 1 + eps (for a token model, every embedding row),
and prints one JSON line per token: the largest change of any output over the samples,
and that change divided by eps (the gain). A stable recurrence keeps the gain near 1
at every token. A chaotic one multiplies it by a steady factor per token until the change
is O(1): its outputs at long contexts are not fixed by float64 arithmetic, and its
gradients through the sequence explode (docs/results.md, "Lattice's claim").
The last line is a summary: how many samples' gain passes 10^6 somewhere, the first token
where any does, and the growth per token, fitted over the tokens before the change passes
10^-3 (in the first such sample, or over the maximum when there is none).
"""

import argparse
import json
import math
import sys

import torch

import lsrl.torch as lt


def changes_of(model, x, eps):
    """[sample][token]: the largest |Δ output| over the channels when x becomes x·(1+eps)."""
    with torch.no_grad():
        a = model(x)
        b = model(x * (1 + eps))
    return (a - b).abs().amax(dim=-1).tolist()


def growth_per_token(changes, eps):
    """exp of the least-squares slope of log(change) over the tokens before it saturates
    (change < 1e-3): about 1 for a stable model, > 1 for a chaotic one."""
    points = [(t, math.log(max(c, eps * 1e-3))) for t, c in enumerate(changes) if c < 1e-3]
    if len(points) < 2:
        return None
    n = len(points)
    mt = sum(t for t, _ in points) / n
    ml = sum(v for _, v in points) / n
    var = sum((t - mt) ** 2 for t, _ in points)
    return math.exp(sum((t - mt) * (v - ml) for t, v in points) / var) if var else None


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("checkpoint")
    p.add_argument("--task", help="default: the checkpoint's training task")
    p.add_argument("--samples", type=int, default=4)
    p.add_argument("--first-seed", type=int, default=0)
    p.add_argument("--eps", type=float, default=1e-13)
    args = p.parse_args()
    if args.samples < 1 or not 0 < args.eps < 1e-3:
        sys.exit("sensitivity: --samples must be ≥ 1 and --eps in (0, 1e-3)")
    torch.set_num_threads(1)
    model, meta = lt.load_checkpoint(args.checkpoint, torch.float64)
    task = args.task or meta.get("task")
    if not task:
        sys.exit(f"{args.checkpoint}: no training task recorded: name one with --task")
    x, _ = lt.task_batch(model, task, args.first_seed, args.samples, torch.float64)
    per_sample = changes_of(model, x, args.eps)
    changes = [max(column) for column in zip(*per_sample)]
    for t, change in enumerate(changes):
        print(json.dumps({"token": t, "max_change": change, "gain": change / args.eps}))
    past = next((t for t, c in enumerate(changes) if c / args.eps > 1e6), None)
    chaotic = [s for s, row in enumerate(per_sample) if max(row) / args.eps > 1e6]
    rate = growth_per_token(per_sample[chaotic[0]] if chaotic else changes, args.eps)
    print(json.dumps({"summary": True, "task": task, "tokens": len(changes),
                      "samples": args.samples, "samples_gain_over_1e6": len(chaotic),
                      "first_token_gain_over_1e6": past,
                      "growth_per_token": None if rate is None else round(rate, 4)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
