#!/usr/bin/python3
"""Do a trained Lattice token model's slots specialise? (docs/models.md, "In the explorer")

    PYTHONPATH=build/release/python scripts/experiments/lattice_slots.py CHECKPOINT [--samples 50]

For a checkpoint trained on `mqar`, runs the PyTorch twin with its trace on held-out samples
0 … N−1 and, beside the same config with random weights (the config's seed), prints one JSON
line per model and head of layer 0:
- `top_ratio`: at each write (the value token of a [key, value] pair), the largest |α| over
  the slots divided by the second largest, averaged: 1 when every slot is written alike,
  large when one slot takes the write;
- `key_slot_agreement`: for each key written twice or more in a sample, the fraction of its
  writes whose most-written slot is the key's most frequent one, averaged over keys (1: a
  key always goes to the same slot; about 1/m + what repeats give by chance otherwise);
- `cos_start`, `cos_end`: mean |cos| between distinct slots before the first and after the
  last token (0: orthogonal slots).
"""

import argparse
import collections
import json
import statistics
import sys

import torch

import lsrl.torch as lt


def writes(tokens, keys, query):
    """(value position, key) of every write [key, value]: a key token not after QUERY."""
    out = []
    for t in range(len(tokens) - 1):
        if tokens[t] < keys and (t == 0 or tokens[t - 1] != query):
            out.append((t + 1, tokens[t]))
    return out


def mean_abs_cos(slots):
    unit = slots / slots.norm(dim=-1, keepdim=True).clamp_min(1e-300)
    cos = (unit @ unit.T).abs()
    m = cos.shape[0]
    return ((cos.sum() - cos.diagonal().sum()) / (m * (m - 1))).item() if m > 1 else 0.0


def measure(model, samples):
    cfg = model.config
    keys, values = cfg["mqar_keys"], cfg["mqar_values"]
    query = keys + values
    per_head = collections.defaultdict(lambda: {"ratio": [], "agree": [], "c0": [], "c1": []})
    for seed in range(samples):
        x, _ = lt.task_batch(model, "mqar", seed, 1, torch.float64)
        trace = {}
        with torch.no_grad():
            model(x, trace=trace)
        tokens = x[0].argmax(-1).tolist()
        events = writes(tokens, keys, query)
        for h in range(cfg["heads"]):
            p = "" if h == 0 else f"head{h}/"
            alpha = trace[p + "write_strength"][0].abs()  # [T, m]
            slots = trace[p + "slots"][0]
            stats = per_head[h]
            by_key = collections.defaultdict(list)
            for t, key in events:
                top = torch.topk(alpha[t], 2).values
                stats["ratio"].append((top[0] / top[1].clamp_min(1e-300)).item())
                by_key[key].append(int(alpha[t].argmax()))
            for chosen in by_key.values():
                if len(chosen) >= 2:
                    modal = collections.Counter(chosen).most_common(1)[0][1]
                    stats["agree"].append(modal / len(chosen))
            stats["c0"].append(mean_abs_cos(trace[p + "slots_initial"][0]))
            stats["c1"].append(mean_abs_cos(slots[-1]))
    return {h: {"top_ratio": round(statistics.mean(s["ratio"]), 3),
                "key_slot_agreement": round(statistics.mean(s["agree"]), 3),
                "cos_start": round(statistics.mean(s["c0"]), 3),
                "cos_end": round(statistics.mean(s["c1"]), 3)} for h, s in per_head.items()}


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("checkpoint")
    p.add_argument("--samples", type=int, default=50)
    args = p.parse_args()
    trained, meta = lt.load_checkpoint(args.checkpoint)
    if meta.get("task") != "mqar":
        sys.exit(f"{args.checkpoint}: trained on {meta.get('task')!r}, not mqar")
    torch.manual_seed(trained.config.get("seed", 0))
    random = lt.make_model("lattice", trained.config)
    for name, model in (("trained", trained), ("random", random)):
        for head, figures in measure(model, args.samples).items():
            print(json.dumps({"model": name, "head": head, **figures}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
