"""The held-out figures of `lsrl train` and the token tasks (docs/models.md, "Recall with
interference (mqar)", "Character-level language modelling (char_lm)", "Training"): the
task batches with their ages through the binding, and short runs whose "done" record holds
eval_loss, eval_perplexity = exp(eval_loss) and, for a task with ages, eval_accuracy_by_age,
the figures `lsrl model eval` gives for the checkpoint.

The mqar and char_lm runs train the Lattice token model (input "tokens"), so they need its
torch twin (app/python/lsrl/torch/lattice.py).

Run: PYTHONPATH=<build>/python LSRL_CLI=<build>/app/cli/lsrl /usr/bin/python3 -m unittest \
    tests/python/test_token_tasks.py
"""

import json
import math
import unittest

import numpy as np

import lsrl.torch as lt
from lsrl import _lsrl
from helpers import CliTestCase

MQAR = {"input": "tokens", "d_in": 21, "d_model": 16}  # 8 keys, 8 values, query, 4 noise


def records(text):
    return [json.loads(line) for line in text.splitlines() if line.startswith("{")]


class TokenTaskBatches(unittest.TestCase):
    def test_mqar_batches_carry_ages_at_their_targets(self):
        x, y, ages = _lsrl.seed_task_batch("lattice", MQAR, "mqar", 3, 4, with_ages=True)
        self.assertEqual(x.shape, (4, 64, 21))
        np.testing.assert_array_equal(x.sum(-1), 1)  # one-hot tokens
        scored = y >= 0
        self.assertEqual(int(scored.sum()), 4 * 8)  # 8 queries each
        self.assertTrue(((y[scored] >= 8) & (y[scored] < 16)).all())  # value tokens
        self.assertTrue((ages[scored] >= 1).all())
        self.assertTrue((ages[~scored] == -1).all())
        # Without ages, the pair the training loop takes.
        again = _lsrl.seed_task_batch("lattice", MQAR, "mqar", 3, 4)
        self.assertEqual(len(again), 2)
        np.testing.assert_array_equal(again[1], y)

    def test_a_task_without_ages_has_none(self):
        _, y, ages = _lsrl.seed_task_batch("mingru", {}, "selective_copy", 0, 2, with_ages=True)
        self.assertEqual(ages.shape, y.shape)
        self.assertTrue((ages == -1).all())


class HeldOutFigures(CliTestCase):
    def train(self, name, args, samples):
        out = self.path(f"{name}.safetensors")
        log = records(self.run_cli(
            "train", "lattice", *args, "--steps", "3", "--threads", "1", "--batch", "8",
            "--eval-samples", str(samples), "-o", out))
        done = log[-1]
        self.assertEqual(done["event"], "done")
        return out, done

    def check_against_cpp(self, out, done, samples, task):
        """The done record's figures are those of lsrl model eval (float64 both sides) and
        of the checkpoint's training record."""
        self.assertGreater(done["eval_loss"], 0)
        self.assertAlmostEqual(done["eval_perplexity"], math.exp(done["eval_loss"]), places=9)
        result = json.loads(self.run_cli("model", "eval", "lattice", "--weights", out,
                                         "--samples", str(samples)))
        self.assertEqual(result["task"], task)
        self.assertAlmostEqual(result["loss"], done["eval_loss"], places=6)
        self.assertAlmostEqual(result["perplexity"], done["eval_perplexity"],
                               delta=1e-6 * done["eval_perplexity"])
        self.assertAlmostEqual(result["accuracy"], done["eval_accuracy"], delta=0.01)
        if "eval_accuracy_by_age" in done:
            ours, theirs = done["eval_accuracy_by_age"], result["accuracy_by_age"]
            self.assertEqual(list(ours), list(theirs))  # the same bins, in the same order
            for name in ours:
                self.assertEqual(ours[name]["targets"], theirs[name]["targets"], name)
                self.assertAlmostEqual(ours[name]["accuracy"], theirs[name]["accuracy"],
                                       delta=0.02, msg=name)
        else:
            self.assertNotIn("accuracy_by_age", result)
        _, meta = lt.load_checkpoint(out)
        for key in ("eval_loss", "eval_perplexity", "eval_accuracy_by_age"):
            self.assertEqual(meta["training"].get(key), done.get(key), key)

    def test_assoc_recall_reports_loss_perplexity_and_accuracy_by_age(self):
        out, done = self.train("recall", ["--set", "d_in=12", "--set", "d=4", "--set", "m=4"],
                               40)
        by_age = done["eval_accuracy_by_age"]
        self.assertEqual(sum(b["targets"] for b in by_age.values()), 40 * 4)
        self.assertEqual(list(by_age), ["1-8"])  # 4 writes, 4 queries: ages 1..7
        self.check_against_cpp(out, done, 40, "assoc_recall")

    def test_mqar_reports_loss_perplexity_and_accuracy_by_age(self):
        args = [a for key, value in MQAR.items() for a in ("--set", f"{key}={value}")]
        out, done = self.train("mqar", ["--task", "mqar", *args], 60)
        by_age = done["eval_accuracy_by_age"]
        self.assertEqual(sum(b["targets"] for b in by_age.values()), 60 * 8)
        self.assertIn("1-8", by_age)
        self.assertGreater(len(by_age), 2)  # 64 tokens: ages up to 60
        self.assertTrue(set(by_age) <= {"1-8", "9-16", "17-32", "33-64"})
        self.check_against_cpp(out, done, 60, "mqar")

    def test_char_lm_on_a_small_text_reports_loss_and_perplexity(self):
        text = self.path("book.txt")
        with open(text, "w", encoding="utf-8") as f:
            for i in range(150):
                f.write(f"Line {i} of a small book, with words to predict.\n")
        out, done = self.train("char", ["--task", "char_lm", "--set", "input=tokens",
                                        "--set", "d_in=97", "--set", "d_model=16",
                                        "--set", f"text={text}", "--set", "lm_context=16"], 20)
        self.assertNotIn("eval_accuracy_by_age", done)
        self.assertLess(done["eval_loss"], 2 * math.log(97))
        self.check_against_cpp(out, done, 20, "char_lm")


if __name__ == "__main__":
    unittest.main()
