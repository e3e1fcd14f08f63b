"""scripts/experiments/lattice_slots.py (docs/models.md, "What training made of them") on the
shipped Lattice checkpoint: one line per model and head, S0 orthonormal at the start, and the
trained model's keys keeping to a slot more than random weights' do, as docs/results.md
reports; a checkpoint of another task is refused by name."""

import json
import os
import subprocess
import tempfile
import unittest

from helpers import SOURCE_DIR, find_cli, run_experiment_script

SHIPPED = os.path.join(SOURCE_DIR, "examples", "models", "lattice.safetensors")


def slots(*args):
    return run_experiment_script("lattice_slots.py", *args)


class LatticeSlots(unittest.TestCase):
    def test_the_shipped_model_prefers_a_slot_per_key_more_than_random_weights(self):
        r = slots(SHIPPED, "--samples", "5")
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = [json.loads(line) for line in r.stdout.splitlines()]
        heads = json.load(open(SHIPPED[: -len(".safetensors")] + ".json"))["config"]["heads"]
        self.assertEqual([(x["model"], x["head"]) for x in lines],
                         [(m, h) for m in ("trained", "random") for h in range(heads)])
        for x in lines:
            self.assertAlmostEqual(x["cos_start"], 0.0, places=3)  # S0 fixed orthonormal
            self.assertGreaterEqual(x["top_ratio"], 1.0)
            self.assertTrue(0.0 < x["key_slot_agreement"] <= 1.0)
        trained = [x["key_slot_agreement"] for x in lines if x["model"] == "trained"]
        random = [x["key_slot_agreement"] for x in lines if x["model"] == "random"]
        self.assertGreater(min(trained), max(random))

    def test_a_checkpoint_of_another_task_is_refused(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "recall.safetensors")
            made = subprocess.run([find_cli(), "train", "lattice", "--task", "assoc_recall",
                                   "--steps", "1", "--eval-samples", "2", "--set", "d_in=12",
                                   "--set", "d=4", "--set", "m=4", "-o", path],
                                  capture_output=True, text=True, timeout=300)
            self.assertEqual(made.returncode, 0, made.stderr)
            r = slots(path, "--samples", "1")
            self.assertNotEqual(r.returncode, 0)
            self.assertIn("trained on 'assoc_recall', not mqar", r.stderr)


if __name__ == "__main__":
    unittest.main()
