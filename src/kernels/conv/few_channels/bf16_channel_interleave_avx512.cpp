// The staging of few_channels_bf16.h: the channels of an x row interleaved
// into groups of cpad words (bf16) or word pairs (hi/lo), 16 columns per
// step (one permute per vector out), with the bf16Unsafe test on every value
// staged. Free of library
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

// Row elements [lo, lo + 16) as fp32 values, zero outside [0, width): from
// half words (exactly widened) or fp32 values.
inline __m512 valuesAt(const uint16_t* halfRow, int64_t width, int64_t lo) {
  if (lo >= 0 && lo + 16 <= width)
    return _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(halfRow + lo)));
  return _mm512_cvtph_ps(wordsAt(halfRow, width, lo));
}
inline __m512 valuesAt(const float* row, int64_t width, int64_t lo) {
  if (lo >= 0 && lo + 16 <= width) return _mm512_loadu_ps(row + lo);
  const int64_t begin = lo > 0 ? lo : 0, end = lo + 16 < width ? lo + 16 : width;
  alignas(64) float edge[16] = {};
  if (end > begin)
    std::memcpy(edge + (begin - lo), row + begin, static_cast<size_t>(end - begin) * 4);
  return _mm512_load_ps(edge);
}

// 16 columns of each channel as (hi, lo) dwords, interleaved cpad channels
// per column: two-way dword interleaves, then (cpad 4) two-way qword ones.
template <typename Source>
bool interleaveHiLo(const Source* const* rows, int channels, int cpad, int64_t width,
                    int64_t padLeft, int64_t columns, uint16_t* out) {
  const __m512i pairLow = _mm512_set_epi32(23, 7, 22, 6, 21, 5, 20, 4, 19, 3, 18, 2, 17, 1, 16, 0);
  const __m512i pairHigh = _mm512_add_epi32(pairLow, _mm512_set1_epi32(8));
  const __m512i quadLow = _mm512_set_epi64(11, 3, 10, 2, 9, 1, 8, 0);
  const __m512i quadHigh = _mm512_add_epi64(quadLow, _mm512_set1_epi64(4));
  __mmask16 unsafe = 0;
  for (int64_t q = 0; q < columns; q += 16) {
    __m512i d[kMaxChannels] = {};
    for (int ch = 0; ch < channels; ++ch) {
      const __m512i v = _mm512_castps_si512(valuesAt(rows[ch], width, q - padLeft));
      unsafe |= blocked::unsafeLanes(v);
      d[ch] = blocked::hiLoWords(v);
    }
    __m512i* dst = reinterpret_cast<__m512i*>(out + q * cpad * 2);
    if (cpad == 1) {
      _mm512_storeu_si512(dst, d[0]);
      continue;
    }
    const __m512i ab0 = _mm512_permutex2var_epi32(d[0], pairLow, d[1]);
    const __m512i ab1 = _mm512_permutex2var_epi32(d[0], pairHigh, d[1]);
    if (cpad == 2) {
      _mm512_storeu_si512(dst, ab0);
      _mm512_storeu_si512(dst + 1, ab1);
      continue;
    }
    const __m512i cd0 = _mm512_permutex2var_epi32(d[2], pairLow, d[3]);
    const __m512i cd1 = _mm512_permutex2var_epi32(d[2], pairHigh, d[3]);
    _mm512_storeu_si512(dst, _mm512_permutex2var_epi64(ab0, quadLow, cd0));
    _mm512_storeu_si512(dst + 1, _mm512_permutex2var_epi64(ab0, quadHigh, cd0));
    _mm512_storeu_si512(dst + 2, _mm512_permutex2var_epi64(ab1, quadLow, cd1));
    _mm512_storeu_si512(dst + 3, _mm512_permutex2var_epi64(ab1, quadHigh, cd1));
  }
  return unsafe == 0;
}

}  // namespace

bool interleaveHiLoRow_avx512(const uint16_t* const* halfRows, int channels, int cpad,
                              int64_t width, int64_t padLeft, int64_t columns, uint16_t* out) {
  return interleaveHiLo(halfRows, channels, cpad, width, padLeft, columns, out);
}
bool interleaveHiLoRow_avx512(const float* const* rows, int channels, int cpad, int64_t width,
                              int64_t padLeft, int64_t columns, uint16_t* out) {
  return interleaveHiLo(rows, channels, cpad, width, padLeft, columns, out);
}

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
