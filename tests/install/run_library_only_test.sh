#!/usr/bin/env bash
# The library-only build configures without GoogleTest (as if it were not
# installed), with and without the tool, and has no test targets; the default
# build without GoogleTest stops with a message that names the way out.
#
# usage: run_library_only_test.sh <source-dir> <work-dir> <cmake> <c++>
set -euo pipefail
source_dir=$1
work_dir=$2
cmake=$3
cxx=$4
failures=0
fail() { printf 'FAIL: %s\n' "$*"; failures=$((failures + 1)); }
no_gtest=(-DCMAKE_DISABLE_FIND_PACKAGE_GTest=ON -DCMAKE_CXX_COMPILER="$cxx")

rm -rf "$work_dir"
mkdir -p "$work_dir"
for tools in OFF ON; do
  dir=$work_dir/tools-$tools
  if "$cmake" -S "$source_dir" -B "$dir" -DACLNN_CPU_TESTS=OFF -DACLNN_CPU_TOOLS=$tools \
      "${no_gtest[@]}" >"$dir.log" 2>&1; then
    targets=$("$cmake" --build "$dir" --target help)
    grep -q '\bascendcl\b' <<<"$targets" || fail "TOOLS=$tools: no ascendcl target"
    grep -qE '_tests\b' <<<"$targets" && fail "TOOLS=$tools: test targets configured"
    if [[ $tools == ON ]]; then
      grep -q '\baclnn-conv\b' <<<"$targets" || fail "TOOLS=ON: no aclnn-conv target"
    else
      grep -q '\baclnn-conv\b' <<<"$targets" && fail "TOOLS=OFF: aclnn-conv configured"
    fi
    echo "ACLNN_CPU_TESTS=OFF ACLNN_CPU_TOOLS=$tools: configures without GoogleTest"
  else
    cat "$dir.log"
    fail "ACLNN_CPU_TESTS=OFF ACLNN_CPU_TOOLS=$tools does not configure without GoogleTest"
  fi
done

if "$cmake" -S "$source_dir" -B "$work_dir/default" "${no_gtest[@]}" >"$work_dir/default.log" 2>&1; then
  fail "the default build configured without GoogleTest"
fi
grep -q -- "-DACLNN_CPU_TESTS=OFF" "$work_dir/default.log" ||
  { cat "$work_dir/default.log"; fail "no message naming -DACLNN_CPU_TESTS=OFF"; }

((failures == 0)) || exit 1
echo "library-only configure: PASS"
