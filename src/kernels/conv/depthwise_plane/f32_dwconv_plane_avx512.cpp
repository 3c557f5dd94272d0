// AVX-512 kernels of the plane-wise depthwise convolution: 16 outputs of a
// row per vector, up to four vectors per register block, each tap one
// broadcast weight. 3x3 kernels (MobileNet's) keep their nine taps in
// registers, and at unit dilation along W read 64-byte aligned buffer rows,
// each window shifted out of two aligned vectors. Only called after a cpuid
// check. Keep this file free of library templates (type traits aside, which
// emit no code): anything instantiated here is compiled with AVX-512 and
// could be picked by the linker for generic callers.

#include "kernels/simd/avx512_intrinsic_warnings.h"

#include <immintrin.h>

#include <cstring>
#include <type_traits>
#include <utility>

#include "kernels/conv/depthwise_plane/dwconv_plane.h"
#include "kernels/simd/half_words_avx512.h"
#include "kernels/simd/hf32_rounding_avx512.h"
#include "kernels/simd/lane_masks_avx512.h"
#include "kernels/simd/stream_copy_avx512.h"
#include "kernels/simd/transpose_avx512.h"

namespace aclcpu {
namespace kernels {
namespace depthwise_plane {
namespace {

using simd::firstLanes;

// The element kinds of the planes: fp32, or the caller's bf16 or half
// words. load: 16 values as fp32 (lanes off `m` 0); loadWhole: all 16, an
// unmasked load; store: the lanes of `m`, rounded to the kind once (nearest
// even).
struct F32Data {
  using Element = float;
  static __m512 load(const float* p, __mmask16 m) { return _mm512_maskz_loadu_ps(m, p); }
  static __m512 loadWhole(const float* p) { return _mm512_loadu_ps(p); }
  static void store(float* p, __mmask16 m, __m512 v) { _mm512_mask_storeu_ps(p, m, v); }
};
// The caller's raw fp32 values, each rounded to HF32 as it is read.
struct Hf32Data {
  using Element = float;
  static __m512 load(const float* p, __mmask16 m) {
    return simd::roundHf32(_mm512_maskz_loadu_ps(m, p));
  }
  static __m512 loadWhole(const float* p) { return simd::roundHf32(_mm512_loadu_ps(p)); }
  static void store(float* p, __mmask16 m, __m512 v) { _mm512_mask_storeu_ps(p, m, v); }
};
struct Bf16Data {
  using Element = uint16_t;
  static __m512 load(const uint16_t* p, __mmask16 m) { return simd::loadBf16(p, m); }
  static __m512 loadWhole(const uint16_t* p) { return simd::loadBf16Whole(p); }
  static void store(uint16_t* p, __mmask16 m, __m512 v) { simd::storeBf16(p, m, v); }
};
// VCVTPH2PS quiets a signalling NaN; the products quiet it anyway, with the
// same payload, so the results keep the fp32 path's bits.
struct F16Data {
  using Element = uint16_t;
  static __m512 load(const uint16_t* p, __mmask16 m) { return simd::loadF16(p, m); }
  static __m512 loadWhole(const uint16_t* p) { return simd::loadF16Whole(p); }
  static void store(uint16_t* p, __mmask16 m, __m512 v) { simd::storeF16(p, m, v); }
};

// One buffer row, inline: zeros in [0, lo), n src values from `from` as
// fp32, zeros in [lo + n, rowFloats). Three library calls per row (zeros,
// copy, zeros) were a quarter of a 56x56 plane's time. Whole vectors are
// read while `readable` (elements from `from` to the plane's end) allows
// and written while the row does (the lanes past n are zeroed after): a
// masked load that crosses a cache line is several times slower on Zen 5
// (MNv2 dw 3x3 144ch 56x56 batch 32 HF32 forward, 1 thread, when band rows
// were converted with masked loads: 15.5-19.3 -> 10.0-11.9 ms).
template <typename D>
void fillRow(const typename D::Element* from, int64_t n, int64_t readable, int64_t lo,
             int64_t rowFloats, float* row) {
  const __m512 zero = _mm512_setzero_ps();
  for (int64_t c = 0; c < lo; c += kLanes) _mm512_mask_storeu_ps(row + c, firstLanes(lo - c), zero);
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) _mm512_storeu_ps(row + lo + i, D::loadWhole(from + i));
  if (i < n) {
    if (i + kLanes <= readable && lo + i + kLanes <= rowFloats) {
      _mm512_storeu_ps(row + lo + i, D::loadWhole(from + i));
    } else {
      const __mmask16 m = firstLanes(n - i);
      _mm512_mask_storeu_ps(row + lo + i, m, D::load(from + i, m));
    }
  }
  for (int64_t c = lo + n; c < rowFloats; c += kLanes)
    _mm512_mask_storeu_ps(row + c, firstLanes(rowFloats - c), zero);
}

// Buffer row b of a band starting at output row r0 holds src row
// r0 * rowStride + b - padH; buffer column m holds src column m - padW.
template <typename D>
void fillBand(const typename D::Element* src, int64_t srcH, int64_t srcW, int64_t firstRow,
              int64_t rows, int64_t padW, int64_t rowFloats, float* buf) {
  int64_t lo = padW > 0 ? padW : 0;
  int64_t hi = srcW + padW < rowFloats ? srcW + padW : rowFloats;
  if (hi < lo) hi = lo;
  for (int64_t b = 0; b < rows; ++b) {
    float* row = buf + b * rowFloats;
    const int64_t sr = firstRow + b;
    const bool inside = sr >= 0 && sr < srcH && hi > lo;
    const int64_t at = inside ? sr * srcW + (lo - padW) : 0;
    fillRow<D>(src + at, inside ? hi - lo : 0, srcH * srcW - at, inside ? lo : rowFloats, rowFloats,
               row);
  }
}

// The padded src columns [s, s + 16) of a row of n values at `from` (zero
// outside [0, n)), as fp32. The columns before the row come in by VEXPANDPS
// rather than a load from before `from`.
template <typename D>
[[gnu::always_inline]] inline __m512 paddedColumns(const typename D::Element* from, int64_t n,
                                                   int64_t s) {
  if (s >= 0 && s + kLanes <= n) return D::loadWhole(from + s);
  if (s >= n || s + kLanes <= 0) return _mm512_setzero_ps();
  if (s >= 0) return D::load(from + s, firstLanes(n - s));
  const __m512 v = D::load(from, firstLanes(n < s + kLanes ? n : s + kLanes));
  return _mm512_maskz_expand_ps(static_cast<__mmask16>(~firstLanes(-s)), v);
}

// fillBand for a column stride of 2: buffer row b holds the padded src row
// (column m: src column m - padW) split into its column phases, phase q at
// row + q * phaseFloats holding padded columns q, q + 2, q + 4, ...
template <typename D>
void fillPhaseBand(const typename D::Element* src, int64_t srcH, int64_t srcW, int64_t firstRow,
                   int64_t rows, int64_t padW, int64_t phaseFloats, float* buf) {
  const __m512i even = _mm512_set_epi32(30, 28, 26, 24, 22, 20, 18, 16, 14, 12, 10, 8, 6, 4, 2, 0);
  const __m512i odd = _mm512_add_epi32(even, _mm512_set1_epi32(1));
  for (int64_t b = 0; b < rows; ++b) {
    float* row = buf + b * 2 * phaseFloats;
    const int64_t sr = firstRow + b;
    const bool inside = sr >= 0 && sr < srcH;
    const typename D::Element* from = src + (inside ? sr * srcW : 0);
    for (int64_t i = 0; i < phaseFloats; i += kLanes) {
      __m512 lo = _mm512_setzero_ps(), hi = _mm512_setzero_ps();
      if (inside) {
        lo = paddedColumns<D>(from, srcW, 2 * i - padW);
        hi = paddedColumns<D>(from, srcW, 2 * i + kLanes - padW);
      }
      _mm512_store_ps(row + i, _mm512_permutex2var_ps(lo, even, hi));
      _mm512_store_ps(row + phaseFloats + i, _mm512_permutex2var_ps(lo, odd, hi));
    }
  }
}

// A block's NV result vectors into the row at `out` (its `remaining`
// outputs from there): each + bias when hasBias, rounded to D once.
template <int NV, typename D>
[[gnu::always_inline]] inline void storeBlock(const __m512 (&acc)[NV], bool hasBias, __m512 bias,
                                              typename D::Element* out, int64_t remaining) {
#pragma GCC unroll 4
  for (int v = 0; v < NV; ++v) {
    const __m512 r = hasBias ? _mm512_add_ps(acc[v], bias) : acc[v];
    D::store(out + v * kLanes, firstLanes(remaining - v * kLanes), r);
  }
}

// colOff[k]: where W tap k's inputs start in a buffer row, from output
// column 0's (PlaneBands).
template <int NV, typename D>
void correlateBlock(const float* base, int64_t rowFloats, const int64_t* colOff,
                    const PlaneCorrelation& j, typename D::Element* out, int64_t remaining) {
  __m512 acc[NV];
#pragma GCC unroll 4
  for (int v = 0; v < NV; ++v) acc[v] = _mm512_setzero_ps();
  for (int64_t i = 0; i < j.g.kh; ++i) {
    const float* rp = base + i * j.g.dilH * rowFloats;
    for (int64_t k = 0; k < j.g.kw; ++k) {
      const __m512 t = _mm512_set1_ps(j.taps[i * j.g.kw + k]);
      const float* p = rp + colOff[k];
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v)
        acc[v] = _mm512_fmadd_ps(_mm512_loadu_ps(p + v * kLanes), t, acc[v]);
    }
  }
  storeBlock<NV, D>(acc, j.hasBias, _mm512_set1_ps(j.bias), out, remaining);
}

// The same block for a KH x KW kernel whose taps sit in registers for the
// whole plane (the generic block reloads the job's fields and broadcasts
// every tap per block: through `out` they might alias). The same
// operations in the same order: the same bits.
template <int KH, int KW, int NV, typename D>
[[gnu::always_inline]] inline void correlateFixedBlock(const float* const (&rowPtr)[KH],
                                                       const int64_t (&colOff)[KW],
                                                       const __m512 (&t)[KH * KW], bool hasBias,
                                                       __m512 bias, typename D::Element* out,
                                                       int64_t remaining) {
  __m512 acc[NV];
#pragma GCC unroll 4
  for (int v = 0; v < NV; ++v) acc[v] = _mm512_setzero_ps();
#pragma GCC unroll 5
  for (int i = 0; i < KH; ++i) {
#pragma GCC unroll 5
    for (int k = 0; k < KW; ++k) {
      const float* p = rowPtr[i] + colOff[k];
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v)
        acc[v] = _mm512_fmadd_ps(_mm512_loadu_ps(p + v * kLanes), t[i * KW + k], acc[v]);
    }
  }
  storeBlock<NV, D>(acc, hasBias, bias, out, remaining);
}

// Windows k = 0 .. K - 1 of the 32 floats cur:next (elements k to k + 15);
// VALIGND takes k as an immediate, hence the index pack.
template <int K>
[[gnu::always_inline]] inline __m512 shiftedWindow(__m512i next, __m512i cur) {
  if constexpr (K == 0)
    return _mm512_castsi512_ps(cur);
  else
    return _mm512_castsi512_ps(_mm512_alignr_epi32(next, cur, K));
}
template <int... K>
[[gnu::always_inline]] inline void shiftedWindows(__m512i next, __m512i cur,
                                                  __m512 (&w)[sizeof...(K)],
                                                  std::integer_sequence<int, K...>) {
  ((w[K] = shiftedWindow<K>(next, cur)), ...);
}

// Unit dilation from 64-byte aligned rows: each tap's window is built from
// two aligned loads by VALIGND instead of loaded across cache lines (every
// load but one in 16 would cross one; such loads are several times slower
// on Zen 5). R output rows at a time (unit H stride and dilation when R >
// 1): each src row's windows are built once and met by the taps of every
// output row that reads the src row. The same products and sums in the
// same order (taps in row-major order) per output.
template <int KH, int KW, int NV, int R, typename D>
[[gnu::always_inline]] inline void correlateAlignedBlock(const float* const (&rowPtr)[KH + R - 1],
                                                         const __m512 (&t)[KH * KW], bool hasBias,
                                                         __m512 bias,
                                                         typename D::Element* const (&out)[R],
                                                         int64_t remaining) {
  __m512 acc[R][NV];
#pragma GCC unroll 2
  for (int o = 0; o < R; ++o)
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) acc[o][v] = _mm512_setzero_ps();
#pragma GCC unroll 6
  for (int q = 0; q < KH + R - 1; ++q) {
    __m512i cur = _mm512_load_si512(rowPtr[q]);
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) {
      const __m512i next = _mm512_load_si512(rowPtr[q] + (v + 1) * kLanes);
      __m512 w[KW];
      shiftedWindows(next, cur, w, std::make_integer_sequence<int, KW>{});
#pragma GCC unroll 2
      for (int o = 0; o < R; ++o) {
        const int i = q - o;  // the kernel row with which output row o reads src row q
        if (i < 0 || i >= KH) continue;
#pragma GCC unroll 5
        for (int k = 0; k < KW; ++k) acc[o][v] = _mm512_fmadd_ps(w[k], t[i * KW + k], acc[o][v]);
      }
      cur = next;
    }
  }
