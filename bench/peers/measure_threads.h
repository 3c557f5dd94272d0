#pragma once
// One thread count, measured in a process of its own: our library reads
// ACLNN_CPU_THREADS once, so each thread count needs a fresh process.

#include <cstdio>

#include "run_options.h"

namespace peers {

// Sets every provider to `threads` threads, measures every case (ours, then
// oneDNN, per case; PyTorch for all cases at the end) and writes each case's
// CaseResult lines to `out` as soon as they are known. Returns an exit status.
int measureAtThreadCount(const RunOptions& options, int threads, FILE* out);

}  // namespace peers
