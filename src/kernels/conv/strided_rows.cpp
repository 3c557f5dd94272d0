#include "kernels/conv/strided_rows.h"

#include "kernels/cpu/cpu_info.h"

namespace aclcpu {
namespace kernels {
namespace conv_detail {
namespace {

void copyScalar(const float* in, int64_t /*readable*/, int64_t stride, int64_t count, float* out) {
  for (int64_t i = 0; i < count; ++i) out[i] = in[i * stride];
}

void addScalar(const float* in, int64_t count, int64_t stride, float* out) {
  for (int64_t i = 0; i < count; ++i) out[i * stride] += in[i];
}

void spreadScalar(const float* in, int64_t count, int64_t stride, float* out) {
  for (int64_t i = 0; i < count; ++i) {
    out[i * stride] = in[i];
    if (i + 1 < count)
      for (int64_t j = 1; j < stride; ++j) out[i * stride + j] = 0.0f;
  }
}

}  // namespace

StridedRowLoops scalarStridedRowLoops() { return {copyScalar, addScalar, spreadScalar}; }

StridedRowLoops stridedRowLoops() {
  return activeIsa() >= Isa::Avx512 ? stridedRowLoopsAvx512() : scalarStridedRowLoops();
}

}  // namespace conv_detail
}  // namespace kernels
}  // namespace aclcpu
