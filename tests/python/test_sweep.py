"""lsrl.sweep on a Dask cluster of 2 worker processes on loopback (docs/sweeps.md): the
figures are the serial command's to the last digit; a worker killed mid-sweep costs
nothing (every task in the output exactly once); a sweep stopped with SIGINT and run again
finishes only what was missing; a failing task is reported with its parameters and
message while the others finish."""

import csv
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import unittest

import lsrl.sweep
from helpers import find_cli

PYTHON = sys.executable
ENV = dict(os.environ, LSRL_CLI=find_cli())

SMALL = {"job": "noise", "program": "tok2tok", "sigmas": [0, 1e-7, 1e-5],
         "set": {"L": 3, "entries": 4, "queries": 2},
         "grid": {"variant": ["direct", "optimized", "multiplicative"], "seed": [1, 2, 3]}}

# About a second a task, so that a sweep can be interrupted in the middle.
SLOW = {"job": "noise", "program": "tok2tok", "sigmas": [0, 1e-7],
        "set": {"L": 3, "entries": 60, "queries": 60},
        "grid": {"variant": ["direct", "optimized"], "seed": [1, 2, 3, 4, 5]}}


def lines(path):
    if not os.path.exists(path):
        return []
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def wait_for(condition, seconds=120):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if condition():
            return True
        time.sleep(0.05)
    return False


