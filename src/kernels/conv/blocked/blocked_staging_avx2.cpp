// Staging between dense fp32 [N, C, D, H, W] tensors and the blocked
// [N][C/16][D][H][W][16] buffers for the AVX2 kernels: plain element loops
// (the compiler's vectorisation only). Only called after a cpuid check. Keep
// this file free of library templates (see f32_conv_rows_nb16_avx512.cpp).

#include <cstring>

#include "kernels/conv/blocked/blocked_kernels.h"
#include "kernels/conv/blocked/staged_rows_inl.h"

namespace aclcpu {
namespace kernels {
namespace blocked {

void stageRows_avx2(const float* dense, const StagedLayout& l, int64_t begin, int64_t end,
                    float* staged) {
  const int64_t channelStride = l.source[0] * l.source[1] * l.source[2];
  int64_t lo = 0, hi = 0;  // the same for every row of the layout
  insideColumns(l, &lo, &hi);
  const int64_t spanBytes = kLanes * channelStride * static_cast<int64_t>(sizeof(float));
  const bool prefetchSpans = spanBytes <= kPrefetchedSpanBytes;
  for (int64_t row = begin; row < end; ++row) {
    const StagedRow r = decode(l, row);
    if (prefetchSpans && (row == begin || (r.q0 == 0 && r.q1 == 0)))
      prefetchSpan(dense,
                   (r.image * l.channels + (r.block + 1) * kLanes) * channelStride *
                       static_cast<int64_t>(sizeof(float)),
                   spanBytes);
    float* dst = stagedRow(staged, l, r);
    if (!zeroOutsideColumns(l, r, lo, hi, dst)) continue;
    const float* src = dense + denseRow(l, r);
    for (int64_t q = lo; q < hi; ++q) {
      const int64_t i = q * l.step[2] + l.first[2];
      for (int64_t lane = 0; lane < kLanes; ++lane) {
        const int64_t c = laneChannel(l, lane);
        dst[q * kLanes + lane] = c < r.channels ? src[c * channelStride + i] : 0.0f;
      }
    }
  }
}

void unstageRows_avx2(const float* staged, const StagedLayout& l, int64_t begin, int64_t end,
                      float* dense, const float* bias) {
  const int64_t channelStride = l.source[0] * l.source[1] * l.source[2];
  for (int64_t row = begin; row < end; ++row) {
    const StagedRow r = decode(l, row);
    if (!r.inside || r.channels <= 0) continue;
    const float* src = stagedRow(const_cast<float*>(staged), l, r);
    float* dst = dense + denseRow(l, r);
    int64_t lo = 0, hi = 0;
    insideColumns(l, &lo, &hi);
    for (int64_t c = 0; c < r.channels; ++c) {
      float* line = dst + c * channelStride;
      const float* lane = src + channelLane(l, c);
      const float b = bias ? bias[r.block * kLanes + c] : 0.0f;
      if (bias) {
        for (int64_t q = lo; q < hi; ++q) line[q * l.step[2] + l.first[2]] = lane[q * kLanes] + b;
      } else {
        for (int64_t q = lo; q < hi; ++q) line[q * l.step[2] + l.first[2]] = lane[q * kLanes];
      }
    }
  }
}

}  // namespace blocked
}  // namespace kernels
}  // namespace aclcpu
