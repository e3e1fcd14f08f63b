#!/usr/bin/python3
"""Compiled programs as priors (issue 42): training a compiled LSRL program on a task it
nearly solves, against training the same network from a random init.

    scripts/experiments/priors.py list
    scripts/experiments/priors.py run [--out DIR] [--only NAME ...] [--seeds 0,1,2]
                                      [--init program,random] [--jobs 1] [--force]
                                      [--steps N]
    scripts/experiments/priors.py table [--out DIR] [--only NAME ...]
    scripts/experiments/priors.py basin [--out DIR] [--only NAME ...]

Per experiment (a program, a task it nearly solves, a target), per init and per seed,
`run` builds the module with lsrl.torch.from_compiled (precision fp32: the program's
constants fitted to its declared domain, every tensor float32), for the random init
re-draws every tensor of that same module (see `randomize`), then trains it with Adam on
freshly drawn task batches (MSE between the output and the answer token at the answer
positions), evaluating on a fixed held-out set at step 0 and every `eval_every` steps
(accuracy: the fraction of samples whose rounded output is the answer at every answer
position). It writes DIR/<experiment>/<init>-s<seed>.json (curve, steps to 95%, final
accuracy, wall time, the command) and skips runs whose record exists (--force: redo).
`table` prints the markdown tables of docs/results.md ("Compiled programs as priors").
`basin` prints, per experiment, how much of the untrained program survives Gaussian noise
of size ε on every parameter, and which tensors the loss's gradient reaches at step 0.
The program files are built with the CLI into DIR/programs/.

Default DIR: build/priors-results. Needs Debian's python3-torch, the lsrl package on
PYTHONPATH (<build>/python) and the `lsrl` binary ($LSRL_CLI, else
build/release/app/cli/lsrl). One torch thread per run; --jobs N runs N at once.
"""

import argparse
import concurrent.futures
import json
import math
import os
import statistics
import subprocess
import sys
import time

import numpy as np
import torch

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.relpath(os.path.abspath(__file__), ROOT)

# ---- the experiments -----------------------------------------------------------------------

# more_ones answers at every step whether more ones than zeros have been seen so far; the
# task asks the same of the last K tokens only. Hawk's causal conv spans the whole horizon
# (T taps), and more_ones compiles its counters into it (every tap 1): the window is the
# same conv with the taps older than K set to 0.
_WINDOW = {"k": 8, "length": 24}

# tok2tok (L = 3, direct conditionals): the query, then K key/value pairs; the value stored
# under the query comes out at the last L steps. The task adds uniform noise in ±sigma to
# every prompt token (query, keys, values) and still asks for the clean value.
_TOK = {"keys": 4, "L": 3, "vocab": 10}

EXPERIMENTS = {
    "window": {
        "title": "more_ones → more ones than zeros among the last 8 of 24 tokens",
        "program": ("more_ones", {}),
        "task": dict(kind="window_majority", **_WINDOW),
        "target": "hawk", "options": {"horizon": _WINDOW["length"]},
        "steps": 1500, "batch": 32, "lr": 3e-3, "eval_every": 100, "seeds": list(range(10)),
    },
    "window-linear": {
        "title": "the same task on linear-rnn (2 counters: no window to find)",
        "program": ("more_ones", {}),
        "task": dict(kind="window_majority", **_WINDOW),
        "target": "linear-rnn", "options": {},
        "steps": 1500, "batch": 32, "lr": 3e-3, "eval_every": 100, "seeds": list(range(10)),
    },
    "noisy": {
        "title": "tok2tok → the same lookup, every token + uniform noise in ±0.3",
        "program": ("tok2tok", {"L": _TOK["L"], "conditional": "direct"}),
        "task": dict(kind="tok2tok_noisy", sigma=0.3, **_TOK),
        "target": "linear-rnn", "options": {},
        "steps": 2000, "batch": 32, "lr": 1e-3, "eval_every": 100,
    },
    "noisy-mult": {
        "title": "the same, tok2tok built with multiplicative_optimized conditionals",
        "program": ("tok2tok", {"L": _TOK["L"], "conditional": "multiplicative_optimized"}),
        "task": dict(kind="tok2tok_noisy", sigma=0.3, **_TOK),
        "target": "gated-linear-rnn", "options": {},
        "steps": 2000, "batch": 32, "lr": 1e-3, "eval_every": 100,
    },
    "shift": {
        "title": "tok2tok → the stored value with every token shifted +1 mod 10",
        "program": ("tok2tok", {"L": _TOK["L"], "conditional": "direct"}),
        "task": dict(kind="tok2tok_shift", **_TOK),
        "target": "linear-rnn", "options": {},
        "steps": 2000, "batch": 32, "lr": 1e-3, "eval_every": 100,
    },
}