#pragma GCC unroll 2
  for (int o = 0; o < R; ++o) storeBlock<NV, D>(acc[o], hasBias, bias, out[o], remaining);
}

// The rows of a band for a KH x KW kernel, W tap k's inputs colOff[k]
// floats into a buffer row (PlaneBands); kAligned: unit stride and
// dilation along W and rows rowFloats (a multiple of 16) apart in the
// 64-byte aligned buffer, with whole vectors up to one past each row's last
// output vector.
template <int KH, int KW, bool kAligned, typename D, typename Fetch>
void correlateFixedRows(const float* buf, int64_t rows, int64_t rowFloats, const int64_t* colOff,
                        const PlaneWindow& g, const float* taps, bool hasBias, float biasValue,
                        typename D::Element* dst, Fetch& fetch) {
  __m512 t[KH * KW];
#pragma GCC unroll 25
  for (int i = 0; i < KH * KW; ++i) t[i] = _mm512_set1_ps(taps[i]);
  int64_t off[KW];
#pragma GCC unroll 5
  for (int k = 0; k < KW; ++k) off[k] = colOff[k];
  const __m512 bias = _mm512_set1_ps(biasValue);
  const int64_t dstW = g.dstW;
  const int64_t dilH = g.dilH;
  const int64_t step = g.rowStride * rowFloats;
  // Output rows [r, r + R) from the src rows they read.
  auto rowsAt = [&](auto count, int64_t r) {
    constexpr int R = decltype(count)::value;
    const float* rowPtr[KH + R - 1];
#pragma GCC unroll 6
    for (int q = 0; q < KH + R - 1; ++q) rowPtr[q] = buf + r * step + q * dilH * rowFloats;
    int64_t c0 = 0;
    auto block = [&](auto nv) {
      constexpr int NV = decltype(nv)::value;
      const float* at[KH + R - 1];
#pragma GCC unroll 6
      for (int q = 0; q < KH + R - 1; ++q) at[q] = rowPtr[q] + c0;
      typename D::Element* out[R];
#pragma GCC unroll 2
      for (int o = 0; o < R; ++o) out[o] = dst + (r + o) * dstW + c0;
      if constexpr (kAligned) {
        correlateAlignedBlock<KH, KW, NV, R, D>(at, t, hasBias, bias, out, dstW - c0);
      } else {
        static_assert(R == 1, "unaligned rows one at a time");
        correlateFixedBlock<KH, KW, NV, D>(at, off, t, hasBias, bias, out[0], dstW - c0);
      }
    };
    for (; c0 + 4 * kLanes <= dstW; c0 += 4 * kLanes) block(std::integral_constant<int, 4>{});
    const int64_t left = dstW - c0;
    if (left > 3 * kLanes) {
      block(std::integral_constant<int, 4>{});
    } else if (left > 2 * kLanes) {
      block(std::integral_constant<int, 3>{});
    } else if (left > kLanes) {
      block(std::integral_constant<int, 2>{});
    } else if (left > 0) {
      block(std::integral_constant<int, 1>{});
    }
  };
  int64_t r = 0;
  if constexpr (kAligned && KH == 3) {
    // Pairs of output rows share their middle src rows (unit H stride and
    // dilation): a third fewer windows built.
    if (g.rowStride == 1 && dilH == 1)
      for (; r + 2 <= rows; r += 2) {
        fetch();
        fetch();
        rowsAt(std::integral_constant<int, 2>{}, r);
      }
  }
  for (; r < rows; ++r) {
    fetch();
    rowsAt(std::integral_constant<int, 1>{}, r);
  }
}