class Sweeps(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory(prefix="lsrl-sweep-test-")
        self.tmp = self._tmp.name
        self.children = []

    def tearDown(self):
        for p in self.children:
            if p.poll() is None:
                p.kill()
            p.communicate()  # reaps it and closes its pipes
        self._tmp.cleanup()

    def path(self, name):
        return os.path.join(self.tmp, name)

    def write_spec(self, spec, name="spec.json"):
        with open(self.path(name), "w", encoding="utf-8") as f:
            json.dump(spec, f)
        return self.path(name)

    def start(self, *args):
        p = subprocess.Popen(list(args), env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True, cwd=self.tmp)
        self.children.append(p)
        return p

    def sweep(self, *args):
        return self.start(PYTHON, "-m", "lsrl.sweep", *args, "--quiet")

    def test_noise_figures_are_the_serial_runs_to_the_last_digit(self):
        out = self.path("small.jsonl")
        summary = lsrl.sweep.run(SMALL, out, workers=2, cli=ENV["LSRL_CLI"], progress=False)
        self.assertEqual(summary, {"total": 9, "skipped": 0, "done": 9, "failed": 0})
        swept = {}
        for record in lines(out):
            self.assertEqual(record["status"], "ok")
            for row in record["figures"]["rows"]:
                swept[(row["variant"], row["sigma"], row["seed"])] = row["metric"]
        serial = self.path("serial.csv")
        subprocess.run([ENV["LSRL_CLI"], "noise", "tok2tok", "-o", serial, "--variants",
                        "direct,optimized,multiplicative", "--sigmas", "0,1e-7,1e-5", "--seeds",
                        "3", "--first-seed", "1", "--set", "L=3", "--set", "entries=4", "--set",
                        "queries=2", "--quiet"], check=True, capture_output=True)
        with open(serial, newline="", encoding="utf-8") as f:
            rows = list(csv.DictReader(f))
        self.assertEqual(len(rows), 27)
        self.assertEqual(len(swept), 27)
        for r in rows:
            key = (r["variant"], float(r["sigma"]), int(r["seed"]))
            self.assertEqual(swept[key], float(r["metric"]), key)
            self.assertEqual(repr(swept[key]), repr(float(r["metric"])))
        again = lsrl.sweep.run(SMALL, out, workers=2, cli=ENV["LSRL_CLI"], progress=False)
        self.assertEqual(again, {"total": 9, "skipped": 9, "done": 0, "failed": 0})

    def test_a_killed_worker_costs_nothing(self):
        scheduler_file = self.path("scheduler.json")
        self.start("dask-scheduler", "--host", "127.0.0.1", "--port", "0",
                   "--scheduler-file", scheduler_file, "--no-dashboard")
        self.assertTrue(wait_for(lambda: os.path.exists(scheduler_file)))
        with open(scheduler_file) as f:
            address = json.load(f)["address"]
        workers = [self.start("dask-worker", address, "--nthreads", "1", "--no-nanny",
                              "--no-dashboard", "--host", "127.0.0.1") for _ in range(2)]
        out = self.path("killed.jsonl")
        run = self.sweep(self.write_spec(SLOW), "--scheduler", address, "--out", out)
        # Once both workers have finished a task, each is busy with its next: killing one
        # loses a task in the middle, which the scheduler runs again on the other.
        pids = {f":{w.pid}" for w in workers}
        ran = lambda: {r["worker"][r["worker"].rindex(":"):] for r in lines(out)}
        self.assertTrue(wait_for(lambda: ran() == pids), "the workers did not both run a task")
        workers[0].kill()
        stdout, stderr = run.communicate(timeout=300)
        self.assertEqual(run.returncode, 0, stderr)
        records = lines(out)
        self.assertEqual(len(records), 10)
        self.assertEqual(len({r["id"] for r in records}), 10, "a task written twice")
        self.assertTrue(all(r["status"] == "ok" for r in records))

    def test_an_interrupted_sweep_finishes_only_what_was_missing(self):
        spec = self.write_spec(SLOW)
        out = self.path("stopped.jsonl")
        run = self.sweep(spec, "--out", out, "--workers", "2")
        self.assertTrue(wait_for(lambda: len(lines(out)) >= 2), "no task finished")
        run.send_signal(signal.SIGINT)
        _, stderr = run.communicate(timeout=120)
        self.assertEqual(run.returncode, 130, stderr)
        self.assertIn("interrupted", stderr)
        before = {r["id"] for r in lines(out)}
        self.assertTrue(2 <= len(before) < 10, f"{len(before)} tasks done before the stop")
        again = self.sweep(spec, "--out", out, "--workers", "2")
        stdout, stderr = again.communicate(timeout=300)
        self.assertEqual(again.returncode, 0, stderr)
        summary = json.loads(stdout.strip().splitlines()[-1])
        self.assertEqual(summary["skipped"], len(before))
        self.assertEqual(summary["done"], 10 - len(before))
        records = lines(out)
        self.assertEqual(sorted(r["id"] for r in records),
                         sorted({r["id"] for r in records}), "a task written twice")
        self.assertEqual(len(records), 10)

    def test_a_failing_task_is_reported_and_the_others_finish(self):
        spec = dict(SMALL, grid={"variant": ["direct", "sideways"], "seed": [1, 2]})
        out = self.path("failing.jsonl")
        summary = lsrl.sweep.run(spec, out, workers=2, cli=ENV["LSRL_CLI"], progress=False,
                                 retries=1)
        self.assertEqual(summary["done"], 2)
        self.assertEqual(summary["failed"], 2)
        failed = [r for r in lines(out) if r["status"] == "failed"]
        self.assertEqual(sorted(r["params"]["seed"] for r in failed), [1, 2])
        for r in failed:
            self.assertEqual(r["params"]["variant"], "sideways")
            self.assertIn("sideways", r["error"])
        # a rerun runs the failed ones again (and they fail again), not the done ones
        again = lsrl.sweep.run(spec, out, workers=1, cli=ENV["LSRL_CLI"], progress=False,
                               retries=0)
        self.assertEqual((again["skipped"], again["failed"]), (2, 2))
        self.assertEqual(len(lines(out)), 4)

    def test_training_tasks_write_their_checkpoints(self):
        spec = {"job": "train", "model": "mingru", "steps": 3, "eval_samples": 8,
                "log_every": 1, "run": "mingru-s{seed}", "set": {"layers": 1},
                "grid": {"seed": [0, 1]}}
        out = self.path("train.jsonl")
        summary = lsrl.sweep.run(spec, out, workers=2, cli=ENV["LSRL_CLI"], progress=False)
        self.assertEqual(summary["done"], 2, lines(out))
        for record in lines(out):
            seed = record["params"]["seed"]
            # no "checkpoints" in the spec: beside the output
            checkpoint = self.path(f"train.checkpoints/mingru-s{seed}.safetensors")
            self.assertEqual(record["figures"]["checkpoint"], checkpoint)
            self.assertTrue(os.path.exists(checkpoint))
            self.assertTrue(os.path.exists(checkpoint[: -len(".safetensors")] + ".log.jsonl"))
            self.assertEqual(record["figures"]["steps"], 3)
            self.assertIn("eval_accuracy", record["figures"])
            self.assertIn(f"--seed {seed}", record["figures"]["command"])
        # The same runs cut shorter into the same output would overwrite those checkpoints.
        with self.assertRaisesRegex(lsrl.sweep.SpecError, "would overwrite .*mingru-s0"):
            lsrl.sweep.run(spec, out, workers=1, cli=ENV["LSRL_CLI"], progress=False,
                           overrides={"steps": 2})
        self.assertEqual(len(lines(out)), 2)
        # Into their own folder they run.
        cut = lsrl.sweep.run(spec, out, workers=1, cli=ENV["LSRL_CLI"], progress=False,
                             overrides={"steps": 2, "seed": 1},
                             checkpoints=self.path("cut"))
        self.assertEqual(cut["done"], 1)
        self.assertTrue(os.path.exists(self.path("cut/mingru-s1.safetensors")))

    def test_bad_specs_are_named(self):
        for spec, message in [
            ({"job": "dance"}, "\"job\" must be one of"),
            ({"job": "noise", "program": "tok2tok", "grid": {"seed": []}}, "non-empty list"),
            ({"job": "noise", "program": "tok2tok", "seed": 1, "grid": {"seed": [2]}},
             "both a fixed parameter and a grid axis"),
            ({"job": "noise", "program": "tok2tok"}, "needs \"seed\""),
            ({"job": "noise", "program": "tok2tok", "seed": 1, "colour": "red"},
             "no parameter \"colour\""),
            ({"job": "train", "model": "mingru", "run": "{colour}"},
             "\"run\" \"{colour}\" names what the task does not have"),
            ({"job": "train", "model": "mingru", "grid": {"with": [3]}},
             "every entry of grid axis \"with\" must be an object"),
            ({"job": "train", "model": "mingru", "set": {"mode": "log"},
              "grid": {"with": [{"set": {"mode": "parallel"}}]}},
             "\"set.mode\" is set both by a \"with\" entry and elsewhere"),
            ({"job": "train", "model": "mingru", "set": {"layers": 1},
              "grid": {"set.layers": [2]}}, "both a fixed parameter and a grid axis"),
            ({"job": "train", "model": "mingru", "steps": 4, "grid": {"steps.x": [1]}},
             "\"steps.x\" needs \"steps\" to be an object"),
        ]:
            with self.subTest(message=message):
                with self.assertRaisesRegex(lsrl.sweep.SpecError, message):
                    lsrl.sweep.run(spec, self.path("never.jsonl"), progress=False)
        self.assertFalse(os.path.exists(self.path("never.jsonl")))


class SpecGrids(unittest.TestCase):
    """How a spec's grid expands (no cluster): dotted axes, "with" entries, overrides."""

    SPEC = {"job": "train", "model": "lattice", "steps": 10, "set": {"d": 16},
            "grid": {"set.pairs": [4, 8],
                     "with": [{"label": "dec", "set": {"mode": "nosr", "variant": "dec"}},
                              {"label": "la", "set": {"mode": "linear_attention"}}],
                     "seed": [0, 1]}}

    def test_axes_expand_in_the_order_written(self):
        points = lsrl.sweep.spec.points(self.SPEC)
        self.assertEqual(len(points), 8)
        self.assertEqual(points[0], {"model": "lattice", "steps": 10, "label": "dec", "seed": 0,
                                     "set": {"d": 16, "pairs": 4, "mode": "nosr",
                                             "variant": "dec"}})
        self.assertEqual([(p["set"]["pairs"], p["label"], p["seed"]) for p in points[:4]],
                         [(4, "dec", 0), (4, "dec", 1), (4, "la", 0), (4, "la", 1)])
        self.assertNotIn("variant", points[2]["set"])
        self.assertEqual(self.SPEC["set"], {"d": 16})  # the spec itself is left alone

    def test_a_second_merging_axis_combines_with_the_first(self):
        spec = dict(self.SPEC, grid={"with": self.SPEC["grid"]["with"],
                                     "with_length": [{"set": {"T": 64}, "batch": 8},
                                                     {"set": {"T": 128}, "batch": 4}]})
        points = lsrl.sweep.spec.points(spec)
        self.assertEqual([(p["label"], p["set"]["T"], p["batch"]) for p in points],
                         [("dec", 64, 8), ("dec", 128, 4), ("la", 64, 8), ("la", 128, 4)])

    def test_overrides_fix_parameters_and_replace_axes(self):
        spec = lsrl.sweep.spec.override(self.SPEC, {"steps": 2, "seed": 0, "set.d": 8})
        points = lsrl.sweep.spec.points(spec)
        self.assertEqual(len(points), 4)
        self.assertTrue(all(p["steps"] == 2 and p["seed"] == 0 and p["set"]["d"] == 8
                            for p in points))
        self.assertEqual(self.SPEC["steps"], 10)
        for key in ("grid", "with", "with_length", "checkpoints"):
            with self.assertRaisesRegex(lsrl.sweep.SpecError, "cannot be overridden"):
                lsrl.sweep.spec.override(self.SPEC, {key: 1})

    def test_ids_change_with_any_parameter(self):
        ids = [tid for tid, _ in lsrl.sweep.tasks(self.SPEC)]
        cut = [tid for tid, _ in lsrl.sweep.tasks(lsrl.sweep.spec.override(self.SPEC,
                                                                           {"steps": 2}))]
        self.assertEqual(len(set(ids)), 8)
        self.assertFalse(set(ids) & set(cut))


if __name__ == "__main__":
    unittest.main()
