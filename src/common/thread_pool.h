#pragma once
// The one persistent compute pool shared by every stream, so that several busy
// streams never run more compute threads than the pool has.
//
// Determinism contract: parallelFor only distributes independent work. A
// caller must never let a result depend on how [0, count) was cut or on which
// thread ran which range (no per-range partial sums that are later combined).

#include <cstdint>
#include <functional>

namespace aclcpu {

// Threads in the pool: ACLNN_CPU_THREADS when set to a positive integer, else
// every core the process may use.
int computeThreadCount();

// Replaces the pool with one of `threads` threads (0 means the default above).
// Waits for running parallel regions to finish. For tests and tools.
void setComputeThreadCount(int threads);

// Calls body(begin, end) on disjoint ranges that together cover [0, count),
// on the pool's threads, and returns when all have finished. One region runs
// at a time; a call made from inside a region runs inline on the caller.
// An exception thrown by body is rethrown here after the region completes.
void parallelFor(int64_t count, const std::function<void(int64_t begin, int64_t end)>& body);

}  // namespace aclcpu