// Runs body(buf, r0, rows) for each band of output rows [r0, r0 + rows),
// with the src rows the band reads copied, zero-padded, into buf.
// (Stride 2 along W: the rows split into their column phases,
// fillPhaseBand.)
template <typename D, typename Body>
void forEachBand(const PlaneGeometry& g, const PlaneBands& b, const typename D::Element* src,
                 Body& body) {
  alignas(64) float buf[kBandFloats];
  for (int64_t r0 = 0; r0 < g.dstH; r0 += b.rows) {
    const int64_t rows = g.dstH - r0 < b.rows ? g.dstH - r0 : b.rows;
    const int64_t first = r0 * g.rowStride - g.padH;
    const int64_t srcRows = bandSrcRows(rows, g.rowStride, g.kh, g.dilH);
    if (b.phaseFloats > 0)
      fillPhaseBand<D>(src, g.srcH, g.srcW, first, srcRows, g.padW, b.phaseFloats, buf);
    else
      fillBand<D>(src, g.srcH, g.srcW, first, srcRows, g.padW, b.rowFloats, buf);
    body(static_cast<const float*>(buf), r0, rows);
  }
}

// forEachBand for a pass that writes dst's rows: body(buf, rows, out)
// writes the band's output rows, dstW apart, at out: dst's first row of
// the band, or (streamOut) a buffer then streamed there
// (stream_copy_avx512.h).
template <typename D, typename Body>
void forEachOutputBand(const PlaneGeometry& g, const PlaneBands& b, const typename D::Element* src,
                       bool streamOut, typename D::Element* dst, Body& body) {
  // A band's output rows are no wider than its buffer rows, and no more.
  alignas(64) typename D::Element outBuf[kBandFloats];
  auto band = [&](const float* buf, int64_t r0, int64_t rows) {
    typename D::Element* at = dst + r0 * g.dstW;
    body(buf, rows, streamOut ? outBuf : at);
    if (streamOut) simd::streamCopy(outBuf, at, rows * g.dstW * static_cast<int64_t>(sizeof(*at)));
  };
  forEachBand<D>(g, b, src, band);
  if (streamOut) simd::streamFence();
}

// The next plane's lines, requested into L2 a share per output row
// (fetch()) while this plane computes (PlaneCorrelation::next); nothing
// when there is none. All at once, the requests would queue behind one
// another.
class NextPlaneFetch {
 public:
  NextPlaneFetch(const void* next, int64_t bytes, int64_t rows)
      : next_(static_cast<const char*>(next)),
        lines_(next ? (bytes + 63) / 64 : 0),
        perRow_(rows > 0 ? (lines_ + rows - 1) / rows : 0) {}
  void operator()() {
    const int64_t end = fetched_ + perRow_ < lines_ ? fetched_ + perRow_ : lines_;
    for (; fetched_ < end; ++fetched_) _mm_prefetch(next_ + fetched_ * 64, _MM_HINT_T1);
  }

 private:
  const char* next_;
  int64_t lines_, perRow_;
  int64_t fetched_ = 0;
};

