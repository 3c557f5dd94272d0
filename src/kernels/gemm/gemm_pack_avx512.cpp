// AVX-512 block packing (layout: PackBlockFn in gemm_kernel.h). Lines that are
// contiguous along depth (row-major A, transposed B) are moved with 16 x 16
// register transposes; steps that are contiguous (transposed A, row-major B)
// with masked vector copies. Only called after a cpuid check.
// Keep this file free of library templates (see gemm_microkernel_avx512.cpp);
// its own templates are in the unnamed namespace. The Hf32 packers round each
// value as they move it (MatrixView::roundHf32).

#include "kernels/simd/avx512_intrinsic_warnings.h"

#include <immintrin.h>

#include "kernels/gemm/gemm_kernel.h"
#include "kernels/simd/hf32_rounding_avx512.h"
#include "kernels/simd/lane_masks_avx512.h"
#include "kernels/simd/transpose_avx512.h"

namespace aclcpu {
namespace kernels {
namespace gemm_detail {
namespace {

constexpr int64_t kStepsAhead = 6;

int64_t clampTo16(int64_t value) { return value < 0 ? 0 : (value > 16 ? 16 : value); }

using simd::firstLanes;
using simd::loadFirstLanes;

// Each line is contiguous along depth: transpose 16 lines x 16 steps at a time.
template <bool kRound>
void packTransposing(const float* src, int64_t lineStride, int64_t width, int64_t depth, int slot,
                     float* dst) {
  for (int64_t l0 = 0; l0 < slot; l0 += 16) {
    const int64_t lines = clampTo16(width - l0);
    const __mmask16 storeMask = firstLanes(slot - l0);
    if (lines == 0) {
      for (int64_t p = 0; p < depth; ++p) {
        _mm512_mask_storeu_ps(dst + p * slot + l0, storeMask, _mm512_setzero_ps());
      }
      continue;
    }
    for (int64_t p0 = 0; p0 < depth; p0 += 16) {
      const int64_t steps = clampTo16(depth - p0);
      if (p0 + 16 * kStepsAhead < depth) {
        for (int64_t i = 0; i < lines; ++i) {
          _mm_prefetch(
              reinterpret_cast<const char*>(src + (l0 + i) * lineStride + p0 + 16 * kStepsAhead),
              _MM_HINT_T0);
        }
      }
      __m512 r[16];
      for (int i = 0; i < 16; ++i) {
        r[i] = i < lines ? loadFirstLanes(src + (l0 + i) * lineStride + p0, steps)
                         : _mm512_setzero_ps();
      }
      simd::transpose16x16(r);
      for (int j = 0; j < steps; ++j) {
        _mm512_mask_storeu_ps(dst + (p0 + j) * slot + l0, storeMask,
                              kRound ? simd::roundHf32(r[j]) : r[j]);
      }
    }
  }
}

// Each step's lines are contiguous: stream whole steps across all slivers
// (long sequential reads), masked copies, zero beyond the last line.
template <bool kRound>
void packCopying(const float* src, int64_t stepStride, int64_t lines, int64_t depth, int slot,
                 float* dst) {
  const int64_t slivers = (lines + slot - 1) / slot;
  const int64_t sliverFloats = depth * slot;
  for (int64_t p = 0; p < depth; ++p) {
    const float* step = src + p * stepStride;
    // Each step is a separate stream for the hardware prefetchers, which
    // start too late when B comes from memory: fetch a few steps ahead.
    if (p + kStepsAhead < depth) {
      const char* later = reinterpret_cast<const char*>(step + kStepsAhead * stepStride);
      for (int64_t byte = 0; byte < lines * int64_t{sizeof(float)}; byte += 64) {
        _mm_prefetch(later + byte, _MM_HINT_T0);
      }
    }
    for (int64_t s = 0; s < slivers; ++s) {
      const float* from = step + s * slot;
      float* to = dst + s * sliverFloats + p * slot;
      const int64_t width = lines - s * slot;
      for (int64_t l0 = 0; l0 < slot; l0 += 16) {
        const __m512 v = loadFirstLanes(from + l0, width - l0);
        _mm512_mask_storeu_ps(to + l0, firstLanes(slot - l0), kRound ? simd::roundHf32(v) : v);
      }
    }
  }
}

// Neither stride is 1: plain element copies.
template <bool kRound>
void packGeneral(const float* src, int64_t lineStride, int64_t stepStride, int64_t width,
                 int64_t depth, int slot, float* dst) {
  for (int64_t p = 0; p < depth; ++p) {
    for (int64_t l = 0; l < slot; ++l) {
      dst[p * slot + l] = l < width ? src[l * lineStride + p * stepStride] : 0.0f;
    }
    if (kRound) roundHf32Avx512(dst + p * slot, slot);
  }
}

template <bool kRound>
void packBlock(const float* src, int64_t lineStride, int64_t stepStride, int64_t lines,
               int64_t depth, int slot, float* dst) {
  if (lineStride == 1) {
    packCopying<kRound>(src, stepStride, lines, depth, slot, dst);
    return;
  }
  for (int64_t s = 0; s * slot < lines; ++s) {
    const float* from = src + s * slot * lineStride;
    float* to = dst + s * depth * slot;
    const int64_t width = lines - s * slot < slot ? lines - s * slot : slot;
    if (stepStride == 1) {
      packTransposing<kRound>(from, lineStride, width, depth, slot, to);
    } else {
      packGeneral<kRound>(from, lineStride, stepStride, width, depth, slot, to);
    }
  }
}

}  // namespace

void packBlockAvx512(const float* src, int64_t lineStride, int64_t stepStride, int64_t lines,
                     int64_t depth, int slot, float* dst) {
  packBlock<false>(src, lineStride, stepStride, lines, depth, slot, dst);
}
void packBlockHf32Avx512(const float* src, int64_t lineStride, int64_t stepStride, int64_t lines,
                         int64_t depth, int slot, float* dst) {
  packBlock<true>(src, lineStride, stepStride, lines, depth, slot, dst);
}

void roundHf32Avx512(float* data, int64_t count) {
  for (int64_t i = 0; i < count; i += 16) {
    const __mmask16 mask = firstLanes(count - i);
    _mm512_mask_storeu_ps(data + i, mask, simd::roundHf32(loadFirstLanes(data + i, count - i)));
  }
}

}  // namespace gemm_detail
}  // namespace kernels
}  // namespace aclcpu
