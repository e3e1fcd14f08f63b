"""Training a seed model's twin on one of its scored tasks (docs/models.md, "Training").

    /usr/bin/python3 -m lsrl.torch.train mingru --task selective_copy --steps 2000 \
        --set layers=3 --seed 1 -o mingru.safetensors

``lsrl train`` runs this with the right interpreter and PYTHONPATH. It prints one JSON
line after the first step and per log interval ({"step", "loss", "accuracy",
"tokens_per_s", "eta_s", ...}) and writes the same lines to the log beside the checkpoint
(W.log.jsonl). With --progress it also prints {"event": "progress", "step", "elapsed_s",
"eta_s"} after every step and {"event": "evaluating", "samples"} before the held-out
score (stdout only: the explorer's progress bar). Ctrl-C (or SIGTERM)
saves a checkpoint of the step reached and exits with 130 (during the held-out score too:
the score is then skipped). A non-finite loss or gradient stops the run at once: the
weights after the last finite step are saved to OUT (written whole or not at all), a
{"event": "diverged", "step", ...} line says which step, and the exit is 1. Adam with
gradient-norm clipping, warm-up then cosine decay; CPU. The seed fixes the initialisation
(the C++ seeded init of config seed = --seed unless the config sets one), the batches and
so the whole curve.

Test hook: with LSRL_TRAIN_TEST_NAN_AT_STEP=N in the environment the loss of step N is
made NaN (tests/python/test_torch_training.py: the run stops there, keeping step N − 1).

Data: batch i draws task samples (i·batch + j) + (seed + 1)·2^32 from the C++ generators;
the held-out score at the end uses samples 0 … eval_samples − 1, which is what
``lsrl model eval --seed 0 --samples N`` scores. The "done" record then holds
eval_accuracy, eval_loss (mean cross-entropy per target token, natural log) and
eval_perplexity = exp(eval_loss) (both left out when not finite), and for a task with ages
(mqar, assoc_recall) eval_accuracy_by_age {"1-8": {"accuracy", "targets"}, ...}: the
accuracy per bin of tokens since the answer was given, the bins of lsrl model eval's
accuracy_by_age (core/seed_models/scored_tasks.h).
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

# The numeric options' ranges, (integer, lo, hi, lo excluded): the same as `lsrl train`
# checks before it starts Python (app/cli/train_arguments.cpp), checked again here for a
# direct run.
OPTION_RANGES = {
    "steps": (True, 1, 10**9, False),
    "seed": (True, 0, 2**31 - 1, False),
    "batch": (True, 1, 4096, False),
    "warmup": (True, 0, 10**9, False),
    "log_every": (True, 1, 10**9, False),
    "eval_samples": (True, 0, 10**7, False),
    "threads": (True, 1, 1024, False),
    "lr": (False, 0, 10, True),
    "clip": (False, 0, 1e6, True),
    "weight_decay": (False, 0, 10, False),
    "time_limit": (False, 0, 1e9, False),
}

NAN_AT_STEP_HOOK = "LSRL_TRAIN_TEST_NAN_AT_STEP"


def range_error(name, value):
    """None when ``value`` is in the option's range, else the reason."""
    integer, lo, hi, lo_open = OPTION_RANGES[name]
    shown = str(value)[:80]
    if integer:
        if lo <= value <= hi:
            return None
        return f"expects an integer in {lo}..{hi}, got {shown}"
    if math.isfinite(value) and (value > lo if lo_open else value >= lo) and value <= hi:
        return None
    return f"expects a finite number {'>' if lo_open else '≥'} {lo:g} and ≤ {hi:g}, got {shown}"


def parse_args(argv):
    # No abbreviations: `lsrl train` checks the options by their full names.
    p = argparse.ArgumentParser(prog="lsrl train", description=__doc__.split("\n\n")[0],
                                allow_abbrev=False)
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
    p.add_argument("--threads", type=int, help="torch threads (default: torch's)")
    p.add_argument("--dtype", choices=["float32", "float64"], default="float32")
    p.add_argument("--time-limit", type=float, default=0, help="stop after this many seconds")
    p.add_argument("-o", "--out", required=True, help="checkpoint (.safetensors)")
    p.add_argument("--log", help="log file (default: OUT without .safetensors + .log.jsonl)")
    args = p.parse_args(argv)
    for name in OPTION_RANGES:
        value = getattr(args, name)
        why = None if value is None else range_error(name, value)
        if why:
            p.error(f"--{name.replace('_', '-')} {why}")
    return args