template <typename D>
void correlate(const PlaneCorrelation& j, const typename D::Element* src,
               typename D::Element* dst) {
  const PlaneGeometry& g = j.g;
  NextPlaneFetch fetch(j.next, j.nextBytes, g.dstH);
  const PlaneBands& b = *j.bands;
  const int64_t rowFloats = b.rowFloats;
  // Square kernels of 3 or 5 taps: the taps in registers (correlateFixedRows).
  auto fixedRows = [&](auto size) {
    constexpr int K = decltype(size)::value;
    auto fixed = [&](const float* buf, int64_t rows, typename D::Element* out) {
      if (b.alignedPitch > 0)
        correlateFixedRows<K, K, true, D>(buf, rows, rowFloats, b.colOff, g, j.taps, j.hasBias,
                                          j.bias, out, fetch);
      else
        correlateFixedRows<K, K, false, D>(buf, rows, rowFloats, b.colOff, g, j.taps, j.hasBias,
                                           j.bias, out, fetch);
    };
    forEachOutputBand<D>(g, b, src, j.streamOut, dst, fixed);
  };
  if (g.kh == 3 && g.kw == 3) return fixedRows(std::integral_constant<int, 3>{});
  if (g.kh == 5 && g.kw == 5) return fixedRows(std::integral_constant<int, 5>{});
  auto rowsOfBand = [&](const float* buf, int64_t rows, typename D::Element* outRows) {
    for (int64_t r = 0; r < rows; ++r) {
      fetch();
      const float* base = buf + r * g.rowStride * rowFloats;
      typename D::Element* out = outRows + r * g.dstW;
      for (int64_t c0 = 0; c0 < g.dstW; c0 += 4 * kLanes) {
        const int64_t left = g.dstW - c0;
        const int64_t nv = left >= 4 * kLanes ? 4 : (left + kLanes - 1) / kLanes;
        switch (nv) {
          case 4:
            correlateBlock<4, D>(base + c0, rowFloats, b.colOff, j, out + c0, left);
            break;
          case 3:
            correlateBlock<3, D>(base + c0, rowFloats, b.colOff, j, out + c0, left);
            break;
          case 2:
            correlateBlock<2, D>(base + c0, rowFloats, b.colOff, j, out + c0, left);
            break;
          default:
            correlateBlock<1, D>(base + c0, rowFloats, b.colOff, j, out + c0, left);
            break;
        }
      }
    }
  };
  forEachOutputBand<D>(g, b, src, j.streamOut, dst, rowsOfBand);
}

// The T taps' x vectors at column c: loaded from each tap's pointer, or
// (kAligned: taps one column apart, xs[0] 64-byte aligned, whole vectors up
// to one past the last) shifted out of two aligned loads by VALIGND, as
// correlateAlignedBlock does.
template <int T, bool kAligned>
[[gnu::always_inline]] inline void xWindows(const float* const* xs, int64_t c, __m512 (&w)[T]) {
  if constexpr (kAligned) {
    const __m512i cur = _mm512_load_si512(xs[0] + c);
    const __m512i next = _mm512_load_si512(xs[0] + c + kLanes);
    shiftedWindows(next, cur, w, std::make_integer_sequence<int, T>{});
  } else {
#pragma GCC unroll 3
    for (int t = 0; t < T; ++t) w[t] = _mm512_loadu_ps(xs[t] + c);
  }
}

template <int T, bool kAligned, int kLast>
[[gnu::always_inline]] inline void addLastVector(const float* const* xs, const float* dp, int64_t c,
                                                 __mmask16 last, __m512 (&a)[T][4]) {
  const __m512 d = _mm512_maskz_loadu_ps(last, dp + c);
  __m512 w[T];
  xWindows<T, kAligned>(xs, c, w);
#pragma GCC unroll 3
  for (int t = 0; t < T; ++t) a[t][kLast] = _mm512_mask3_fmadd_ps(w[t], d, a[t][kLast], last);
}

// One row's contribution to T taps: a[t][v % 4] += x_t[16 v ..] * dy[16 v ..]
// for the row's vectors v in order, the last one masked (lanes past the row
// stay out of the sum: x there may be inf). Four partial sums per tap, one
// per vector of a 64-column block, so that the adds do not wait on one
// another; T = 2 or 3 run taps side by side, sharing each dy load, for
// more chains (each tap's sums are the same whatever T).
// Always inlined: through a call the accumulators would live in memory.
template <int T, bool kAligned>
[[gnu::always_inline]] inline void addRow(const float* const* xs, const float* dp,
                                          int64_t fullVectors, __mmask16 last, __m512 (&a)[T][4]) {
  int64_t v = 0;
  for (; v + 4 <= fullVectors; v += 4) {
#pragma GCC unroll 4
    for (int u = 0; u < 4; ++u) {
      const __m512 d = _mm512_loadu_ps(dp + (v + u) * kLanes);
      __m512 w[T];
      xWindows<T, kAligned>(xs, (v + u) * kLanes, w);
#pragma GCC unroll 3
      for (int t = 0; t < T; ++t) a[t][u] = _mm512_fmadd_ps(w[t], d, a[t][u]);
    }
  }
  const int64_t rem = fullVectors - v;  // full vectors left (0..3), then the masked one
#pragma GCC unroll 3
  for (int u = 0; u < 3; ++u) {
    if (u >= rem) break;
    const __m512 d = _mm512_loadu_ps(dp + (v + u) * kLanes);
    __m512 w[T];
    xWindows<T, kAligned>(xs, (v + u) * kLanes, w);
#pragma GCC unroll 3
    for (int t = 0; t < T; ++t) a[t][u] = _mm512_fmadd_ps(w[t], d, a[t][u]);
  }
  const int64_t c = fullVectors * kLanes;
  switch (rem) {
    case 0:
      addLastVector<T, kAligned, 0>(xs, dp, c, last, a);
      break;
    case 1:
      addLastVector<T, kAligned, 1>(xs, dp, c, last, a);
      break;
    case 2:
      addLastVector<T, kAligned, 2>(xs, dp, c, last, a);
      break;
    default:
      addLastVector<T, kAligned, 3>(xs, dp, c, last, a);
      break;
  }
}

