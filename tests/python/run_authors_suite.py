"""Runs the paper authors' own test suite (tests/ of AleksandarPetrov/LSRL) against this
project's `lsrl` module, or against their implementation for comparison
(docs/python.md, "Compatibility"). Their files are not part of this project: pass the
path of a copy of their repository.

    /usr/bin/python3 tests/python/run_authors_suite.py PATH/TO/LSRL [--theirs]
        [--package build/release/python] [pytest arguments, e.g. -k NUMERIC -x
        or tests/test_sugar.py]

The suite runs unchanged from a fresh temporary folder (it writes test_results/ there)
with two environment shims and no shim of the API:
- Debian 12's python3-parameterized 0.8.1 builds class names with re.sub on the "name"
  parameter, which the suite passes as a set; newer releases convert it to a string.
- matplotlib draws with the Agg backend (no display).
With --theirs, a third shim serves their implementation only: Debian 12's scipy 1.10
predates scipy.sparse.eye_array (1.12), which their Matrix.eye calls; the sparse identity
is the same matrix. Needs python3-pytest, python3-parameterized and python3-matplotlib
(and python3-networkx for --theirs).
"""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time

CONFTEST = '''\
import matplotlib

matplotlib.use("Agg")

from parameterized import parameterized as _parameterized

_to_safe_name = _parameterized.to_safe_name
_parameterized.to_safe_name = staticmethod(lambda s: _to_safe_name(str(s)))
'''

THEIR_SCIPY_SHIM = '''
import scipy.sparse as _sparse

if not hasattr(_sparse, "eye_array"):
    _sparse.eye_array = lambda n, **kw: _sparse.identity(n, format="csr", **kw)
'''


def main() -> int:
    here = os.path.dirname(os.path.abspath(__file__))
    default_package = os.path.join(here, "..", "..", "build", "release", "python")
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("repository", help="a copy of github.com/AleksandarPetrov/LSRL")
    parser.add_argument("--theirs", action="store_true", help="run their implementation instead of ours")
    parser.add_argument("--package", default=default_package, help="the folder holding our lsrl package")
    args, pytest_args = parser.parse_known_args()

    tests = os.path.join(args.repository, "tests")
    if not os.path.isdir(tests):
        print(f"{args.repository}: no tests/ folder (expected a copy of the LSRL repository)", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="authors-suite-") as work:
        shutil.copytree(tests, os.path.join(work, "tests"))
        with open(os.path.join(work, "conftest.py"), "w") as f:
            f.write(CONFTEST + (THEIR_SCIPY_SHIM if args.theirs else ""))
        if args.theirs:
            shutil.copytree(os.path.join(args.repository, "lsrl"), os.path.join(work, "lsrl"))
            path = work
        else:
            path = os.path.abspath(args.package)
        env = dict(os.environ, PYTHONPATH=path, MPLBACKEND="Agg")
        start = time.monotonic()
        files = [] if any(a.startswith("tests") for a in pytest_args) else ["tests"]
        done = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-rf", *files, *pytest_args],
                              cwd=work, env=env)
        print(f"{'their' if args.theirs else 'our'} implementation: {time.monotonic() - start:.0f} s")
        return done.returncode


if __name__ == "__main__":
    sys.exit(main())
