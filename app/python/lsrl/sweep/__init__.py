"""Sweeps on a Dask cluster (docs/sweeps.md): a spec's tasks (`lsrl noise`, `lsrl train`,
`lsrl bench precision` calls over a grid) run on the workers of a scheduler, or of a local
cluster started for the sweep, and stream into a JSON-lines file that a rerun resumes.

    import lsrl.sweep
    lsrl.sweep.run("examples/sweeps/noise_small.json", "noise.jsonl")   # local cluster
    lsrl.sweep.run(spec_dict, "out.jsonl", scheduler="tcp://host:8786")
    records = lsrl.sweep.results("noise.jsonl")

`lsrl sweep SPEC.json` runs the same from the command line. Needs Debian's
python3-distributed.
"""

import json

from .jobs import JOBS, TaskFailed  # noqa: F401
from .runner import run  # noqa: F401
from .spec import SpecError, load, tasks  # noqa: F401


def results(path) -> list:
    """The records of a sweep's output (done and failed), in the order they finished."""
    out = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            try:
                out.append(json.loads(line))
            except json.JSONDecodeError:
                continue  # a last line cut short by a crash
    return out
