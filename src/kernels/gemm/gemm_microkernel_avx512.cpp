#include "kernels/simd/avx512_intrinsic_warnings.h"

// AVX-512 micro-kernel: kAvx512Mr rows x kAvx512Nr columns of zmm
// accumulators, B vectors loaded once per step, A values broadcast. Only
// called after a cpuid check.
// Keep this file free of library templates: anything instantiated here is
// compiled with AVX-512 and could be picked by the linker for generic callers.

#include <immintrin.h>

#include "kernels/gemm/gemm_kernel.h"
#include "kernels/simd/hf32_rounding_avx512.h"
#include "kernels/simd/lane_masks_avx512.h"

namespace aclcpu {
namespace kernels {
namespace gemm_detail {
namespace {

constexpr int kMr = kAvx512Mr;
constexpr int kVectors = kAvx512Nr / 16;
static_assert(kAvx512Nr % 16 == 0, "nr must be whole zmm vectors");
// Rows of B ahead that the packing kernel fetches: a step takes ~12 cycles
// at the FMA peak, so 32 steps cover a DRAM miss's latency.
constexpr int64_t kRowsAhead = 32;
// Cache lines a sliver's row of B may touch (unaligned: one more).
constexpr int kLinesPerRow = kAvx512Nr * 4 / 64 + 1;

// The micro-kernel in four roles (BStream, gemm_kernel.h): kRead reads
// packed B; kPack reads B's rows and packs them as it goes (kPackHf32:
// rounded to HF32 first); kFetch reads packed B and prefetches
// stream.fetchRows rows of the next sliver, one line per step.
enum Role { kRead, kPack, kPackHf32, kFetch };

// V < kVectors or kMasked (kRead only): the tile's first `cols` columns,
// straight into C, only the V vectors holding them computed (a 16- or
// 32-column edge, as a layer with 64 or 256 channels leaves, costs a third or
// two of a tile instead of a whole one plus a copy); each element's products
// and final step are those of the whole tile: the same bits.
template <Role kRole, int V = kVectors, bool kMasked = false>
inline void multiplyTile(int64_t kc, const float* packedA, float* packedB, float* c, int64_t ldc,
                         bool addToC, const float* rowBias, const BStream& stream,
                         int64_t cols = kAvx512Nr) {
  static_assert(V == kVectors || kRole == kRead, "narrow tiles read packed B");
  // The C tile is touched only at the end; start fetching it now.
#pragma GCC unroll 16
  for (int i = 0; i < kMr; ++i) {
#pragma GCC unroll 8
    for (int j = 0; j < V; ++j) {
      _mm_prefetch(reinterpret_cast<const char*>(c + i * ldc + 16 * j), _MM_HINT_T0);
    }
  }
  __m512 acc[kMr][V];
#pragma GCC unroll 16
  for (int i = 0; i < kMr; ++i) {
#pragma GCC unroll 8
    for (int j = 0; j < V; ++j) acc[i][j] = _mm512_setzero_ps();
  }
  const int64_t fetchLines = kRole == kFetch ? stream.fetchRows * kLinesPerRow : 0;
#pragma GCC unroll 2
  for (int64_t p = 0; p < kc; ++p) {
    const float* a = packedA + p * kMr;
    __m512 bv[V];
    if (kRole == kPack || kRole == kPackHf32) {
      const float* row = stream.packFrom + p * stream.ldb;
      // The rows ahead, near the end the next sliver's first (its columns
      // follow these); the last sliver's may lie past B's end, which is
      // harmless: prefetches never fault.
      const int64_t later = p + kRowsAhead;
      const char* ahead = reinterpret_cast<const char*>(
          later < kc ? stream.packFrom + later * stream.ldb
                     : stream.packFrom + (later - kc) * stream.ldb + kAvx512Nr);
      for (int l = 0; l < kLinesPerRow; ++l) _mm_prefetch(ahead + 64 * l, _MM_HINT_T0);
#pragma GCC unroll 8
      for (int j = 0; j < V; ++j) {
        bv[j] = _mm512_loadu_ps(row + 16 * j);
        if (kRole == kPackHf32) bv[j] = simd::roundHf32(bv[j]);
        _mm512_storeu_ps(packedB + p * kAvx512Nr + 16 * j, bv[j]);
      }
    } else {
      if (kRole == kFetch && p < fetchLines) {
        const char* row =
            reinterpret_cast<const char*>(stream.fetchFrom + (p / kLinesPerRow) * stream.ldb);
        _mm_prefetch(row + 64 * (p % kLinesPerRow), _MM_HINT_T0);
      }
#pragma GCC unroll 8
      for (int j = 0; j < V; ++j) bv[j] = _mm512_loadu_ps(packedB + p * kAvx512Nr + 16 * j);
    }
#pragma GCC unroll 16
    for (int i = 0; i < kMr; ++i) {
      const __m512 av = _mm512_set1_ps(a[i]);
#pragma GCC unroll 8
      for (int j = 0; j < V; ++j) acc[i][j] = _mm512_fmadd_ps(av, bv[j], acc[i][j]);
    }
  }
#pragma GCC unroll 16
  for (int i = 0; i < kMr; ++i) {
    float* row = c + i * ldc;
#pragma GCC unroll 8
    for (int j = 0; j < V; ++j) {
      __m512 v = acc[i][j];
      if constexpr (kMasked) {
        const __mmask16 m = simd::firstLanes(cols - 16 * j);
        if (addToC) v = _mm512_add_ps(_mm512_maskz_loadu_ps(m, row + 16 * j), v);
        if (rowBias) v = _mm512_add_ps(v, _mm512_set1_ps(rowBias[i]));
        _mm512_mask_storeu_ps(row + 16 * j, m, v);
      } else {
        if (addToC) v = _mm512_add_ps(_mm512_loadu_ps(row + 16 * j), v);
        if (rowBias) v = _mm512_add_ps(v, _mm512_set1_ps(rowBias[i]));
        _mm512_storeu_ps(row + 16 * j, v);
      }
    }
  }
}

}  // namespace

void microKernelNarrowAvx512(int64_t kc, const float* packedA, const float* packedB, float* c,
                             int64_t ldc, bool addToC, const float* rowBias, int64_t cols) {
  auto* b = const_cast<float*>(packedB);  // read only: kRead
  if (cols <= 16)
    return multiplyTile<kRead, 1, true>(kc, packedA, b, c, ldc, addToC, rowBias, {}, cols);
  if (cols <= 32)
    return multiplyTile<kRead, 2, true>(kc, packedA, b, c, ldc, addToC, rowBias, {}, cols);
  multiplyTile<kRead, kVectors, true>(kc, packedA, b, c, ldc, addToC, rowBias, {}, cols);
}

void microKernelAvx512(int64_t kc, const float* packedA, const float* packedB, float* c,
                       int64_t ldc, bool addToC, const float* rowBias) {
  multiplyTile<kRead>(kc, packedA, const_cast<float*>(packedB), c, ldc, addToC, rowBias, BStream{});
}

void microKernelStreamingBAvx512(int64_t kc, const float* packedA, float* packedB, float* c,
                                 int64_t ldc, bool addToC, const float* rowBias,
                                 const BStream& stream) {
  if (stream.packFrom && stream.roundHf32) {
    multiplyTile<kPackHf32>(kc, packedA, packedB, c, ldc, addToC, rowBias, stream);
  } else if (stream.packFrom) {
    multiplyTile<kPack>(kc, packedA, packedB, c, ldc, addToC, rowBias, stream);
  } else {
    multiplyTile<kFetch>(kc, packedA, packedB, c, ldc, addToC, rowBias, stream);
  }
}

}  // namespace gemm_detail
}  // namespace kernels
}  // namespace aclcpu