def read_config(args):
    config = {}
    if args.config:
        try:
            with open(args.config, encoding="utf-8") as f:
                config = json.load(f)
        except OSError as e:
            raise SystemExit(f"--config {args.config}: {e.strerror}")
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


# The age bins of eval_accuracy_by_age, (first, last, name); the same as lsrl model eval's
# (ageBin in core/seed_models/scored_tasks.cpp).
AGE_BINS = [(1, 8, "1-8"), (9, 16, "9-16"), (17, 32, "17-32"), (33, 64, "33-64"),
            (65, 128, "65-128"), (129, 256, "129-256"), (257, None, ">256")]


@torch.no_grad()
def held_out_score(model, task, samples, chunk=250, stop=None):
    """The score over samples 0 … samples − 1 (float64, as lsrl model eval scores them):
    {"accuracy": fraction of target tokens right, "loss": their mean cross-entropy (inf or
    nan when not finite), "by_age": {bin: {"accuracy", "targets"}} (empty for a task
    without ages)}; None when ``stop`` was requested before the end."""
    right = total = 0
    loss = 0.0
    by_age = [[0, 0] for _ in AGE_BINS]  # right, targets
    original = next(model.parameters()).dtype
    model.to(torch.float64)
    for start in range(0, samples, chunk):
        if stop is not None and stop.requested:
            model.to(original)
            return None
        x, y, ages = task_batch(model, task, start, min(chunk, samples - start), torch.float64,
                                ages=True)
        logits = model(x)
        mask = y >= 0
        hits = logits[mask].argmax(-1) == y[mask]
        right += hits.sum().item()
        total += int(mask.sum().item())
        if hits.numel():
            loss += F.cross_entropy(logits[mask], y[mask], reduction="sum").item()
        age = ages[mask]
        for b, (first, last, _) in enumerate(AGE_BINS):
            inside = (age >= first) & (age <= last) if last else age >= first
            by_age[b][0] += hits[inside].sum().item()
            by_age[b][1] += int(inside.sum().item())
    model.to(original)
    return {"accuracy": right / total if total else 0.0,
            "loss": loss / total if total else math.nan,
            "by_age": {name: {"accuracy": r / n, "targets": n}
                       for (_, _, name), (r, n) in zip(AGE_BINS, by_age) if n}}


def held_out_figures(score):
    """The training record's eval_* entries of a held_out_score (a loss or perplexity that is
    not finite is left out: JSON has no infinity, and the checkpoint's metadata refuses
    it)."""
    figures = {"eval_accuracy": score["accuracy"]}
    if math.isfinite(score["loss"]):
        figures["eval_loss"] = score["loss"]
        perplexity = math.exp(score["loss"]) if score["loss"] < 700 else math.inf
        if math.isfinite(perplexity):
            figures["eval_perplexity"] = perplexity
    if score["by_age"]:
        figures["eval_accuracy_by_age"] = score["by_age"]
    return figures


class Diverged(Exception):
    """A step whose loss or gradient is not finite: step (1-based) and what was not."""

    def __init__(self, step, what):
        super().__init__(f"{what} at step {step}")
        self.step = step


def nan_step_from_hook():
    """The step whose loss the test hook makes NaN (0: none)."""
    text = os.environ.get(NAN_AT_STEP_HOOK, "")
    return int(text) if text.isdigit() else 0


class StopSignals:
    """Ctrl-C and SIGTERM during training and the held-out score: a flag the loops poll
    between steps (a step is never cut in half, so the checkpoint is one step's weights).
    Installed explicitly: a process started with SIGINT ignored (anything launched in the
    background of a shell, and what it starts: the explorer's Train… dialog) keeps it
    ignored, and Python then installs no KeyboardInterrupt of its own."""

    def __init__(self):
        self.requested = False
        for signum in (signal.SIGINT, signal.SIGTERM):
            signal.signal(signum, self._request)

    def _request(self, signum, frame):
        self.requested = True

    @staticmethod
    def ignore():
        for signum in (signal.SIGINT, signal.SIGTERM):
            signal.signal(signum, signal.SIG_IGN)


def build_model(args, dtype):
    """(model, task) from the arguments; a bad config, checkpoint or task is one line."""
    try:
        if args.init:
            model, meta = load_checkpoint(args.init, dtype)
            kind = meta["model"]
            if kind != args.model:
                raise SystemExit(f"{args.init} holds a {kind} model, not {args.model}")
        else:
            model = make_model(args.model, full_config(args.model, read_config(args)), dtype)
        tasks = scored_tasks(model.kind, model.config)
    except ValueError as e:  # the C++ core's errors (a bad --set, a refused checkpoint)
        raise SystemExit(f"lsrl train: error: {e}")
    task = args.task or (tasks[0] if tasks else None)
    if task not in tasks:
        raise SystemExit(f"{model.kind}: task {task!r} has no targets to train on with this "
                         f"config (scored tasks: {', '.join(tasks) or 'none'})")
    return model, task


