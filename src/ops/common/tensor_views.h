#pragma once
// aclTensor -> kernels::View5: the bridge from the API's tensors to the
// kernels' strided views.

#include "kernels/kernel_types.h"
#include "meta/meta_types.h"
#include "ops/common/conv_problem.h"

namespace aclcpu {
namespace ops {

// Bytes per element of the three dtypes the convolution accepts (0 otherwise).
size_t floatElementBytes(aclDataType type);

kernels::ElementType elementTypeOf(aclDataType type);

// The rounding that turns an fp32 value into a value of `type` (None for fp32).
kernels::Rounding roundingTo(aclDataType type);

// The tensor seen as a role: dims reordered by role.axes into [N, C, spatial...]
// and lifted to 5-D with unit leading spatial dims; a rank-1 role is [1, C, 1, 1, 1].
kernels::View5 roleView(const TensorRole& role, const aclTensor& tensor);

// True when the view is of `type` laid out densely in row-major order (dims
// of extent 1 may have any stride): the kernels can then use its memory as is.
bool isDenseOf(const kernels::View5& view, kernels::ElementType type);
inline bool isDenseFloat32(const kernels::View5& view) {
  return isDenseOf(view, kernels::ElementType::F32);
}

// The bytes a view can touch, [begin, end); empty for an empty view.
struct ByteRange {
  uintptr_t begin = 0;
  uintptr_t end = 0;
};
ByteRange byteRange(const kernels::View5& view);
bool overlaps(const ByteRange& a, const ByteRange& b);

// A role that takes a tensor's dims in their own order.
TensorRole identityRole(bool isOutput, int index, int rank);

}  // namespace ops
}  // namespace aclcpu
