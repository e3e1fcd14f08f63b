"""Training a seed model's twin on one of its scored tasks (docs/models.md, "Training").

    /usr/bin/python3 -m lsrl.torch.train mingru --task selective_copy --steps 2000 \
        --set layers=3 --seed 1 -o mingru.safetensors

``lsrl train`` runs this with the right interpreter and PYTHONPATH. It prints one JSON
line after the first step and per log interval ({"step", "loss", "accuracy",
"tokens_per_s", "eta_s", ...}) and writes the same lines to the log beside the checkpoint
(W.log.jsonl). With --progress it also prints {"event": "progress", "step", "elapsed_s",
"eta_s"} after every step and {"event": "evaluating", "samples"} before the held-out
score (stdout only: the explorer's progress bar). Ctrl-C (or SIGTERM)
saves a checkpoint of the step reached and exits with 130. Adam with gradient-norm
clipping, warm-up then cosine decay; CPU. The seed fixes the initialisation (the C++
seeded init of config seed = --seed unless the config sets one), the batches and so the
whole curve.

Data: batch i draws task samples (i·batch + j) + (seed + 1)·2^32 from the C++ generators;
the held-out score at the end uses samples 0 … eval_samples − 1, which is what
``lsrl model eval --seed 0 --samples N`` scores.
"""

import argparse
import json
import math
import os
import signal
import sys
import time

import torch
import torch.nn.functional as F

from . import full_config, load_checkpoint, make_model, save_checkpoint, scored_tasks, task_batch

TRAIN_SEED_STRIDE = 1 << 32


def parse_args(argv):
    p = argparse.ArgumentParser(prog="lsrl train", description=__doc__.split("\n\n")[0])
    p.add_argument("model", help="mingru, minlstm, gateloop, lattice or looped")
    p.add_argument("--task", help="a scored task (default: the model's first)")
    p.add_argument("--config", help="model config JSON file (sizes, mode, task sizes)")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                   help="one config entry, VALUE as JSON (repeatable; over --config)")
    p.add_argument("--init", help="start from this checkpoint (its config; --set ignored)")
    p.add_argument("--steps", type=int, default=2000)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--batch", type=int, default=32)
    p.add_argument("--lr", type=float, default=3e-3)
    p.add_argument("--clip", type=float, default=1.0, help="gradient-norm clip")
    p.add_argument("--warmup", type=int, default=100, help="steps of linear warm-up")
    p.add_argument("--weight-decay", type=float, default=0.0)
    p.add_argument("--log-every", type=int, default=50)
    p.add_argument("--progress", action="store_true",
                   help="print a progress record after every step (not logged)")
    p.add_argument("--eval-samples", type=int, default=500, help="held-out score at the end")
    p.add_argument("--threads", type=int, default=0, help="torch threads (0: torch's default)")
    p.add_argument("--dtype", choices=["float32", "float64"], default="float32")
    p.add_argument("--time-limit", type=float, default=0, help="stop after this many seconds")
    p.add_argument("-o", "--out", required=True, help="checkpoint (.safetensors)")
    p.add_argument("--log", help="log file (default: OUT without .safetensors + .log.jsonl)")
    args = p.parse_args(argv)
    for name in ("steps", "batch", "log_every"):
        if getattr(args, name) < 1:
            p.error(f"--{name.replace('_', '-')} must be at least 1")
    if args.eval_samples < 0:
        p.error("--eval-samples must be at least 0")
    return args


def read_config(args):
    config = {}
    if args.config:
        with open(args.config, encoding="utf-8") as f:
            config = json.load(f)
        if not isinstance(config, dict):
            raise SystemExit(f"{args.config}: a model config is a JSON object")
    for entry in args.set:
        key, sep, value = entry.partition("=")
        if not sep:
            raise SystemExit(f"--set {entry}: expected KEY=VALUE")
        try:
            config[key] = json.loads(value)
        except json.JSONDecodeError:
            config[key] = value  # a bare word: a name such as a mode
    config.setdefault("seed", args.seed)
    return config


def log_path(args):
    if args.log:
        return args.log
    base = args.out[: -len(".safetensors")] if args.out.endswith(".safetensors") else args.out
    return base + ".log.jsonl"


def learning_rate(args, step):
    if step < args.warmup:
        return args.lr * (step + 1) / args.warmup
    progress = (step - args.warmup) / max(1, args.steps - args.warmup)
    return args.lr * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * min(1.0, progress))))


def masked_loss(logits, y):
    mask = y >= 0
    picked = logits[mask]
    target = y[mask]
    loss = F.cross_entropy(picked, target)
    right = (picked.argmax(-1) == target).sum().item()
    return loss, right, int(mask.sum().item())


@torch.no_grad()
def held_out_accuracy(model, task, samples, chunk=250):
    """Fraction of target tokens right over samples 0 … samples − 1 (float64, as lsrl
    model eval scores them)."""
    right = total = 0
    original = next(model.parameters()).dtype
    model.to(torch.float64)
    for start in range(0, samples, chunk):
        x, y = task_batch(model, task, start, min(chunk, samples - start), torch.float64)
        logits = model(x)
        mask = y >= 0
        right += (logits[mask].argmax(-1) == y[mask]).sum().item()
        total += int(mask.sum().item())
    model.to(original)
    return right / total if total else 0.0


