#!/usr/bin/env python3
"""Mutation test of every file reader of the `lsrl` CLI (seeded, bounded in time).

Builds valid files of every format the CLI reads (graph files, compiled models with and
without a sidecar, safetensors and npz weights, the five seed models' checkpoints (their
metadata mutated as JSON too), token input files in JSON, .npy and safetensors), derives
mutants from
them (byte flips, cuts, duplicated spans, and JSON-aware edits: numbers made huge,
negative, fractional or strings, keys dropped, values nested, arrays emptied or grown),
adds the regression corpus (tests/data/robustness), and runs the reader command of each
under an address-space limit and a timeout. A run passes when it exits 0 (the mutant is
still valid) or 1 (refused with a message); it is a finding when it dies from a signal,
runs past the timeout, reports an internal error (exit 3) or runs out of memory. The
scan-schedule cache (docs/vulkan.md) is a hint: its mutants must never fail the run
(exit 1 is a finding too); without a Vulkan device the format is left out, with a note.
(The explorer's recovery files, which only the GUI reads, have their mutation test in
tests/studio/recovery_file_test.cpp.)

usage: mutation_test.py LSRL_BINARY [--mutants N] [--seed S] [--jobs J] [--budget SECONDS]
Prints the counts per format and exits 1 on any finding.
"""
import argparse
import concurrent.futures
import json
import os
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time

MEMORY_LIMIT = 1 << 30  # bytes of address space per run
TIMEOUT = 30  # seconds per run
HERE = os.path.dirname(os.path.abspath(__file__))
CACHE_DIR = "cache"  # $LSRL_CACHE_DIR of each run: in its folder, never the user's
CACHE_FILE = os.path.join(CACHE_DIR, "scan-schedules.json")
HINT_FORMATS = {"scan-cache"}  # formats whose mutants must never fail a run
CORPUS = os.path.join(HERE, "..", "data", "robustness")


# Few malloc arenas, so that the address-space limit measures memory, not per-thread
# reservations; one thread per run (the runs themselves go in parallel).
ENV = dict(os.environ, MALLOC_ARENA_MAX="2")


def limit_memory():
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def run(lsrl, args, cwd):
    """Returns (verdict, detail): verdict is 'ok', 'refused' or a finding."""
    start = time.monotonic()
    try:
        r = subprocess.run([lsrl] + args, cwd=cwd, capture_output=True, timeout=TIMEOUT,
                           preexec_fn=limit_memory,
                           env=dict(ENV, LSRL_CACHE_DIR=os.path.join(cwd, CACHE_DIR)))
    except subprocess.TimeoutExpired:
        return "hang", "over %d s" % TIMEOUT
    err = r.stderr.decode("utf-8", "replace")
    if r.returncode < 0:
        return "crash", "signal %d: %s" % (-r.returncode, err[-300:])
    if "out of memory" in err or "bad_alloc" in err:
        return "memory", err[-300:]
    if r.returncode == 0:
        return "ok", ""
    if r.returncode == 1:
        if len(err) > 8000:
            return "long message", "%d bytes" % len(err)
        return "refused", ""
    return "internal error", "exit %d: %s" % (r.returncode, err[-300:])


# ---------------------------------------------------------------------------- mutations

def mutate_bytes(data, rng):
    data = bytearray(data)
    kind = rng.randrange(5)
    if not data:
        return bytes([rng.randrange(256)])
    if kind == 0:  # flip bytes
        for _ in range(rng.randint(1, 8)):
            data[rng.randrange(len(data))] = rng.randrange(256)
    elif kind == 1:  # cut the tail
        del data[rng.randrange(len(data)):]
    elif kind == 2:  # delete a span
        a = rng.randrange(len(data))
        del data[a:a + rng.randint(1, 64)]
    elif kind == 3:  # duplicate a span
        a = rng.randrange(len(data))
        b = min(len(data), a + rng.randint(1, 256))
        data[a:a] = data[a:b] * rng.randint(1, 4)
    else:  # insert interesting bytes
        a = rng.randrange(len(data) + 1)
        data[a:a] = rng.choice([b"\x00", b"\xff\xff\xff\xff", b"{", b"[", b"]", b"\"", b"-",
                                b"1e400", b"9" * 30, b"\\u0000", b"NaN"])
    return bytes(data)


