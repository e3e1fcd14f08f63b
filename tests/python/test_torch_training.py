"""Training the seed models' twins through `lsrl train` (app/python/lsrl/torch/train.py):
one short run per model where the loss must fall and the checkpoint must load in C++
(`lsrl model eval` reproduces the held-out accuracy the run reported, and the C++ model
gives the twin's outputs); a seed reproduces the same curve; Ctrl-C saves a checkpoint,
and before training (the torch import) ends the run with exit 130 and no traceback; a NaN
loss stops the run at that step keeping the step before; the script checks the option
ranges itself when run directly.

Run: PYTHONPATH=<lsrl package> /usr/bin/python3 -m unittest tests/python/test_torch_training.py
"""

import contextlib
import io
import json
import os
import signal
import subprocess
import time
import unittest

import numpy as np
import torch

import lsrl.torch as lt
from lsrl import _lsrl
from lsrl.torch import train as train_script
from helpers import CliTestCase

# Small configs each model learns something of within seconds (loss clearly below its
# start), with the steps and learning rate for it.
SMOKE = {
    "mingru": (["--task", "hold", "--set", "d_model=16", "--set", "d_h=16",
                "--set", "task_length=32"], 150, 0.01),
    "minlstm": (["--task", "hold", "--set", "d_model=16", "--set", "d_h=16",
                 "--set", "task_length=32"], 150, 0.01),
    "gateloop": (["--set", "d_model=16", "--set", "task_length=32"], 150, 0.01),
    "lattice": (["--set", "d_in=24", "--set", "d=8", "--set", "m=8", "--set", "recall_pairs=3",
                 "--set", "recall_queries=3"], 150, 0.01),
    "looped": (["--task", "sudoku", "--set", "d=16", "--set", "heads=2", "--set", "d_ff=32",
                "--set", "d_out=5", "--set", "loops=3"], 150, 0.01),
}


def records(text):
    return [json.loads(line) for line in text.splitlines() if line.startswith("{")]


