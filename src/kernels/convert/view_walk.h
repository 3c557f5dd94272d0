#pragma once
// Walking a strided 5-D view in row-major element order as a sequence of
// runs (a start offset, a stride and a length), after merging the dims that
// are laid out as one. Used by every bulk routine in this folder.

#include <cstdint>

#include "kernels/kernel_types.h"

namespace aclcpu {
namespace kernels {
namespace detail {

struct ViewWalk {
  int rank = 1;  // at least 1; the last dim is the run dim
  int64_t shape[5] = {1, 1, 1, 1, 1};
  int64_t strides[5] = {1, 1, 1, 1, 1};
  int64_t total = 1;
};

// Drops unit dims and merges neighbours whose strides make them one dim.
// The element order (row-major over the original shape) is unchanged.
ViewWalk makeWalk(const int64_t shape[5], const int64_t strides[5]);
inline ViewWalk makeWalk(const View5& view) { return makeWalk(view.shape, view.strides); }

// True when no two elements of the walk share an address, so writes through
// it may run in parallel. Conservative: false means "maybe overlapping".
bool walkIsNonOverlapping(const ViewWalk& walk);

// True when the walk is one dense forward run (element i at offset i).
inline bool walkIsContiguous(const ViewWalk& walk) {
  return walk.rank == 1 && (walk.strides[0] == 1 || walk.total <= 1);
}

// Calls run(flatIndex, elementOffset, stride, length) for the runs that cover
// flat indices [begin, end) in order.
template <typename RunFn>
void forEachRun(const ViewWalk& walk, int64_t begin, int64_t end, RunFn&& run) {
  if (begin >= end) return;
  const int last = walk.rank - 1;
  int64_t index[5] = {0, 0, 0, 0, 0};
  int64_t remainder = begin;
  int64_t offset = 0;
  for (int d = last; d >= 0; --d) {
    index[d] = remainder % walk.shape[d];
    remainder /= walk.shape[d];
    offset += index[d] * walk.strides[d];
  }
  int64_t flat = begin;
  while (flat < end) {
    const int64_t length =
        walk.shape[last] - index[last] < end - flat ? walk.shape[last] - index[last] : end - flat;
    run(flat, offset, walk.strides[last], length);
    flat += length;
    if (flat >= end) break;
    // Advance to the start of the next run (index[last] wraps to 0).
    offset -= index[last] * walk.strides[last];
    index[last] = 0;
    for (int d = last - 1; d >= 0; --d) {
      ++index[d];
      offset += walk.strides[d];
      if (index[d] < walk.shape[d]) break;
      offset -= index[d] * walk.strides[d];
      index[d] = 0;
    }
  }
}

// Splits [0, total) into fixed-size blocks and runs body(begin, end) over the
// shared pool (inline when small). Only for element-wise work.
void parallelOverElements(int64_t total, bool allowParallel,
                          void (*body)(void* context, int64_t begin, int64_t end), void* context);

template <typename Body>
void parallelOverElements(int64_t total, bool allowParallel, Body&& body) {
  parallelOverElements(
      total, allowParallel,
      [](void* context, int64_t begin, int64_t end) { (*static_cast<Body*>(context))(begin, end); },
      &body);
}

}  // namespace detail
}  // namespace kernels
}  // namespace aclcpu
