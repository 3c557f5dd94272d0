// Staging of dense fp32 [N, C, D, H, W] tensors into word layouts for the
// bf16 kernels: the words of 16 positions are built in registers (one vector
// per word index) and transposed 16 x 16 along W. Only called after a cpuid
// check. Keep this file free of library templates (see
// f32_conv_rows_nb16_avx512.cpp).

#include "kernels/simd/avx512_intrinsic_warnings.h"

#include <immintrin.h>

#include <type_traits>

#include "kernels/conv/blocked/bf16_words_avx512_inl.h"
#include "kernels/conv/blocked/blocked_bf16_kernels.h"
#include "kernels/conv/blocked/staged_rows_inl.h"
#include "kernels/simd/transpose_avx512.h"

namespace aclcpu {
namespace kernels {
namespace blocked {
namespace {

// The dense channel of word u's first element.
int64_t firstChannel(PairKind kind, int64_t word) {
  return kind == PairKind::Pairs ? 2 * word : word;
}

}  // namespace

bool packBf16WeightBlock_avx512(const float* const rows[16], int outLanes, int64_t channelStride,
                                int channels, PairKind kind, uint32_t* dst, uint32_t* second) {
  const __m512i lanes = _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
  const int step = static_cast<int>(channelStride);
  __mmask16 unsafe = 0;
  __m512 v[16], u[16];
  const bool hiLo = kind == PairKind::HiLo;
  // Pairs: lane k gathers channels 2k (even) and 2k + 1 (odd); HiLo: channel k.
  const __m512i even = _mm512_mullo_epi32(lanes, _mm512_set1_epi32(hiLo ? step : 2 * step));
  const __m512i odd = _mm512_add_epi32(even, _mm512_set1_epi32(step));
  const __mmask16 evenMask = firstLanes(hiLo ? channels : (channels + 1) / 2);
  const __mmask16 oddMask = firstLanes(channels / 2);
  for (int o = 0; o < 16; ++o) {
    if (o >= outLanes) {
      v[o] = u[o] = _mm512_setzero_ps();
      continue;
    }
    const __m512i a = _mm512_castps_si512(
        _mm512_mask_i32gather_ps(_mm512_setzero_ps(), evenMask, even, rows[o], 4));
    unsafe |= unsafeLanes(a);
    if (hiLo) {
      const __m512i h = highPart(a), l = lowPart(a, h);
      v[o] = _mm512_castsi512_ps(pairWords(h, l));
      u[o] = _mm512_castsi512_ps(pairWords(l, h));
      continue;
    }
    const __m512i b = _mm512_castps_si512(
        _mm512_mask_i32gather_ps(_mm512_setzero_ps(), oddMask, odd, rows[o], 4));
    unsafe |= unsafeLanes(b);
    v[o] = _mm512_castsi512_ps(pairWords(a, b));
  }
  simd::transpose16x16(v);
  for (int k = 0; k < 16; ++k) _mm512_storeu_ps(reinterpret_cast<float*>(dst) + k * 16, v[k]);
  if (hiLo) {
    simd::transpose16x16(u);
    for (int k = 0; k < 16; ++k) _mm512_storeu_ps(reinterpret_cast<float*>(second) + k * 16, u[k]);
  }
  return unsafe == 0;
}

bool packBf16WeightWordBlock_avx512(const uint16_t* const rows[16], int outLanes,
                                    int64_t channelStride, int channels, const uint16_t* end,
                                    uint32_t* dst) {
  const __m512i lanes = _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
  const int step = static_cast<int>(channelStride);
  // Lane k gathers the 32 bits at channel 2k's word (scale 2): that word
  // low, the next one high; and likewise at channel 2k + 1.
  const __m512i even = _mm512_mullo_epi32(lanes, _mm512_set1_epi32(2 * step));
  const __m512i odd = _mm512_add_epi32(even, _mm512_set1_epi32(step));
  const __mmask16 evenMask = firstLanes((channels + 1) / 2);
  const __mmask16 oddMask = firstLanes(channels / 2);
  const __m512i lowWord = _mm512_set1_epi32(0xFFFF);
  __mmask16 unsafe = 0;
  __m512 v[16];
  for (int o = 0; o < 16; ++o) {
    if (o >= outLanes) {
      v[o] = _mm512_setzero_ps();
      continue;
    }
    __m512i a, b;
    if (rows[o] + static_cast<int64_t>(channels - 1) * step + 1 < end) {
      a = _mm512_mask_i32gather_epi32(_mm512_setzero_si512(), evenMask, even, rows[o], 2);
      b = _mm512_mask_i32gather_epi32(_mm512_setzero_si512(), oddMask, odd, rows[o], 2);
    } else {
      // The block holds the tensor's last word: a 32-bit read there would
      // pass its end, so this lane is read word by word.
      alignas(64) int32_t ea[16], ob[16];
      for (int k = 0; k < 16; ++k) {
        ea[k] = 2 * k < channels ? rows[o][2 * k * channelStride] : 0;
        ob[k] = 2 * k + 1 < channels ? rows[o][(2 * k + 1) * channelStride] : 0;
      }
      a = _mm512_load_si512(ea);
      b = _mm512_load_si512(ob);
    }
    a = _mm512_and_si512(a, lowWord);
    b = _mm512_slli_epi32(b, 16);
    unsafe |= unsafeLanes(_mm512_slli_epi32(a, 16)) | unsafeLanes(b);
    v[o] = _mm512_castsi512_ps(_mm512_or_si512(a, b));
  }
  simd::transpose16x16(v);
  for (int k = 0; k < 16; ++k) _mm512_storeu_ps(reinterpret_cast<float*>(dst) + k * 16, v[k]);
  return unsafe == 0;
}

namespace {

// The first min(left, 16) elements of a run of w, fp32 or bf16 words (one of
// the two pointers is null), as fp32 bits; whole vectors where 16 remain.
__m512i runBits(const float* floats, const uint16_t* words, int64_t left) {
  if (!words) return _mm512_castps_si512(simd::loadFirstLanes(floats, left));
  const __m256i w = left >= 16
                        ? _mm256_loadu_si256(reinterpret_cast<const __m256i*>(words))
                        : _mm256_maskz_loadu_epi16(static_cast<__mmask16>(firstLanes(left)), words);
  return _mm512_slli_epi32(_mm512_cvtepu16_epi32(w), 16);
}

}  // namespace

bool packBf16WeightRuns_avx512(const float* const rows[16], const uint16_t* const wordRows[16],
                               int outLanes, int taps, uint32_t* const tapDst[]) {
  // Half h of the block (channels c0 + 16h ..) is 16 * taps elements per
  // lane, [channel][tap]: `taps` 16 x 16 transposes turn them into one
  // vector of 16 lanes per (channel, tap), kept in L1 for the pairing.
  alignas(64) uint32_t lanes[16 * kMaxRunTaps][16];
  __mmask16 unsafe = 0;
  for (int h = 0; h < 2; ++h) {
    for (int j = 0; j < taps; ++j) {
      __m512 v[16];
      const int64_t at = static_cast<int64_t>(h) * 16 * taps + 16 * j;
#pragma GCC unroll 16
      for (int o = 0; o < 16; ++o) {
        if (o >= outLanes) {
          v[o] = _mm512_setzero_ps();
          continue;
        }
        const __m512i bits =
            runBits(wordRows ? nullptr : rows[o] + at, wordRows ? wordRows[o] + at : nullptr, 16);
        unsafe |= unsafeLanes(bits);
        v[o] = _mm512_castsi512_ps(bits);
      }
      simd::transpose16x16(v);
#pragma GCC unroll 16
      for (int m = 0; m < 16; ++m)
        _mm512_store_ps(reinterpret_cast<float*>(lanes[16 * j + m]), v[m]);
    }
    // lanes[c * taps + t]: channel c0 + 16h + c, tap t.
    for (int t = 0; t < taps; ++t) {
      uint32_t* dst = tapDst[t] + h * 8 * 16;
      for (int k = 0; k < 8; ++k) {
        const __m512i even = _mm512_load_si512(lanes[2 * k * taps + t]);
        const __m512i odd = _mm512_load_si512(lanes[(2 * k + 1) * taps + t]);
        _mm512_storeu_si512(dst + k * 16, pairWords(even, odd));
      }
    }
  }
  return unsafe == 0;
}

bool packBf16DataWeightRuns_avx512(const float* const rows[32], const uint16_t* const wordRows[32],
                                   int outLanes, int taps, const void* end,
                                   uint32_t* const tapDst[]) {
  __mmask16 unsafe = 0;
  if (taps == 1) {
    // A pointwise layer: reduction channel j's 16 lanes are w[c0 + j][o0 ..
    // o0 + 16), one vector, paired with no transpose (res5 1x1/2 1024->2048
    // bf16 dX, 1 thread: the per-channel transposes below were 36% of it).
    const __mmask16 lanesIn = firstLanes(outLanes);
    auto channel = [&](int j) {
      const __m512i bits =
          wordRows ? _mm512_slli_epi32(
                         _mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(lanesIn, wordRows[j])), 16)
                   : _mm512_castps_si512(_mm512_maskz_loadu_ps(lanesIn, rows[j]));
      unsafe |= unsafeLanes(bits);
      return bits;
    };
    for (int k = 0; k < 16; ++k) {
      const __m512i even = channel(2 * k);
      _mm512_storeu_si512(tapDst[0] + k * 16, pairWords(even, channel(2 * k + 1)));
    }
    return unsafe == 0;
  }
  // Per reduction channel, one 16 x 16 transpose of the lanes' tap runs
  // gives its vector of 16 lanes for each tap (the rows past `taps` are
  // never read).
  alignas(64) uint32_t lanes[32][16][16];
  const __mmask16 valid = firstLanes(taps);
  for (int j = 0; j < 32; ++j) {
    __m512 v[16];
#pragma GCC unroll 16
    for (int o = 0; o < 16; ++o) {
      if (o >= outLanes) {
        v[o] = _mm512_setzero_ps();
        continue;
      }
      const int64_t at = static_cast<int64_t>(o) * taps;
      const __m512i bits =
          wordRows
              ? runBits(nullptr, wordRows[j] + at,
                        static_cast<const uint16_t*>(end) - (wordRows[j] + at))
              : runBits(rows[j] + at, nullptr, static_cast<const float*>(end) - (rows[j] + at));
      unsafe |= unsafeLanes(bits) & valid;
      v[o] = _mm512_castsi512_ps(bits);
    }
    simd::transpose16x16(v);
    for (int t = 0; t < taps; ++t) _mm512_store_ps(reinterpret_cast<float*>(lanes[j][t]), v[t]);
  }
  for (int t = 0; t < taps; ++t) {
    for (int k = 0; k < 16; ++k) {
      const __m512i even = _mm512_load_si512(lanes[2 * k][t]);
      const __m512i odd = _mm512_load_si512(lanes[2 * k + 1][t]);
      _mm512_storeu_si512(tapDst[t] + k * 16, pairWords(even, odd));
    }
  }
  return unsafe == 0;
}

namespace {

// bf16 words, pairs, unit step: v[k] lane p holds the word of (channel[k][0],
// position p) in its low half and that of (channel[k][1], p) in its high
// half, the bits pairWords makes from the widened values, for the positions
// of `mask` (zero after; a channel of -1 is zero). Interleaved as words and
// checked 32 words at a time instead of widened to fp32 and checked per
// lane (RN50 3x3 64ch 56x56 bf16, 1 thread, interleaved medians of 7-11:
// forward 1.98 -> 1.88 ms, data gradient 1.95 -> 1.86; 2 threads forward
// 0.99 -> 0.93; dilated 256ch and 3D 64ch level). Sets *unsafe when a word
// is bf16Unsafe.
void pairRowsOfWords(const uint16_t* col, int64_t channelStride, const int64_t (&channel)[16][2],
                     __mmask16 mask, __m512 v[16], bool* unsafe) {
  __mmask32 bad = 0;
#pragma GCC unroll 16
  for (int k = 0; k < 16; ++k) {
    const __m256i e = channel[k][0] < 0
                          ? _mm256_setzero_si256()
                          : _mm256_maskz_loadu_epi16(mask, col + channel[k][0] * channelStride);
    const __m256i o = channel[k][1] < 0
                          ? _mm256_setzero_si256()
                          : _mm256_maskz_loadu_epi16(mask, col + channel[k][1] * channelStride);
    bad |= unsafeWords(_mm512_inserti64x4(_mm512_castsi256_si512(e), o, 1));
    // Per 128-bit lane, positions 0-3 | 8-11 (unpacklo) and 4-7 | 12-15
    // (unpackhi): lanes put back in position order.
    const __m512i mixed = _mm512_inserti64x4(_mm512_castsi256_si512(_mm256_unpacklo_epi16(e, o)),
                                             _mm256_unpackhi_epi16(e, o), 1);
    v[k] = _mm512_castsi512_ps(_mm512_shuffle_i64x2(mixed, mixed, _MM_SHUFFLE(3, 1, 2, 0)));
  }
  if (bad) *unsafe = true;
}

template <typename E>
bool stageRows(const typename E::Element* dense, int64_t denseChannels, PairKind kind,
               const StagedLayout& l, int64_t begin, int64_t end, uint32_t* staged) {
  using Source = typename E::Element;
  const int64_t channelStride = l.source[0] * l.source[1] * l.source[2];
  const int64_t imageStride = denseChannels * channelStride;
  int64_t lo = 0, hi = 0;
  insideColumns(l, &lo, &hi);
  const int64_t step = l.step[2];
  __mmask16 unsafe = 0;
  bool wordsUnsafe = false;
  // Each row that starts a block requests the next block's span
  // (kPrefetchedSpanBytes).
  const int64_t spanBytes = (firstChannel(kind, kLanes) - firstChannel(kind, 0)) * channelStride *
                            static_cast<int64_t>(sizeof(Source));
  const bool prefetchSpans = spanBytes <= kPrefetchedSpanBytes;
  for (int64_t row = begin; row < end; ++row) {
    const StagedRow r = decode(l, row);
    if (prefetchSpans && (row == begin || (r.q0 == 0 && r.q1 == 0))) {
      const int64_t next =
          r.image * imageStride +
          (firstChannel(kind, r.block * kLanes) + firstChannel(kind, kLanes)) * channelStride;
      prefetchSpan(dense, next * static_cast<int64_t>(sizeof(Source)), spanBytes);
    }
    float* dstFloats = stagedRow(reinterpret_cast<float*>(staged), l, r);
    if (!zeroOutsideColumns(l, r, lo, hi, dstFloats)) continue;
    const int64_t plane = l.source[1] * l.source[2];
    const Source* image = dense + r.image * imageStride + r.i0 * plane + r.i1 * l.source[2];
    // The dense channel of each word half, or -1 for a padding channel.
    int64_t channel[16][2];
    for (int k = 0; k < 16; ++k) {
      const int64_t c = firstChannel(kind, r.block * kLanes + k);
      channel[k][0] = c < denseChannels ? c : -1;
      channel[k][1] = kind == PairKind::Pairs && c + 1 < denseChannels ? c + 1 : -1;
    }
    for (int64_t q = lo; q < hi; q += 16) {
      const int64_t n = hi - q < 16 ? hi - q : 16;
      const Source* col = image + q * step + l.first[2];
      __m512 v[16];
      if constexpr (std::is_same_v<E, Bf16Elements>) {
        if (kind == PairKind::Pairs && step == 1) {
          pairRowsOfWords(col, channelStride, channel, firstLanes(n), v, &wordsUnsafe);
          simd::transpose16x16(v);
          simd::storeRows16(dstFloats + q * kLanes, kLanes, v, n);
          continue;
        }
      }
      simd::withFirstLanes(
          n, [&](__mmask16 mask) __attribute__((always_inline)) {
            // A subsampled row (a strided 1x1 layer's staged x) reads its
            // columns `step` apart (RN50 1x1/2 256->512 56x56 bf16 forward,
            // 1 thread: element by element, this staging was 57% of the pass).
            auto load = [&](int64_t c) {
              if (c < 0) return _mm512_setzero_si512();
              return step == 1 ? E::bits(col + c * channelStride, mask)
                               : E::bits(col + c * channelStride, step, mask);
            };
#pragma GCC unroll 16
            for (int k = 0; k < 16; ++k) {
              if (kind == PairKind::HiLo) {
                const __m512i a = load(channel[k][0]);
                unsafe |= unsafeLanes(a);
                v[k] = _mm512_castsi512_ps(hiLoWords(a));
                continue;
              }
              const __m512i a = load(channel[k][0]), b = load(channel[k][1]);
              unsafe |= unsafeLanes(a) | unsafeLanes(b);
              v[k] = _mm512_castsi512_ps(pairWords(a, b));
            }
          });
      simd::transpose16x16(v);
      simd::storeRows16(dstFloats + q * kLanes, kLanes, v, n);
    }
  }
  return unsafe == 0 && !wordsUnsafe;
}

}  // namespace

bool stageBf16Rows_avx512(const float* dense, int64_t denseChannels, PairKind kind,
                          const StagedLayout& l, int64_t begin, int64_t end, uint32_t* staged,
                          Rounding rounding) {
  return rounding == Rounding::HF32
             ? stageRows<Hf32Elements>(dense, denseChannels, kind, l, begin, end, staged)
             : stageRows<F32Elements>(dense, denseChannels, kind, l, begin, end, staged);
}
bool stageBf16Rows_avx512(const uint16_t* dense, ElementType type, int64_t denseChannels,
                          PairKind kind, const StagedLayout& l, int64_t begin, int64_t end,
                          uint32_t* staged) {
  return type == ElementType::F16
             ? stageRows<F16Elements>(dense, denseChannels, kind, l, begin, end, staged)
             : stageRows<Bf16Elements>(dense, denseChannels, kind, l, begin, end, staged);
}

}  // namespace blocked
}  // namespace kernels
}  // namespace aclcpu
