#!/usr/bin/env bash
# Runs the test suite under AddressSanitizer + UndefinedBehaviorSanitizer
# (build-asan/; UBSan's enum, bool and overflow checks included, every report
# fatal). CI runs it after scripts/test.sh; extra arguments go to ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DACLNN_CPU_SANITIZE=address,undefined >/dev/null
cmake --build build-asan -j"$(nproc)" >/dev/null
# The torch cross-checks and the Python package's tests load our library into
# a Python that is not built with ASan (the ASan runtime must come first); the
# plain build covers them.
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest --test-dir build-asan --output-on-failure -j"$(nproc)" -E 'torch_crosscheck|install|python' "$@"
