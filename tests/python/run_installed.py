#!/usr/bin/env python3
"""ctest entry: the package as installed by `cmake --install` finds its own libraries.

Usage: run_installed.py BUILD_DIR PREFIX. Installs BUILD_DIR into PREFIX, then, with
only PYTHONPATH=PREFIX/lib/python3/dist-packages (no ACLNN_CPU_LIB_DIR), checks that
the package loads PREFIX/lib64/libascendcl.so, that help() works, and runs the error,
lifetime and thread suites against it. Exits 77 (skip) without numpy or pytest.
"""

import importlib.util
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    build, prefix = sys.argv[1], os.path.abspath(sys.argv[2])
    missing = [m for m in ("pytest", "numpy") if importlib.util.find_spec(m) is None]
    if missing:
        print(f"python_installed_package: skipped, cannot import {', '.join(missing)}")
        return 77
    shutil.rmtree(prefix, ignore_errors=True)
    subprocess.run(["cmake", "--install", build, "--prefix", prefix], check=True,
                   stdout=subprocess.DEVNULL)
    env = {k: v for k, v in os.environ.items() if k not in ("ACLNN_CPU_LIB_DIR", "PYTHONPATH")}
    env["PYTHONPATH"] = os.path.join(prefix, "lib", "python3", "dist-packages")
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    probe = ("import aclnn_cpu, pydoc, sys; p = aclnn_cpu.library_path(); print(p); "
             f"sys.exit(0 if p == {os.path.join(prefix, 'lib64', 'libascendcl.so')!r} and "
             "'convolution_backward' in pydoc.render_doc(aclnn_cpu) and "
             "aclnn_cpu.__file__.startswith(" + repr(prefix) + ") else 1)")
    if subprocess.run([sys.executable, "-c", probe], env=env).returncode != 0:
        print("python_installed_package: the installed package did not load its own library")
        return 1
    suites = [os.path.join(HERE, f) for f in ("test_errors.py", "test_lifetime.py",
                                              "test_threads.py", "test_convolution_backward.py")]
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "-rs",
                           *suites], env=env, cwd=HERE).returncode


if __name__ == "__main__":
    sys.exit(main())