INTERESTING = [0, -1, 1, 2 ** 31, 2 ** 31 - 1, 2 ** 53 + 1, 2 ** 63, 10 ** 30, -(2 ** 31), 0.5,
               1e308, -1e308, "1e400", "1/0", "x", "", None, True, [], {}, [[]], "0.0", 1e-320,
               "sqrt(-1)", "(" * 50 + "1" + ")" * 50]


def paths(value, prefix=()):
    yield prefix
    if isinstance(value, dict):
        for k, v in value.items():
            yield from paths(v, prefix + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value[:64]):
            yield from paths(v, prefix + (i,))


def mutate_json(doc, rng):
    doc = json.loads(json.dumps(doc))
    candidates = list(paths(doc))
    target = rng.choice(candidates[1:] or candidates)
    parent = doc
    for key in target[:-1]:
        parent = parent[key]
    key = target[-1] if target else None
    if key is None:
        return rng.choice(INTERESTING)
    kind = rng.randrange(6)
    value = parent[key]
    if kind == 0:
        parent[key] = rng.choice(INTERESTING)
    elif kind == 1 and isinstance(parent, dict):
        del parent[key]
    elif kind == 2:
        parent[key] = [value] if rng.random() < 0.5 else {"x": value}
    elif kind == 3 and isinstance(value, list) and value:
        parent[key] = value + value[:rng.randint(1, len(value))] if rng.random() < 0.5 else value[:-1]
    elif kind == 4 and isinstance(value, (int, float)) and not isinstance(value, bool):
        parent[key] = rng.choice([value + 1, value - 1, -value, value * 1000, value + 0.5, str(value)])
    else:
        parent[key] = rng.choice(INTERESTING)
    return doc


def with_safetensors_metadata(data, edit):
    """The safetensors file `data` with its "lsrl" metadata (JSON text) replaced by
    edit(metadata as a value); the tensors stay as they are."""
    n = int.from_bytes(data[:8], "little")
    header = json.loads(data[8:8 + n])
    meta = header.setdefault("__metadata__", {})
    meta["lsrl"] = json.dumps(edit(json.loads(meta.get("lsrl", "null"))))
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    return len(text).to_bytes(8, "little") + text + data[8 + n:]


# Seed-model checkpoints (`lsrl model save`, with a trained checkpoint's "task" and
# "training" entries added): kind -> (a scored task it has, its config).
SEED_MODELS = {"gateloop": ("memory_horizon", {}), "looped": ("sudoku", {}),
               "lattice": ("assoc_recall", {"d_in": 24, "d": 8, "m": 8, "recall_pairs": 3,
                                            "recall_queries": 3}),
               "mingru": ("selective_copy", {}), "minlstm": ("hold", {})}


# ---------------------------------------------------------------------------- formats

