#pragma once
// The result store of the bf16 pointwise micro-kernels
// (bf16_pointwise_kernels.h), shared by the AMX and the AVX512-BF16 kernel.
// For files compiled with AVX-512; static inline so that every including
// file keeps its own copy (see bf16_words_avx512_inl.h).

#include <immintrin.h>

#include <cstdint>

#include "kernels/conv/pointwise_bf16/bf16_pointwise_kernels.h"
#include "kernels/simd/half_words_avx512.h"
#include "kernels/simd/lane_masks_avx512.h"

namespace aclcpu {
namespace kernels {
namespace pointwise_bf16 {

// Stores `value` (plus the bias of output channel m) to positions
// p0 + [0, count) of output channel m.
static inline void storeRow(const Bf16PointwiseJob& j, __m512 value, int64_t m, int64_t p0,
                            int64_t count) {
  const __mmask16 mask = simd::firstLanes(count);
  if (j.bias) value = _mm512_add_ps(value, _mm512_set1_ps(j.bias[m]));
  const int64_t at = m * j.outRowStride + p0;
  if (j.outWords && j.outHalf)
    simd::storeF16(j.outWords + at, mask, value);
  else if (j.outWords)
    simd::storeBf16(j.outWords + at, mask, value);
  else
    _mm512_mask_storeu_ps(j.outFloats + at, mask, value);
}

// Stores rows [0, rows) of a 16 x 16 fp32 tile image (plus bias) to
// channels m0.. of the output, positions p0 + [0, count).
static inline void storeTile(const Bf16PointwiseJob& j, const float* image, int64_t m0,
                             int64_t rows, int64_t p0, int64_t count) {
  for (int64_t r = 0; r < rows; ++r) storeRow(j, _mm512_load_ps(image + r * 16), m0 + r, p0, count);
}

}  // namespace pointwise_bf16
}  // namespace kernels
}  // namespace aclcpu
