// The fp32 row passes' weight packing, its gather step: one reduction
// block's weights for a slice of taps, 16 output lanes per vector (the
// scalar loop did one element per iteration with a group test each: 14% of
// a 7x7 512ch forward pass). Only called after a cpuid check. Keep this file
// free of library templates (see f32_conv_rows_nb16_avx512.cpp).

#include "kernels/simd/avx512_intrinsic_warnings.h"

#include <immintrin.h>

#include <cstdint>

#include "kernels/conv/blocked/blocked_kernels.h"
#include "kernels/simd/lane_masks_avx512.h"
#include "kernels/simd/transpose_avx512.h"

namespace aclcpu {
namespace kernels {
namespace blocked {
namespace {

// Slices of at least this many taps are transposed: per reduction channel,
// each output lane's run of taps is one load, and a 16 x 16 register
// transpose turns the 16 runs into one vector per tap. A vector gather of
// 16 lanes whole weight rows apart costs more than a load and its share of
// the transpose's shuffles (Zen 5 EPYC, RN50 3x3 512ch 7x7 forward: the
// gathers were 20% of the pass).
constexpr int64_t kMinTransposeTaps = 4;

void gatherLanes(const WeightSliceJob& job) {
  for (int64_t c = 0; c < kLanes; ++c) {
    float* rows = job.buffer + c * job.sliceTaps * job.width;
    for (int o0 = 0; o0 < job.width; o0 += kLanes) {
      const __m512i index = _mm512_loadu_si512(job.outOffset + o0);
      // Lanes whose output channel is in reduction channel c's group.
      const __mmask16 inGroup =
          job.redGroup[c] < 0
              ? 0
              : _mm512_cmpeq_epi32_mask(_mm512_loadu_si512(job.outGroup + o0),
                                        _mm512_set1_epi32(static_cast<int32_t>(job.redGroup[c])));
      const float* base = job.w + job.redOffset[c];
      for (int64_t t = 0; t < job.taps; ++t) {
        const __m512 v = _mm512_mask_i32gather_ps(_mm512_setzero_ps(), inGroup, index, base + t, 4);
        _mm512_storeu_ps(rows + t * job.width + o0, v);
      }
    }
  }
}

void transposeRuns(const WeightSliceJob& job) {
  for (int64_t c = 0; c < kLanes; ++c) {
    float* rows = job.buffer + c * job.sliceTaps * job.width;
    const int64_t group = job.redGroup[c];
    for (int o0 = 0; o0 < job.width; o0 += kLanes) {
      __m512 r[kLanes];
#pragma GCC unroll 16
      for (int l = 0; l < kLanes; ++l) {
        const int o = o0 + l;
        if (group < 0 || job.outGroup[o] != group) {
          r[l] = _mm512_setzero_ps();
          continue;
        }
        const int64_t at = job.outOffset[o] + job.redOffset[c];
        // The forward's lanes are whole weight rows apart, too many streams
        // for the hardware prefetcher: the next job's runs are requested
        // now (an address, not a pointer: it may lie past w).
        if (job.nextJobStep)
          _mm_prefetch(reinterpret_cast<const char*>(reinterpret_cast<uintptr_t>(job.w + at) +
                                                     job.nextJobStep * sizeof(float)),
                       _MM_HINT_T0);
        // Whole vectors where w goes on (masked loads across cache lines
        // are slow on Zen 5); the lanes past the run are never stored.
        r[l] = simd::loadFirstLanes(job.w + at, job.wFloats - at);
      }
      simd::transpose16x16(r);
      if (!job.tapDst) {
        simd::storeRows16(rows + o0, job.width, r, job.taps);
        continue;
      }
#pragma GCC unroll 16
      for (int t = 0; t < kLanes; ++t)
        if (t < job.taps) _mm512_storeu_ps(job.tapDst[t] + c * job.width + o0, r[t]);
    }
  }
}

// The 16 reduction channels' slices follow each other in w (forward
// weights [O][C][taps] with the whole kernel in the slice): each lane's
// weights are one run of 16 * taps elements, [channel][tap], turned by
// `taps` transposes of 16 x 16 into one vector per (channel, tap), every
// lane of every vector used (a transpose per channel, transposeRuns, uses
// `taps` of its 16 rows).
bool channelsAreOneRun(const WeightSliceJob& job) {
  for (int64_t c = 0; c < kLanes; ++c)
    if (job.redGroup[c] < 0 || job.redGroup[c] != job.redGroup[0] ||
        job.redOffset[c] != job.redOffset[0] + c * job.taps)
      return false;
  return true;
}

void transposeChannelRuns(const WeightSliceJob& job) {
  const int64_t group = job.redGroup[0];
  for (int o0 = 0; o0 < job.width; o0 += kLanes) {
    for (int64_t j = 0; j < job.taps; ++j) {
      __m512 r[kLanes];
#pragma GCC unroll 16
      for (int l = 0; l < kLanes; ++l) {
        const int o = o0 + l;
        if (job.outGroup[o] != group) {
          r[l] = _mm512_setzero_ps();
          continue;
        }
        const int64_t at = job.outOffset[o] + job.redOffset[0] + 16 * j;
        if (job.nextJobStep)
          _mm_prefetch(reinterpret_cast<const char*>(reinterpret_cast<uintptr_t>(job.w + at) +
                                                     job.nextJobStep * sizeof(float)),
                       _MM_HINT_T0);
        r[l] = _mm512_loadu_ps(job.w + at);
      }
      simd::transpose16x16(r);
#pragma GCC unroll 16
      for (int m = 0; m < kLanes; ++m) {
        const int64_t k = 16 * j + m, c = k / job.taps, t = k % job.taps;
        float* row = job.tapDst ? job.tapDst[t] + c * job.width
                                : job.buffer + (c * job.sliceTaps + t) * job.width;
        _mm512_storeu_ps(row + o0, r[m]);
      }
    }
  }
}

}  // namespace

bool gatherWeightSlice_avx512(const WeightSliceJob& job) {
  if (channelsAreOneRun(job)) {
    transposeChannelRuns(job);
    return job.tapDst != nullptr;
  }
  if (job.taps >= kMinTransposeTaps && job.taps <= kLanes) {
    transposeRuns(job);
    return job.tapDst != nullptr;
  }
  gatherLanes(job);  // into the buffer, whatever tapDst says
  return false;
}

}  // namespace blocked
}  // namespace kernels
}  // namespace aclcpu
