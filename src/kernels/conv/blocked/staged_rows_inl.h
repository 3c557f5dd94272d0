#pragma once
// Index arithmetic of one staged row (image, block, q0, q1) shared by the
// per-ISA staging files. Static inline: every including file, whatever its
// ISA flags, keeps its own copy.

#include <xmmintrin.h>

#include <cstdint>
#include <cstring>

#include "kernels/conv/blocked/blocked_plan.h"

namespace aclcpu {
namespace kernels {
namespace blocked {

struct StagedRow {
  int64_t image, block, q0, q1;
  int64_t i0, i1;    // source indices of q0, q1
  bool inside;       // both inside the source
  int64_t channels;  // valid channels of the block
};

static inline StagedRow decode(const StagedLayout& l, int64_t row) {
  StagedRow r;
  r.q1 = row % l.size[1];
  r.q0 = (row / l.size[1]) % l.size[0];
  r.block = (row / (l.size[1] * l.size[0])) % l.blocks;
  r.image = row / (l.size[1] * l.size[0] * l.blocks);
  r.i0 = r.q0 * l.step[0] + l.first[0];
  r.i1 = r.q1 * l.step[1] + l.first[1];
  r.inside = r.i0 >= 0 && r.i0 < l.source[0] && r.i1 >= 0 && r.i1 < l.source[1];
  const int64_t left = l.channels - r.block * kLanes;
  r.channels = left < kLanes ? left : kLanes;
  return r;
}

// The block channel staged lane `lane` holds, and the lane of a channel.
static inline int64_t laneChannel(const StagedLayout& l, int64_t lane) {
  return lane % l.laneGroups * (kLanes / l.laneGroups) + lane / l.laneGroups;
}
static inline int64_t channelLane(const StagedLayout& l, int64_t channel) {
  const int64_t perGroup = kLanes / l.laneGroups;
  return channel % perGroup * l.laneGroups + channel / perGroup;
}

static inline float* stagedRow(float* base, const StagedLayout& l, const StagedRow& r) {
  return base + r.image * l.imageStride + r.block * l.blockStride + r.q0 * l.planeStride +
         r.q1 * l.rowStride;
}

// The dense element (image, block channel 0, i0, i1, 0).
// A block's dense source (its channels' planes, consecutive) is one span;
// the staging loops request the next block's span as they start a block
// when it is at most this long: short per-channel runs (a 14 x 14 plane is
// 784 bytes of fp32) give the hardware prefetcher nothing to follow, and the
// first read of every line waited on memory (bf16 RN50 3x3 256ch 14x14
// forward: staging x took 8.8% of the kernels' time, 3.7% with the spans
// requested). Longer spans' runs are long enough for the prefetcher.
constexpr int64_t kPrefetchedSpanBytes = 32 << 10;

// Requests `bytes` at byte offset `offset` from `base` into L1 (a block's
// span, above). The address is formed as an integer: the next block's span
// may lie past the tensor's end, where a prefetch is harmless but pointer
// arithmetic is not defined.
static inline void prefetchSpan(const void* base, int64_t offset, int64_t bytes) {
  const uintptr_t at = reinterpret_cast<uintptr_t>(base) + static_cast<uintptr_t>(offset);
  for (int64_t i = 0; i < bytes; i += 64)
    _mm_prefetch(reinterpret_cast<const char*>(at + static_cast<uintptr_t>(i)), _MM_HINT_T0);
}

static inline int64_t denseRow(const StagedLayout& l, const StagedRow& r) {
  const int64_t plane = l.source[1] * l.source[2];
  return ((r.image * l.channels + r.block * kLanes) * l.source[0] + r.i0) * plane +
         r.i1 * l.source[2];
}

// Staged positions [lo, hi) map to source columns inside [0, source[2]).
static inline void insideColumns(const StagedLayout& l, int64_t* lo, int64_t* hi) {
  const int64_t step = l.step[2], first = l.first[2];
  int64_t a = first >= 0 ? 0 : (-first + step - 1) / step;
  int64_t b = l.source[2] - first <= 0 ? 0 : (l.source[2] - first + step - 1) / step;
  if (a > l.size[2]) a = l.size[2];
  if (b > l.size[2]) b = l.size[2];
  if (b < a) b = a;
  *lo = a;
  *hi = b;
}

// Zeroes the staged row's positions outside [lo, hi) (all of it when the row
// maps outside the source); true when [lo, hi) still has to be filled.
static inline bool zeroOutsideColumns(const StagedLayout& l, const StagedRow& r, int64_t lo,
                                      int64_t hi, float* dst) {
  if (!r.inside || r.channels <= 0) {
    std::memset(dst, 0, static_cast<size_t>(l.size[2] * kLanes) * sizeof(float));
    return false;
  }
  std::memset(dst, 0, static_cast<size_t>(lo * kLanes) * sizeof(float));
  std::memset(dst + hi * kLanes, 0, static_cast<size_t>((l.size[2] - hi) * kLanes) * sizeof(float));
  return true;
}

}  // namespace blocked
}  // namespace kernels
}  // namespace aclcpu
