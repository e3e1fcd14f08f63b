#!/usr/bin/python3
"""minGRU paper, training speed: one training step (forward + backward) of a minGRU layer
stack computed with the parallel scan, against the same model stepped sequentially and
against a traditional GRU (torch.nn.GRU), on this CPU. The paper reports 175× for minGRU
against a GRU at T = 512 on a GPU.

    scripts/experiments/speed.py [--lengths 64 256 512 1024] [--threads 2] [--repeats 5]

Prints one JSON line per (T, model) with the median step time, then a markdown table of
the ratios (GRU time / minGRU time, same T, same run). Needs Debian's python3-torch and
the lsrl package on PYTHONPATH (<build>/python).
"""

import argparse
import json
import statistics
import sys
import time

import torch

import lsrl.torch as lt


def step_time(model, x, y, repeats):
    optimiser = torch.optim.Adam(model.parameters(), lr=1e-3)
    times = []
    for i in range(repeats + 1):  # the first is a warm-up
        start = time.perf_counter()
        out = model(x)
        loss = torch.nn.functional.cross_entropy(out.reshape(-1, out.shape[-1]), y.reshape(-1))
        optimiser.zero_grad()
        loss.backward()
        optimiser.step()
        if i:
            times.append(time.perf_counter() - start)
    return statistics.median(times)


class GruBaseline(torch.nn.Module):
    """Embedding, a stacked torch.nn.GRU of the same width, the same read-out."""

    def __init__(self, vocabulary, d_model, d_h, layers, d_out):
        super().__init__()
        self.embed = torch.nn.Linear(vocabulary, d_model, bias=False)
        self.gru = torch.nn.GRU(d_model, d_h, num_layers=layers, batch_first=True)
        self.head = torch.nn.Linear(d_h, d_out)

    def forward(self, x):
        return self.head(self.gru(self.embed(x))[0])


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--lengths", type=int, nargs="+", default=[64, 256, 512, 1024])
    p.add_argument("--batch", type=int, default=16)
    p.add_argument("--d", type=int, default=64, help="d_model = d_h")
    p.add_argument("--layers", type=int, default=3)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--repeats", type=int, default=5)
    args = p.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    rows = {}
    for T in args.lengths:
        base = {"d_model": args.d, "d_h": args.d, "layers": args.layers,
                "task_length": T, "data_tokens": 0}
        x = torch.nn.functional.one_hot(torch.randint(0, 16, (args.batch, T)), 16).float()
        y = torch.randint(0, 16, (args.batch, T))
        for name, mode in (("mingru_parallel", "parallel"), ("mingru_log_space", "log_space"),
                           ("mingru_sequential", "sequential")):
            model = lt.make_model("mingru", dict(base, mode=mode), torch.float32)
            rows[(T, name)] = step_time(model, x, y, args.repeats)
        gru = GruBaseline(16, args.d, args.d, args.layers, 16)
        rows[(T, "gru")] = step_time(gru, x, y, args.repeats)
        for name in ("mingru_parallel", "mingru_log_space", "mingru_sequential", "gru"):
            print(json.dumps({"T": T, "model": name, "step_s": rows[(T, name)],
                              "batch": args.batch, "d": args.d, "layers": args.layers,
                              "threads": args.threads}), flush=True)
    print("\n| T | minGRU parallel | minGRU log-space | minGRU sequential | nn.GRU | "
          "GRU / parallel | sequential / parallel |")
    print("|---|---|---|---|---|---|---|")
    for T in args.lengths:
        par, log, seq, gru = (rows[(T, n)] for n in ("mingru_parallel", "mingru_log_space",
                                                     "mingru_sequential", "gru"))
        print(f"| {T} | {1e3 * par:.1f} ms | {1e3 * log:.1f} ms | {1e3 * seq:.1f} ms | "
              f"{1e3 * gru:.1f} ms | {gru / par:.2f}× | {seq / par:.2f}× |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