EVAL_SAMPLES = 500
INITS = ("program", "random")


# ---- the tasks -----------------------------------------------------------------------------


class WindowMajority:
    """Bits, uniform; the answer at step t ≥ K − 1 (0-based, once the window is full) is 1
    when the last K tokens hold more ones than zeros (strictly, as more_ones: a tie is 0)."""

    def __init__(self, k, length, **_):
        self.k, self.length = k, length
        self.positions = np.arange(k - 1, length)

    def draw(self, rng, count):
        x = rng.integers(0, 2, size=(count, self.length)).astype(np.float64)
        window = np.stack([x[:, t - self.k + 1:t + 1].sum(1) for t in self.positions], 1)
        return x[:, :, None], (2 * window > self.k).astype(np.float64)


class Tok2tok:
    """tok2tok prompts of K keys and values of L tokens from 0..V−1 (lsrl._lsrl's
    random_dictionary, seeded from `rng`); the answer sits at the last L steps."""

    def __init__(self, keys, L, vocab, **_):
        import lsrl
        self._lsrl = lsrl._lsrl
        self.keys, self.L, self.vocab = keys, L, vocab
        self.length = L + 2 * L * keys
        self.positions = np.arange(self.length - L, self.length)

    def prompts(self, seeds):
        x, answer = [], []
        for s in seeds:
            d, q = self._lsrl.random_dictionary(self.keys, self.L, self.vocab, int(s))
            x.append([float(t[0]) for t in self._lsrl.tok2tok_input(d, q, self.L).tolist()])
            answer.append(self._lsrl.tok2tok_expected(d, q, self.L))
        return np.array(x, dtype=np.float64)[:, :, None], np.array(answer, dtype=np.float64)

    def draw(self, rng, count):
        # dictionary seeds from 10^6 up: the held-out set's seeds are below 10^6
        return self.transform(rng, *self.prompts(rng.integers(10**6, 2**31 - 1, count)))

    def transform(self, rng, x, answer):
        return x, answer


class Tok2tokNoisy(Tok2tok):
    def __init__(self, sigma, **kw):
        super().__init__(**kw)
        self.sigma = sigma

    def transform(self, rng, x, answer):
        return x + rng.uniform(-self.sigma, self.sigma, size=x.shape), answer


class Tok2tokShift(Tok2tok):
    def transform(self, rng, x, answer):
        return x, (answer + 1) % self.vocab


def make_task(spec):
    kinds = {"window_majority": WindowMajority, "tok2tok_noisy": Tok2tokNoisy,
             "tok2tok_shift": Tok2tokShift}
    return kinds[spec["kind"]](**{k: v for k, v in spec.items() if k != "kind"})


def held_out(task, count):
    """The fixed evaluation set: the same for every run (its own seed stream; tok2tok
    dictionaries from seeds 0..count−1, which training never draws)."""
    rng = np.random.default_rng([4242, 0])
    if isinstance(task, Tok2tok):
        return task.transform(rng, *task.prompts(range(count)))
    return task.draw(rng, count)