template <typename D>
void weightGrad(const PlaneWeightGrad& j, const typename D::Element* x,
                const typename D::Element* dy) {
  const PlaneGeometry g = j.g;
  // A kernel three taps wide (one run of taps per kernel row) at unit
  // dilation reads its x windows from aligned rows (xWindows).
  const PlaneBands& b = *j.bands;
  const bool aligned = b.alignedPitch > 0;
  const int64_t rowFloats = b.rowFloats;
  const int64_t fullVectors = (g.dstW + kLanes - 1) / kLanes - 1;
  const __mmask16 last = firstLanes(g.dstW - fullVectors * kLanes);
  // dy rows that need a conversion (words, HF32 rounding) are converted once
  // per band into dyBuf, not once per kernel row; the 3x3 sweep, which loads
  // each dy vector once, converts as it loads instead (a pass through dyBuf
  // cost more than the conversion: MNv2 dw 3x3 144ch 56x56 batch 32 weight
  // gradient, pass bench, 1 thread, HF32 9.47 -> 7.31 ms, fp32 6.37;
  // mobilenet bf16 through the operator 0.93 -> 0.78 ms).
  constexpr bool kConvertDy = !std::is_same_v<D, F32Data>;
  alignas(64) float dyBuf[kConvertDy ? kBandFloats : 1];
  const int64_t elementBytes = static_cast<int64_t>(sizeof(typename D::Element));
  const int64_t linesX = (g.srcH * g.srcW * elementBytes + 63) / 64;
  const int64_t linesDy = (g.dstH * g.dstW * elementBytes + 63) / 64;
  int64_t fetchedX = 0, fetchedDy = 0;
  // The next planes' share of lines up to output row `row`, fetched into L2.
  auto fetchNext = [&](int64_t row) {
    // The bounds in locals: through the captured counters the compiler
    // re-divided on every line (a third of this kernel's time).
    const int64_t endX = (row + 1) * linesX / g.dstH;
    const int64_t endDy = (row + 1) * linesDy / g.dstH;
    const char* nextX = static_cast<const char*>(j.nextX);
    const char* nextDy = static_cast<const char*>(j.nextDy);
    for (int64_t line = fetchedX; line < endX; ++line) _mm_prefetch(nextX + line * 64, _MM_HINT_T1);
    for (int64_t line = fetchedDy; line < endDy; ++line)
      _mm_prefetch(nextDy + line * 64, _MM_HINT_T1);
    fetchedX = endX > fetchedX ? endX : fetchedX;
    fetchedDy = endDy > fetchedDy ? endDy : fetchedDy;
  };
  // A 3x3 kernel on aligned rows: the nine taps in one sweep over the band,
  // each dy vector loaded once (not once per kernel row) and met by the x
  // rows' windows; two partial sums per tap, over even and odd output rows
  // of the band. With unit H stride and dilation, rows go in pairs: the
  // windows of the two middle x rows are built once for both.
  auto sweep3x3 = [&](const float* buf, int64_t r0, int64_t rows) {
    __m512 a[9][2];
#pragma GCC unroll 9
    for (int t = 0; t < 9; ++t) a[t][0] = a[t][1] = _mm512_setzero_ps();
    const int64_t vectors = fullVectors + 1;
    // Output rows [r, r + R) (R = 1 or 2; partial sum P + o for row r + o).
    auto rowsAt = [&](auto count, auto parity, int64_t r) {
      constexpr int R = decltype(count)::value, P = decltype(parity)::value;
      const float* xr[R + 2];
#pragma GCC unroll 4
      for (int q = 0; q < R + 2; ++q) xr[q] = buf + (r * g.rowStride + q * g.dilH) * rowFloats;
      const typename D::Element* dp[R];
#pragma GCC unroll 2
      for (int o = 0; o < R; ++o) dp[o] = dy + (r0 + r + o) * g.dstW;
      for (int64_t v = 0; v < vectors; ++v) {
        const __mmask16 m = v < fullVectors ? static_cast<__mmask16>(0xffff) : last;
        __m512 d[R];
#pragma GCC unroll 2
        for (int o = 0; o < R; ++o)
          d[o] = v < fullVectors ? D::loadWhole(dp[o] + v * kLanes)
                                 : D::load(dp[o] + v * kLanes, last);
#pragma GCC unroll 4
        for (int q = 0; q < R + 2; ++q) {
          __m512 w[3];
          xWindows<3, true>(xr + q, v * kLanes, w);
#pragma GCC unroll 2
          for (int o = 0; o < R; ++o) {
            const int i = q - o;  // the kernel row with which output row o reads x row q
            if (i < 0 || i > 2) continue;
#pragma GCC unroll 3
            for (int t = 0; t < 3; ++t)
              a[i * 3 + t][(P + o) % 2] =
                  _mm512_mask3_fmadd_ps(w[t], d[o], a[i * 3 + t][(P + o) % 2], m);
          }
        }
      }
    };
    int64_t r = 0;
    if (g.rowStride == 1 && g.dilH == 1) {
      for (; r + 2 <= rows; r += 2) {
        if (j.nextX != nullptr) fetchNext(r0 + r + 1);
        rowsAt(std::integral_constant<int, 2>{}, std::integral_constant<int, 0>{}, r);
      }
    }
    for (; r < rows; ++r) {
      if (j.nextX != nullptr) fetchNext(r0 + r);
      if (r % 2 == 0)
        rowsAt(std::integral_constant<int, 1>{}, std::integral_constant<int, 0>{}, r);
      else
        rowsAt(std::integral_constant<int, 1>{}, std::integral_constant<int, 1>{}, r);
    }
#pragma GCC unroll 9
    for (int t = 0; t < 9; ++t) {
      float* acc = j.acc + t * kLanes;
      _mm512_storeu_ps(acc, _mm512_add_ps(_mm512_loadu_ps(acc), _mm512_add_ps(a[t][0], a[t][1])));
    }
  };
  // Taps (i, k) .. (i, k + T - 1) over the band's rows, added into j.acc.
  auto taps = [&](auto width, const float* buf, int64_t r0, int64_t rows, int64_t i, int64_t k) {
    constexpr int T = decltype(width)::value;
    __m512 a[T][4];
#pragma GCC unroll 3
    for (int t = 0; t < T; ++t)
#pragma GCC unroll 4
      for (int u = 0; u < 4; ++u) a[t][u] = _mm512_setzero_ps();
    const bool fetch = i == 0 && k == 0 && j.nextX != nullptr;
    for (int64_t r = 0; r < rows; ++r) {
      if (fetch) fetchNext(r0 + r);
      const float* xs[T];
#pragma GCC unroll 3
      for (int t = 0; t < T; ++t)
        xs[t] = buf + (r * g.rowStride + i * g.dilH) * rowFloats + b.colOff[k + t];
      const float* dp = nullptr;
      if constexpr (kConvertDy)
        dp = dyBuf + r * g.dstW;
      else
        dp = dy + (r0 + r) * g.dstW;
      if (aligned && k == 0)
        addRow<T, true>(xs, dp, fullVectors, last, a);
      else
        addRow<T, false>(xs, dp, fullVectors, last, a);
    }
#pragma GCC unroll 3
    for (int t = 0; t < T; ++t) {
      float* acc = j.acc + (i * g.kw + k + t) * kLanes;
      const __m512 sum =
          _mm512_add_ps(_mm512_add_ps(a[t][0], a[t][1]), _mm512_add_ps(a[t][2], a[t][3]));
      _mm512_storeu_ps(acc, _mm512_add_ps(_mm512_loadu_ps(acc), sum));
    }
  };
  auto tapsOfBand = [&](const float* buf, int64_t r0, int64_t rows) {
    if (aligned && g.kh == 3) return sweep3x3(buf, r0, rows);
    if constexpr (kConvertDy) {
      const int64_t count = rows * g.dstW;  // the band's dy rows, as one row
      fillRow<D>(dy + r0 * g.dstW, count, count, 0, count, dyBuf);
    }
    for (int64_t i = 0; i < g.kh; ++i) {
      int64_t k = 0;
      for (; k + 3 <= g.kw; k += 3) taps(std::integral_constant<int, 3>{}, buf, r0, rows, i, k);
      if (k + 2 <= g.kw) {
        taps(std::integral_constant<int, 2>{}, buf, r0, rows, i, k);
        k += 2;
      }
      if (k < g.kw) taps(std::integral_constant<int, 1>{}, buf, r0, rows, i, k);
    }
  };
  forEachBand<D>(g, b, x, tapsOfBand);
}

