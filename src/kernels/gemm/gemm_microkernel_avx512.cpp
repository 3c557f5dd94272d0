// AVX-512 micro-kernel: kAvx512Mr rows x kAvx512Nr columns of zmm
// accumulators, B vectors loaded once per step, A values broadcast. Only
// called after a cpuid check.
// Keep this file free of library templates: anything instantiated here is
// compiled with AVX-512 and could be picked by the linker for generic callers.

#include <immintrin.h>

#include "kernels/gemm/gemm_kernel.h"

namespace aclcpu {
namespace kernels {
namespace gemm_detail {

void microKernelAvx512(int64_t kc, const float* packedA, const float* packedB, float* c,
                       int64_t ldc, bool addToC) {
  constexpr int mr = kAvx512Mr;
  constexpr int nv = kAvx512Nr / 16;
  static_assert(kAvx512Nr % 16 == 0, "nr must be whole zmm vectors");
  // The C tile is touched only at the end; start fetching it now.
#pragma GCC unroll 16
  for (int i = 0; i < mr; ++i) {
#pragma GCC unroll 8
    for (int j = 0; j < nv; ++j) {
      _mm_prefetch(reinterpret_cast<const char*>(c + i * ldc + 16 * j), _MM_HINT_T0);
    }
  }
  __m512 acc[mr][nv];
#pragma GCC unroll 16
  for (int i = 0; i < mr; ++i) {
#pragma GCC unroll 8
    for (int j = 0; j < nv; ++j) acc[i][j] = _mm512_setzero_ps();
  }
#pragma GCC unroll 2
  for (int64_t p = 0; p < kc; ++p) {
    const float* a = packedA + p * mr;
    const float* b = packedB + p * kAvx512Nr;
    __m512 bv[nv];
#pragma GCC unroll 8
    for (int j = 0; j < nv; ++j) bv[j] = _mm512_loadu_ps(b + 16 * j);
#pragma GCC unroll 16
    for (int i = 0; i < mr; ++i) {
      const __m512 av = _mm512_set1_ps(a[i]);
#pragma GCC unroll 8
      for (int j = 0; j < nv; ++j) acc[i][j] = _mm512_fmadd_ps(av, bv[j], acc[i][j]);
    }
  }
#pragma GCC unroll 16
  for (int i = 0; i < mr; ++i) {
    float* row = c + i * ldc;
#pragma GCC unroll 8
    for (int j = 0; j < nv; ++j) {
      __m512 v = acc[i][j];
      if (addToC) v = _mm512_add_ps(_mm512_loadu_ps(row + 16 * j), v);
      _mm512_storeu_ps(row + 16 * j, v);
    }
  }
}

}  // namespace gemm_detail
}  // namespace kernels
}  // namespace aclcpu
