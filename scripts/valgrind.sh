#!/usr/bin/env bash
# Runs every GoogleTest binary of the Release build under valgrind memcheck
# (zero errors and no definite/indirect/possible leaks required).
set -euo pipefail
cd "$(dirname "$0")/.."
build="${BUILD_DIR:-build}"
[[ -d "$build" ]] || scripts/test.sh
status=0
for binary in "$build"/tests/*/*_tests; do
  [[ -x "$binary" ]] || continue
  # It replaces operator new to count allocations, which valgrind replaces too.
  [[ "$binary" == *noheap* ]] && continue
  echo "== valgrind $binary"
  if ! valgrind --quiet --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect,possible \
      --show-leak-kinds=definite,indirect,possible "$binary" --gtest_brief=1 "$@" >/tmp/valgrind.$$.log 2>&1; then
    tail -40 /tmp/valgrind.$$.log
    status=1
  else
    grep -E "tests? ran|PASSED|FAILED" /tmp/valgrind.$$.log | tail -3
  fi
done
rm -f /tmp/valgrind.$$.log
exit $status
