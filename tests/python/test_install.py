"""Installing the Python package: `cmake --install BUILD --prefix P` puts the package under
P/<libdir>/lsrl/python, where PYTHONPATH finds it (Debian's Python is externally managed,
so there is no pip install), and a program built with it runs from there.

The build folder is the one the imported package comes from (<build>/python/lsrl).
"""

import glob
import os
import subprocess
import sys
import tempfile
import unittest

import lsrl

BUILD_DIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(lsrl.__file__))))

PROGRAM = """
import numpy as np
import lsrl
x = lsrl.Input(dim=1)
count = lsrl.LinState(x, A=lsrl.Matrix.eye(1), B=lsrl.Matrix.eye(1),
                      init_state=lsrl.Matrix.zeros(1, 1))
loop = lsrl.ForEach(lsrl.f_larger(count, 2), verbose=False)
print(lsrl.__file__)
print(loop(np.array([[1, 1, 1, 0]])).numpy().tolist())
"""


class Install(unittest.TestCase):
    def test_installed_package_imports_and_runs(self):
        if not os.path.exists(os.path.join(BUILD_DIR, "cmake_install.cmake")):
            self.skipTest(f"{BUILD_DIR} is not a CMake build folder")
        with tempfile.TemporaryDirectory(prefix="lsrl-install-") as prefix:
            subprocess.run(["cmake", "--install", BUILD_DIR, "--prefix", prefix],
                           check=True, capture_output=True, text=True)
            packages = glob.glob(os.path.join(prefix, "lib*", "**", "lsrl", "python", "lsrl",
                                              "__init__.py"), recursive=True)
            self.assertEqual(len(packages), 1, packages)
            python_dir = os.path.dirname(os.path.dirname(packages[0]))
            self.assertTrue(glob.glob(os.path.join(python_dir, "lsrl", "_lsrl*.so")))
            env = dict(os.environ, PYTHONPATH=python_dir)
            run = subprocess.run([sys.executable, "-c", PROGRAM], env=env, check=True,
                                 capture_output=True, text=True, cwd=prefix)
            where, outputs = run.stdout.splitlines()
            self.assertTrue(where.startswith(python_dir), where)  # not the build tree's copy
            self.assertEqual(outputs, "[[0.0, 0.0, 1.0, 1.0]]")


if __name__ == "__main__":
    unittest.main()
