#!/usr/bin/python3
"""Training speed of the Lattice twin: one training step (forward, backward, Adam) of the
char_lm token model of examples/sweeps/lattice_lm.json (2 layers, d_model 128, 4 heads,
m = d = 32, conv 4, d_ff 256, silu), float32, one torch thread, per mode and context.

    scripts/experiments/lattice_speed.py [--contexts 256:16 1024:4] [--modes nosr delta]
        [--repeats 3] [--profile]

The recurrence runs fused (app/python/lsrl/torch/lattice.py, core/seed_models/lattice_scan.h)
unless LSRL_LATTICE_SCAN=torch is set, which keeps the per-token PyTorch loop: run the script
both ways to compare. Prints one JSON line per (context, mode) with the median step time;
--profile adds torch.autograd.profiler's table of one step. Needs Debian's python3-torch and
the lsrl package on PYTHONPATH (<build>/python).
"""

import argparse
import json
import os
import statistics
import time

import torch

import lsrl.torch as lt

BASE = {
    "input": "tokens",
    "d_in": 97,
    "d_model": 128,
    "layers": 2,
    "heads": 4,
    "d": 32,
    "m": 32,
    "conv": 4,
    "d_ff": 256,
    "activation": "silu",
    "init": "random_orthonormal",
}
MODES = {  # the rows of examples/sweeps/lattice_lm.json
    "nosr": {"mode": "nosr", "variant": "dec", "s0": "fixed"},
    "delta": {"mode": "delta", "qk_norm": "l2"},
    "gated_deltanet": {"mode": "gated_deltanet", "mu_mode": "sigmoid", "qk_norm": "l2"},
    "linear_attention": {"mode": "linear_attention"},
}


def train_step(model, optimiser, x, y):
    out = model(x)
    loss = torch.nn.functional.cross_entropy(out.reshape(-1, out.shape[-1]), y.reshape(-1))
    optimiser.zero_grad()
    loss.backward()
    optimiser.step()


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--contexts", nargs="+", default=["256:16", "1024:4"],
                   help="context:batch pairs")
    p.add_argument("--modes", nargs="+", default=list(MODES), choices=list(MODES))
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--profile", action="store_true")
    args = p.parse_args()
    torch.set_num_threads(1)
    torch.manual_seed(0)
    path = os.environ.get("LSRL_LATTICE_SCAN", "") or "fused"
    for spec in args.contexts:
        T, batch = (int(s) for s in spec.split(":"))
        x = torch.nn.functional.one_hot(torch.randint(0, 97, (batch, T)), 97).float()
        y = torch.randint(0, 97, (batch, T))
        for mode in args.modes:
            model = lt.make_model("lattice", {**BASE, **MODES[mode], "lm_context": T},
                                  torch.float32)
            optimiser = torch.optim.Adam(model.parameters(), lr=1e-3)
            train_step(model, optimiser, x, y)  # warm-up
            times = []
            for _ in range(args.repeats):
                start = time.perf_counter()
                train_step(model, optimiser, x, y)
                times.append(time.perf_counter() - start)
            print(json.dumps({"T": T, "batch": batch, "mode": mode, "path": path,
                              "step_s": round(statistics.median(times), 3)}), flush=True)
            if args.profile:
                with torch.autograd.profiler.profile() as prof:
                    train_step(model, optimiser, x, y)
                print(prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=12),
                      flush=True)


if __name__ == "__main__":
    main()
