#pragma once
// The one persistent compute pool shared by every stream, so that several busy
// streams never run more compute threads than the pool has.
//
// Determinism contract: parallelFor only distributes independent work. A
// caller must never let a result depend on how [0, count) was cut or on which
// thread ran which range (no per-range partial sums that are later combined).

#include <cstdint>
#include <type_traits>

namespace aclcpu {

// Threads in the pool: ACLNN_CPU_THREADS when set to a positive integer, else
// every core the process may use. Lock-free: safe inside a parallel region.
int computeThreadCount();

// Replaces the pool with one of `threads` threads (0 means the default above).
// Waits for running parallel regions to finish. For tests and tools.
void setComputeThreadCount(int threads);

// Which member of the running region's team calls this: index in [0,
// threads), the region's caller being 0 (outside a region: {0, 1}). Lets a
// body keep per-thread scratch that stays in that core's caches; results
// must still not depend on it (see the contract above).
struct RegionWorker {
  int index = 0;
  int threads = 1;
};
RegionWorker regionWorker();

// Joins the pool's threads (after running regions finish); the next
// parallelFor starts a new pool. aclFinalize calls it.
void releaseComputePool();

// Constructs the pool's static state now, so that objects created after this
// call are destroyed before the pool at exit.
void touchComputePool();

// Calls body(begin, end) on disjoint ranges that together cover [0, count),
// on the pool's threads, and returns when all have finished. One region runs
// at a time; a call made from inside a region runs inline on the caller.
// An exception thrown by body is rethrown here after the region completes.
template <typename Body>
void parallelFor(int64_t count, Body&& body);

// A non-owning reference to a range body, so that parallelFor never touches
// the heap (kernels run on the caller's workspace only).
struct RangeBody {
  void* object;
  void (*call)(void* object, int64_t begin, int64_t end);
  void operator()(int64_t begin, int64_t end) const { call(object, begin, end); }
};

void parallelForRanges(int64_t count, RangeBody body);

template <typename Body>
void parallelFor(int64_t count, Body&& body) {
  using Callable = std::remove_reference_t<Body>;
  parallelForRanges(count, RangeBody{const_cast<void*>(static_cast<const void*>(&body)),
                                     [](void* object, int64_t begin, int64_t end) {
                                       (*static_cast<Callable*>(object))(begin, end);
                                     }});
}

}  // namespace aclcpu