// f32_dwconv_plane_scatter_avx512's body: the whole dy plane buffered
// (j.scatter), then each dx row from the dy rows its kernel rows meet:
// per 16 outputs of each column phase, the products of the valid taps in
// tap order, the two phases then interleaved into 32 dx columns.
template <typename D>
void scatter(const PlaneCorrelation& j, const typename D::Element* dy, typename D::Element* dx) {
  const PlaneGeometry& g = j.g;
  const ScatterLayout& l = *j.scatter;
  alignas(64) float buf[kBandFloats];
  fillBand<D>(dy, g.dstH, g.dstW, 0, g.dstH, l.lead, l.rowFloats, buf);
  // Each phase's valid W taps, in order.
  int64_t tapOf[2][kMaxTaps], at[2][kMaxTaps], count[2] = {0, 0};
  for (int64_t q = 0; q < l.phases; ++q)
    for (int64_t k = 0; k < g.kw; ++k)
      if (l.valid[q][k]) {
        tapOf[q][count[q]] = k;
        at[q][count[q]++] = l.lead + l.offset[q][k];
      }
  const __m512i low = _mm512_set_epi32(23, 7, 22, 6, 21, 5, 20, 4, 19, 3, 18, 2, 17, 1, 16, 0);
  const __m512i high = _mm512_add_epi32(low, _mm512_set1_epi32(8));
  const __m512 bias = _mm512_set1_ps(j.bias);
  NextPlaneFetch fetch(j.next, j.nextBytes, g.srcH);
  // streamOut: the plane into a buffer, then streamed to dx.
  alignas(64) typename D::Element outBuf[kBandFloats];
  const bool streams = j.streamOut && g.srcH * g.srcW <= kBandFloats;
  typename D::Element* plane = streams ? outBuf : dx;
  for (int64_t ih = 0; ih < g.srcH; ++ih) {
    fetch();
    // The kernel rows this dx row meets, with their dy rows.
    int64_t rowTap[kMaxTaps];
    const float* rowAt[kMaxTaps];
    int64_t rows = 0;
    for (int64_t i = 0; i < g.kh; ++i) {
      int64_t oh = 0;
      if (!scatterSource(ih, g.padH, i, g.dilH, g.rowStride, g.dstH, &oh)) continue;
      rowTap[rows] = i * g.kw;
      rowAt[rows++] = buf + oh * l.rowFloats;
    }
    typename D::Element* out = plane + ih * g.srcW;
    // Phase q's sum over its taps, in order, of 16 outputs from m0.
    auto phaseSum = [&](int q, int64_t m0) {
      __m512 acc = _mm512_setzero_ps();
      for (int64_t r = 0; r < rows; ++r) {
        const float* from = rowAt[r] + m0;
        const float* w = j.taps + rowTap[r];
        for (int64_t n = 0; n < count[q]; ++n)
          acc = _mm512_fmadd_ps(_mm512_loadu_ps(from + at[q][n]), _mm512_set1_ps(w[tapOf[q][n]]),
                                acc);
      }
      return j.hasBias ? _mm512_add_ps(acc, bias) : acc;
    };
    for (int64_t m0 = 0; m0 < l.phaseOutputs; m0 += kLanes) {
      if (l.phases == 1) {
        D::store(out + m0, firstLanes(g.srcW - m0), phaseSum(0, m0));
        continue;
      }
      const __m512 even = phaseSum(0, m0), odd = phaseSum(1, m0);
      const int64_t c0 = 2 * m0;
      D::store(out + c0, firstLanes(g.srcW - c0), _mm512_permutex2var_ps(even, low, odd));
      D::store(out + c0 + kLanes, firstLanes(g.srcW - c0 - kLanes),
               _mm512_permutex2var_ps(even, high, odd));
    }
  }
  if (streams) {
    simd::streamCopy(outBuf, dx, g.srcH * g.srcW * static_cast<int64_t>(sizeof(*dx)));
    simd::streamFence();
  }
}

// The src planes of `channels` channels (stride apart) as the window g
// reads them, zero-padded and transposed: xp[(row * W + column) * 16 + c]
// for the channelPlaneRows x channelPlaneColumns (W) positions, buffer row
// b and column m holding src row b - padH, column m - padW (zero outside,
// and in the lanes past `channels`).
template <typename D>
void transposePaddedPlanes(const typename D::Element* src, int64_t stride, int channels,
                           const PlaneGeometry& g, float* xp) {
  const int64_t H = channelPlaneRows(g), W = channelPlaneColumns(g);
  const __m512 zero = _mm512_setzero_ps();
  // The padding: rows outside the src, then the columns either side of it.
  for (int64_t b = 0; b < H; ++b) {
    const int64_t sr = b - g.padH;
    float* row = xp + b * W * kLanes;
    const bool inside = sr >= 0 && sr < g.srcH;
    const int64_t lo = inside ? (g.padW < W ? g.padW : W) : W;
    const int64_t hi = inside ? (g.padW + g.srcW < W ? g.padW + g.srcW : W) : W;
    for (int64_t m = 0; m < lo; ++m) _mm512_store_ps(row + m * kLanes, zero);
    for (int64_t m = hi; m < W; ++m) _mm512_store_ps(row + m * kLanes, zero);
  }
  // The src planes, 16 positions at a time across row ends (a 7x7 plane in
  // 4 transposes, not 7 row by row with masked loads of 7), each position
  // stored where the window reads it.
  const int64_t plane = g.srcH * g.srcW;
  int64_t r = 0, c = 0;
  for (int64_t p0 = 0; p0 < plane; p0 += kLanes) {
    __m512 v[16];
#pragma GCC unroll 16
    for (int ch = 0; ch < 16; ++ch)
      v[ch] = ch < channels ? paddedColumns<D>(src + ch * stride, plane, p0) : zero;
    simd::transpose16x16(v);
    const int64_t n = plane - p0 < kLanes ? plane - p0 : kLanes;
#pragma GCC unroll 16
    for (int q = 0; q < 16; ++q) {
      if (q >= n) break;
      const int64_t b = r + g.padH, m = c + g.padW;
      if (b < H && m < W) _mm512_store_ps(xp + (b * W + m) * kLanes, v[q]);
      if (++c == g.srcW) {
        c = 0;
        ++r;
      }
    }
  }
}

