// AVX-512 kernels of the NCHW plane convolution: register tiles of up to
// 8 dst channels x 3 vectors (24 accumulators) for the correlation, 4 dy
// channels x 4 x channels for the weight gradient; each src vector is one
// masked load, each weight one broadcast. Only called after a cpuid check;
// free of library templates for the reason given in
// f32_dwconv_plane_avx512.cpp.

#include "kernels/simd/avx512_intrinsic_warnings.h"

#include <immintrin.h>

#include <cstdint>

#include "kernels/conv/blocked/element_loads_avx512_inl.h"
#include "kernels/conv/nchw_plane/conv_plane.h"
#include "kernels/simd/half_words_avx512.h"
#include "kernels/simd/hf32_rounding_avx512.h"
#include "kernels/simd/lane_masks_avx512.h"

namespace aclcpu {
namespace kernels {
namespace nchw_plane {
namespace {

// The element kinds: Load reads 16 values as fp32, store writes the lanes
// of a mask, rounded to the kind once.
struct F32Kind {
  using Load = blocked::F32Elements;
  static void store(float* p, __mmask16 m, __m512 v) { _mm512_mask_storeu_ps(p, m, v); }
};
struct Hf32Kind {
  using Load = blocked::Hf32Elements;
  static void store(float* p, __mmask16 m, __m512 v) { _mm512_mask_storeu_ps(p, m, v); }
};
struct Bf16Kind {
  using Load = blocked::Bf16Elements;
  static void store(uint16_t* p, __mmask16 m, __m512 v) { simd::storeBf16(p, m, v); }
};
struct F16Kind {
  using Load = blocked::F16Elements;
  static void store(uint16_t* p, __mmask16 m, __m512 v) { simd::storeF16(p, m, v); }
};

// The src address of vector k at tap t, `plane` holding the plane's
// elements from `origin` on: `plane` itself when no lane reads (no address
// outside the caller's tensor is formed then).
template <typename E>
inline const E* tapSource(const E* plane, int64_t origin, const PlaneVectors& b, int64_t t,
                          int64_t k) {
  return b.masks[t * b.padded + k] ? plane + (b.srcBase[k] + b.tapOffset[t] - origin) : plane;
}

// The first tap reads each src line of the tile for the first time, from as
// many planes as there are src channels (too many streams for the hardware
// prefetcher): the lines this many channels ahead are requested early into
// L1, and the next tile's lines of the channel into L2. The later taps find
// them in L1. Measured (medians of 5-7, within one run): RN50 1x1 256->64
// 56x56 forward 1 thread 10.3 -> 8.6 ms (2 threads 6.3 -> 4.8), wav2vec stem
// data gradient (stride phases) 1 thread 0.79-0.96 of before, 2 threads 0.84;
// 3x3 and k5 layers 0.99-1.00.
constexpr int64_t kFetchAhead = 4;
// kKeep: also store each src vector as loaded (rounded) at j.keep.
template <int OT, int NV, typename K, typename E, bool kKeep = false>
void correlateTile(const GroupCorrelation& j, int64_t k0, int64_t d0, int64_t tile) {
  const PlaneVectors& b = *j.vectors;
  E* dst = static_cast<E*>(j.dst);
  const int64_t S = j.srcChannels, D = j.dstChannels;
  const int64_t srcPlane = j.srcStride, dstPlane = j.dstStride;
  const int64_t taps = j.map.kh * j.map.kw;
  __m512 acc[OT][NV];
#pragma GCC unroll 8
  for (int o = 0; o < OT; ++o)
#pragma GCC unroll 12
    for (int v = 0; v < NV; ++v) acc[o][v] = _mm512_setzero_ps();
  // 3D layers: each depth tap one plane correlation, summed in registers.
  for (int64_t a = 0; a < j.depthTaps; ++a) {
    const E* src = static_cast<const E*>(j.src) + a * j.depthSrcStep;
    const float* depthWeights = j.weights + (j.depthTap0 + a) * taps * S * D;
    for (int64_t t = 0; t < taps; ++t) {
      const E* p[NV];
      float* keep[NV];
      __mmask16 mk[NV];
#pragma GCC unroll 12
      for (int v = 0; v < NV; ++v) {
        mk[v] = b.masks[t * b.padded + k0 + v];
        p[v] = tapSource(src, j.srcOrigin, b, t, k0 + v);
        if (kKeep)
          keep[v] = const_cast<float*>(tapSource<float>(j.keep, j.keepOrigin, b, t, k0 + v));
      }
      const float* w = depthWeights + t * S * D + d0;
      const bool fetchAhead = t == 0;
      for (int64_t s = 0; s < S; ++s) {
        __m512 x[NV];
        if (fetchAhead) {
          // An address, not a pointer into src: past the last channel it
          // points nowhere, which a prefetch may.
          const uintptr_t ahead = (s + kFetchAhead) * srcPlane * sizeof(E);
#pragma GCC unroll 12
          for (int v = 0; v < NV; ++v)
            _mm_prefetch(reinterpret_cast<const char*>(reinterpret_cast<uintptr_t>(p[v]) + ahead),
                         _MM_HINT_T0);
          // And the next tile's lines of this channel into L2: from memory
          // they take longer than the few channels above allow.
          const uintptr_t nextTile = (s * srcPlane + NV * kLanes) * sizeof(E);
#pragma GCC unroll 12
          for (int v = 0; v < NV; ++v)
            _mm_prefetch(
                reinterpret_cast<const char*>(reinterpret_cast<uintptr_t>(p[v]) + nextTile),
                _MM_HINT_T1);
          if (j.nextSrc) {
            const int64_t first = tile * j.nextShare;
            const int64_t last =
                first + j.nextShare < j.nextLines ? first + j.nextShare : j.nextLines;
            // Addresses, as above: the last line may lie past the tensor.
            const uintptr_t line =
                reinterpret_cast<uintptr_t>(j.nextSrc) + s * j.nextStride * sizeof(E);
            for (int64_t l = first; l < last; ++l)
              _mm_prefetch(reinterpret_cast<const char*>(line + l * 64), _MM_HINT_T1);
          }
        }
#pragma GCC unroll 12
        for (int v = 0; v < NV; ++v) x[v] = K::Load::load(p[v] + s * srcPlane, mk[v]);
        if (kKeep) {
#pragma GCC unroll 12
          for (int v = 0; v < NV; ++v)
            _mm512_mask_storeu_ps(keep[v] + s * j.keepStride, mk[v], x[v]);
        }
#pragma GCC unroll 8
        for (int o = 0; o < OT; ++o) {
          const __m512 wb = _mm512_set1_ps(w[s * D + o]);
#pragma GCC unroll 12
          for (int v = 0; v < NV; ++v) acc[o][v] = _mm512_fmadd_ps(x[v], wb, acc[o][v]);
        }
      }
    }
  }
#pragma GCC unroll 8
  for (int o = 0; o < OT; ++o) {
    const __m512 bias = _mm512_set1_ps(j.bias ? j.bias[d0 + o] : 0.0f);
#pragma GCC unroll 12
    for (int v = 0; v < NV; ++v) {
      if (!b.valid[k0 + v]) continue;
      const __m512 r = j.bias ? _mm512_add_ps(acc[o][v], bias) : acc[o][v];
      K::store(dst + (d0 + o) * dstPlane + b.dstBase[k0 + v], b.valid[k0 + v], r);
    }
  }
}

// The job's vectors in tiles of NV, for OT dst channels from d0; `tile`
// counts the item's tiles (for its share of the next item's lines).
template <int OT, int NV, typename K, typename E, bool kKeep>
void correlateTiles(const GroupCorrelation& j, int64_t d0, int64_t* tile) {
  static_assert(kBlockVectors % NV == 0, "tiles stay inside the padded table");
  for (int64_t k0 = j.v0; k0 < j.v1; k0 += NV)
    correlateTile<OT, NV, K, E, kKeep>(j, k0, d0, (*tile)++);
}

// Dst channels [d0, next) in one pass over the src: tiles of 8, 5, 4, 2 or
// 1 channels, each over as many vectors as its accumulators allow.
template <typename K, typename E, bool kKeep>
int64_t correlateGroup(const GroupCorrelation& j, int64_t d0, int64_t* tile) {
  const int64_t left = j.dstChannels - d0;
  if (left >= 8) {
    correlateTiles<8, 3, K, E, kKeep>(j, d0, tile);
    return d0 + 8;
  }
  if (left == 5) {
    // One pass over the src instead of 4 + 1 (the stride phases of a
    // 1-channel k10 s5 stem have 5 dx channels).
    correlateTiles<5, 4, K, E, kKeep>(j, d0, tile);
    return d0 + 5;
  }
  if (left >= 4) {
    correlateTiles<4, 6, K, E, kKeep>(j, d0, tile);
    return d0 + 4;
  }
  if (left >= 2) {
    correlateTiles<2, 6, K, E, kKeep>(j, d0, tile);
    return d0 + 2;
  }
  correlateTiles<1, 12, K, E, kKeep>(j, d0, tile);
  return d0 + 1;
}

template <typename K, typename E>
void correlate(const GroupCorrelation& j) {
  int64_t tile = 0;
  for (int64_t d0 = 0; d0 < j.dstChannels;) d0 = correlateGroup<K, E, false>(j, d0, &tile);
}

// Raw HF32 src: the first group rounds as it loads and keeps what it
// rounded, the others read that.
void correlateKeeping(const GroupCorrelation& j) {
  int64_t tile = 0;
  int64_t d0 = correlateGroup<Hf32Kind, float, true>(j, 0, &tile);
  GroupCorrelation kept = j;
  kept.src = j.keep;
  kept.srcStride = j.keepStride;
  kept.srcOrigin = j.keepOrigin;
  while (d0 < j.dstChannels) d0 = correlateGroup<F32Kind, float, false>(kept, d0, &tile);
}

// Where one image's x and dy planes of a weight-gradient job lie: channel
// c's plane element q at x + c * xStride + q - xOrigin (likewise dy).
template <typename E>
struct WeightSources {
  const E* x;
  int64_t xStride, xOrigin;
  const E* dy;
  int64_t dyStride, dyOrigin;
};

// acc[t][s0 .. s0 + ST)[d0 .. d0 + OT) over vectors [v0, v1) of one image,
// in order.
template <int OT, int ST, typename K, typename E>
void weightTile(const GroupWeightGrad& j, const WeightSources<E>& in, int64_t v0, int64_t v1,
                int64_t d0, int64_t s0, int64_t t) {
  const PlaneVectors& b = *j.vectors;
  const int64_t S = j.xChannels;
  float* acc = j.acc + ((t * S + s0) * j.dCount + d0) * kLanes;
  __m512 a[OT][ST];
#pragma GCC unroll 8
  for (int s = 0; s < ST; ++s)
#pragma GCC unroll 8
    for (int o = 0; o < OT; ++o) a[o][s] = _mm512_loadu_ps(acc + (s * j.dCount + o) * kLanes);
  const E* dyTile = in.dy + d0 * in.dyStride;
  const E* xTile = in.x + s0 * in.xStride;
  for (int64_t k = v0; k < v1; ++k) {
    const __mmask16 valid = b.valid[k], mk = b.masks[t * b.padded + k];
    __m512 d[OT];
    const E* dp = dyTile + (b.dstBase[k] - in.dyOrigin);
#pragma GCC unroll 8
    for (int o = 0; o < OT; ++o) d[o] = K::Load::load(dp + o * in.dyStride, valid);
    const E* p = tapSource(xTile, in.xOrigin, b, t, k);
#pragma GCC unroll 8
    for (int s = 0; s < ST; ++s) {
      const __m512 xv = K::Load::load(p + s * in.xStride, mk);
#pragma GCC unroll 8
      for (int o = 0; o < OT; ++o) a[o][s] = _mm512_fmadd_ps(xv, d[o], a[o][s]);
    }
  }
#pragma GCC unroll 8
  for (int s = 0; s < ST; ++s)
#pragma GCC unroll 8
    for (int o = 0; o < OT; ++o) _mm512_storeu_ps(acc + (s * j.dCount + o) * kLanes, a[o][s]);
}

// Every (x channel, tap) of dy channels [d0, d0 + OT): x channels in tiles of
// 4, the rest in one tile of 5 (for 4 + 1), 3, 2 or 1.
template <int OT, typename K, typename E>
void weightTiles(const GroupWeightGrad& j, const WeightSources<E>& in, int64_t v0, int64_t v1,
                 int64_t d0) {
  const int64_t S = j.xChannels, taps = j.map.kh * j.map.kw;
  for (int64_t s0 = 0; s0 < S;) {
    const int64_t st = S - s0 == 5 ? 5 : S - s0 < 4 ? S - s0 : 4;
    for (int64_t t = 0; t < taps; ++t) {
      switch (st) {
        case 5:
          weightTile<OT, 5, K, E>(j, in, v0, v1, d0, s0, t);
          break;
        case 4:
          weightTile<OT, 4, K, E>(j, in, v0, v1, d0, s0, t);
          break;
        case 3:
          weightTile<OT, 3, K, E>(j, in, v0, v1, d0, s0, t);
          break;
        case 2:
          weightTile<OT, 2, K, E>(j, in, v0, v1, d0, s0, t);
          break;
        default:
          weightTile<OT, 1, K, E>(j, in, v0, v1, d0, s0, t);
          break;
      }
    }
    s0 += st;
  }
}

// Elements [lo, hi) of `channels` planes `stride` apart, rounded to HF32
// into rows of `span` at dst.
void roundRows(const float* src, int64_t stride, int64_t channels, int64_t lo, int64_t hi,
               float* dst, int64_t span) {
  for (int64_t c = 0; c < channels; ++c) {
    const float* from = src + c * stride;
    float* to = dst + c * span - lo;
    for (int64_t i = lo; i < hi; i += kLanes) {
      const __mmask16 m = simd::firstLanes(hi - i < kLanes ? hi - i : kLanes);
      _mm512_mask_storeu_ps(to + i, m, simd::roundHf32(simd::loadFirstLanes(from + i, hi - i)));
    }
  }
}

// Blocks of vectors, then images: a block's data of one image stays in
// cache for all its tiles (kWeightBlockVectors: 8 channels of 48 vectors
// are 24 KB). kRound (raw HF32 x and dy): the block's rows of the image
// rounded into the job's slot first.
template <typename K, typename E, bool kRound = false>
void weightGrad(const GroupWeightGrad& j) {
  const int64_t srcPlane = j.map.srcH * j.map.srcW, dstPlane = j.map.dstH * j.map.dstW;
  for (int64_t v0 = j.v0; v0 < j.v1; v0 += kWeightBlockVectors) {
    const int64_t v1 = j.v1 - v0 < kWeightBlockVectors ? j.v1 : v0 + kWeightBlockVectors;
    int64_t xLo = 0, xHi = 0, dyLo = 0, dyHi = 0;
    if (kRound) {
      planeSourceRange(j.map, *j.vectors, v0, v1, &xLo, &xHi);
      planeDestinationRange(j.map, *j.vectors, v0, v1, &dyLo, &dyHi);
      // Never (the spans bound them): the slot's ends.
      if (xHi - xLo > j.xSpan) xHi = xLo + j.xSpan;
      if (dyHi - dyLo > j.dySpan) dyHi = dyLo + j.dySpan;
    }
    for (int64_t n = 0; n < j.images; ++n) {
      WeightSources<E> in{static_cast<const E*>(j.x) + n * j.xImage,   srcPlane, 0,
                          static_cast<const E*>(j.dy) + n * j.dyImage, dstPlane, 0};
      if (kRound) {
        float* dySlot = j.slot + j.xChannels * j.xSpan;
        roundRows(reinterpret_cast<const float*>(in.x), srcPlane, j.xChannels, xLo, xHi, j.slot,
                  j.xSpan);
        roundRows(reinterpret_cast<const float*>(in.dy), dstPlane, j.dCount, dyLo, dyHi, dySlot,
                  j.dySpan);
        in = WeightSources<E>{reinterpret_cast<const E*>(j.slot), j.xSpan,  xLo,
                              reinterpret_cast<const E*>(dySlot), j.dySpan, dyLo};
      }
      for (int64_t d0 = 0; d0 < j.dCount;) {
        const int64_t left = j.dCount - d0;
        if (left >= 4) {
          weightTiles<4, K, E>(j, in, v0, v1, d0);
          d0 += 4;
        } else if (left >= 2) {
          weightTiles<2, K, E>(j, in, v0, v1, d0);
          d0 += 2;
        } else {
          weightTiles<1, K, E>(j, in, v0, v1, d0);
          d0 += 1;
        }
      }
    }
  }
}

}  // namespace

void f32_conv_plane_describe_avx512(const PlaneMap& m, PlaneVectors* b) {
  const __m512i iota = _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
  const __m512i dstW = _mm512_set1_epi32(static_cast<int>(m.dstW));
  const __m512i one = _mm512_set1_epi32(1);
  const __m512i srcH = _mm512_set1_epi32(static_cast<int>(m.srcH));
  const __m512i srcW = _mm512_set1_epi32(static_cast<int>(m.srcW));
  const int64_t taps = m.kh * m.kw;
  for (int64_t t = 0; t < taps; ++t) {
    const int64_t dr = (t / m.kw) * m.dilH - m.padH, dc = (t % m.kw) * m.dilW - m.padW;
    b->tapOffset[t] = dr * m.srcW + dc;
  }
  for (int64_t k = 0; k < b->padded; ++k) {
    if (k >= b->count) {
      b->srcBase[k] = b->dstBase[k] = 0;
      b->valid[k] = 0;
      for (int64_t t = 0; t < taps; ++t) b->masks[t * b->padded + k] = 0;
      continue;
    }
    int64_t r0 = 0, c0 = 0, lanes = 0;
    if (m.acrossRows()) {
      const int64_t q0 = k * kLanes;
      r0 = q0 / m.dstW;
      c0 = q0 % m.dstW;
      lanes = m.dstH * m.dstW - q0;
    } else {
      r0 = k / m.vectorsPerRow();
      c0 = (k % m.vectorsPerRow()) * kLanes;
      lanes = m.dstW - c0;
    }
    __m512i r = _mm512_set1_epi32(static_cast<int>(r0));
    __m512i c = _mm512_add_epi32(_mm512_set1_epi32(static_cast<int>(c0)), iota);
    if (m.acrossRows()) {
      // Lanes past the row's end continue on the next rows.
      for (__mmask16 wrap = _mm512_cmpge_epi32_mask(c, dstW); wrap;
           wrap = _mm512_cmpge_epi32_mask(c, dstW)) {
        c = _mm512_mask_sub_epi32(c, wrap, c, dstW);
        r = _mm512_mask_add_epi32(r, wrap, r, one);
      }
    }
    const __mmask16 valid = simd::firstLanes(lanes);
    b->valid[k] = valid;
    b->srcBase[k] = r0 * m.srcW + c0;
    b->dstBase[k] = r0 * m.dstW + c0;
    for (int64_t t = 0; t < taps; ++t) {
      const int64_t dr = (t / m.kw) * m.dilH - m.padH, dc = (t % m.kw) * m.dilW - m.padW;
      const __mmask16 inRows = _mm512_cmplt_epu32_mask(
          _mm512_add_epi32(r, _mm512_set1_epi32(static_cast<int>(dr))), srcH);
      const __mmask16 inCols = _mm512_cmplt_epu32_mask(
          _mm512_add_epi32(c, _mm512_set1_epi32(static_cast<int>(dc))), srcW);
      b->masks[t * b->padded + k] = static_cast<uint16_t>(valid & inRows & inCols);
    }
  }
}

void f32_conv_plane_correlate_o8w48_avx512(const GroupCorrelation& j) {
  switch (j.kind) {
    case Elements::F32:
      correlate<F32Kind, float>(j);
      break;
    case Elements::Hf32:
      if (j.keep)
        correlateKeeping(j);
      else
        correlate<Hf32Kind, float>(j);
      break;
    case Elements::Bf16:
      correlate<Bf16Kind, uint16_t>(j);
      break;
    case Elements::F16:
      correlate<F16Kind, uint16_t>(j);
      break;
  }
}

void f32_convbwdw_plane_o4c4_avx512(const GroupWeightGrad& j) {
  switch (j.kind) {
    case Elements::F32:
      weightGrad<F32Kind, float>(j);
      break;
    case Elements::Hf32:
      if (j.slot)
        weightGrad<F32Kind, float, true>(j);
      else
        weightGrad<Hf32Kind, float>(j);
      break;
    case Elements::Bf16:
      weightGrad<Bf16Kind, uint16_t>(j);
      break;
    case Elements::F16:
      weightGrad<F16Kind, uint16_t>(j);
      break;
  }
}

}  // namespace nchw_plane
}  // namespace kernels
}  // namespace aclcpu
