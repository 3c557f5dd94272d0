// AVX-512 strided row loops (strided_rows.h). Stride 2, the common case
// (strided stems and downsampling layers), de-interleaves pairs of vectors;
// other strides use gathers and scatters. Every load and store is masked to
// the elements the row names, so nothing past its last element is read, but
// where a copy's caller lets it read further (whole vectors, see
// StridedCopyFn).
// Only called after a cpuid check. Keep this file free of library templates
// (see f32_conv_rows_nb16_avx512.cpp).

#include "kernels/simd/avx512_intrinsic_warnings.h"

#include <immintrin.h>

#include "kernels/conv/strided_rows.h"
#include "kernels/simd/lane_masks_avx512.h"

namespace aclcpu {
namespace kernels {
namespace conv_detail {
namespace {

using simd::firstLanes;

// Gather and scatter indices are 32-bit: i * stride for i < 16.
constexpr int64_t kMaxGatherStride = (int64_t{1} << 31) / 16;

void copyPairs(const float* in, int64_t readable, int64_t count, float* out) {
  const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
  int64_t i = 0;
  // Chunks before the last load all 32 elements (the 32nd lies before the
  // next chunk's first): plain loads (see simd::loadFirstLanes).
  for (; i + 16 < count; i += 16) {
    const float* from = in + 2 * i;
    _mm512_storeu_ps(
        out + i, _mm512_permutex2var_ps(_mm512_loadu_ps(from), even, _mm512_loadu_ps(from + 16)));
  }
  for (; i < count; i += 16) {
    const int64_t n = count - i < 16 ? count - i : 16;
    const int64_t span = 2 * n - 1;  // input elements this chunk reads
    // Every readable element may be loaded (left >= span): whole vectors
    // where the row's plane goes on.
    const int64_t left = readable - 2 * i;
    const float* from = in + 2 * i;
    const __m512 lo = simd::loadFirstLanes(from, left);
    const __m512 hi = span > 16 ? simd::loadFirstLanes(from + 16, left - 16) : lo;
    _mm512_mask_storeu_ps(out + i, firstLanes(n), _mm512_permutex2var_ps(lo, even, hi));
  }
}

void addPairs(const float* in, int64_t count, float* out) {
  // Lane 2j of the low vector and lane 2j of the high one take in[j] and
  // in[8 + j]; only the even lanes are stored.
  const __m512i spreadLo = _mm512_setr_epi32(0, 0, 1, 0, 2, 0, 3, 0, 4, 0, 5, 0, 6, 0, 7, 0);
  const __m512i spreadHi = _mm512_setr_epi32(8, 0, 9, 0, 10, 0, 11, 0, 12, 0, 13, 0, 14, 0, 15, 0);
  const __mmask16 evenLanes = 0x5555;
  for (int64_t i = 0; i < count; i += 16) {
    const int64_t n = count - i < 16 ? count - i : 16;
    const int64_t span = 2 * n - 1;
    float* to = out + 2 * i;
    const __m512 values = simd::loadFirstLanes(in + i, n);
    const __mmask16 maskLo = evenLanes & firstLanes(span);
    const __mmask16 maskHi = evenLanes & firstLanes(span - 16);
    const __m512 lo = _mm512_maskz_loadu_ps(maskLo, to);
    const __m512 hi = _mm512_maskz_loadu_ps(maskHi, to + 16);
    _mm512_mask_storeu_ps(to, maskLo, _mm512_add_ps(lo, _mm512_permutexvar_ps(spreadLo, values)));
    _mm512_mask_storeu_ps(to + 16, maskHi,
                          _mm512_add_ps(hi, _mm512_permutexvar_ps(spreadHi, values)));
  }
}

void spreadPairs(const float* in, int64_t count, float* out) {
  // Lanes 2j take in[j] (in[8 + j] for the high vector), lanes 2j + 1 zero
  // (index 16 picks the second operand's lane 0).
  const __m512i spreadLo =
      _mm512_setr_epi32(0, 16, 1, 16, 2, 16, 3, 16, 4, 16, 5, 16, 6, 16, 7, 16);
  const __m512i spreadHi =
      _mm512_setr_epi32(8, 16, 9, 16, 10, 16, 11, 16, 12, 16, 13, 16, 14, 16, 15, 16);
  const __m512 zero = _mm512_setzero_ps();
  for (int64_t i = 0; i < count; i += 16) {
    const int64_t n = count - i < 16 ? count - i : 16;
    const int64_t span = i + n < count ? 2 * n : 2 * n - 1;  // the zero after a value, but the last
    float* to = out + 2 * i;
    const __m512 values = simd::loadFirstLanes(in + i, n);
    _mm512_mask_storeu_ps(to, firstLanes(span), _mm512_permutex2var_ps(values, spreadLo, zero));
    _mm512_mask_storeu_ps(to + 16, firstLanes(span - 16),
                          _mm512_permutex2var_ps(values, spreadHi, zero));
  }
}

__m512i laneOffsets(int64_t stride) {
  return _mm512_mullo_epi32(_mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
                            _mm512_set1_epi32(static_cast<int>(stride)));
}

void copyStrided(const float* in, int64_t readable, int64_t stride, int64_t count, float* out) {
  if (stride == 2) return copyPairs(in, readable, count, out);
  if (stride > kMaxGatherStride)
    return scalarStridedRowLoops().copy(in, readable, stride, count, out);
  const __m512i offsets = laneOffsets(stride);
  for (int64_t i = 0; i < count; i += 16) {
    const __mmask16 mask = firstLanes(count - i);
    const __m512 v =
        _mm512_mask_i32gather_ps(_mm512_setzero_ps(), mask, offsets, in + i * stride, 4);
    _mm512_mask_storeu_ps(out + i, mask, v);
  }
}

void addStrided(const float* in, int64_t count, int64_t stride, float* out) {
  if (stride == 2) return addPairs(in, count, out);
  if (stride > kMaxGatherStride) return scalarStridedRowLoops().add(in, count, stride, out);
  const __m512i offsets = laneOffsets(stride);
  for (int64_t i = 0; i < count; i += 16) {
    const __mmask16 mask = firstLanes(count - i);
    float* to = out + i * stride;
    const __m512 old = _mm512_mask_i32gather_ps(_mm512_setzero_ps(), mask, offsets, to, 4);
    const __m512 sum = _mm512_add_ps(old, _mm512_maskz_loadu_ps(mask, in + i));
    _mm512_mask_i32scatter_ps(to, mask, offsets, sum, 4);
  }
}

void spreadStrided(const float* in, int64_t count, int64_t stride, float* out) {
  if (stride == 2) return spreadPairs(in, count, out);
  scalarStridedRowLoops().spread(in, count, stride, out);
}

}  // namespace

StridedRowLoops stridedRowLoopsAvx512() { return {copyStrided, addStrided, spreadStrided}; }

}  // namespace conv_detail
}  // namespace kernels
}  // namespace aclcpu
