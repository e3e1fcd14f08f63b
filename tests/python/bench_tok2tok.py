"""Benchmark: what the Python front end costs over the C++ API on one program run.

The paper's Fig. 3 prompt (5 countries and their capitals, then the query: 33 tokens)
runs through examples/ua_tok2tok.py's program (L = 3, direct variant), in float64 and
exactly, two ways in one process:

- Python: ``program(prompt)`` — a numpy array in, an lsrl.Matrix out (the conversions,
  the pybind11 call and the wrapping included);
- C++: ``_lsrl.time_cpp_runs`` — the same plan run by an Executor in a C++ loop, as a
  C++ user of core/executor does, the tokens converted once.

Each is timed per run over several rounds (medians); the ratio Python / C++ is what
the Python layer costs. The last line printed is one JSON object with the figures.

    PYTHONPATH=build/release/python /usr/bin/python3 tests/python/bench_tok2tok.py [--repeats N]
"""

import argparse
import importlib.util
import json
import os
import statistics
import sys
import time

import numpy as np

from lsrl import _lsrl

EXAMPLES_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "examples")


def load_tok2tok_example():
    path = os.path.join(EXAMPLES_DIR, "ua_tok2tok.py")
    spec = importlib.util.spec_from_file_location("ua_tok2tok_example", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def fig3_prompt(example):
    def encode(word):
        return [ord(ch) - ord("A") + 1 for ch in word]

    capitals = {"AUS": "VIE", "BUL": "SOF", "CAN": "OTT", "DEN": "COP", "ENG": "LON"}
    dictionary = [(encode(k), encode(v)) for k, v in capitals.items()]
    return example.tok2tok_prompt(dictionary, encode("CAN")), encode("OTT")


def python_seconds(program, prompt, backend, repeats):
    seconds = []
    for _ in range(repeats):
        start = time.perf_counter()
        program(prompt, backend=backend)
        seconds.append(time.perf_counter() - start)
    return seconds


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=200, help="runs per round (default 200)")
    parser.add_argument("--rounds", type=int, default=5, help="rounds, alternating the two ways")
    args = parser.parse_args()

    example = load_tok2tok_example()
    program = example.ua_tok2tok(L=3, conditional="direct")
    prompt, expected = fig3_prompt(example)
    graph, output = program._graph, program._output_id
    figures = {"tokens": int(prompt.shape[1]), "program_nodes": len(program.topological_sort())}
    for backend, repeats in (("float64", args.repeats), ("exact", max(1, args.repeats // 10))):
        answer = [int(round(float(v))) for v in program(prompt, backend=backend).numpy()[0][-3:]]
        if answer != expected:
            sys.exit(f"bench: {backend} run answered {answer}, expected {expected}")
        python_runs, cpp_runs = [], []
        python_seconds(program, prompt, backend, repeats)  # warm-up: plans, caches
        _lsrl.time_cpp_runs(graph, output, prompt, backend, repeats)
        for _ in range(args.rounds):
            python_runs += python_seconds(program, prompt, backend, repeats)
            cpp_runs += _lsrl.time_cpp_runs(graph, output, prompt, backend, repeats)
        py_ms = statistics.median(python_runs) * 1e3
        cpp_ms = statistics.median(cpp_runs) * 1e3
        figures[backend] = {"python_ms": round(py_ms, 4), "cpp_ms": round(cpp_ms, 4),
                            "ratio": round(py_ms / cpp_ms, 3), "runs": len(python_runs)}
        print(f"{backend:8s} python {py_ms:9.4f} ms  C++ {cpp_ms:9.4f} ms  "
              f"python / C++ = {py_ms / cpp_ms:.3f}  (median of {len(python_runs)} runs each)")
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
