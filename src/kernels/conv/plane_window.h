#pragma once
// The index map of a convolution pass computed plane by plane (the
// depthwise and NCHW plane families): dst position (r, c) and kernel tap
// (i, j) read src[r * rowStride + i * dilH - padH][c * colStride + j * dilW -
// padW], zero outside the src plane. pad may be negative (the data
// gradient's flipped correlation).

#include <cstdint>

#include "kernels/kernel_types.h"

namespace aclcpu {
namespace kernels {

struct PlaneWindow {
  int64_t srcH = 0, srcW = 0;
  int64_t dstH = 0, dstW = 0;
  int64_t rowStride = 1, colStride = 1, dilH = 1, dilW = 1, padH = 0, padW = 0;
  int64_t kh = 1, kw = 1;
};

// The forward's (and the weight gradient's) map from y into x, of a shape
// whose depth dim is trivial (H and W are dims 1 and 2).
PlaneWindow forwardWindow(const ConvShape& s);
// Unit strides: dx is the correlation of dy with the flipped kernel, padded
// by (k - 1) * dilation - pad.
PlaneWindow dataGradientWindow(const ConvShape& s);

}  // namespace kernels
}  // namespace aclcpu
