#!/usr/bin/env bash
# Builds the libFuzzer targets of tests/fuzz with clang (ASan + UBSan, the
# whole library instrumented for coverage) in build-fuzz/ and runs each one
# for SECONDS (default 60) on one core, starting from its seed corpus.
#   scripts/fuzz.sh [SECONDS] [TARGET...]
# New inputs go to build-fuzz/corpus/<target>/; a crash leaves
# build-fuzz/crash-* and makes the script fail.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
shift || true
targets=("$@")
[[ ${#targets[@]} -gt 0 ]] || targets=(conv_backward_phase1 conv_tbc_backward_phase1 conv_differential api_sequence)
command -v clang++ >/dev/null || { echo "fuzz.sh: clang++ not found (apt-get install clang)"; exit 1; }
CC=clang CXX=clang++ cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DACLNN_CPU_SANITIZE=address,undefined -DACLNN_CPU_FUZZERS=ON \
  -DCMAKE_CXX_FLAGS=-fsanitize=fuzzer-no-link -DCMAKE_C_FLAGS=-fsanitize=fuzzer-no-link >/dev/null
cmake --build build-fuzz -j2 --target "${targets[@]/#/fuzz_}" >/dev/null
status=0
for target in "${targets[@]}"; do
  corpus="build-fuzz/corpus/$target"
  mkdir -p "$corpus"
  cp -n tests/fuzz/corpus/"$target"/* "$corpus"/ 2>/dev/null || true
  log="build-fuzz/fuzz-$target.log"
  echo "== fuzz $target for ${seconds}s"
  if ACLNN_CPU_THREADS=1 ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
     UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
     "build-fuzz/tests/fuzz/fuzz_$target" -max_total_time="$seconds" -timeout=60 -rss_limit_mb=4096 \
       -print_final_stats=1 -artifact_prefix=build-fuzz/crash-"$target"- "$corpus" >"$log" 2>&1; then
    execs=$(grep -m1 'stat::number_of_executed_units' "$log" | awk '{print $2}')
    echo "   $target: ${execs:-?} executions, no finding (corpus $(ls "$corpus" | wc -l) inputs)"
  else
    echo "   $target: FINDING (see $log)"
    tail -40 "$log"
    status=1
  fi
done
exit $status
