#include "kernels/conv/blocked/blocked_staging.h"

#include <algorithm>
#include <cstring>

#include "common/thread_pool.h"
#include "kernels/convert/convert.h"

namespace aclcpu {
namespace kernels {
namespace blocked {
namespace {

bool isSparse(const StagedLayout& l) { return l.step[0] != 1 || l.step[1] != 1 || l.step[2] != 1; }

// Every element of `images` images gets 0, or its channel's bias.
void fillDense(float* dense, const StagedLayout& l, int64_t images, const float* bias) {
  const int64_t plane = l.source[0] * l.source[1] * l.source[2];
  parallelFor(images * l.channels, [&](int64_t begin, int64_t end) {
    for (int64_t row = begin; row < end; ++row) {
      float* values = dense + row * plane;
      if (bias)
        std::fill(values, values + plane, bias[row % l.channels]);
      else
        std::memset(values, 0, static_cast<size_t>(plane) * sizeof(float));
    }
  });
}

}  // namespace

void stageWords(const uint16_t* dense, ElementType type, const StagedLayout& l, int64_t firstImage,
                int64_t images, float* staged) {
  const uint16_t* src = dense + firstImage * denseImageFloats(l);
  parallelFor(images * rowsPerImage(l), [&](int64_t begin, int64_t end) {
    stageWordRows_avx512(src, type, l, begin, end, staged);
  });
  if (l.slackFloats > 0)
    std::memset(staged + l.imageStride * l.images, 0,
                static_cast<size_t>(l.slackFloats) * sizeof(float));
}

void unstageWords(const float* staged, const StagedLayout& l, int64_t firstImage, int64_t images,
                  uint16_t* dense, ElementType type, const float* bias) {
  const int64_t plane = l.source[0] * l.source[1] * l.source[2];
  uint16_t* dst = dense + firstImage * denseImageFloats(l);
  if (isSparse(l)) {
    parallelFor(images * l.channels, [&](int64_t begin, int64_t end) {
      for (int64_t row = begin; row < end; ++row) {
        const float b = bias ? bias[row % l.channels] : 0.0f;
        std::fill(dst + row * plane, dst + (row + 1) * plane,
                  type == ElementType::F16 ? floatToHalf(b) : floatToBf16(b));
      }
    });
  }
  parallelFor(images * rowsPerImage(l), [&](int64_t begin, int64_t end) {
    unstageWordRows_avx512(staged, l, begin, end, dst, type, bias);
  });
}

void stage(const BlockedKernels& k, const float* dense, const StagedLayout& l, int64_t firstImage,
           int64_t images, float* staged, Rounding rounding) {
  const float* src = dense + firstImage * denseImageFloats(l);
  const auto rows = rounding == Rounding::HF32 ? k.stageHf32Rows : k.stageRows;
  parallelFor(images * rowsPerImage(l),
              [&](int64_t begin, int64_t end) { rows(src, l, begin, end, staged); });
  if (l.slackFloats > 0)
    std::memset(staged + l.imageStride * l.images, 0,
                static_cast<size_t>(l.slackFloats) * sizeof(float));
}

void unstage(const BlockedKernels& k, const float* staged, const StagedLayout& l,
             int64_t firstImage, int64_t images, float* dense, const float* bias) {
  float* dst = dense + firstImage * denseImageFloats(l);
  if (isSparse(l)) fillDense(dst, l, images, bias);
  parallelFor(images * rowsPerImage(l),
              [&](int64_t begin, int64_t end) { k.unstageRows(staged, l, begin, end, dst, bias); });
}

}  // namespace blocked
}  // namespace kernels
}  // namespace aclcpu
