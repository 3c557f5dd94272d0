#pragma once
// Project decision 5 for the convolution geometry: the kernels' index
// arithmetic (tap offsets k * dilation - padBefore, output ranges divided by
// the stride, (out - 1) * stride) adds up to three such terms in int64, so
// every stride, padding, dilated kernel extent and strided output reach must
// stay below 2^61 (docs/input-validation.md). Checked at the end of phase 1
// of every operator whose run reaches the kernels; 161002 otherwise.

#include "aclnn/acl_meta.h"
#include "kernels/kernel_types.h"

namespace aclcpu {
namespace ops {

aclnnStatus checkConvGeometryFits(const char* api, const kernels::ConvShape& shape);

}  // namespace ops
}  // namespace aclcpu