# ---- the module ----------------------------------------------------------------------------


def cli():
    return os.environ.get("LSRL_CLI") or os.path.join(ROOT, "build", "release", "app", "cli",
                                                      "lsrl")


def program_file(out, name, params):
    folder = os.path.join(out, "programs")
    os.makedirs(folder, exist_ok=True)
    stem = name + "".join(f"-{k}{v}" for k, v in sorted(params.items()))
    path = os.path.join(folder, stem + ".json")
    if not os.path.exists(path):
        sets = [a for k, v in sorted(params.items()) for a in ("--set", f"{k}={v}")]
        subprocess.run([cli(), "program", name, *sets, "-o", path], check=True,
                       capture_output=True)
    return path


def build(exp, out):
    import lsrl.torch as lt
    path = program_file(out, *exp["program"])
    return lt.from_compiled(path, target=exp["target"], precision="fp32", **exp["options"])


def randomize(net, generator):
    """Re-draws every parameter of `net` in place, as PyTorch's defaults would for layers of
    these shapes: a weight (≥ 2 dims) uniform in ±1/√fan_in (fan_in: its size over the
    first dim, as nn.Linear, nn.Conv1d); a bias uniform in ±1/√fan_in of its weight (.bias ↔
    .weight, nn.RNN's bias_ih/hh ↔ weight_ih/hh, the normal form's state.bias ↔ state.B);
    initial states (s0, h0, c0) zero; hawk's rg_lru.a_param as Griffin draws it: a^c
    uniform in [0.9, 0.999] (c = lru_c), so the decays start near 1."""
    params = dict(net.named_parameters())

    def uniform(p, bound):
        p.copy_(torch.empty(p.shape, dtype=torch.float64).uniform_(-bound, bound,
                                                                   generator=generator))

    with torch.no_grad():
        for name, p in params.items():
            leaf = name.rsplit(".", 1)[-1]
            if p.dim() >= 2:
                uniform(p, 1 / math.sqrt(p[0].numel()))
            elif leaf in ("s0", "h0", "c0"):
                p.zero_()
            elif leaf == "a_param":
                c = float(net.metadata["lru_c"])
                u = torch.empty(p.shape, dtype=torch.float64).uniform_(0.9, 0.999,
                                                                       generator=generator)
                p.copy_(u ** (1 / c))
            else:
                stem = name[:-len(leaf)]
                partner = {"bias": "weight", "bias_ih_l0": "weight_ih_l0",
                           "bias_hh_l0": "weight_hh_l0"}.get(leaf, leaf.replace("bias", "weight"))
                weight = params.get(stem + partner)
                if weight is None and name.endswith("state.bias"):
                    weight = params.get(stem + "B")
                if weight is None:
                    p.zero_()
                else:
                    uniform(p, 1 / math.sqrt(weight[0].numel()))


# ---- training ------------------------------------------------------------------------------


def accuracy(net, task, x, answer, chunk=250):
    """(sample accuracy, token accuracy): rint(output) == answer at every answer position."""
    right = []
    with torch.no_grad():
        for i in range(0, len(x), chunk):
            y, _ = net(torch.from_numpy(x[i:i + chunk]).float())
            got = np.rint(y[:, task.positions, 0].double().numpy())
            right.append(got == answer[i:i + chunk])
    right = np.concatenate(right)
    return float(np.mean(np.all(right, 1))), float(np.mean(right))


