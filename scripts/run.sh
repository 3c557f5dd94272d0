#!/usr/bin/env bash
# Main job: builds the library and the aclnn-conv tool, then runs the built-in
# problem set (or the arguments given, see --help and docs/tool.md).
set -euo pipefail
cd "$(dirname "$0")/.."
ACLNN_CPU_WITH_TORCH=0 scripts/setup.sh
echo "run: building the library and aclnn-conv in build/ (first time: a few minutes)"
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$(nproc)" --target aclnn-conv >/dev/null
exec build/tools/aclnn_conv/aclnn-conv "$@"
