"""scripts/experiments/sensitivity.py (docs/results.md, "Lattice's claim"): on the shipped
Lattice checkpoint (stable on its task) a rounding-sized change of the input stays
rounding-sized at every token; a perturbed input that starts a growing difference is
measured as growth; bad arguments are refused."""

import json
import os
import sys
import unittest

from helpers import SOURCE_DIR, run_experiment_script

sys.path.insert(0, os.path.join(SOURCE_DIR, "scripts", "experiments"))
import sensitivity  # noqa: E402

SHIPPED = os.path.join(SOURCE_DIR, "examples", "models", "lattice.safetensors")


def run(*args):
    return run_experiment_script("sensitivity.py", *args)


class Sensitivity(unittest.TestCase):
    def test_the_shipped_lattice_is_stable_on_its_task(self):
        r = run(SHIPPED, "--samples", "3")
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = [json.loads(line) for line in r.stdout.splitlines()]
        tokens, summary = lines[:-1], lines[-1]
        self.assertEqual(summary["task"], "mqar")
        self.assertEqual(len(tokens), summary["tokens"])
        self.assertEqual(summary["samples_gain_over_1e6"], 0)
        self.assertIsNone(summary["first_token_gain_over_1e6"])
        self.assertAlmostEqual(summary["growth_per_token"], 1.0, delta=0.01)
        self.assertLess(max(t["gain"] for t in tokens), 1e4)

    def test_growth_is_the_slope_of_the_log_change(self):
        eps = 1e-13
        growing = [eps * 1.1 ** t for t in range(200)]  # passes 1e-3 near token 242: all fit
        self.assertAlmostEqual(sensitivity.growth_per_token(growing, eps), 1.1, places=6)
        flat = [eps] * 50
        self.assertAlmostEqual(sensitivity.growth_per_token(flat, eps), 1.0, places=9)
        saturated = [eps * 2 ** t for t in range(40)] + [0.5] * 100  # the O(1) tail is left out
        self.assertAlmostEqual(sensitivity.growth_per_token(saturated, eps), 2.0, places=6)

    def test_bad_arguments_are_refused(self):
        r = run(SHIPPED, "--eps", "0.5")
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("--eps in (0, 1e-3)", r.stderr)


if __name__ == "__main__":
    unittest.main()
