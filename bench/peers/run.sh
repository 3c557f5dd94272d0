#!/bin/sh
# Builds the library and the peer benchmark, then runs it; arguments go to
# conv_backward_vs_onednn (see --help), e.g.
#   bench/peers/run.sh --rounds 3
#   bench/peers/run.sh --only n8c64o64h56w56k3p1 --threads 1
# ACLNN_CPU_BUILD_DIR picks the library build directory (default build-bench).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${ACLNN_CPU_BUILD_DIR:-$root/build-bench}
jobs=${JOBS:-2}

cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" --target ascendcl nnopbase opapi -j "$jobs" >/dev/null
cmake -S "$here" -B "$build/peers" -DCMAKE_BUILD_TYPE=Release \
  -DACLNN_CPU_BUILD_DIR="$build" >/dev/null
cmake --build "$build/peers" -j "$jobs" >/dev/null
exec "$build/peers/conv_backward_vs_onednn" "$@"