def finite_step(model, optimiser, loss, clip, step, nan_step):
    """One optimiser step on ``loss``, or Diverged with the weights left as they were."""
    if step == nan_step:
        loss = loss * float("nan")
    if not math.isfinite(loss.item()):
        raise Diverged(step, f"the loss is {loss.item()}")
    optimiser.zero_grad()
    loss.backward()
    norm = float(torch.nn.utils.clip_grad_norm_(model.parameters(), clip))
    if not math.isfinite(norm):
        raise Diverged(step, f"the gradient norm is {norm}")
    before = torch.nn.utils.parameters_to_vector(model.parameters()).detach().clone()
    optimiser.step()
    if not all(bool(torch.isfinite(p).all()) for p in model.parameters()):
        torch.nn.utils.vector_to_parameters(before, model.parameters())
        raise Diverged(step, "a weight is not finite after the update")


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    args = parse_args(argv)
    if args.threads:
        torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    dtype = torch.float32 if args.dtype == "float32" else torch.float64
    model, task = build_model(args, dtype)
    stop = StopSignals()
    optimiser = torch.optim.Adam(model.parameters(), lr=args.lr, weight_decay=args.weight_decay)
    try:
        log = open(log_path(args), "w", encoding="utf-8")
    except OSError as e:
        raise SystemExit(f"lsrl train: error: cannot write the log {log_path(args)}: {e.strerror}")

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
    nan_step = nan_step_from_hook()
    start = time.monotonic()
    window = {"loss": 0.0, "right": 0, "total": 0, "tokens": 0, "steps": 0, "t0": start}
    completed = 0
    diverged = None
    try:
        for step in range(args.steps):
            if stop.requested or (args.time_limit and time.monotonic() - start > args.time_limit):
                break
            for group in optimiser.param_groups:
                group["lr"] = learning_rate(args, step)
            x, y = task_batch(model, task, base + step * args.batch, args.batch, dtype)
            loss, right, total = masked_loss(model(x), y)
            finite_step(model, optimiser, loss, args.clip, step + 1, nan_step)
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
    except Diverged as e:
        diverged = e
    wall = time.monotonic() - start
    training = {"steps": completed, "steps_planned": args.steps, "seed": args.seed,
                "batch": args.batch, "lr": args.lr, "clip": args.clip, "dtype": args.dtype,
                "wall_s": round(wall, 2), "interrupted": stop.requested,
                "command": "lsrl train " + " ".join(argv)}
    if args.init:
        training["init"] = args.init  # fine-tuned from these weights
    if diverged:
        training["diverged_at_step"] = diverged.step
    elif not stop.requested and args.eval_samples > 0:
        if args.progress:
            print(json.dumps({"event": "evaluating", "samples": args.eval_samples}), flush=True)
        score = held_out_score(model, task, args.eval_samples, stop=stop)
        if score is not None:
            training.update(held_out_figures(score))
            training["eval_samples"] = args.eval_samples
            training["eval_seed"] = 0
    stop.ignore()  # the checkpoint is written whatever comes
    training["interrupted"] = stop.requested
    try:
        save_checkpoint(model, args.out, task=task, training=training)
    except (OSError, ValueError) as e:
        raise SystemExit(f"lsrl train: error: cannot save the checkpoint after {completed} "
                         f"steps: {e}")
    if diverged:
        emit({"event": "diverged", "step": diverged.step, "reason": str(diverged),
              "checkpoint": args.out, "steps": completed, "wall_s": training["wall_s"]})
        log.close()
        kept = (f"the weights after step {completed}, the last finite one" if completed
                else "the weights it started from")
        sys.stderr.write(f"lsrl train: error: {diverged}: training stopped; {args.out} holds "
                         f"{kept}\n")
        return 1
    end = "interrupted" if stop.requested else "done"
    emit({"event": end, "checkpoint": args.out,
          **{k: training[k] for k in ("steps", "wall_s", "eval_accuracy", "eval_loss",
                                      "eval_perplexity", "eval_accuracy_by_age")
             if k in training}})
    log.close()
    return 130 if stop.requested else 0


if __name__ == "__main__":
    sys.exit(main())
