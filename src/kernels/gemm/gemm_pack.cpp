// Portable packing (scalar and AVX2 kernels). Loop orders follow memory: when
// a step's lines are contiguous (row-major B, transposed A) whole steps are
// streamed across every sliver, otherwise each line is read forwards.

#include <algorithm>
#include <cstring>

#include "kernels/convert/convert.h"
#include "kernels/gemm/gemm_kernel.h"

namespace aclcpu {
namespace kernels {
namespace gemm_detail {

void packBlockPortable(const float* src, int64_t lineStride, int64_t stepStride, int64_t lines,
                       int64_t depth, int slot, float* dst) {
  const int64_t slivers = (lines + slot - 1) / slot;
  const int64_t sliverFloats = depth * slot;
  if (lineStride == 1) {
    constexpr int64_t kStepsAhead = 6;  // the hardware prefetchers start each step too late
    for (int64_t p = 0; p < depth; ++p) {
      const float* step = src + p * stepStride;
      if (p + kStepsAhead < depth) {
        const float* later = step + kStepsAhead * stepStride;
        for (int64_t l = 0; l < lines; l += 16) __builtin_prefetch(later + l, 0, 3);
      }
      for (int64_t s = 0; s < slivers; ++s) {
        const int64_t width = std::min<int64_t>(slot, lines - s * slot);
        float* to = dst + s * sliverFloats + p * slot;
        std::memcpy(to, step + s * slot, sizeof(float) * width);
        std::fill(to + width, to + slot, 0.0f);
      }
    }
    return;
  }
  for (int64_t s = 0; s < slivers; ++s) {
    const int64_t width = std::min<int64_t>(slot, lines - s * slot);
    const float* from = src + s * slot * lineStride;
    float* to = dst + s * sliverFloats;
    for (int64_t p = 0; p < depth; ++p) {
      for (int64_t l = 0; l < width; ++l) to[p * slot + l] = from[l * lineStride + p * stepStride];
      std::fill(to + p * slot + width, to + (p + 1) * slot, 0.0f);
    }
  }
}

void roundHf32Portable(float* data, int64_t count) {
  for (int64_t i = 0; i < count; ++i) data[i] = roundFloat(data[i], Rounding::HF32);
}

void packBlockHf32Portable(const float* src, int64_t lineStride, int64_t stepStride, int64_t lines,
                           int64_t depth, int slot, float* dst) {
  packBlockPortable(src, lineStride, stepStride, lines, depth, slot, dst);
  roundHf32Portable(dst, (lines + slot - 1) / slot * slot * depth);
}

}  // namespace gemm_detail
}  // namespace kernels
}  // namespace aclcpu
