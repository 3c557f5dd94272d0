// Staging between dense fp32 [N, C, D, H, W] tensors and the blocked
// [N][C/16][D][H][W][16] buffers, with 16 x 16 register transposes along W.
// Only called after a cpuid check. Keep this file free of library templates
// (see f32_conv_rows_nb16_avx512.cpp).

#include "kernels/simd/avx512_intrinsic_warnings.h"

#include <immintrin.h>

#include <cstring>

#include "kernels/conv/blocked/blocked_kernels.h"
#include "kernels/conv/blocked/element_loads_avx512_inl.h"
#include "kernels/conv/blocked/staged_rows_inl.h"
#include "kernels/conv/blocked/unstage_rows_avx512_inl.h"
#include "kernels/simd/half_words_avx512.h"
#include "kernels/simd/lane_masks_avx512.h"
#include "kernels/simd/transpose_avx512.h"

namespace aclcpu {
namespace kernels {
namespace blocked {
namespace {

template <typename E>
void stageRowsFrom(const typename E::Element* dense, const StagedLayout& l, int64_t begin,
                   int64_t end, float* staged) {
  const int64_t channelStride = l.source[0] * l.source[1] * l.source[2];
  int64_t lo = 0, hi = 0;  // the same for every row of the layout
  insideColumns(l, &lo, &hi);
  const int64_t step = l.step[2];
  const int64_t spanBytes =
      kLanes * channelStride * static_cast<int64_t>(sizeof(typename E::Element));
  const bool prefetchSpans = spanBytes <= kPrefetchedSpanBytes;
  for (int64_t row = begin; row < end; ++row) {
    const StagedRow r = decode(l, row);
    if (prefetchSpans && (row == begin || (r.q0 == 0 && r.q1 == 0))) {
      prefetchSpan(dense,
                   (r.image * l.channels + (r.block + 1) * kLanes) * channelStride *
                       static_cast<int64_t>(sizeof(typename E::Element)),
                   spanBytes);
    }
    float* dst = stagedRow(staged, l, r);
    if (!zeroOutsideColumns(l, r, lo, hi, dst)) continue;
    const typename E::Element* src = dense + denseRow(l, r);
    int64_t channelOf[16];
    for (int lane = 0; lane < 16; ++lane) channelOf[lane] = laneChannel(l, lane);
    for (int64_t q = lo; q < hi; q += 16) {
      const int64_t n = hi - q < 16 ? hi - q : 16;
      __m512 v[16];
      const typename E::Element* from = src + q * step + l.first[2];
      simd::withFirstLanes(
          n, [&](__mmask16 mask) __attribute__((always_inline)) {
            // A subsampled row (a strided 1x1 layer's staged x) reads its
            // columns `step` apart.
            auto load = [&](const typename E::Element* at) {
              return step == 1 ? E::load(at, mask) : _mm512_castsi512_ps(E::bits(at, step, mask));
            };
#pragma GCC unroll 16
            for (int lane = 0; lane < 16; ++lane) {
              const int64_t c = channelOf[lane];
              v[lane] = c < r.channels ? load(from + c * channelStride) : _mm512_setzero_ps();
            }
          });
      simd::transpose16x16(v);
      simd::storeRows16(dst + q * kLanes, kLanes, v, n);
    }
  }
}

}  // namespace

void stageRows_avx512(const float* dense, const StagedLayout& l, int64_t begin, int64_t end,
                      float* staged) {
  stageRowsFrom<F32Elements>(dense, l, begin, end, staged);
}
void stageHf32Rows_avx512(const float* dense, const StagedLayout& l, int64_t begin, int64_t end,
                          float* staged) {
  stageRowsFrom<Hf32Elements>(dense, l, begin, end, staged);
}
void stageWordRows_avx512(const uint16_t* dense, ElementType type, const StagedLayout& l,
                          int64_t begin, int64_t end, float* staged) {
  if (type == ElementType::F16)
    stageRowsFrom<F16Elements>(dense, l, begin, end, staged);
  else
    stageRowsFrom<Bf16Elements>(dense, l, begin, end, staged);
}

void unstageRows_avx512(const float* staged, const StagedLayout& l, int64_t begin, int64_t end,
                        float* dense, const float* bias) {
  unstageRowsWith(staged, l, begin, end, dense, bias, [](float* out, __mmask16 mask, __m512 v) {
    _mm512_mask_storeu_ps(out, mask, v);
  });
}

void unstageWordRows_avx512(const float* staged, const StagedLayout& l, int64_t begin, int64_t end,
                            uint16_t* dense, ElementType type, const float* bias) {
  if (type == ElementType::F16)
    unstageRowsWith(staged, l, begin, end, dense, bias, F16WordStore{});
  else
    unstageRowsWith(staged, l, begin, end, dense, bias, Bf16WordStore{});
}

void unstageSegment_avx512(const float* src, const StagedLayout& l, int64_t row, int64_t q,
                           int64_t n, float* dense, const float* bias) {
  unstageSegmentWith(src, l, row, q, n, dense, bias, [](float* out, __mmask16 mask, __m512 v) {
    _mm512_mask_storeu_ps(out, mask, v);
  });
}

void unstageWordSegment_avx512(const float* src, const StagedLayout& l, int64_t row, int64_t q,
                               int64_t n, uint16_t* dense, ElementType type, const float* bias) {
  if (type == ElementType::F16)
    unstageSegmentWith(src, l, row, q, n, dense, bias, F16WordStore{});
  else
    unstageSegmentWith(src, l, row, q, n, dense, bias, Bf16WordStore{});
}

}  // namespace blocked
}  // namespace kernels
}  // namespace aclcpu
