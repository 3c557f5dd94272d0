// channelSums: one thread owns each channel and adds its elements in
// row-major (n, d, h, w) order, so the sums never depend on the thread count.

#include "common/thread_pool.h"
#include "kernels/convert/convert.h"
#include "kernels/convert/scalar_convert_inl.h"
#include "kernels/convert/view_walk.h"

namespace aclcpu {
namespace kernels {
namespace {

template <typename Element, typename Load>
double sumChannel(const Element* base, const detail::ViewWalk& walk, Load load) {
  double sum = 0.0;
  detail::forEachRun(walk, 0, walk.total,
                     [&](int64_t, int64_t offset, int64_t stride, int64_t length) {
                       const Element* in = base + offset;
                       for (int64_t i = 0; i < length; ++i)
                         sum += static_cast<double>(load(in[i * stride]));
                     });
  return sum;
}

}  // namespace

void channelSums(const View5& src, double* sums) {
  const int64_t channels = src.shape[1];
  if (channels <= 0) return;
  int64_t perChannelShape[5] = {src.shape[0], 1, src.shape[2], src.shape[3], src.shape[4]};
  const detail::ViewWalk walk = detail::makeWalk(perChannelShape, src.strides);
  const int64_t channelStride = src.strides[1];
  auto body = [&](int64_t begin, int64_t end) {
    for (int64_t c = begin; c < end; ++c) {
      if (walk.total == 0) {
        sums[c] = 0.0;
        continue;
      }
      switch (src.type) {
        case ElementType::F32:
          sums[c] = sumChannel(static_cast<const float*>(src.data) + c * channelStride, walk,
                               [](float v) { return v; });
          break;
        case ElementType::F16:
          sums[c] = sumChannel(static_cast<const uint16_t*>(src.data) + c * channelStride, walk,
                               [](uint16_t v) { return detail::halfToFloatInline(v); });
          break;
        case ElementType::BF16:
          sums[c] = sumChannel(static_cast<const uint16_t*>(src.data) + c * channelStride, walk,
                               [](uint16_t v) { return detail::bf16ToFloatInline(v); });
          break;
      }
    }
  };
  // Small problems are not worth waking the pool for.
  if (walk.total * channels < (int64_t{1} << 15)) {
    body(0, channels);
  } else {
    parallelFor(channels, body);
  }
}

}  // namespace kernels
}  // namespace aclcpu