// The first `positions` positions of `channels` planes (stride apart),
// transposed: out[p * 16 + c] (zero in the lanes past `channels`).
template <typename D>
void transposePlanePositions(const typename D::Element* src, int64_t stride, int channels,
                             int64_t positions, float* out) {
  for (int64_t p0 = 0; p0 < positions; p0 += kLanes) {
    __m512 v[16];
#pragma GCC unroll 16
    for (int ch = 0; ch < 16; ++ch)
      v[ch] =
          ch < channels ? paddedColumns<D>(src + ch * stride, positions, p0) : _mm512_setzero_ps();
    simd::transpose16x16(v);
    const int64_t n = positions - p0 < kLanes ? positions - p0 : kLanes;
    for (int64_t q = 0; q < n; ++q) _mm512_store_ps(out + (p0 + q) * kLanes, v[q]);
  }
}

// The group's biases, one per lane (zero past `channels`, or without a
// bias).
__m512 channelBiases(const ChannelGroupCorrelation& job) {
  alignas(64) float b[kLanes] = {};
  if (job.planes.hasBias)
    for (int ch = 0; ch < job.channels; ++ch) b[ch] = job.biases[ch];
  return _mm512_load_ps(b);
}

// Each tap's weights across the group's channels (zero past `channels`):
// t[k * 16 + ch].
void gatherChannelTaps(const ChannelGroupCorrelation& job, int64_t taps, float* t) {
  for (int64_t k = 0; k < taps; ++k) {
    const int64_t from = job.reversedTaps ? taps - 1 - k : k;
    for (int ch = 0; ch < kLanes; ++ch)
      t[k * kLanes + ch] =
          ch < job.channels ? job.planes.taps[ch * job.tapChannelStride + from] : 0.0f;
  }
}

// f32_dwconv_channels_correlate_avx512's body.
template <typename D>
void correlateChannels(const ChannelGroupCorrelation& job, const typename D::Element* src,
                       typename D::Element* dst) {
  const PlaneCorrelation& j = job.planes;
  const PlaneGeometry& g = j.g;
  const int64_t W = channelPlaneColumns(g);
  const int channels = job.channels;
  alignas(64) float xp[kChannelPlaneFloats];
  transposePaddedPlanes<D>(src, job.srcChannelStride, channels, g, xp);
  // Each tap's weights across the channels, and where its input lies from
  // its output's first tap's.
  const int64_t taps = g.kh * g.kw;
  alignas(64) float t[kMaxTaps * kLanes];
  int64_t tapAt[kMaxTaps];
  gatherChannelTaps(job, taps, t);
  for (int64_t k = 0; k < taps; ++k)
    tapAt[k] = (k / g.kw * g.dilH * W + k % g.kw * g.dilW) * kLanes;
  const __m512 bias = channelBiases(job);
  // The dst plane, contiguous per channel, 16 positions at a time (across
  // row ends: a 7x7 plane in 4 steps, not 7): 16 independent sums, each
  // over its taps in order.
  const int64_t positions = g.dstH * g.dstW;
  int64_t oh = 0, ow = 0;
  for (int64_t p0 = 0; p0 < positions; p0 += kLanes) {
    const int64_t n = positions - p0 < kLanes ? positions - p0 : kLanes;
    int64_t at[16];
    for (int64_t q = 0; q < 16; ++q) {
      // Past the plane's end: the last position again (its sums dropped).
      at[q] = ((oh * g.rowStride) * W + ow * g.colStride) * kLanes;
      if (q + 1 < n && ++ow == g.dstW) {
        ow = 0;
        ++oh;
      }
    }
    if (++ow == g.dstW) {
      ow = 0;
      ++oh;
    }
    __m512 y[16];
#pragma GCC unroll 16
    for (int q = 0; q < 16; ++q) y[q] = _mm512_setzero_ps();
    for (int64_t k = 0; k < taps; ++k) {
      const __m512 tv = _mm512_load_ps(t + k * kLanes);
      const float* x = xp + tapAt[k];
#pragma GCC unroll 16
      for (int q = 0; q < 16; ++q) y[q] = _mm512_fmadd_ps(_mm512_load_ps(x + at[q]), tv, y[q]);
    }
    if (j.hasBias) {
#pragma GCC unroll 16
      for (int q = 0; q < 16; ++q) y[q] = _mm512_add_ps(y[q], bias);
    }
    simd::transpose16x16(y);
    const __mmask16 m = firstLanes(n);
    for (int ch = 0; ch < channels; ++ch) D::store(dst + ch * job.dstChannelStride + p0, m, y[ch]);
  }
}

// f32_dwconv_channels_weight_avx512's body: x transposed and padded as the
// forward's, dy transposed to [position][16]; then each block of taps
// sums over the positions in order, one accumulator per tap.
template <typename D>
void weightChannels(const ChannelGroupWeightGrad& job, const typename D::Element* x,
                    const typename D::Element* dy) {
  const PlaneWeightGrad& j = job.planes;
  const PlaneGeometry& g = j.g;
  const int64_t W = channelPlaneColumns(g);
  const int channels = job.channels;
  alignas(64) float xp[kChannelPlaneFloats];
  transposePaddedPlanes<D>(x, job.xChannelStride, channels, g, xp);
  const int64_t positions = g.dstH * g.dstW;
  alignas(64) float dyT[kChannelPlaneFloats];
  transposePlanePositions<D>(dy, job.dyChannelStride, channels, positions, dyT);
  // Taps in blocks of NB accumulators, one sweep over the positions each:
  // 9 for a 3x3 kernel (one sweep; blocks of 8 swept twice, the second for
  // one tap), 16 while more remain.
  const int64_t taps = g.kh * g.kw;
  auto block = [&](auto size, int64_t k0) {
    constexpr int NB = decltype(size)::value;
    const int64_t count = taps - k0 < NB ? taps - k0 : NB;
    int64_t tapAt[NB];
    __m512 acc[NB];
#pragma GCC unroll 16
    for (int k = 0; k < NB; ++k) {
      const int64_t t = k0 + (k < count ? k : 0);
      tapAt[k] = (t / g.kw * g.dilH * W + t % g.kw * g.dilW) * kLanes;
      acc[k] = _mm512_setzero_ps();
    }
    int64_t oh = 0, ow = 0;
    for (int64_t p = 0; p < positions; ++p) {
      const __m512 d = _mm512_load_ps(dyT + p * kLanes);
      const float* at = xp + (oh * g.rowStride * W + ow * g.colStride) * kLanes;
#pragma GCC unroll 16
      for (int k = 0; k < NB; ++k)
        acc[k] = _mm512_fmadd_ps(_mm512_load_ps(at + tapAt[k]), d, acc[k]);
      if (++ow == g.dstW) {
        ow = 0;
        ++oh;
      }
    }
    for (int64_t k = 0; k < count; ++k) {
      float* sum = j.acc + (k0 + k) * kLanes;
      _mm512_storeu_ps(sum, _mm512_add_ps(_mm512_loadu_ps(sum), acc[k]));
    }
    return k0 + count;
  };
  for (int64_t k0 = 0; k0 < taps;) {
    const int64_t left = taps - k0;
    if (left > 9)
      k0 = block(std::integral_constant<int, 16>{}, k0);
    else if (left > 4)
      k0 = block(std::integral_constant<int, 9>{}, k0);
    else
      k0 = block(std::integral_constant<int, 4>{}, k0);
  }
}