class Training(CliTestCase):
    def train(self, kind, out, extra=(), steps=None, seed=0):
        args, default_steps, lr = SMOKE[kind]
        return records(self.run_cli(
            "train", kind, *args, "--steps", str(steps or default_steps), "--lr", str(lr),
            "--log-every", "25", "--threads", "1", "--eval-samples", "100", "--seed", str(seed),
            *extra, "-o", out))

    def test_every_model_learns_and_its_checkpoint_runs_in_cpp(self):
        for kind in SMOKE:
            with self.subTest(kind=kind):
                start = time.monotonic()
                out = self.path(f"{kind}.safetensors")
                log = self.train(kind, out)
                wall = time.monotonic() - start
                self.assertLess(wall, 60, f"{kind}: the smoke run took {wall:.0f} s")
                steps = [r for r in log if "step" in r and "loss" in r]
                first, last = steps[0]["loss"], steps[-1]["loss"]
                self.assertLess(last, 0.8 * first, f"{kind}: loss {first:.3f} -> {last:.3f}")
                done = log[-1]
                self.assertEqual(done["event"], "done")

                # The log beside the checkpoint holds the same lines.
                with open(out[: -len(".safetensors")] + ".log.jsonl", encoding="utf-8") as f:
                    self.assertEqual(records(f.read()), log)

                # C++ scores the held-out samples as the run did (float64 both sides).
                result = json.loads(self.run_cli(
                    "model", "eval", kind, "--weights", out, "--samples", "100"))
                self.assertEqual(result["task"], log[0]["task"])
                self.assertAlmostEqual(result["accuracy"], done["eval_accuracy"], delta=0.01)

                # The trained twin and the C++ model agree on a task sample.
                model, meta = lt.load_checkpoint(out)
                self.assertEqual(meta["training"]["steps"], SMOKE[kind][1])
                x, _ = lt.task_batch(model, meta["task"], 12345, 1)
                with torch.no_grad():
                    mine = model(x)[0].numpy()
                theirs, _ = _lsrl.seed_model_run(kind, model.config, lt.weights_of(model),
                                                 x[0].numpy())
                scale = max(1.0, float(np.abs(theirs).max()))
                self.assertLessEqual(float(np.abs(mine - theirs).max()), 1e-9 * scale)

    def test_a_seed_reproduces_the_curve(self):
        a = self.train("gateloop", self.path("a.safetensors"), steps=50, seed=3)
        b = self.train("gateloop", self.path("b.safetensors"), steps=50, seed=3)
        c = self.train("gateloop", self.path("c.safetensors"), steps=50, seed=4)
        losses = [[r["loss"] for r in log if "loss" in r] for log in (a, b, c)]
        self.assertEqual(losses[0], losses[1])
        self.assertNotEqual(losses[0], losses[2])

    def test_progress_comes_after_every_step_and_stays_out_of_the_log(self):
        out = self.path("progress.safetensors")
        log = self.train("gateloop", out, extra=("--log-every", "2", "--progress"), steps=4)
        seen = [(r.get("event"), r.get("step")) for r in log]
        self.assertEqual(seen, [("start", None), (None, 1), (None, 2), ("progress", 3),
                                (None, 4), ("evaluating", None), ("done", None)])
        with open(out[: -len(".safetensors")] + ".log.jsonl", encoding="utf-8") as f:
            self.assertEqual(records(f.read()),
                             [r for r in log if r.get("event") not in ("progress", "evaluating")])
        # Fine-tuning records where it started.
        tuned = self.path("tuned.safetensors")
        log = records(self.run_cli("train", "gateloop", "--init", out, "--steps", "2",
                                   "--eval-samples", "10", "-o", tuned))
        self.assertEqual(log[0]["init"], out)
        self.assertEqual(lt.load_checkpoint(tuned)[1]["training"]["init"], out)

    def test_ctrl_c_saves_a_checkpoint(self):
        out = self.path("interrupted.safetensors")
        args, _, lr = SMOKE["gateloop"]
        # Also when started with SIGINT ignored, as a shell's background jobs and what they
        # launch are (the explorer's Train… dialog could not stop a run then).
        for inherited in (signal.SIG_DFL, signal.SIG_IGN):
            with self.subTest(inherited=inherited):
                proc = subprocess.Popen(
                    [self.cli, "train", "gateloop", *args, "--steps", "100000", "--log-every",
                     "5", "--threads", "1", "-o", out],
                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                    preexec_fn=lambda: signal.signal(signal.SIGINT, inherited))
                try:
                    self.assertIn('"event": "start"', proc.stdout.readline())
                    self.assertIn('"step": 1,', proc.stdout.readline())  # the first step's
                    self.assertIn('"step": 5,', proc.stdout.readline())
                    proc.send_signal(signal.SIGINT)
                    rest, err = proc.communicate(timeout=60)
                finally:
                    if proc.poll() is None:
                        proc.kill()
                self.assertEqual(proc.returncode, 130)
                self.assertNotIn("Traceback", err)
                self.assertEqual(records(rest)[-1]["event"], "interrupted")
                _, meta = lt.load_checkpoint(out)
                self.assertTrue(meta["training"]["interrupted"])
                self.assertGreaterEqual(meta["training"]["steps"], 5)
        # It resumes from there.
        log = records(self.run_cli("train", "gateloop", "--init", out, "--steps", "10",
                                   "--log-every", "5", "--eval-samples", "10", "-o",
                                   self.path("resumed.safetensors")))
        self.assertEqual(log[-1]["event"], "done")

    def test_ctrl_c_before_training_exits_130_without_a_traceback(self):
        # 0.3 s: Python is starting or importing torch; 0.05 s: `lsrl` itself is still
        # checking the arguments (the signal waits, blocked, for the driver's handler).
        args, _, _ = SMOKE["gateloop"]
        for delay in (0.05, 0.3):
            with self.subTest(delay=delay):
                proc = subprocess.Popen(
                    [self.cli, "train", "gateloop", *args, "--steps", "100000", "--threads", "1",
                     "-o", self.path("early.safetensors")],
                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                try:
                    time.sleep(delay)
                    proc.send_signal(signal.SIGINT)
                    out, err = proc.communicate(timeout=60)
                finally:
                    if proc.poll() is None:
                        proc.kill()
                self.assertEqual(proc.returncode, 130, err)
                self.assertNotIn("Traceback", err)
                if not out:  # stopped before training began: one line says so
                    self.assertEqual(err, "lsrl train: interrupted\n")

    def test_a_nan_loss_stops_the_run_and_keeps_the_last_finite_step(self):
        args, _, lr = SMOKE["gateloop"]
        out = self.path("diverged.safetensors")
        r = subprocess.run(
            [self.cli, "train", "gateloop", *args, "--steps", "50", "--lr", str(lr),
             "--threads", "1", "--log-every", "1", "-o", out],
            capture_output=True, text=True, timeout=120,
            env=dict(os.environ, **{train_script.NAN_AT_STEP_HOOK: "3"}))
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertNotIn("Traceback", r.stderr)
        self.assertEqual(r.stderr, f"lsrl train: error: the loss is nan at step 3: training "
                                   f"stopped; {out} holds the weights after step 2, the last "
                                   f"finite one\n")
        log = records(r.stdout)
        self.assertEqual([x["step"] for x in log if "loss" in x], [1, 2])
        self.assertEqual(log[-1]["event"], "diverged")
        self.assertEqual(log[-1]["step"], 3)
        model, meta = lt.load_checkpoint(out)
        self.assertEqual(meta["training"]["steps"], 2)
        self.assertEqual(meta["training"]["diverged_at_step"], 3)
        # The saved weights are those of a run that stopped after 2 steps (the warm-up's
        # learning rates do not depend on --steps).
        two = self.path("two.safetensors")
        self.run_cli("train", "gateloop", *args, "--steps", "2", "--lr", str(lr), "--threads",
                     "1", "--eval-samples", "0", "-o", two)
        reference, _ = lt.load_checkpoint(two)
        for name, value in lt.weights_of(reference).items():
            np.testing.assert_array_equal(lt.weights_of(model)[name], value, err_msg=name)

    def test_a_real_blow_up_stops_at_its_first_step(self):
        # Weights of 1e30 are finite, but their products overflow float32: step 1's loss is
        # NaN, and the checkpoint keeps the weights the run started from.
        cfg, weights = _lsrl.seed_model_init("gateloop", {"d_model": 16, "task_length": 32})
        huge = {k: v * 1e30 for k, v in weights.items()}
        init = self.path("huge.safetensors")
        lt.save_checkpoint(lt.model_from_weights("gateloop", cfg, huge), init)
        out = self.path("blown.safetensors")
        r = self.call_cli("train", "gateloop", "--init", init, "--steps", "5", "--threads", "1",
                          "-o", out)
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertEqual(r.stderr, f"lsrl train: error: the loss is nan at step 1: training "
                                   f"stopped; {out} holds the weights it started from\n")
        model, meta = lt.load_checkpoint(out)
        self.assertEqual(meta["training"]["steps"], 0)
        for name, value in lt.weights_of(model).items():  # float32 on the way
            np.testing.assert_allclose(value, huge[name], rtol=1e-7, err_msg=name)

    def test_a_direct_run_checks_the_option_ranges(self):
        for option, value, message in [("--threads", "-4", "--threads expects an integer in"),
                                       ("--time-limit", "nan", "--time-limit expects a finite"),
                                       ("--lr", "1e300", "--lr expects a finite number > 0"),
                                       ("--clip", "nan", "--clip expects a finite number > 0"),
                                       ("--batch", "1000000000", "--batch expects an integer"),
                                       ("--seed", "99999999999", "--seed expects an integer")]:
            with self.subTest(option=option):
                err = io.StringIO()
                with contextlib.redirect_stderr(err), self.assertRaises(SystemExit) as stop:
                    train_script.parse_args(["gateloop", option, value, "-o", "x.safetensors"])
                self.assertEqual(stop.exception.code, 2)
                self.assertIn(message, err.getvalue())
        # Whole names only: `lsrl train` checks the options by them.
        with contextlib.redirect_stderr(io.StringIO()), self.assertRaises(SystemExit):
            train_script.parse_args(["gateloop", "--thr", "2", "-o", "x.safetensors"])

    def test_checkpoints_keep_float64_weights_exactly(self):
        for kind in lt.kinds():
            with self.subTest(kind=kind):
                cfg, weights = _lsrl.seed_model_init(kind, {"seed": 5})
                rng = np.random.default_rng(1)
                noisy = {k: v + rng.standard_normal(v.shape) / 3 for k, v in weights.items()}
                model = lt.model_from_weights(kind, cfg, noisy)
                path = self.path(f"{kind}-exact.safetensors")
                task = (lt.scored_tasks(kind, cfg) or [None])[0]  # a task the model has
                lt.save_checkpoint(model, path, task=task, training={"steps": 0})
                again, meta = lt.load_checkpoint(path)
                self.assertEqual(meta.get("task"), task)
                for name, value in lt.weights_of(again).items():
                    np.testing.assert_array_equal(value, noisy[name], err_msg=name)

    def test_metadata_of_the_wrong_type_is_refused_when_saving(self):
        model = lt.make_model("mingru", {"seed": 1})
        path = self.path("typed.safetensors")
        with self.assertRaisesRegex(ValueError, 'metadata "task": expected a string'):
            lt.save_checkpoint(model, path, task=42)
        with self.assertRaisesRegex(ValueError, 'metadata "task": expected one of this model'):
            lt.save_checkpoint(model, path, task="sudoku")
        with self.assertRaisesRegex(ValueError, '"training" "steps": expected an integer'):
            lt.save_checkpoint(model, path, task="hold", training={"steps": "ten"})

    def test_misuse_is_refused_with_the_reason(self):
        r = self.call_cli("train", "lattice", "-o", self.path("x.safetensors"))
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("no targets to train on with this config", r.stderr)
        r = self.call_cli("train", "mingru", "--set", "layers=0", "-o", self.path("x.safetensors"))
        self.assertNotEqual(r.returncode, 0)
        self.assertIn('"layers"', r.stderr)
        r = self.call_cli("train", "mingru", "--init", self.path("missing.safetensors"),
                          "-o", self.path("x.safetensors"))
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("missing.safetensors", r.stderr)


if __name__ == "__main__":
    unittest.main()
