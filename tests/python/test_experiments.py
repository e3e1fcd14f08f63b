"""scripts/experiments/run.py on the sweep runner (docs/results.md, docs/sweeps.md): the
Table 1 spec cut to a few steps runs on a local cluster of 2 workers, `table` prints its
rows beside the paper's and `ship` writes the best run's record; a rerun runs nothing. The
table lists a sweep's rows in the spec's grid order, whatever order they finished in."""

import json
import os
import subprocess
import sys
import tempfile
import unittest

from helpers import SOURCE_DIR, find_cli

RUN_PY = os.path.join(SOURCE_DIR, "scripts", "experiments", "run.py")
ENV = dict(os.environ, LSRL_CLI=find_cli())


def run_py(*args):
    return subprocess.run([sys.executable, RUN_PY, *args], env=ENV, capture_output=True,
                          text=True, timeout=600)


class Experiments(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory(prefix="lsrl-experiments-test-")
        self.tmp = self._tmp.name

    def tearDown(self):
        self._tmp.cleanup()

    def test_list_names_every_experiment_spec(self):
        r = run_py("list")
        self.assertEqual(r.returncode, 0, r.stderr)
        for name in ("table1", "horizon", "recall", "loops"):
            self.assertIn(f"{name}: ", r.stdout)
            self.assertIn(f"examples/sweeps/{name}.json", r.stdout)
        self.assertNotIn("noise_tok2tok", r.stdout)  # not an experiment with a table

    def test_table1_cut_short_runs_tables_and_ships(self):
        cut = ["--set", "steps=2", "--set", "eval_samples=10", "--set", "seed=0",
               "--set", "set.layers=1", "--set", "log_every=1"]
        r = run_py("run", "table1", "--out", self.tmp, "--workers", "2", *cut)
        self.assertEqual(r.returncode, 0, r.stderr)
        summary = json.loads(r.stdout.strip().splitlines()[-1])
        self.assertEqual((summary["total"], summary["done"]), (2, 2), r.stdout)
        for run in ("mingru-1-s0", "minlstm-1-s0"):
            self.assertTrue(os.path.exists(
                os.path.join(self.tmp, "table1.checkpoints", run + ".safetensors")))

        r = run_py("table", "table1", "--out", self.tmp)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("| mingru-1 | 2 | 37.0 | ", r.stdout)
        self.assertIn("| minlstm-1 | 2 | 37.6 | ", r.stdout)
        self.assertIn("| mingru-3 | | 99.5 | (not run) |", r.stdout)
        self.assertLess(r.stdout.index("| mingru-1 |"), r.stdout.index("| minlstm-1 |"))

        models = os.path.join(self.tmp, "models")
        r = run_py("ship", "table1", "--out", self.tmp, "--models", models)
        self.assertEqual(r.returncode, 0, r.stderr)
        for kind in ("mingru", "minlstm"):
            with open(os.path.join(models, kind + ".json"), encoding="utf-8") as f:
                record = json.load(f)
            self.assertEqual((record["experiment"], record["row"], record["seed"]),
                             ("table1", f"{kind}-1", 0))
            self.assertEqual(record["steps"], 2)
            self.assertTrue(record["command"].startswith(f"lsrl train {kind} "))
            self.assertEqual(record["expected"]["paper"], 0.37 if kind == "mingru" else 0.376)
            self.assertTrue(os.path.exists(os.path.join(models, kind + ".safetensors")))
            self.assertTrue(os.path.exists(os.path.join(models, kind + ".log.jsonl")))

        r = run_py("run", "table1", "--out", self.tmp, "--workers", "1", *cut)
        self.assertEqual(json.loads(r.stdout.strip().splitlines()[-1])["skipped"], 2)

    def test_rows_follow_the_grid_and_failures_are_listed(self):
        modes = {"nosr-dec": {"mode": "nosr", "variant": "dec"}, "delta": {"mode": "delta"},
                 "linear_attention": {"mode": "linear_attention"}}

        def record(label, pairs, seed, acc=None):
            params = {"model": "lattice", "steps": 20, "eval_samples": 10, "label": label,
                      "seed": seed, "set": {"recall_pairs": pairs, **modes[label]}}
            if acc is None:
                return {"job": "train", "status": "failed", "params": params,
                        "error": "TaskFailed: boom"}
            ages = {"1-8": {"accuracy": acc, "targets": 10},
                    "17-32": {"accuracy": acc / 2, "targets": 4}}
            return {"job": "train", "status": "ok", "params": params, "wall_s": 90,
                    "figures": {"eval_accuracy": acc, "eval_accuracy_by_age": ages}}

        out = os.path.join(self.tmp, "recall.jsonl")
        with open(out, "w", encoding="utf-8") as f:
            for r in (record("delta", 8, 0, 0.5), record("nosr-dec", 8, 1, 0.25),
                      record("nosr-dec", 8, 0, 0.75), record("nosr-dec", 4, 0, 1.0),
                      record("linear_attention", 4, 0), record("delta", 6, 0, 0.1)):
                f.write(json.dumps(r) + "\n")
            f.write('{"job": "train", "status": "ok", "par')  # cut short by a crash
        r = run_py("table", "recall", "--results", out)
        self.assertEqual(r.returncode, 0, r.stderr)
        main, ages = r.stdout.split("by age")
        rows = [line.split(" | ")[0][2:] for line in main.splitlines()
                if line.startswith("| ") and not line.startswith("| row")]
        # the 6-pair run is another grid's (recall's pairs are 4, 8, 12, ...): not shown
        self.assertEqual(rows, ["nosr-dec-p4", "nosr-dec-p8", "delta-p8"])
        self.assertIn("; 1 run(s) of other grids not shown)", main)
        self.assertIn("| nosr-dec-p8 | 20 | - | 50.0 ± 35.4 | 50.0 [25.0, 75.0] | "
                      "75.0 (s0) / 25.0 (s1) | 1.5 min |", r.stdout)
        # the accuracy by age: bins ordered by their lower bound, median [min, max]
        self.assertIn("| row | steps | 1-8 | 17-32 |", ages)
        self.assertIn("| nosr-dec-p8 | 20 | 50.0 [25, 75] | 25.0 [12, 38] |", ages)
        self.assertIn("1 run(s) failed:\n- linear_attention-p4 seed 0: TaskFailed: boom",
                      r.stdout)

    def test_an_unknown_experiment_or_missing_output_is_named(self):
        r = run_py("table", "tabel1")
        self.assertEqual(r.returncode, 2)
        self.assertIn("experiment must be one of", r.stderr)
        r = run_py("table", "table1", "--out", self.tmp)
        self.assertEqual(r.returncode, 2)
        self.assertIn("table1.jsonl: no sweep output", r.stderr)


if __name__ == "__main__":
    unittest.main()
