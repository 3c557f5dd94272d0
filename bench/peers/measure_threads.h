#pragma once
// One thread count, measured in a process of its own: our library reads
// ACLNN_CPU_THREADS once, so each thread count needs a fresh process.

#include <cstdio>

#include "run_options.h"

namespace peers {

// Sets every provider to `threads` threads, measures every sweep's cases
// (per direction and case: ours in every precision of a sweep that has the
// case, fp32 first, then oneDNN; PyTorch for all jobs at the end) and writes
// each result's lines to `out` as soon as they are known. Returns an exit
// status.
int measureAtThreadCount(const RunOptions& options, int threads, FILE* out);

}  // namespace peers
