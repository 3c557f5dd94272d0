// The staging of few_channels_bf16.h: the channels of an x row interleaved
// into groups of cpad words, 16 columns per step (one permute per 32 words
// out), with the bf16Unsafe test on every word staged. Free of library
// templates (see f32_conv_rows_nb16_avx512.cpp).

#include "kernels/simd/avx512_intrinsic_warnings.h"

#include <immintrin.h>

#include <cstdint>
#include <cstring>

#include "kernels/conv/blocked/bf16_words_avx512_inl.h"
#include "kernels/conv/few_channels/few_channels_bf16.h"

namespace aclcpu {
namespace kernels {
namespace few_channels {
namespace {

constexpr int kMaxChannels = 4;

// The bf16 words of 16 fp32 lanes that are bf16 values (their top halves).
inline __m256i topHalves(__m512 v) {
  return _mm512_cvtepi32_epi16(_mm512_srli_epi32(_mm512_castps_si512(v), 16));
}

// Row elements [lo, lo + 16) as 16 words, zero outside [0, width). The
// edges go through a zeroed buffer: a masked load would need an address
// before the row.
inline __m256i wordsAt(const uint16_t* row, int64_t width, int64_t lo) {
  if (lo >= 0 && lo + 16 <= width)
    return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(row + lo));
  const int64_t begin = lo > 0 ? lo : 0, end = lo + 16 < width ? lo + 16 : width;
  alignas(32) uint16_t edge[16] = {};
  if (end > begin)
    std::memcpy(edge + (begin - lo), row + begin, static_cast<size_t>(end - begin) * 2);
  return _mm256_load_si256(reinterpret_cast<const __m256i*>(edge));
}
inline __m256i wordsAt(const float* row, int64_t width, int64_t lo) {
  if (lo >= 0 && lo + 16 <= width) return topHalves(_mm512_loadu_ps(row + lo));
  const int64_t begin = lo > 0 ? lo : 0, end = lo + 16 < width ? lo + 16 : width;
  alignas(64) float edge[16] = {};
  if (end > begin)
    std::memcpy(edge + (begin - lo), row + begin, static_cast<size_t>(end - begin) * 4);
  return topHalves(_mm512_load_ps(edge));
}

template <typename Source>
bool interleave(const Source* const* rows, int channels, int cpad, int64_t width, int64_t padLeft,
                int64_t columns, uint16_t* out) {
  // Output word m of a 16-column step is column m / cpad of channel m %
  // cpad: word 16 * channel + column of (a = channels 0, 1; b = 2, 3).
  alignas(64) uint16_t table[64];
  for (int m = 0; m < 64; ++m) table[m] = static_cast<uint16_t>(m % cpad * 16 + m / cpad);
  const __m512i first = _mm512_load_si512(table), second = _mm512_load_si512(table + 32);
  __mmask32 unsafe = 0;
  for (int64_t q = 0; q < columns; q += 16) {
    __m256i c[kMaxChannels] = {};
    for (int ch = 0; ch < channels; ++ch) c[ch] = wordsAt(rows[ch], width, q - padLeft);
    const __m512i a = _mm512_inserti64x4(_mm512_castsi256_si512(c[0]), c[1], 1);
    const __m512i b = _mm512_inserti64x4(_mm512_castsi256_si512(c[2]), c[3], 1);
    unsafe |= blocked::unsafeWords(a) | blocked::unsafeWords(b);
    uint16_t* dst = out + q * cpad;
    if (cpad == 1) {
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst), c[0]);
      continue;
    }
    _mm512_storeu_si512(dst, _mm512_permutex2var_epi16(a, first, b));
    if (cpad == 4) _mm512_storeu_si512(dst + 32, _mm512_permutex2var_epi16(a, second, b));
  }
  return unsafe == 0;
}

}  // namespace

bool interleaveBf16Row_avx512(const uint16_t* const* rows, int channels, int cpad, int64_t width,
                              int64_t padLeft, int64_t columns, uint16_t* out) {
  return interleave(rows, channels, cpad, width, padLeft, columns, out);
}
bool interleaveBf16Row_avx512(const float* const* rows, int channels, int cpad, int64_t width,
                              int64_t padLeft, int64_t columns, uint16_t* out) {
  return interleave(rows, channels, cpad, width, padLeft, columns, out);
}

}  // namespace few_channels
}  // namespace kernels
}  // namespace aclcpu