def build_bases(lsrl, work):
    def cli(*args):
        r = subprocess.run([lsrl] + list(args), cwd=work, capture_output=True, text=True)
        if r.returncode != 0:
            raise SystemExit("setup failed: lsrl %s: %s" % (" ".join(args), r.stderr))

    cli("program", "more_ones", "-o", "mo.json")
    cli("program", "vec2vec", "--set", "n=2", "--set", "m=1", "-o", "v.json")
    cli("compile", "mo.json", "--backend", "exact", "-o", "mo.model.json")
    cli("compile", "v.json", "--no-optimize", "-o", "v.model.json")  # with a sidecar
    cli("export", "mo.model.json", "-o", "mo.safetensors")
    cli("export", "mo.model.json", "--target", "lstm", "-o", "mo.npz")
    cli("export", "mo.model.json", "--target", "hawk", "--horizon", "8", "-o", "mo.hawk.safetensors")
    with open(os.path.join(work, "in.json"), "w") as f:
        json.dump({"tokens": [[1], [0], [1], [1], [0]]}, f)
    # Binary batches: 3 tok2tok prompts of 5 tokens (width 1, as more_ones reads).
    cli("prompt", "tok2tok", "--random", "2", "--count", "3", "-L", "1", "-o", "in.npy")
    cli("prompt", "tok2tok", "--random", "2", "--count", "3", "-L", "1", "-o", "in.safetensors")
    run_binary = [["run", "mo.model.json", "--input", "{f}", "-o", "{f}.out.npy", "--exact"],
                  ["run", "mo.model.json", "--input", "{f}", "-o", "{f}.out.safetensors",
                   "--backend", "cpu32"]]
    with open(os.path.join(work, "batch.json"), "w") as f:
        json.dump({"batch": [{"tokens": [[1], [0]]}, {"tokens": [[0]]}]}, f)
    v_sidecar = json.load(open(os.path.join(work, "v.model.json")))["metadata"]["sidecar"]["file"]
    # The scan-schedule cache a Vulkan run writes (none without a device or timestamps).
    on_device = ["run", "mo.model.json", "--input", "in.json", "--backend", "vulkan"]
    r = subprocess.run([lsrl] + on_device, cwd=work, capture_output=True, text=True,
                       env=dict(ENV, LSRL_CACHE_DIR=os.path.join(work, CACHE_DIR)))
    cache = {}
    if os.path.isfile(os.path.join(work, CACHE_FILE)):
        cache["scan-cache"] = (CACHE_FILE, True, [on_device])
    else:
        print("mutation test: scan-cache left out (no cache written: %s)"
              % (r.stderr.strip()[-200:] or "the device has no timestamps"))
    seed = {}
    for kind, (task, config) in SEED_MODELS.items():
        name = kind + ".seed.safetensors"
        with open(os.path.join(work, kind + ".config.json"), "w") as f:
            json.dump(config, f)
        cli("model", "save", kind, "--config", kind + ".config.json", "-o", name)
        with open(os.path.join(work, name), "rb") as f:
            trained = with_safetensors_metadata(f.read(), lambda m, task=task: dict(
                m, task=task, training={"steps": 10, "seed": 1, "lr": 0.003, "interrupted": False,
                                        "eval_accuracy": 0.5, "init": "a.safetensors"}))
        with open(os.path.join(work, name), "wb") as f:
            f.write(trained)
        seed["seed-" + kind] = (name, False, [["model", "run", kind, "--weights", "{f}"],
                                              ["model", "eval", kind, "--weights", "{f}",
                                               "--samples", "5"]])
    # format -> (base file, is JSON, commands with {f} for the mutant)
    return {
        **seed,
        **cache,
        "graph": ("mo.json", True, [["info", "{f}"], ["run", "{f}", "--input", "in.json"]]),
        "model": ("mo.model.json", True,
                  [["check", "{f}"], ["export", "{f}", "-o", "{f}.out.safetensors"],
                   ["run", "{f}", "--input", "in.json", "--backend", "cpu32"]]),
        "model+sidecar": ("v.model.json", True, [["info", "{f}"]]),
        "sidecar": (v_sidecar, False, [["info", "v.model.json"]]),
        "safetensors": ("mo.safetensors", False, [["run", "{f}", "--input", "in.json"]]),
        "hawk-safetensors": ("mo.hawk.safetensors", False, [["run", "{f}", "--input", "in.json"]]),
        "npz": ("mo.npz", False, [["run", "{f}", "--input", "in.json"]]),
        "input": ("in.json", True, [["run", "mo.model.json", "--input", "{f}", "--exact"],
                                    ["run", "mo.model.json", "--input", "{f}", "--backend", "cpu32"]]),
        "batch-input": ("batch.json", True, [["run", "mo.json", "--input", "{f}"]]),
        "npy-input": ("in.npy", False, run_binary),
        "safetensors-input": ("in.safetensors", False, run_binary),
    }


