#!/usr/bin/env python3
"""ctest entry of the Python suites: runs pytest on this folder, or skips visibly.

Exit 77 (ctest's skip code here) with the reason when pytest or numpy is missing, or
when torch is missing (then the numpy-only tests still run first, and their failures
still fail the test). Arguments are passed on to pytest.
"""

import importlib
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SKIP = 77


def _importable(name):
    try:
        importlib.import_module(name)
        return True
    except ImportError:
        return False


def main():
    missing = [m for m in ("pytest", "numpy") if not _importable(m)]
    if missing:
        print(f"python_tests: skipped, cannot import {', '.join(missing)} with {sys.executable} "
              "(install python3-pytest python3-numpy)")
        return SKIP
    import pytest
    # -rs lists every skipped test with its reason; no cache or bytecode in the source tree.
    sys.dont_write_bytecode = True
    rc = pytest.main(["-p", "no:cacheprovider", "-rs", "-q", HERE] + sys.argv[1:])
    if rc == 0 and not _importable("torch"):
        print("python_tests: skipped, PyTorch (python3-torch) is missing: only the numpy-only "
              "tests ran")
        return SKIP
    return int(rc)


if __name__ == "__main__":
    sys.exit(main())
