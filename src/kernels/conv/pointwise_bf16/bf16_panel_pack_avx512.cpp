// The panels the bf16 pointwise micro-kernels read (packBf16Panels_avx512 in
// bf16_pointwise_kernels.h): b's channel rows interleaved in pairs (bf16
// words) or split into (hi, lo) words, 32 positions a panel, as many panels
// a call as one 64 KB buffer holds, which the kernels then run one after
// another. Packing one panel and computing it, in turn, left an AMX
// kernel waiting for memory while it packed and memory idle while it
// computed; whole buffers of panels measured faster (RN50 1x1 256->64
// 56x56 bf16 forward, interleaved medians of 5, 1 / 2 threads: 1.69 ->
// 1.34 / 0.90 -> 0.73 ms; data gradient of 1x1 64->256 1.85 -> 1.43; the
// other ResNet-50 1x1 layers within the noise). Pairs read each channel
// row across the buffer's panels before the next row (1.34 ms against 1.42
// panel by panel); hi/lo words panel by panel (fp16 forward of the same
// layer 3.9 ms, across panels 4.9). Keep this file free of library
// templates (see f32_conv_rows_nb16_avx512.cpp).

#include "kernels/simd/avx512_intrinsic_warnings.h"

#include <immintrin.h>

#include <cstdint>

#include "kernels/conv/blocked/bf16_words_avx512_inl.h"
#include "kernels/conv/pointwise_bf16/bf16_pointwise_kernels.h"
#include "kernels/simd/half_words_avx512.h"
#include "kernels/simd/lane_masks_avx512.h"

namespace aclcpu {
namespace kernels {
namespace pointwise_bf16 {
namespace {

int64_t panelsOf(int64_t positions) { return (positions + kPanelPositions - 1) / kPanelPositions; }

// From bf16 words or (Element float) fp32 bf16 values.
template <typename Element>
bool packPairs(const Bf16PointwiseJob& j, const Element* b, int64_t positions, uint16_t* panels) {
  const int64_t pairs = j.kSteps * 16;
  const int64_t panelCount = panelsOf(positions);
  // Words 0-15 of each row interleaved, then words 16-31.
  const __m512i low = _mm512_set_epi16(47, 15, 46, 14, 45, 13, 44, 12, 43, 11, 42, 10, 41, 9, 40, 8,
                                       39, 7, 38, 6, 37, 5, 36, 4, 35, 3, 34, 2, 33, 1, 32, 0);
  const __m512i high = _mm512_add_epi16(low, _mm512_set1_epi16(16));
  constexpr bool kWords = sizeof(Element) == 2;
  __mmask32 unsafe = 0;
  // Positions [32 i, 32 i + 32) of channel c (zeros past the row's end).
  auto row = [&](int64_t c, int64_t i) {
    if (c >= j.k) return _mm512_setzero_si512();
    const Element* at = b + c * j.bRowStride + i * kPanelPositions;
    const int64_t count = positions - i * kPanelPositions;
    if (j.prefetchPositions)
      _mm_prefetch(reinterpret_cast<const char*>(at + j.prefetchPositions), _MM_HINT_T0);
    if constexpr (kWords)
      return blocked::rowWords32(at, nullptr, count, &unsafe);
    else
      return blocked::rowWords32(nullptr, at, count, &unsafe);
  };
  for (int64_t q = 0; q < pairs; ++q) {
    for (int64_t i = 0; i < panelCount; ++i) {
      const __m512i even = row(2 * q, i), odd = row(2 * q + 1, i);
      uint16_t* panel = panels + i * panelWords(j.kSteps);
      _mm512_store_si512(panel + q * 32, _mm512_permutex2var_epi16(even, low, odd));
      _mm512_store_si512(panel + (pairs + q) * 32, _mm512_permutex2var_epi16(even, high, odd));
    }
  }
  return unsafe == 0;
}

// Channels' values as fp32, or half words widened exactly, split into (hi,
// lo) words.
bool packHiLo(const Bf16PointwiseJob& j, int64_t positions, uint16_t* panels) {
  const int64_t rows = j.kSteps * 16;
  const int64_t panelCount = panelsOf(positions);
  __mmask16 unsafe = 0;
  for (int64_t i = 0; i < panelCount; ++i) {
    const int64_t n = positions - i * kPanelPositions;
    const int tiles = n > 16 ? 2 : 1;
    for (int t = 0; t < tiles; ++t) {
      const int64_t p0 = i * kPanelPositions + 16 * t;
      const __mmask16 mask = simd::firstLanes(n - 16 * t);
      uint16_t* out = panels + i * panelWords(j.kSteps) + t * rows * 32;
      for (int64_t c = 0; c < rows; ++c) {
        __m512i v = _mm512_setzero_si512();
        if (c < j.k) {
          v = j.bWords ? _mm512_castps_si512(simd::loadF16(j.bWords + c * j.bRowStride + p0, mask))
                       : _mm512_castps_si512(
                             _mm512_maskz_loadu_ps(mask, j.bFloats + c * j.bRowStride + p0));
        }
        unsafe |= blocked::unsafeLanes(v);
        _mm512_store_si512(out + c * 32, blocked::hiLoWords(v));
      }
    }
  }
  return unsafe == 0;
}

}  // namespace

bool packBf16Panels_avx512(const Bf16PointwiseJob& j, int64_t positions, uint16_t* panels) {
  if (j.hiLo) return packHiLo(j, positions, panels);
  return j.bWords ? packPairs(j, j.bWords, positions, panels)
                  : packPairs(j, j.bFloats, positions, panels);
}

}  // namespace pointwise_bf16
}  // namespace kernels
}  // namespace aclcpu
