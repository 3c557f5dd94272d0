#include "kernels/conv/blocked/blocked_staging.h"

#include <algorithm>
#include <cstring>

#include "common/thread_pool.h"

namespace aclcpu {
namespace kernels {
namespace blocked {
namespace {

bool isSparse(const StagedLayout& l) { return l.step[0] != 1 || l.step[1] != 1 || l.step[2] != 1; }

void zeroDense(float* dense, int64_t count) {
  constexpr int64_t kBlock = 65536;
  parallelFor((count + kBlock - 1) / kBlock, [&](int64_t begin, int64_t end) {
    const int64_t first = begin * kBlock, last = std::min(count, end * kBlock);
    std::memset(dense + first, 0, static_cast<size_t>(last - first) * sizeof(float));
  });
}

}  // namespace

void stage(const BlockedKernels& k, const float* dense, const StagedLayout& l, int64_t firstImage,
           int64_t images, float* staged) {
  const float* src = dense + firstImage * denseImageFloats(l);
  parallelFor(images * rowsPerImage(l),
              [&](int64_t begin, int64_t end) { k.stageRows(src, l, begin, end, staged); });
  if (l.slackFloats > 0)
    std::memset(staged + l.imageStride * l.images, 0,
                static_cast<size_t>(l.slackFloats) * sizeof(float));
}

void unstage(const BlockedKernels& k, const float* staged, const StagedLayout& l,
             int64_t firstImage, int64_t images, float* dense) {
  float* dst = dense + firstImage * denseImageFloats(l);
  if (isSparse(l)) zeroDense(dst, images * denseImageFloats(l));
  parallelFor(images * rowsPerImage(l),
              [&](int64_t begin, int64_t end) { k.unstageRows(staged, l, begin, end, dst); });
}

}  // namespace blocked
}  // namespace kernels
}  // namespace aclcpu