class Stop(Exception):
    pass


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    if args.threads > 0:
        torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    dtype = torch.float32 if args.dtype == "float32" else torch.float64
    if args.init:
        model, meta = load_checkpoint(args.init, dtype)
        kind = meta["model"]
        if kind != args.model:
            raise SystemExit(f"{args.init} holds a {kind} model, not {args.model}")
    else:
        model = make_model(args.model, full_config(args.model, read_config(args)), dtype)
    tasks = scored_tasks(model.kind, model.config)
    task = args.task or (tasks[0] if tasks else None)
    if task not in tasks:
        raise SystemExit(f"{model.kind}: task {task!r} has no targets to train on with this "
                         f"config (scored tasks: {', '.join(tasks) or 'none'})")

    def interrupt(signum, frame):
        raise KeyboardInterrupt

    # Both explicitly: a process started with SIGINT ignored (anything launched in the
    # background of a shell, and what it starts: the explorer's Train… dialog) keeps it
    # ignored, and Python then installs no KeyboardInterrupt of its own.
    signal.signal(signal.SIGINT, interrupt)
    signal.signal(signal.SIGTERM, interrupt)
    optimiser = torch.optim.Adam(model.parameters(), lr=args.lr, weight_decay=args.weight_decay)
    log = open(log_path(args), "w", encoding="utf-8")

    def emit(record):
        line = json.dumps(record)
        print(line, flush=True)
        log.write(line + "\n")
        log.flush()

    emit({"event": "start", "model": model.kind, "task": task, "config": model.config,
          "steps": args.steps, "seed": args.seed, "batch": args.batch, "lr": args.lr,
          "clip": args.clip, "dtype": args.dtype, "threads": torch.get_num_threads(),
          **({"init": args.init} if args.init else {})})
    base = (args.seed + 1) * TRAIN_SEED_STRIDE
    start = time.monotonic()
    window = {"loss": 0.0, "right": 0, "total": 0, "tokens": 0, "steps": 0, "t0": start}
    step = completed = 0
    interrupted = False
    try:
        for step in range(args.steps):
            if args.time_limit and time.monotonic() - start > args.time_limit:
                raise Stop
            for group in optimiser.param_groups:
                group["lr"] = learning_rate(args, step)
            x, y = task_batch(model, task, base + step * args.batch, args.batch, dtype)
            loss, right, total = masked_loss(model(x), y)
            optimiser.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), args.clip)
            optimiser.step()
            completed += 1
            window["loss"] += loss.item()
            window["right"] += right
            window["total"] += total
            window["tokens"] += x.shape[0] * x.shape[1]
            window["steps"] += 1
            now = time.monotonic()
            per_step = (now - start) / (step + 1)
            # The first step too: a curve (and, fine-tuning, the loaded weights' loss) shows
            # at once instead of after a whole interval.
            if step == 0 or (step + 1) % args.log_every == 0 or step + 1 == args.steps:
                emit({"step": step + 1, "loss": window["loss"] / window["steps"],
                      "accuracy": window["right"] / max(1, window["total"]),
                      "tokens_per_s": window["tokens"] / max(1e-9, now - window["t0"]),
                      "lr": learning_rate(args, step),
                      "elapsed_s": now - start, "eta_s": per_step * (args.steps - step - 1)})
                window = {"loss": 0.0, "right": 0, "total": 0, "tokens": 0, "steps": 0,
                          "t0": now}
            elif args.progress:
                print(json.dumps({"event": "progress", "step": step + 1,
                                  "elapsed_s": now - start,
                                  "eta_s": per_step * (args.steps - step - 1)}), flush=True)
    except KeyboardInterrupt:
        interrupted = True
    except Stop:
        pass
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the checkpoint is written whatever comes
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    wall = time.monotonic() - start
    training = {"steps": completed, "steps_planned": args.steps, "seed": args.seed,
                "batch": args.batch, "lr": args.lr, "clip": args.clip, "dtype": args.dtype,
                "wall_s": round(wall, 2), "interrupted": interrupted,
                "command": "lsrl train " + " ".join(sys.argv[1:] if argv is None else argv)}
    if args.init:
        training["init"] = args.init  # fine-tuned from these weights
    if not interrupted and args.eval_samples > 0:
        if args.progress:
            print(json.dumps({"event": "evaluating", "samples": args.eval_samples}), flush=True)
        training["eval_accuracy"] = held_out_accuracy(model, task, args.eval_samples)
        training["eval_samples"] = args.eval_samples
        training["eval_seed"] = 0
    save_checkpoint(model, args.out, task=task, training=training)
    emit({"event": "interrupted" if interrupted else "done", "checkpoint": args.out,
          **{k: training[k] for k in ("steps", "wall_s", "eval_accuracy") if k in training}})
    log.close()
    return 130 if interrupted else 0


if __name__ == "__main__":
    sys.exit(main())