def mutant_jobs(bases, work, count, rng):
    """Writes the mutants into per-job folders; returns (format, folder, args) triples."""
    names = sorted(bases)
    jobs = []
    for i in range(count):
        fmt = names[i % len(names)]
        base, is_json, commands = bases[fmt]
        folder = os.path.join(work, "m%05d" % i)
        os.mkdir(folder)
        for name in os.listdir(work):  # the other files a command reads, linked
            src = os.path.join(work, name)
            if os.path.isfile(src):
                os.link(src, os.path.join(folder, name))
        original = open(os.path.join(work, base), "rb").read()
        if is_json and rng.random() < 0.6:
            data = json.dumps(mutate_json(json.loads(original), rng)).encode()
        elif base.endswith(".seed.safetensors") and rng.random() < 0.6:
            data = with_safetensors_metadata(original, lambda m: mutate_json(m, rng))
        else:
            data = mutate_bytes(original, rng)
        target = os.path.join(folder, base)
        if os.path.dirname(base):  # a base in a subfolder (the cache) is not linked
            os.makedirs(os.path.dirname(target))
        else:
            os.remove(target)
        with open(target, "wb") as f:
            f.write(data)
        command = rng.choice(commands)
        jobs.append((fmt, folder, [a.replace("{f}", base) for a in command]))
    return jobs


def corpus_jobs(work):
    """The regression corpus: each reproducer through the command that broke on it."""
    jobs = []
    for name in sorted(os.listdir(CORPUS)):
        path = os.path.join(CORPUS, name)
        if name.endswith(".model.json"):
            for cmd in (["export", path, "-o", "x.safetensors"], ["info", path],
                        ["run", path, "--input", "in.json", "--backend", "cpu32"]):
                jobs.append(("corpus", work, cmd))
        elif name.endswith(".safetensors") and name.split("_")[0] in SEED_MODELS:
            kind = name.split("_")[0]
            for action in ("run", "eval"):
                jobs.append(("corpus", work, ["model", action, kind, "--weights", path]))
        elif name.endswith((".safetensors", ".npz")):
            jobs.append(("corpus", work, ["run", path, "--input", "in.json"]))
        elif name.startswith("input_"):
            for backend in ("float64", "cpu32"):
                jobs.append(("corpus", work, ["run", "mo.model.json", "--input", path,
                                              "--backend", backend]))
        elif name.endswith(".json"):
            jobs.append(("corpus", work, ["info", path]))
    return jobs


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("lsrl")
    parser.add_argument("--mutants", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--budget", type=float, default=280, help="seconds for the runs")
    args = parser.parse_args()
    lsrl = os.path.abspath(args.lsrl)
    work = tempfile.mkdtemp(prefix="lsrl-mutation-")
    try:
        bases = build_bases(lsrl, work)
        rng = random.Random(args.seed)
        jobs = corpus_jobs(work) + mutant_jobs(bases, work, args.mutants, rng)
        counts = {}  # format -> verdict -> n
        findings = []
        start = time.monotonic()
        with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
            futures = {pool.submit(run, lsrl, cmd, folder): (fmt, folder, cmd)
                       for fmt, folder, cmd in jobs}
            for future in concurrent.futures.as_completed(futures):
                fmt, folder, cmd = futures[future]
                verdict, detail = future.result()
                if fmt in HINT_FORMATS and verdict == "refused":
                    verdict, detail = "hint failed the run", "exit 1 (a hint file must be ignored)"
                counts.setdefault(fmt, {}).setdefault(verdict, 0)
                counts[fmt][verdict] += 1
                if verdict not in ("ok", "refused"):
                    kept = os.path.join(tempfile.gettempdir(), "lsrl-finding-%d" % len(findings))
                    shutil.copytree(folder, kept, dirs_exist_ok=True)
                    findings.append("%s: lsrl %s -> %s %s (files kept in %s)"
                                    % (fmt, " ".join(cmd), verdict, detail, kept))
        elapsed = time.monotonic() - start
    finally:
        shutil.rmtree(work, ignore_errors=True)
    total = sum(sum(v.values()) for v in counts.values())
    print("mutation test: %d runs (%d mutants, seed %d) in %.0f s" %
          (total, args.mutants, args.seed, elapsed))
    for fmt in sorted(counts):
        print("  %-17s %s" % (fmt, ", ".join("%s %d" % kv for kv in sorted(counts[fmt].items()))))
    for f in findings:
        print("FINDING " + f)
    if elapsed > args.budget:
        print("mutation test: took %.0f s, over the budget of %.0f s" % (elapsed, args.budget))
        return 1
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