def train_one(name, init, seed, out):
    exp = EXPERIMENTS[name]
    torch.set_num_threads(1)
    torch.manual_seed(seed)
    start = time.monotonic()
    task = make_task(exp["task"])
    net = build(exp, out)
    if init == "random":
        randomize(net, torch.Generator().manual_seed(1000 + seed))
    eval_x, eval_answer = held_out(task, EVAL_SAMPLES)
    rng = np.random.default_rng([seed, 1])  # the training stream, apart from the held-out
    optimiser = torch.optim.Adam(net.parameters(), lr=exp["lr"])
    positions = torch.from_numpy(task.positions)
    curve, diverged = [], None
    acc, tok = accuracy(net, task, eval_x, eval_answer)
    curve.append({"step": 0, "accuracy": acc, "token_accuracy": tok})
    window = []
    for step in range(1, exp["steps"] + 1):
        x, answer = task.draw(rng, exp["batch"])
        y, _ = net(torch.from_numpy(x).float())
        loss = torch.mean((y[:, positions, 0] - torch.from_numpy(answer).float()) ** 2)
        if not torch.isfinite(loss):
            diverged = step
            break
        optimiser.zero_grad()
        loss.backward()
        optimiser.step()
        window.append(loss.item())
        if step in (1, 10) or step % exp["eval_every"] == 0 or step == exp["steps"]:
            acc, tok = accuracy(net, task, eval_x, eval_answer)
            curve.append({"step": step, "accuracy": acc, "token_accuracy": tok,
                          "train_loss": statistics.mean(window)})
            window = []
            print(f"{name} {init} s{seed} step {step}: acc {acc:.3f} (tokens {tok:.3f}) "
                  f"loss {curve[-1]['train_loss']:.4g}", flush=True)
    reached = next((c["step"] for c in curve if c["accuracy"] >= 0.95), None)
    return {
        "experiment": name, "init": init, "seed": seed,
        "program": exp["program"][0], "program_params": exp["program"][1],
        "task": exp["task"], "target": exp["target"], "target_options": exp["options"],
        "precision": "fp32", "steps": exp["steps"], "batch": exp["batch"], "lr": exp["lr"],
        "optimizer": "Adam", "loss": "MSE at the answer positions",
        "eval_samples": EVAL_SAMPLES, "eval_every": exp["eval_every"],
        "parameters": sum(p.numel() for p in net.parameters()),
        "curve": curve, "steps_to_95": reached, "diverged_at": diverged,
        "final_accuracy": curve[-1]["accuracy"],
        "final_token_accuracy": curve[-1]["token_accuracy"],
        "wall_s": round(time.monotonic() - start, 1),
        "command": f"{SCRIPT} run --out {out} --only {name} --init {init} --seeds {seed} "
                   f"--steps {exp['steps']} --force",
        "torch": torch.__version__,
    }


def record_path(out, name, init, seed):
    return os.path.join(out, name, f"{init}-s{seed}.json")


def run_one(name, init, seed, out, force):
    path = record_path(out, name, init, seed)
    if os.path.exists(path) and not force:
        return f"{name}/{init}-s{seed}: done before"
    record = train_one(name, init, seed, out)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path + ".part", "w", encoding="utf-8") as f:
        json.dump(record, f, indent=1)
        f.write("\n")
    os.replace(path + ".part", path)
    return (f"{name}/{init}-s{seed}: {record['final_accuracy']:.3f}, 95% at "
            f"{record['steps_to_95']}, {record['wall_s']:.0f} s")


def seeds_of(name, seeds):
    return seeds if seeds is not None else EXPERIMENTS[name].get("seeds", [0, 1, 2])


def run(names, inits, seeds, out, jobs, force):
    todo = [(n, i, s) for n in names for i in inits for s in seeds_of(n, seeds)]
    if jobs <= 1:
        for n, i, s in todo:
            print(run_one(n, i, s, out, force), flush=True)
        return
    # build the program files once, before the jobs race to write them
    for n in names:
        program_file(out, *EXPERIMENTS[n]["program"])

    def child(n, i, s):
        args = [sys.executable, os.path.abspath(__file__), "run", "--out", out, "--only", n,
                "--init", i, "--seeds", str(s), "--steps", str(EXPERIMENTS[n]["steps"])] + (
                    ["--force"] if force else [])
        proc = subprocess.run(args, capture_output=True, text=True)
        if proc.returncode != 0:
            return f"{n}/{i}-s{s}: FAILED ({proc.returncode}): {proc.stderr[-800:]}"
        return proc.stdout.strip().splitlines()[-1]

    with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        for f in concurrent.futures.as_completed([pool.submit(child, *t) for t in todo]):
            print(f.result(), flush=True)


