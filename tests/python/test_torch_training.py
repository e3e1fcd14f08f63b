"""Training the seed models' twins through `lsrl train` (app/python/lsrl/torch/train.py):
one short run per model where the loss must fall and the checkpoint must load in C++
(`lsrl model eval` reproduces the held-out accuracy the run reported, and the C++ model
gives the twin's outputs); a seed reproduces the same curve; Ctrl-C saves a checkpoint.

Run: PYTHONPATH=<lsrl package> /usr/bin/python3 -m unittest tests/python/test_torch_training.py
"""

import json
import signal
import subprocess
import time
import unittest

import numpy as np
import torch

import lsrl.torch as lt
from lsrl import _lsrl
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
                    stdout=subprocess.PIPE, text=True,
                    preexec_fn=lambda: signal.signal(signal.SIGINT, inherited))
                try:
                    self.assertIn('"event": "start"', proc.stdout.readline())
                    self.assertIn('"step": 1,', proc.stdout.readline())  # the first step's
                    self.assertIn('"step": 5,', proc.stdout.readline())
                    proc.send_signal(signal.SIGINT)
                    rest = proc.communicate(timeout=60)[0]
                finally:
                    if proc.poll() is None:
                        proc.kill()
                self.assertEqual(proc.returncode, 130)
                self.assertEqual(records(rest)[-1]["event"], "interrupted")
                _, meta = lt.load_checkpoint(out)
                self.assertTrue(meta["training"]["interrupted"])
                self.assertGreaterEqual(meta["training"]["steps"], 5)
        # It resumes from there.
        log = records(self.run_cli("train", "gateloop", "--init", out, "--steps", "10",
                                   "--log-every", "5", "--eval-samples", "10", "-o",
                                   self.path("resumed.safetensors")))
        self.assertEqual(log[-1]["event"], "done")

    def test_checkpoints_keep_float64_weights_exactly(self):
        for kind in lt.kinds():
            with self.subTest(kind=kind):
                cfg, weights = _lsrl.seed_model_init(kind, {"seed": 5})
                rng = np.random.default_rng(1)
                noisy = {k: v + rng.standard_normal(v.shape) / 3 for k, v in weights.items()}
                model = lt.model_from_weights(kind, cfg, noisy)
                path = self.path(f"{kind}-exact.safetensors")
                lt.save_checkpoint(model, path, task="x", training={"steps": 0})
                again, meta = lt.load_checkpoint(path)
                self.assertEqual(meta["task"], "x")
                for name, value in lt.weights_of(again).items():
                    np.testing.assert_array_equal(value, noisy[name], err_msg=name)

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
