#!/bin/sh
# Installs what is missing (oneDNN, PyTorch, the build tools: scripts/setup.sh),
# builds the library and the peer benchmark, then runs it; arguments go to
# conv_backward_vs_onednn (see --help), e.g.
#   bench/peers/run.sh                                  # every case, 1 and 2 threads, 2 rounds
#   bench/peers/run.sh --markdown --verbose             # the table for README.md
#   bench/peers/run.sh --only n8c64o64h56w56k3p1 --threads 1 --rounds 1
#   bench/peers/run.sh --direction forward               # aclnnConvolution, fp32
#   bench/peers/run.sh --direction all --dtype fp32,bf16,fp16,hf32   # everything
# ACLNN_CPU_BUILD_DIR picks the library build directory (default build-bench);
# JOBS the build parallelism (default 2).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${ACLNN_CPU_BUILD_DIR:-$root/build-bench}
jobs=${JOBS:-2}
log=$(mktemp)
trap 'rm -f "$log"' EXIT

# Quiet unless something fails.
quietly() {
  if ! "$@" >"$log" 2>&1; then
    tail -n 40 "$log" >&2
    exit 1
  fi
}
# The peers (oneDNN, PyTorch) and the build tools, where they are missing.
quietly env ACLNN_CPU_WITH_PEERS=1 "$root/scripts/setup.sh"
quietly cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release
# The shared libraries as shipped, and the static kernel module the benchmark
# asks which algorithm each pass runs.
quietly cmake --build "$build" --target ascendcl nnopbase opapi aclcpu_kernels aclcpu_common \
  -j "$jobs"
quietly cmake -S "$here" -B "$build/peers" -DCMAKE_BUILD_TYPE=Release \
  -DACLNN_CPU_BUILD_DIR="$build"
quietly cmake --build "$build/peers" -j "$jobs"
exec "$build/peers/conv_backward_vs_onednn" "$@"