# ---- the tables ----------------------------------------------------------------------------


def _records(out, name, init):
    folder = os.path.join(out, name)
    found = []
    if os.path.isdir(folder):
        for file in sorted(os.listdir(folder)):
            if file.startswith(init + "-s") and file.endswith(".json"):
                with open(os.path.join(folder, file), encoding="utf-8") as f:
                    found.append(json.load(f))
    return sorted(found, key=lambda r: r["seed"])


def _mean_std(values):
    values = [100 * v for v in values]
    std = statistics.stdev(values) if len(values) > 1 else 0.0
    return f"{statistics.mean(values):.1f} ± {std:.1f}"


def table(names, out):
    """The summary table (mean ± std over seeds, in %), then per experiment its curves."""
    print("| experiment | init | seeds | step 0 (tokens) | step 1 | ¼ of the steps | "
          "½ | final (tokens) | steps to 95%, per seed | wall per run |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    found = []
    for name in names:
        exp = EXPERIMENTS[name]
        for init in INITS:
            recs = _records(out, name, init)
            if not recs:
                print(f"| {name} | {init} | | (not run) | | | | | | |")
                continue
            found.append((name, init, recs))

            def at(s):
                return _mean_std([next(c["accuracy"] for c in r["curve"] if c["step"] >= s)
                                  for r in recs])

            first = _mean_std([r["curve"][0]["token_accuracy"] for r in recs])
            final = _mean_std([r["final_accuracy"] for r in recs])
            final_tok = _mean_std([r["final_token_accuracy"] for r in recs])
            reached = " / ".join(str(r["steps_to_95"]) if r["steps_to_95"] is not None
                                 else "–" for r in recs)
            hit = sum(r["steps_to_95"] is not None for r in recs)
            diverged = [f"s{r['seed']} at {r['diverged_at']}" for r in recs if r.get("diverged_at")]
            if diverged:
                reached += " (non-finite loss: " + ", ".join(diverged) + ")"
            wall = statistics.mean(r["wall_s"] for r in recs) / 60
            print(f"| {name} | {init} | {len(recs)} | {at(0)} ({first}) | {at(1)} | "
                  f"{at(exp['steps'] // 4)} | {at(exp['steps'] // 2)} | {final} ({final_tok}) | "
                  f"{hit}/{len(recs)}: {reached} | {wall:.1f} min |")
    for name in names:
        rows = [(i, r) for n, i, r in found if n == name]
        if not rows:
            continue
        exp = EXPERIMENTS[name]
        shown = [0, 1, 10] + list(range(2 * exp["eval_every"], exp["steps"] + 1,
                                        2 * exp["eval_every"]))
        if shown[-1] != exp["steps"]:
            shown.append(exp["steps"])
        print(f"\n**{name}** ({exp['target']}, {rows[0][1][0]['parameters']:,} parameters): "
              f"{exp['title']}. Held-out accuracy (%), mean over the seeds, by step:\n")
        print("| init | " + " | ".join(str(s) for s in shown) + " |")
        print("|---|" + "---|" * len(shown))
        for init, recs in rows:
            cells = []
            for s in shown:
                accs = [c["accuracy"] for r in recs for c in r["curve"] if c["step"] == s]
                cells.append(f"{100 * statistics.mean(accs):.1f}" if accs else "")
            print(f"| {init} | " + " | ".join(cells) + " |")


# ---- how wide the program's basin is -------------------------------------------------------

NOISE = (1e-8, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2)


def basin(names, out, draws=3):
    """Per experiment's untrained program module: the fraction of held-out samples (200)
    on which it still gives its own answers (rint at every answer position) after adding
    N(0, eps²) to every parameter, mean over `draws` draws; and the gradient at step 0:
    the tensors the loss reaches (non-zero gradient) and the largest gradient entry."""
    torch.set_num_threads(1)
    print("| experiment | target | tensors with a gradient at step 0 | largest gradient | "
          + " | ".join(f"ε = {e:g}" for e in NOISE) + " |")
    print("|---|---|---|---|" + "---|" * len(NOISE))
    for name in names:
        exp = EXPERIMENTS[name]
        task = make_task(exp["task"])
        net = build(exp, out)
        x, answer = held_out(task, 200)
        xt = torch.from_numpy(x).float()
        with torch.no_grad():
            own = np.rint(net(xt)[0][:, task.positions, 0].double().numpy())
        bx, banswer = task.draw(np.random.default_rng([7, 7]), 256)
        y, _ = net(torch.from_numpy(bx).float())
        loss = torch.mean((y[:, torch.from_numpy(task.positions), 0]
                           - torch.from_numpy(banswer).float()) ** 2)
        loss.backward()
        grads = [p.grad.abs().max().item() for p in net.parameters()]
        base = {n: p.detach().clone() for n, p in net.named_parameters()}
        gen = torch.Generator().manual_seed(0)
        cells = []
        for eps in NOISE:
            kept = []
            for _ in range(draws):
                with torch.no_grad():
                    for n, p in net.named_parameters():
                        p.copy_(base[n] + eps * torch.randn(p.shape, generator=gen))
                    got = np.rint(net(xt)[0][:, task.positions, 0].double().numpy())
                kept.append(np.mean(np.all(got == own, 1)))
            cells.append(f"{100 * statistics.mean(kept):.0f}")
        print(f"| {name} | {exp['target']} | {sum(g > 0 for g in grads)} / {len(grads)} | "
              f"{max(grads):.3g} | " + " | ".join(cells) + " |")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("action", choices=["list", "run", "table", "basin"])
    p.add_argument("--out", default=os.path.join(ROOT, "build", "priors-results"))
    p.add_argument("--only", nargs="*", help="experiment names (default: all)")
    p.add_argument("--seeds", help="e.g. 0,1,2 (default: the experiment's, 0–9 for the "
                   "more_ones ones, 0–2 for tok2tok)")
    p.add_argument("--init", default=",".join(INITS))
    p.add_argument("--jobs", type=int, default=1)
    p.add_argument("--force", action="store_true", help="redo runs whose record exists")
    p.add_argument("--steps", type=int, help="train this many steps instead of the experiment's "
                   "(a smoke run; the tests use it)")
    args = p.parse_args()
    names = args.only or list(EXPERIMENTS)
    for n in names:
        if n not in EXPERIMENTS:
            p.error(f"experiment must be one of {', '.join(EXPERIMENTS)}")
    if args.steps is not None:
        if args.steps < 1:
            p.error("--steps must be at least 1")
        for n in names:
            EXPERIMENTS[n]["steps"] = args.steps
            EXPERIMENTS[n]["eval_every"] = min(EXPERIMENTS[n]["eval_every"], args.steps)
    if args.action == "list":
        for n in names:
            e = EXPERIMENTS[n]
            print(f"{n}: {e['title']} (target {e['target']}, {e['steps']} steps)")
    elif args.action == "run":
        inits = args.init.split(",")
        if any(i not in INITS for i in inits):
            p.error("--init: program and/or random")
        seeds = [int(s) for s in args.seeds.split(",")] if args.seeds else None
        run(names, inits, seeds, os.path.abspath(args.out), args.jobs, args.force)
    elif args.action == "basin":
        basin(names, os.path.abspath(args.out))
    else:
        table(names, os.path.abspath(args.out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
