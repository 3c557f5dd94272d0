#pragma once
// Internal to the reference: a convolution seen in "normal" orientation
// (convolution-backward.md section 5) and lifted to three spatial dims.
//
// Normal orientation: y = conv(x, w) with
//   x = transposed ? gradOutput : input,   y = transposed ? input : gradOutput.
// Every gradient is then one of three bilinear maps of that single forward:
//   dX of x, dW, and y itself (which is gradInput when transposed).
// 1D and 2D are lifted by prepending unit spatial dims (kernel 1, stride 1,
// pad 0), which leaves row-major flat offsets unchanged.

#include <array>
#include <cstdint>

#include "reference/reference_conv.h"

namespace aclcpu {
namespace reference {

constexpr int kLiftedDims = 3;
using Spatial = std::array<int64_t, kLiftedDims>;

struct NormalGeometry {
  bool transposed = false;
  int64_t batch = 0;
  int64_t groups = 1;
  int64_t xChannels = 0;  // weight[1] * groups
  int64_t yChannels = 0;  // weight[0]
  int64_t xChannelsPerGroup = 0;
  int64_t yChannelsPerGroup = 0;
  Spatial xSize{}, ySize{}, kernel{}, stride{}, dilation{}, padBefore{};

  int64_t xSpatialCount() const { return xSize[0] * xSize[1] * xSize[2]; }
  int64_t ySpatialCount() const { return ySize[0] * ySize[1] * ySize[2]; }
  int64_t kernelCount() const { return kernel[0] * kernel[1] * kernel[2]; }

  int64_t xCount() const { return batch * xChannels * xSpatialCount(); }
  int64_t yCount() const { return batch * yChannels * ySpatialCount(); }
  int64_t weightCount() const { return yChannels * xChannelsPerGroup * kernelCount(); }

  // Row-major flat offsets.
  int64_t xOffset(int64_t n, int64_t c, const Spatial& p) const {
    return spatialOffset((n * xChannels + c), xSize, p);
  }
  int64_t yOffset(int64_t n, int64_t c, const Spatial& p) const {
    return spatialOffset((n * yChannels + c), ySize, p);
  }
  int64_t weightOffset(int64_t co, int64_t ciLocal, const Spatial& k) const {
    return spatialOffset((co * xChannelsPerGroup + ciLocal), kernel, k);
  }

  // The x position read by output position o through kernel tap k, per dim.
  int64_t xPosition(int dim, int64_t o, int64_t k) const {
    return o * stride[dim] - padBefore[dim] + k * dilation[dim];
  }

  static int64_t spatialOffset(int64_t plane, const Spatial& size, const Spatial& p) {
    return ((plane * size[0] + p[0]) * size[1] + p[1]) * size[2] + p[2];
  }
};

// Validates params (ranks, channel/group/batch consistency, stride and
// dilation >= 1, no 64-bit overflow) and builds the geometry; throws
// std::invalid_argument with a precise message otherwise.
NormalGeometry makeNormalGeometry(const ConvParams& params);

// Splits a flat row-major index over [*, dim1, s0, s1, s2] into its parts.
struct SplitIndex {
  int64_t first = 0;   // batch (or weight's output channel)
  int64_t second = 0;  // channel (or weight's local input channel)
  Spatial position{};
};
SplitIndex splitIndex(int64_t index, int64_t dim1, const Spatial& spatial);

// Throws std::invalid_argument unless size == expected.
void requireSize(const char* what, int64_t size, int64_t expected);

}  // namespace reference
}  // namespace aclcpu
