#include "kernels/conv/depthwise_plane/dwconv_plane.h"

#include "common/thread_pool.h"

namespace aclcpu {
namespace kernels {
namespace depthwise_plane {
namespace {

// Depthwise 1D/2D (depth trivial), unit stride along W, a kernel the band
// buffer holds.
bool planeShape(const ConvShape& s) {
  if (s.groups <= 1 || s.inChannels != s.groups || s.outChannels != s.groups) return false;
  // The depth dim must be trivial: one position, read (no padding before).
  if (s.in[0] != 1 || s.out[0] != 1 || s.kernel[0] != 1 || s.padBefore[0] != 0) return false;
  if (s.stride[2] != 1) return false;
  for (int d = 1; d < 3; ++d) {
    if (s.in[d] <= 0 || s.out[d] <= 0 || s.kernel[d] <= 0 || s.kernel[d] > kMaxTaps) return false;
    if (s.dilation[d] <= 0 || s.dilation[d] > kBandFloats || s.stride[d] <= 0) return false;
  }
  if (s.kernel[1] * s.kernel[2] > kMaxTaps) return false;
  // Buffer rows are as wide as the wider of the two planes' rows plus the
  // kernel's reach (a data gradient's row is the input's).
  const int64_t widest = s.in[2] > s.out[2] ? s.in[2] : s.out[2];
  if (widest > kBandFloats) return false;
  const int64_t rowFloats = bandRowFloats(widest, s.kernel[2], s.dilation[2]);
  if (rowFloats > kBandFloats) return false;
  const int64_t rows = bandSrcRows(1, s.stride[1], s.kernel[1], s.dilation[1]);
  return rows <= kBandFloats / rowFloats;
}

int64_t tapsOf(const ConvShape& s) { return s.kernel[1] * s.kernel[2]; }

}  // namespace

bool acceptsForward(const ConvShape& s) { return planeShape(s); }
bool acceptsBackwardData(const ConvShape& s) { return planeShape(s) && s.stride[1] == 1; }
bool acceptsBackwardWeight(const ConvShape& s) { return planeShape(s); }

void forward(const ConvShape& s, const float* x, const float* w, const float* bias, float* y) {
  const int64_t C = s.inChannels, taps = tapsOf(s);
  const int64_t xPlane = s.in[1] * s.in[2], yPlane = s.out[1] * s.out[2];
  parallelFor(s.batch * C, [&](int64_t begin, int64_t end) {
    for (int64_t plane = begin; plane < end; ++plane) {
      const int64_t c = plane % C;
      PlaneCorrelation j;
      j.src = x + plane * xPlane;
      j.srcH = s.in[1];
      j.srcW = s.in[2];
      j.dst = y + plane * yPlane;
      j.dstH = s.out[1];
      j.dstW = s.out[2];
      j.rowStride = s.stride[1];
      j.dilH = s.dilation[1];
      j.dilW = s.dilation[2];
      j.padH = s.padBefore[1];
      j.padW = s.padBefore[2];
      j.taps = w + c * taps;
      j.kh = s.kernel[1];
      j.kw = s.kernel[2];
      j.hasBias = bias != nullptr;
      j.bias = bias ? bias[c] : 0.0f;
      f32_dwconv_plane_correlate_avx512(j);
    }
  });
}

void backwardData(const ConvShape& s, const float* dy, const float* w, const float* bias,
                  float* dx) {
  // Unit strides: dx is the correlation of dy with the flipped kernel,
  // padded by (k - 1) * dilation - pad.
  const int64_t C = s.inChannels, taps = tapsOf(s);
  const int64_t xPlane = s.in[1] * s.in[2], yPlane = s.out[1] * s.out[2];
  parallelFor(s.batch * C, [&](int64_t begin, int64_t end) {
    float flipped[kMaxTaps];
    int64_t flippedChannel = -1;
    for (int64_t plane = begin; plane < end; ++plane) {
      const int64_t c = plane % C;
      if (c != flippedChannel) {
        for (int64_t t = 0; t < taps; ++t) flipped[t] = w[c * taps + taps - 1 - t];
        flippedChannel = c;
      }
      PlaneCorrelation j;
      j.src = dy + plane * yPlane;
      j.srcH = s.out[1];
      j.srcW = s.out[2];
      j.dst = dx + plane * xPlane;
      j.dstH = s.in[1];
      j.dstW = s.in[2];
      j.dilH = s.dilation[1];
      j.dilW = s.dilation[2];
      j.padH = (s.kernel[1] - 1) * s.dilation[1] - s.padBefore[1];
      j.padW = (s.kernel[2] - 1) * s.dilation[2] - s.padBefore[2];
      j.taps = flipped;
      j.kh = s.kernel[1];
      j.kw = s.kernel[2];
      j.hasBias = bias != nullptr;
      j.bias = bias ? bias[c] : 0.0f;
      f32_dwconv_plane_correlate_avx512(j);
    }
  });
}

void backwardWeight(const ConvShape& s, const float* x, const float* dy, float* dw) {
  // Each channel sums its images' planes in image order, whatever thread
  // takes it, so the sums never depend on the thread count. A thread runs
  // its channels in runs of kRunChannels with the image loop outside: the
  // planes it reads are then adjacent in memory (a channel's planes alone
  // are a whole image apart).
  constexpr int64_t kRunChannels = 8;
  const int64_t C = s.inChannels, taps = tapsOf(s);
  const int64_t xPlane = s.in[1] * s.in[2], yPlane = s.out[1] * s.out[2];
  parallelFor(C, [&](int64_t begin, int64_t end) {
    alignas(64) float acc[kRunChannels * kMaxTaps * kLanes];
    for (int64_t c0 = begin; c0 < end; c0 += kRunChannels) {
      const int64_t run = end - c0 < kRunChannels ? end - c0 : kRunChannels;
      for (int64_t i = 0; i < run * taps * kLanes; ++i) acc[i] = 0.0f;
      for (int64_t n = 0; n < s.batch; ++n) {
        for (int64_t k = 0; k < run; ++k) {
          const int64_t plane = n * C + c0 + k;
          PlaneWeightGrad j;
          j.x = x + plane * xPlane;
          j.srcH = s.in[1];
          j.srcW = s.in[2];
          j.dy = dy + plane * yPlane;
          j.dstH = s.out[1];
          j.dstW = s.out[2];
          j.rowStride = s.stride[1];
          j.dilH = s.dilation[1];
          j.dilW = s.dilation[2];
          j.padH = s.padBefore[1];
          j.padW = s.padBefore[2];
          j.kh = s.kernel[1];
          j.kw = s.kernel[2];
          j.acc = acc + k * taps * kLanes;
          f32_dwconv_plane_weight_avx512(j);
        }
      }
      for (int64_t k = 0; k < run; ++k) {
        for (int64_t t = 0; t < taps; ++t) {
          float sum = 0.0f;
          for (int64_t lane = 0; lane < kLanes; ++lane) sum += acc[(k * taps + t) * kLanes + lane];
          dw[(c0 + k) * taps + t] = sum;
        }
      }
    }
  });
}

}  // namespace depthwise_plane
}  // namespace kernels
}  // namespace aclcpu
