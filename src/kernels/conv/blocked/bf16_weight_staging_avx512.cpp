// Staging for the AMX weight gradient: x as padded bf16 planes (positions
// contiguous, the K order of the x tiles) and dy as pair rows (two positions
// or the hi/lo parts of one per 16-channel row, the K order of the dy
// tiles). Only called after a cpuid check. Keep this file free of library
// templates (see f32_conv_rows_nb16_avx512.cpp).

#include "kernels/simd/avx512_intrinsic_warnings.h"

#include <immintrin.h>

#include <cstring>
#include <type_traits>

#include "kernels/conv/blocked/bf16_words_avx512_inl.h"
#include "kernels/conv/blocked/blocked_bf16_kernels.h"
#include "kernels/conv/blocked/staged_rows_inl.h"
#include "kernels/simd/transpose_avx512.h"

namespace aclcpu {
namespace kernels {
namespace blocked {
namespace {

// Lanes [lo, hi) of 32 (clamped to 0..32).
__mmask32 laneRange32(int64_t lo, int64_t hi) {
  lo = lo < 0 ? 0 : lo > 32 ? 32 : lo;
  hi = hi < lo ? lo : hi > 32 ? 32 : hi;
  const uint64_t bits = ((uint64_t{1} << hi) - 1) & ~((uint64_t{1} << lo) - 1);
  return static_cast<__mmask32>(bits);
}

// One padded row of bf16 words at unit step: row[q] = line[q] for q in
// [lo, hi), zero elsewhere in [0, size), 32 words per masked load and store
// (the lanes outside [lo, hi) are never read); the row's bf16Unsafe words.
__mmask32 copyWordRow(const uint16_t* line, int64_t lo, int64_t hi, int64_t size, uint16_t* row) {
  __mmask32 unsafe = 0;
  for (int64_t q = 0; q < size; q += 32) {
    const __m512i w = _mm512_maskz_loadu_epi16(laneRange32(lo - q, hi - q), line + q);
    unsafe |= unsafeWords(w);
    _mm512_mask_storeu_epi16(row + q, laneRange32(0, size - q), w);
  }
  return unsafe;
}

template <typename E>
bool stagePlanes(const typename E::Element* dense, const Bf16PlaneLayout& l, PairKind kind,
                 int64_t begin, int64_t end, uint16_t* staged) {
  using Source = typename E::Element;
  const int64_t plane = l.source[1] * l.source[2];
  const int64_t channelFloats = l.source[0] * plane;
  const int64_t e = l.entries;
  __mmask16 unsafe = 0;
  bool wordsUnsafe = false;
  const __m512i dupLow = _mm512_set_epi32(7, 7, 6, 6, 5, 5, 4, 4, 3, 3, 2, 2, 1, 1, 0, 0);
  const __m512i dupHigh =
      _mm512_set_epi32(15, 15, 14, 14, 13, 13, 12, 12, 11, 11, 10, 10, 9, 9, 8, 8);
  for (int64_t item = begin; item < end; ++item) {
    const int64_t image = item / l.paddedChannels, channel = item % l.paddedChannels;
    uint16_t* dst = staged + item * l.channelEntries;
    if (channel >= l.channels) {
      std::memset(dst, 0, static_cast<size_t>(l.channelEntries) * sizeof(uint16_t));
      continue;
    }
    const Source* src = dense + (image * l.channels + channel) * channelFloats;
    int64_t residue = 0;
    for (int64_t r0 = 0; r0 < l.step[0]; ++r0)
      for (int64_t r1 = 0; r1 < l.step[1]; ++r1)
        for (int64_t r2 = 0; r2 < l.step[2]; ++r2, ++residue) {
          // Positions [lo, hi) of a row map inside the source.
          const int64_t base2 = r2 + l.first[2];
          int64_t lo = base2 >= 0 ? 0 : (-base2 + l.step[2] - 1) / l.step[2];
          int64_t hi =
              l.source[2] - base2 <= 0 ? 0 : (l.source[2] - base2 + l.step[2] - 1) / l.step[2];
          if (lo > l.size[2]) lo = l.size[2];
          if (hi > l.size[2]) hi = l.size[2];
          if (hi < lo) hi = lo;
          uint16_t* volume = dst + residue * l.residueEntries;
          for (int64_t q0 = 0; q0 < l.size[0]; ++q0) {
            for (int64_t q1 = 0; q1 < l.size[1]; ++q1) {
              uint16_t* row = volume + (q0 * l.size[1] + q1) * l.size[2] * e;
              const int64_t i0 = q0 * l.step[0] + r0 + l.first[0];
              const int64_t i1 = q1 * l.step[1] + r1 + l.first[1];
              if (i0 < 0 || i0 >= l.source[0] || i1 < 0 || i1 >= l.source[1] || hi == lo) {
                std::memset(row, 0, static_cast<size_t>(l.size[2] * e) * sizeof(uint16_t));
                continue;
              }
              if constexpr (std::is_same_v<E, Bf16Elements>) {
                // bf16 words as they are: one masked copy per 32 words
                // (RN50 3x3 64ch 56x56 bf16 dW, 1 thread: this staging
                // took 20% of the pass with per-16 widening and memsets).
                if (kind == PairKind::Pairs && l.step[2] == 1) {
                  if (copyWordRow(src + i0 * plane + i1 * l.source[2] + base2, lo, hi, l.size[2],
                                  row))
                    wordsUnsafe = true;
                  continue;
                }
              }
              std::memset(row, 0, static_cast<size_t>(lo * e) * sizeof(uint16_t));
              std::memset(row + hi * e, 0,
                          static_cast<size_t>((l.size[2] - hi) * e) * sizeof(uint16_t));
              const Source* line = src + i0 * plane + i1 * l.source[2] + base2;
              for (int64_t q = lo; q < hi; q += 16) {
                const int64_t n = hi - q < 16 ? hi - q : 16;
                const __mmask16 mask = firstLanes(n);
                const __m512i v = l.step[2] == 1 ? E::bits(line + q, mask)
                                                 : E::bits(line + q * l.step[2], l.step[2], mask);
                unsafe |= unsafeLanes(v);
                if (kind == PairKind::Pairs) {
                  _mm256_mask_storeu_epi16(row + q, mask,
                                           _mm512_cvtepi32_epi16(_mm512_srli_epi32(v, 16)));
                  continue;
                }
                const __m512i h = highPart(v);
                const __m512i words = pairWords(h, lowPart(v, h));
                uint32_t* out = reinterpret_cast<uint32_t*>(row + q * 4);
                const int64_t first = n < 8 ? n : 8;
                _mm512_mask_storeu_epi32(out, firstLanes(2 * first),
                                         _mm512_permutexvar_epi32(dupLow, words));
                if (n > 8)
                  _mm512_mask_storeu_epi32(out + 16, firstLanes(2 * (n - 8)),
                                           _mm512_permutexvar_epi32(dupHigh, words));
              }
            }
          }
        }
  }
  return unsafe == 0 && !wordsUnsafe;
}

// 16 channels x 16 positions of bf16 words (channel c's words at
// line + c * channelStride, lanes past `valid` zero) as 8 pair rows: row r
// holds, per channel, the word pair of positions 2r and 2r + 1. Each
// channel's 16 words load as 8 pair dwords, so the rows are a 16 x 8 dword
// transpose: 24 shuffles after 8 inserts, where widening every word to a
// lane takes a 16 x 16 fp32 transpose. Stores the first `rows` rows;
// returns the bf16Unsafe words.
__mmask32 pairRowsOfWords(const uint16_t* line, int64_t channelStride, int channels, int64_t valid,
                          int rows, uint32_t* dst) {
  const __mmask16 mask = firstLanes(valid);
  auto channel = [&](int c) {
    return c < channels ? _mm256_maskz_loadu_epi16(mask, line + c * channelStride)
                        : _mm256_setzero_si256();
  };
  // z[k] (k < 4): channels k and k + 4; z[4 + k]: channels 8 + k and 12 + k.
  __m512i z[8];
  __mmask32 unsafe = 0;
  for (int k = 0; k < 4; ++k) {
    z[k] = _mm512_inserti64x4(_mm512_castsi256_si512(channel(k)), channel(k + 4), 1);
    z[4 + k] = _mm512_inserti64x4(_mm512_castsi256_si512(channel(8 + k)), channel(12 + k), 1);
    unsafe |= unsafeWords(z[k]) | unsafeWords(z[4 + k]);
  }
  // u[h][i], 128-bit lane L: dword i (L even) or 4 + i (L odd) of the four
  // channels of that lane.
  __m512i u[2][4];
  for (int h = 0; h < 2; ++h) {
    const __m512i* g = z + 4 * h;
    const __m512i t0 = _mm512_unpacklo_epi32(g[0], g[1]), t1 = _mm512_unpackhi_epi32(g[0], g[1]);
    const __m512i t2 = _mm512_unpacklo_epi32(g[2], g[3]), t3 = _mm512_unpackhi_epi32(g[2], g[3]);
    u[h][0] = _mm512_unpacklo_epi64(t0, t2);
    u[h][1] = _mm512_unpackhi_epi64(t0, t2);
    u[h][2] = _mm512_unpacklo_epi64(t1, t3);
    u[h][3] = _mm512_unpackhi_epi64(t1, t3);
  }
  for (int i = 0; i < 4; ++i) {
    if (i < rows) _mm512_storeu_si512(dst + 16 * i, _mm512_shuffle_i32x4(u[0][i], u[1][i], 0x88));
    if (4 + i < rows)
      _mm512_storeu_si512(dst + 16 * (4 + i), _mm512_shuffle_i32x4(u[0][i], u[1][i], 0xDD));
  }
  return unsafe;
}

// The flat row starting at position p0 of a pair-row layout: its output
// row (od, oh), its length and how many of its positions hold dy (the rest
// are padding columns, or the row is past gradOutput's extent).
struct FlatRow {
  int64_t od = 0, oh = 0, count = 0, data = 0;
};
FlatRow flatRowAt(const Bf16PairRowLayout& l, int64_t p0) {
  FlatRow r;
  const int64_t flatRow = p0 / l.rowLength;
  r.od = flatRow / l.rowsPerPlane;
  r.oh = flatRow % l.rowsPerPlane;
  r.count = l.positions - p0 < l.rowLength ? l.positions - p0 : l.rowLength;
  r.data = r.od < l.out[0] && r.oh < l.out[1] ? l.out[2] : 0;
  if (r.data > r.count) r.data = r.count;
  return r;
}

template <typename E>
bool stagePairRows(const typename E::Element* dense, const Bf16PairRowLayout& l, PairKind kind,
                   int64_t begin, int64_t end, uint32_t* staged) {
  using Source = typename E::Element;
  const int64_t plane = l.out[1] * l.out[2];
  const int64_t channelFloats = l.out[0] * plane;
  __mmask16 unsafe = 0;
  bool wordsUnsafe = false;
  for (int64_t item = begin; item < end; ++item) {
    const int64_t image = item / l.blocks, block = item % l.blocks;
    uint32_t* dst = staged + item * l.rows * 16;
    int64_t row = 0;
    bool carrying = false;
    __m512i carry = _mm512_setzero_si512();
    auto emit = [&](__m512i v) {
      if (kind == PairKind::HiLo) {
        const __m512i h = highPart(v), lo = lowPart(v, h);
        _mm512_storeu_si512(dst + 16 * row++, pairWords(h, lo));
        _mm512_storeu_si512(dst + 16 * row++, pairWords(lo, h));
      } else if (carrying) {
        _mm512_storeu_si512(dst + 16 * row++, pairWords(carry, v));
        carrying = false;
      } else {
        carry = v;
        carrying = true;
      }
    };
    const int64_t channels = l.channels - block * 16 < 16 ? l.channels - block * 16 : 16;
    const Source* src = dense + (image * l.channels + block * 16) * channelFloats;
    // The next item's span (kPrefetchedSpanBytes), which follows this one's.
    const int64_t spanBytes = 16 * channelFloats * static_cast<int64_t>(sizeof(Source));
    if (spanBytes <= kPrefetchedSpanBytes)
      prefetchSpan(src, 16 * channelFloats * static_cast<int64_t>(sizeof(Source)), spanBytes);
    if constexpr (std::is_same_v<E, Bf16Elements>) {
      // bf16 words, rows of an even length (no pair spans two rows): pairs
      // straight from the words (RN50 3x3 64ch 56x56 bf16 dW, 1 thread: this
      // staging took 12% of the pass through the fp32 transpose).
      if (kind == PairKind::Pairs && l.rowLength % 2 == 0) {
        for (int64_t p0 = 0; p0 < l.positions; p0 += l.rowLength) {
          const FlatRow f = flatRowAt(l, p0);
          const Source* line = src + (f.data > 0 ? f.od * plane + f.oh * l.out[2] : 0);
          for (int64_t q = 0; q < f.count; q += 16) {
            const int64_t m = f.count - q < 16 ? f.count - q : 16;
            const int64_t valid = f.data - q < 0 ? 0 : f.data - q < 16 ? f.data - q : 16;
            if (pairRowsOfWords(line + q, channelFloats, static_cast<int>(channels), valid,
                                static_cast<int>((m + 1) / 2), dst + 16 * row))
              wordsUnsafe = true;
            row += (m + 1) / 2;
          }
        }
        std::memset(dst + 16 * row, 0, static_cast<size_t>((l.rows - row) * 16) * sizeof(uint32_t));
        continue;
      }
    }
    for (int64_t p0 = 0; p0 < l.positions; p0 += l.rowLength) {
      const FlatRow f = flatRowAt(l, p0);
      const int64_t od = f.od, oh = f.oh, count = f.count, data = f.data;
      for (int64_t q = 0; q < data; q += 16) {
        const Source* line = src + od * plane + oh * l.out[2];
        const int64_t n = data - q < 16 ? data - q : 16;
        const __mmask16 mask = firstLanes(n);
        __m512 v[16];
#pragma GCC unroll 16
        for (int c = 0; c < 16; ++c) {
          v[c] = c < channels ? _mm512_castsi512_ps(E::bits(line + c * channelFloats + q, mask))
                              : _mm512_setzero_ps();
          unsafe |= unsafeLanes(_mm512_castps_si512(v[c]));
        }
        simd::transpose16x16(v);
        for (int64_t j = 0; j < n; ++j) emit(_mm512_castps_si512(v[j]));
      }
      for (int64_t q = data; q < count; ++q) emit(_mm512_setzero_si512());
    }
    if (carrying) emit(_mm512_setzero_si512());
    std::memset(dst + 16 * row, 0, static_cast<size_t>((l.rows - row) * 16) * sizeof(uint32_t));
  }
  return unsafe == 0 && !wordsUnsafe;
}

}  // namespace

bool stageBf16Planes_avx512(const float* dense, const Bf16PlaneLayout& l, PairKind kind,
                            int64_t begin, int64_t end, uint16_t* staged, Rounding rounding) {
  return rounding == Rounding::HF32 ? stagePlanes<Hf32Elements>(dense, l, kind, begin, end, staged)
                                    : stagePlanes<F32Elements>(dense, l, kind, begin, end, staged);
}
bool stageBf16Planes_avx512(const uint16_t* dense, ElementType type, const Bf16PlaneLayout& l,
                            PairKind kind, int64_t begin, int64_t end, uint16_t* staged) {
  return type == ElementType::F16 ? stagePlanes<F16Elements>(dense, l, kind, begin, end, staged)
                                  : stagePlanes<Bf16Elements>(dense, l, kind, begin, end, staged);
}
bool bf16WordsSafe_avx512(const uint16_t* words, int64_t count) {
  __mmask32 unsafe = 0;
  int64_t i = 0;
  for (; i + 32 <= count; i += 32) unsafe |= unsafeWords(_mm512_loadu_si512(words + i));
  if (i < count) {
    const __mmask32 tail = static_cast<__mmask32>((uint64_t{1} << (count - i)) - 1);
    unsafe |= unsafeWords(_mm512_maskz_loadu_epi16(tail, words + i)) & tail;
  }
  return unsafe == 0;
}
bool stageBf16PairRows_avx512(const float* dense, const Bf16PairRowLayout& l, PairKind kind,
                              int64_t begin, int64_t end, uint32_t* staged, Rounding rounding) {
  return rounding == Rounding::HF32
             ? stagePairRows<Hf32Elements>(dense, l, kind, begin, end, staged)
             : stagePairRows<F32Elements>(dense, l, kind, begin, end, staged);
}
bool stageBf16PairRows_avx512(const uint16_t* dense, ElementType type, const Bf16PairRowLayout& l,
                              PairKind kind, int64_t begin, int64_t end, uint32_t* staged) {
  return type == ElementType::F16 ? stagePairRows<F16Elements>(dense, l, kind, begin, end, staged)
                                  : stagePairRows<Bf16Elements>(dense, l, kind, begin, end, staged);
}

}  // namespace blocked
}  // namespace kernels
}  // namespace aclcpu
