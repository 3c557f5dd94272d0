// AVX2 + FMA micro-kernel: 6 rows x 16 columns (12 ymm accumulators, two B
// vectors, one broadcast). Only called after a cpuid check.
// Keep this file free of library templates: anything instantiated here is
// compiled with AVX2 and could be picked by the linker for generic callers.

#include <immintrin.h>

#include "kernels/gemm/gemm_kernel.h"

namespace aclcpu {
namespace kernels {
namespace gemm_detail {

void microKernelAvx2(int64_t kc, const float* packedA, const float* packedB, float* c, int64_t ldc,
                     bool addToC, const float* rowBias) {
  constexpr int mr = kAvx2Mr;
  constexpr int nv = kAvx2Nr / 8;
  static_assert(kAvx2Nr % 8 == 0, "nr must be whole ymm vectors");
  __m256 acc[mr][nv];
#pragma GCC unroll 8
  for (int i = 0; i < mr; ++i) {
#pragma GCC unroll 8
    for (int j = 0; j < nv; ++j) acc[i][j] = _mm256_setzero_ps();
  }
#pragma GCC unroll 2
  for (int64_t p = 0; p < kc; ++p) {
    const float* a = packedA + p * mr;
    const float* b = packedB + p * kAvx2Nr;
    __m256 bv[nv];
#pragma GCC unroll 8
    for (int j = 0; j < nv; ++j) bv[j] = _mm256_loadu_ps(b + 8 * j);
#pragma GCC unroll 16
    for (int i = 0; i < mr; ++i) {
      const __m256 av = _mm256_broadcast_ss(a + i);
#pragma GCC unroll 8
      for (int j = 0; j < nv; ++j) acc[i][j] = _mm256_fmadd_ps(av, bv[j], acc[i][j]);
    }
  }
#pragma GCC unroll 16
  for (int i = 0; i < mr; ++i) {
    float* row = c + i * ldc;
#pragma GCC unroll 8
    for (int j = 0; j < nv; ++j) {
      __m256 v = acc[i][j];
      if (addToC) v = _mm256_add_ps(_mm256_loadu_ps(row + 8 * j), v);
      if (rowBias) v = _mm256_add_ps(v, _mm256_broadcast_ss(rowBias + i));
      _mm256_storeu_ps(row + 8 * j, v);
    }
  }
}

}  // namespace gemm_detail
}  // namespace kernels
}  // namespace aclcpu
