// channelSums: every channel's elements are added in row-major (n, d, h, w)
// order into its own double, so the sums never depend on the thread count.
// Several channels are summed side by side (independent add chains, so the
// adds overlap instead of waiting on one another's latency), and 16-bit
// elements are widened a chunk at a time by the vector run loops. Neither
// changes any channel's sequence of additions: the bits are those of the
// plain one-channel-at-a-time loop.

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "common/thread_pool.h"
#include "kernels/convert/convert.h"
#include "kernels/convert/convert_runs.h"
#include "kernels/convert/scalar_convert_inl.h"
#include "kernels/convert/view_walk.h"

namespace aclcpu {
namespace kernels {
namespace {

constexpr int kMaxGroup = 8;     // channels summed side by side
constexpr int64_t kChunk = 256;  // elements widened to fp32 per channel at a time

struct SumJob {
  const View5* src;
  const detail::ViewWalk* walk;
  detail::GatherRunFn widen;  // contiguous 16-bit runs -> fp32; nullptr: scalar
  int64_t elementBytes;
};

float loadElement(const unsigned char* at, ElementType type) {
  uint16_t word;
  switch (type) {
    case ElementType::F32: {
      float value;
      std::memcpy(&value, at, sizeof value);
      return value;
    }
    case ElementType::F16:
      std::memcpy(&word, at, sizeof word);
      return detail::halfToFloatInline(word);
    case ElementType::BF16:
      std::memcpy(&word, at, sizeof word);
      return detail::bf16ToFloatInline(word);
  }
  return 0.0f;
}

// acc[k] += rows[k][i] for i in order; G fixed so the chains stay in registers.
template <int G>
void addRows(const float* const* rows, int64_t count, double* acc) {
  double a[G];
  for (int k = 0; k < G; ++k) a[k] = acc[k];
  for (int64_t i = 0; i < count; ++i) {
#pragma GCC unroll 8
    for (int k = 0; k < G; ++k) {
      a[k] += static_cast<double>(rows[k][i]);
      // Keeps each chain a plain scalar register: GCC's SLP vectoriser would
      // otherwise pack the chains into two-lane vectors assembled with
      // shuffles, which runs about three times slower (the order of the adds
      // is the same either way).
      __asm__("" : "+x"(a[k]));
    }
  }
  for (int k = 0; k < G; ++k) acc[k] = a[k];
}

void addRowsAny(int group, const float* const* rows, int64_t count, double* acc) {
  switch (group) {
    case 1:
      return addRows<1>(rows, count, acc);
    case 2:
      return addRows<2>(rows, count, acc);
    case 3:
      return addRows<3>(rows, count, acc);
    case 4:
      return addRows<4>(rows, count, acc);
    case 5:
      return addRows<5>(rows, count, acc);
    case 6:
      return addRows<6>(rows, count, acc);
    case 7:
      return addRows<7>(rows, count, acc);
    default:
      return addRows<8>(rows, count, acc);
  }
}

// Sums channels [first, first + group) into sums.
void sumChannelGroup(const SumJob& job, int64_t first, int group, double* sums) {
  const View5& src = *job.src;
  const auto* base = static_cast<const unsigned char*>(src.data);
  double acc[kMaxGroup] = {};
  float widened[kMaxGroup][kChunk];
  const float* rows[kMaxGroup];
  detail::forEachRun(
      *job.walk, 0, job.walk->total, [&](int64_t, int64_t offset, int64_t stride, int64_t length) {
        for (int64_t start = 0; start < length; start += kChunk) {
          const int64_t count = std::min(kChunk, length - start);
          for (int k = 0; k < group; ++k) {
            const int64_t element = (first + k) * src.strides[1] + offset + start * stride;
            const unsigned char* at = base + element * job.elementBytes;
            if (stride == 1 && src.type == ElementType::F32) {
              rows[k] = reinterpret_cast<const float*>(at);
              continue;
            }
            if (stride == 1 && job.widen) {
              job.widen(at, count, widened[k]);
            } else {
              for (int64_t i = 0; i < count; ++i)
                widened[k][i] = loadElement(at + i * stride * job.elementBytes, src.type);
            }
            rows[k] = widened[k];
          }
          addRowsAny(group, rows, count, acc);
        }
      });
  for (int k = 0; k < group; ++k) sums[first + k] = acc[k];
}

}  // namespace

void channelSums(const View5& src, double* sums) {
  const int64_t channels = src.shape[1];
  if (channels <= 0) return;
  int64_t perChannelShape[5] = {src.shape[0], 1, src.shape[2], src.shape[3], src.shape[4]};
  const detail::ViewWalk walk = detail::makeWalk(perChannelShape, src.strides);
  if (walk.total == 0) {
    std::fill(sums, sums + channels, 0.0);
    return;
  }
  const SumJob job{
      &src, &walk,
      src.type == ElementType::F32 ? nullptr : detail::vectorGatherRun(src.type, Rounding::None),
      src.type == ElementType::F32 ? 4 : 2};
  // Groups small enough that a few channels still spread over the threads.
  const int group = static_cast<int>(std::clamp<int64_t>(channels / 4, 1, kMaxGroup));
  const int64_t groups = (channels + group - 1) / group;
  auto body = [&](int64_t begin, int64_t end) {
    for (int64_t g = begin; g < end; ++g) {
      const int64_t first = g * group;
      sumChannelGroup(job, first, static_cast<int>(std::min<int64_t>(group, channels - first)),
                      sums);
    }
  };
  // Small problems are not worth waking the pool for.
  if (walk.total * channels < (int64_t{1} << 15)) {
    body(0, groups);
  } else {
    parallelFor(groups, body);
  }
}

}  // namespace kernels
}  // namespace aclcpu
