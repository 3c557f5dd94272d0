// Full forward and backward in float64. Every result is built from one
// enumeration of the forward's terms y[o] += x[i] * w[k] (the "taps"): the
// forward accumulates them into y, the gradients scatter them into dX and dW.
// The single-element functions (reference_conv_at.cpp) gather instead, so the
// two formulations cross-check each other.

#include <stdexcept>

#include "reference/normal_geometry.h"
#include "reference/reference_conv.h"

namespace aclcpu {
namespace reference {
namespace {

// Calls visit(xOffset, yOffset, weightOffset) for every term of the forward
// y = conv(x, w) whose x position lies inside x (padding reads as zero, so
// the other terms vanish).
template <typename Visit>
void forEachTap(const NormalGeometry& g, Visit&& visit) {
  Spatial o, k, i;
  for (int64_t n = 0; n < g.batch; ++n) {
    for (int64_t co = 0; co < g.yChannels; ++co) {
      const int64_t firstXChannel = (co / g.yChannelsPerGroup) * g.xChannelsPerGroup;
      for (o[0] = 0; o[0] < g.ySize[0]; ++o[0]) {
        for (o[1] = 0; o[1] < g.ySize[1]; ++o[1]) {
          for (o[2] = 0; o[2] < g.ySize[2]; ++o[2]) {
            const int64_t yOffset = g.yOffset(n, co, o);
            for (int64_t ciLocal = 0; ciLocal < g.xChannelsPerGroup; ++ciLocal) {
              for (k[0] = 0; k[0] < g.kernel[0]; ++k[0]) {
                i[0] = g.xPosition(0, o[0], k[0]);
                if (i[0] < 0 || i[0] >= g.xSize[0]) continue;
                for (k[1] = 0; k[1] < g.kernel[1]; ++k[1]) {
                  i[1] = g.xPosition(1, o[1], k[1]);
                  if (i[1] < 0 || i[1] >= g.xSize[1]) continue;
                  for (k[2] = 0; k[2] < g.kernel[2]; ++k[2]) {
                    i[2] = g.xPosition(2, o[2], k[2]);
                    if (i[2] < 0 || i[2] >= g.xSize[2]) continue;
                    visit(g.xOffset(n, firstXChannel + ciLocal, i), yOffset,
                          g.weightOffset(co, ciLocal, k));
                  }
                }
              }
            }
          }
        }
      }
    }
  }
}

// y = conv(x, w) in normal orientation.
std::vector<double> normalForward(const NormalGeometry& g, const std::vector<double>& x,
                                  const std::vector<double>& w) {
  std::vector<double> y(static_cast<size_t>(g.yCount()), 0.0);
  forEachTap(g, [&](int64_t xo, int64_t yo, int64_t wo) { y[yo] += x[xo] * w[wo]; });
  return y;
}

// Per-channel sum of a [N, C, spatial...] tensor.
std::vector<double> channelSums(const std::vector<double>& tensor, int64_t batch, int64_t channels,
                                int64_t spatialCount) {
  std::vector<double> sums(static_cast<size_t>(channels), 0.0);
  for (int64_t n = 0; n < batch; ++n) {
    for (int64_t c = 0; c < channels; ++c) {
      const double* plane = tensor.data() + (n * channels + c) * spatialCount;
      for (int64_t s = 0; s < spatialCount; ++s) sums[c] += plane[s];
    }
  }
  return sums;
}

}  // namespace

Gradients convolutionBackward(const ConvParams& params, const std::vector<double>& gradOutput,
                              const std::vector<double>& input, const std::vector<double>& weight) {
  const NormalGeometry g = makeNormalGeometry(params);
  requireSize("gradOutput", static_cast<int64_t>(gradOutput.size()),
              elementCount(params.gradOutputShape));
  requireSize("input", static_cast<int64_t>(input.size()), elementCount(params.inputShape));
  requireSize("weight", static_cast<int64_t>(weight.size()), g.weightCount());

  const std::vector<double>& x = params.transposed ? gradOutput : input;
  const std::vector<double>& dy = params.transposed ? input : gradOutput;

  Gradients result;
  result.gradWeight.assign(static_cast<size_t>(g.weightCount()), 0.0);
  if (params.transposed) {
    // input plays dy: its gradient is the forward of gradOutput (section 5).
    result.gradInput = normalForward(g, x, weight);
    forEachTap(
        g, [&](int64_t xo, int64_t yo, int64_t wo) { result.gradWeight[wo] += x[xo] * dy[yo]; });
  } else {
    result.gradInput.assign(static_cast<size_t>(g.xCount()), 0.0);
    forEachTap(g, [&](int64_t xo, int64_t yo, int64_t wo) {
      result.gradInput[xo] += dy[yo] * weight[wo];
      result.gradWeight[wo] += x[xo] * dy[yo];
    });
  }
  const std::vector<int64_t>& goShape = params.gradOutputShape;
  const int64_t goSpatial = params.transposed ? g.xSpatialCount() : g.ySpatialCount();
  result.gradBias = channelSums(gradOutput, goShape[0], goShape[1], goSpatial);
  return result;
}

std::vector<double> convolutionForward(const ConvParams& params, const std::vector<double>& input,
                                       const std::vector<double>& weight) {
  const NormalGeometry g = makeNormalGeometry(params);
  requireSize("input", static_cast<int64_t>(input.size()), elementCount(params.inputShape));
  requireSize("weight", static_cast<int64_t>(weight.size()), g.weightCount());
  if (!params.transposed) return normalForward(g, input, weight);

  // conv_transpose(input, w) is the adjoint of the normal forward applied to
  // input (which plays dy): scatter every tap back into x's positions.
  std::vector<double> y(static_cast<size_t>(g.xCount()), 0.0);
  forEachTap(g, [&](int64_t xo, int64_t yo, int64_t wo) { y[xo] += input[yo] * weight[wo]; });
  return y;
}

}  // namespace reference
}  // namespace aclcpu
