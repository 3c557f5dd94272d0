#include "kernels/conv/small_group/conv_direct.h"

#include <algorithm>

#include "common/thread_pool.h"

namespace aclcpu {
namespace kernels {
namespace conv_detail {
namespace {

// Valid output ranges of one tap along each spatial dim.
struct TapRanges {
  int64_t offset[3];
  int64_t begin[3];
  int64_t end[3];
};

TapRanges tapRanges(const ConvShape& shape, const int64_t k[3]) {
  TapRanges t;
  for (int d = 0; d < 3; ++d) {
    t.offset[d] = k[d] * shape.dilation[d] - shape.padBefore[d];
    validOutputRange(t.offset[d], shape.stride[d], shape.in[d], shape.out[d], &t.begin[d],
                     &t.end[d]);
  }
  return t;
}

// Calls fn(tapIndex, ranges) for every tap whose window touches x.
template <typename Fn>
void forEachTap(const ConvShape& shape, Fn&& fn) {
  int64_t tap = 0;
  int64_t k[3];
  for (k[0] = 0; k[0] < shape.kernel[0]; ++k[0]) {
    for (k[1] = 0; k[1] < shape.kernel[1]; ++k[1]) {
      for (k[2] = 0; k[2] < shape.kernel[2]; ++k[2], ++tap) {
        const TapRanges t = tapRanges(shape, k);
        if (t.begin[0] < t.end[0] && t.begin[1] < t.end[1] && t.begin[2] < t.end[2]) fn(tap, t);
      }
    }
  }
}

// Calls fn(outRowStart, inRowStart, owBegin, owCount) for each output row of the tap's
// valid box; positions are element offsets in the out / in volumes, the input
// column of output column ow is inRowStart + ow * stride[2].
template <typename Fn>
void forEachTapRow(const ConvShape& shape, const TapRanges& t, Fn&& fn) {
  for (int64_t od = t.begin[0]; od < t.end[0]; ++od) {
    const int64_t id = od * shape.stride[0] + t.offset[0];
    for (int64_t oh = t.begin[1]; oh < t.end[1]; ++oh) {
      const int64_t ih = oh * shape.stride[1] + t.offset[1];
      const int64_t outRow = (od * shape.out[1] + oh) * shape.out[2] + t.begin[2];
      const int64_t inRow =
          (id * shape.in[1] + ih) * shape.in[2] + t.begin[2] * shape.stride[2] + t.offset[2];
      fn(outRow, inRow, t.end[2] - t.begin[2]);
    }
  }
}

template <typename Body>
void runParallel(int64_t count, int64_t workPerItem, const Body& body) {
  if (count * workPerItem < (int64_t{1} << 15)) {
    body(0, count);
  } else {
    parallelFor(count, body);
  }
}

// Adds `value` to a channel whose sums are complete, while it is still in cache.
void addToChannel(float* channel, int64_t length, float value) {
  for (int64_t i = 0; i < length; ++i) channel[i] += value;
}

}  // namespace

void directForward(const ConvShape& shape, const ConvGeometry& geometry, const float* x,
                   const float* w, float* y, const float* bias) {
  const int64_t P = geometry.outVolume, Q = geometry.inVolume, K = geometry.kernelVolume;
  const int64_t Cig = geometry.cinPerGroup, Cog = geometry.coutPerGroup;
  const int64_t strideW = shape.stride[2];
  const int64_t work = std::max<int64_t>(P * Cig * K, 1);
  runParallel(shape.batch * shape.outChannels, work, [&](int64_t begin, int64_t end) {
    for (int64_t item = begin; item < end; ++item) {
      const int64_t n = item / shape.outChannels, co = item % shape.outChannels;
      const int64_t group = co / Cog;
      float* yChannel = y + item * P;
      std::fill(yChannel, yChannel + P, 0.0f);
      for (int64_t ci = 0; ci < Cig; ++ci) {
        const float* xChannel = x + (n * shape.inChannels + group * Cig + ci) * Q;
        const float* wTaps = w + (co * Cig + ci) * K;
        forEachTap(shape, [&](int64_t tap, const TapRanges& t) {
          const float weight = wTaps[tap];
          forEachTapRow(shape, t, [&](int64_t outRow, int64_t inRow, int64_t count) {
            float* out = yChannel + outRow;
            const float* in = xChannel + inRow;
            for (int64_t i = 0; i < count; ++i) out[i] += weight * in[i * strideW];
          });
        });
      }
      if (bias) addToChannel(yChannel, P, bias[co]);
    }
  });
}

void directBackwardData(const ConvShape& shape, const ConvGeometry& geometry, const float* dy,
                        const float* w, float* dx, const float* bias) {
  const int64_t P = geometry.outVolume, Q = geometry.inVolume, K = geometry.kernelVolume;
  const int64_t Cig = geometry.cinPerGroup, Cog = geometry.coutPerGroup;
  const int64_t strideW = shape.stride[2];
  const int64_t work = std::max<int64_t>(P * Cog * K, 1);
  runParallel(shape.batch * shape.inChannels, work, [&](int64_t begin, int64_t end) {
    for (int64_t item = begin; item < end; ++item) {
      const int64_t n = item / shape.inChannels, c = item % shape.inChannels;
      const int64_t group = c / Cig, ci = c % Cig;
      float* dxChannel = dx + item * Q;
      std::fill(dxChannel, dxChannel + Q, 0.0f);
      for (int64_t j = 0; j < Cog; ++j) {
        const int64_t co = group * Cog + j;
        const float* dyChannel = dy + (n * shape.outChannels + co) * P;
        const float* wTaps = w + (co * Cig + ci) * K;
        forEachTap(shape, [&](int64_t tap, const TapRanges& t) {
          const float weight = wTaps[tap];
          forEachTapRow(shape, t, [&](int64_t outRow, int64_t inRow, int64_t count) {
            const float* in = dyChannel + outRow;
            float* out = dxChannel + inRow;
            for (int64_t i = 0; i < count; ++i) out[i * strideW] += weight * in[i];
          });
        });
      }
      if (bias) addToChannel(dxChannel, Q, bias[c]);
    }
  });
}

void directBackwardWeight(const ConvShape& shape, const ConvGeometry& geometry, const float* x,
                          const float* dy, float* dw) {
  const int64_t P = geometry.outVolume, Q = geometry.inVolume, K = geometry.kernelVolume;
  const int64_t Cig = geometry.cinPerGroup, Cog = geometry.coutPerGroup;
  const int64_t strideW = shape.stride[2];
  const int64_t work = std::max<int64_t>(shape.batch * P * Cig * K, 1);
  runParallel(shape.outChannels, work, [&](int64_t begin, int64_t end) {
    for (int64_t co = begin; co < end; ++co) {
      const int64_t group = co / Cog;
      float* dwChannel = dw + co * Cig * K;
      std::fill(dwChannel, dwChannel + Cig * K, 0.0f);
      for (int64_t ci = 0; ci < Cig; ++ci) {
        forEachTap(shape, [&](int64_t tap, const TapRanges& t) {
          // Four interleaved partial sums hide the add latency; how they are
          // split depends on the shape only.
          float partial[4] = {0.0f, 0.0f, 0.0f, 0.0f};
          for (int64_t n = 0; n < shape.batch; ++n) {
            const float* xChannel = x + (n * shape.inChannels + group * Cig + ci) * Q;
            const float* dyChannel = dy + (n * shape.outChannels + co) * P;
            forEachTapRow(shape, t, [&](int64_t outRow, int64_t inRow, int64_t count) {
              const float* g = dyChannel + outRow;
              const float* in = xChannel + inRow;
              int64_t i = 0;
              for (; i + 4 <= count; i += 4) {
                for (int lane = 0; lane < 4; ++lane)
                  partial[lane] += g[i + lane] * in[(i + lane) * strideW];
              }
              for (; i < count; ++i) partial[0] += g[i] * in[i * strideW];
            });
          }
          dwChannel[ci * K + tap] = (partial[0] + partial[1]) + (partial[2] + partial[3]);
        });
      }
    }
  });
}

}  // namespace conv_detail
}  // namespace kernels
}  // namespace aclcpu
