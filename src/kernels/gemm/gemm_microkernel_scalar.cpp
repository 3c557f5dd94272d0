// Portable micro-kernel: plain multiply then add (the build disables FMA
// contraction), so any CPU gives the same bits. The compiler may vectorise
// across the independent columns, which does not change any element's sum.

#include "kernels/gemm/gemm_kernel.h"

namespace aclcpu {
namespace kernels {
namespace gemm_detail {

void microKernelScalar(int64_t kc, const float* packedA, const float* packedB, float* c,
                       int64_t ldc, bool addToC, const float* rowBias) {
  constexpr int mr = kScalarMr;
  constexpr int nr = kScalarNr;
  float acc[mr][nr] = {};
  for (int64_t p = 0; p < kc; ++p) {
    const float* a = packedA + p * mr;
    const float* b = packedB + p * nr;
    for (int i = 0; i < mr; ++i) {
      for (int j = 0; j < nr; ++j) acc[i][j] += a[i] * b[j];
    }
  }
  for (int i = 0; i < mr; ++i) {
    float* row = c + i * ldc;
    for (int j = 0; j < nr; ++j) row[j] = storedValue(row[j], acc[i][j], addToC, rowBias, i);
  }
}

}  // namespace gemm_detail
}  // namespace kernels
}  // namespace aclcpu
