#pragma once
// Direct loops for convolutions whose groups are too small for a GEMM to pay
// off (depthwise, channel multipliers, small grouped convolutions). Each
// output channel is owned by one thread and summed in a fixed order, so the
// results never depend on the thread count. Need no scratch.

#include "kernels/conv/conv_geometry.h"

namespace aclcpu {
namespace kernels {
namespace conv_detail {

// Forward and backward data add bias[c] (may be null) to each output channel c
// once its sums are complete: the bits of the sum followed by a bias pass.
void directForward(const ConvShape& shape, const ConvGeometry& geometry, const float* x,
                   const float* w, float* y, const float* bias = nullptr);
void directBackwardData(const ConvShape& shape, const ConvGeometry& geometry, const float* dy,
                        const float* w, float* dx, const float* bias = nullptr);
void directBackwardWeight(const ConvShape& shape, const ConvGeometry& geometry, const float* x,
                          const float* dy, float* dw);

}  // namespace conv_detail
}  // namespace kernels
}  // namespace aclcpu