// f32_dwconv_channels_scatter_avx512's body: dy transposed to
// [position][16]; each dx element the sum over its valid taps (kernel rows,
// then columns, in order) of dy * tap, 16 dx positions at a time across row
// ends, transposed back.
template <typename D>
void scatterChannels(const ChannelGroupCorrelation& job, const typename D::Element* dy,
                     typename D::Element* dx) {
  const PlaneCorrelation& j = job.planes;
  const PlaneGeometry& g = j.g;
  const int channels = job.channels;
  const int64_t dyPositions = g.dstH * g.dstW;
  alignas(64) float dyT[kChannelPlaneFloats];
  transposePlanePositions<D>(dy, job.srcChannelStride, channels, dyPositions, dyT);
  // Per dx column: its valid W taps, in order, and the dy columns they read.
  // colTap: the tap's offset in a kernel row of t.
  int64_t colTap[kMaxScatterColumns][kMaxTaps], colAt[kMaxScatterColumns][kMaxTaps];
  int64_t colCount[kMaxScatterColumns];
  for (int64_t iw = 0; iw < g.srcW; ++iw) {
    colCount[iw] = 0;
    for (int64_t k = 0; k < g.kw; ++k) {
      int64_t ow = 0;
      if (!scatterSource(iw, g.padW, k, g.dilW, g.colStride, g.dstW, &ow)) continue;
      colTap[iw][colCount[iw]] = k * kLanes;
      colAt[iw][colCount[iw]++] = ow * kLanes;
    }
  }
  const int64_t taps = g.kh * g.kw;
  alignas(64) float t[kMaxTaps * kLanes];
  gatherChannelTaps(job, taps, t);
  const __m512 bias = channelBiases(job);
  // The current dx row's valid kernel rows, in order: their dy rows and
  // their taps (worked out once per row: per position, the divisions were
  // most of the pass).
  int64_t rowCount = 0;
  const float* rowDy[kMaxTaps];
  const float* rowTaps[kMaxTaps];
  auto rowsOf = [&](int64_t ih) {
    rowCount = 0;
    for (int64_t i = 0; i < g.kh; ++i) {
      int64_t oh = 0;
      if (!scatterSource(ih, g.padH, i, g.dilH, g.rowStride, g.dstH, &oh)) continue;
      rowDy[rowCount] = dyT + oh * g.dstW * kLanes;
      rowTaps[rowCount++] = t + i * g.kw * kLanes;
    }
  };
  const int64_t positions = g.srcH * g.srcW;
  int64_t ih = 0, iw = 0;
  rowsOf(0);
  for (int64_t p0 = 0; p0 < positions; p0 += kLanes) {
    const int64_t n = positions - p0 < kLanes ? positions - p0 : kLanes;
    __m512 y[16];
    for (int64_t q = 0; q < 16; ++q) {
      __m512 acc = _mm512_setzero_ps();
      if (q < n) {
        for (int64_t r = 0; r < rowCount; ++r)
          for (int64_t c = 0; c < colCount[iw]; ++c)
            acc = _mm512_fmadd_ps(_mm512_load_ps(rowDy[r] + colAt[iw][c]),
                                  _mm512_load_ps(rowTaps[r] + colTap[iw][c]), acc);
        if (++iw == g.srcW) {
          iw = 0;
          if (++ih < g.srcH) rowsOf(ih);
        }
      }
      y[q] = j.hasBias ? _mm512_add_ps(acc, bias) : acc;
    }
    simd::transpose16x16(y);
    const __mmask16 m = firstLanes(n);
    for (int ch = 0; ch < channels; ++ch) D::store(dx + ch * job.dstChannelStride + p0, m, y[ch]);
  }
}

// Calls run(kind) with the element kind of a job's operands: its 16-bit
// words of type `words` where it has them, else fp32 (rounded to HF32 as
// read where roundHf32).
template <typename Run>
void withElements(bool hasWords, ElementType words, bool roundHf32, Run&& run) {
  if (!hasWords && roundHf32) return run(Hf32Data{});
  if (!hasWords) return run(F32Data{});
  if (words == ElementType::F16) return run(F16Data{});
  run(Bf16Data{});
}
// The job's operand pointer for kind D: the fp32 one or the words one.
template <typename D, typename F, typename W>
auto* elementsOf(F* floats, W* words) {
  if constexpr (std::is_same_v<typename D::Element, float>)
    return floats;
  else
    return words;
}

}  // namespace

void f32_dwconv_channels_scatter_avx512(const ChannelGroupCorrelation& job) {
  const PlaneCorrelation& j = job.planes;
  withElements(j.srcWords != nullptr, j.words, j.roundHf32, [&](auto kind) {
    using D = decltype(kind);
    scatterChannels<D>(job, elementsOf<D>(j.src, j.srcWords), elementsOf<D>(j.dst, j.dstWords));
  });
}

void f32_dwconv_channels_weight_avx512(const ChannelGroupWeightGrad& job) {
  const PlaneWeightGrad& j = job.planes;
  withElements(j.xWords != nullptr, j.words, j.roundHf32, [&](auto kind) {
    using D = decltype(kind);
    weightChannels<D>(job, elementsOf<D>(j.x, j.xWords), elementsOf<D>(j.dy, j.dyWords));
  });
}

void f32_dwconv_channels_correlate_avx512(const ChannelGroupCorrelation& job) {
  const PlaneCorrelation& j = job.planes;
  withElements(j.srcWords != nullptr, j.words, j.roundHf32, [&](auto kind) {
    using D = decltype(kind);
    correlateChannels<D>(job, elementsOf<D>(j.src, j.srcWords), elementsOf<D>(j.dst, j.dstWords));
  });
}

void f32_dwconv_plane_scatter_avx512(const PlaneCorrelation& j) {
  withElements(j.srcWords != nullptr, j.words, j.roundHf32, [&](auto kind) {
    using D = decltype(kind);
    scatter<D>(j, elementsOf<D>(j.src, j.srcWords), elementsOf<D>(j.dst, j.dstWords));
  });
}

void f32_dwconv_plane_correlate_avx512(const PlaneCorrelation& j) {
  withElements(j.srcWords != nullptr, j.words, j.roundHf32, [&](auto kind) {
    using D = decltype(kind);
    correlate<D>(j, elementsOf<D>(j.src, j.srcWords), elementsOf<D>(j.dst, j.dstWords));
  });
}

void f32_dwconv_plane_weight_avx512(const PlaneWeightGrad& j) {
  withElements(j.xWords != nullptr, j.words, j.roundHf32, [&](auto kind) {
    using D = decltype(kind);
    weightGrad<D>(j, elementsOf<D>(j.x, j.xWords), elementsOf<D>(j.dy, j.dyWords));
  });
}

}  // namespace depthwise_plane
}  // namespace kernels
}  // namespace aclcpu
