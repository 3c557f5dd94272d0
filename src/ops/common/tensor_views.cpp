#include "ops/common/tensor_views.h"

namespace aclcpu {
namespace ops {

size_t floatElementBytes(aclDataType type) {
  switch (type) {
    case ACL_FLOAT:
      return 4;
    case ACL_FLOAT16:
    case ACL_BF16:
      return 2;
    default:
      return 0;
  }
}

kernels::ElementType elementTypeOf(aclDataType type) {
  switch (type) {
    case ACL_FLOAT16:
      return kernels::ElementType::F16;
    case ACL_BF16:
      return kernels::ElementType::BF16;
    default:
      return kernels::ElementType::F32;
  }
}

kernels::Rounding roundingTo(aclDataType type) {
  switch (type) {
    case ACL_FLOAT16:
      return kernels::Rounding::F16;
    case ACL_BF16:
      return kernels::Rounding::BF16;
    default:
      return kernels::Rounding::None;
  }
}

kernels::View5 roleView(const TensorRole& role, const aclTensor& tensor) {
  kernels::View5 view;
  view.type = elementTypeOf(tensor.dataType);
  view.data = static_cast<char*>(tensor.data) +
              tensor.offset * static_cast<int64_t>(floatElementBytes(tensor.dataType));
  for (int d = 0; d < 5; ++d) {
    view.shape[d] = 1;
    view.strides[d] = 0;
  }
  if (role.rank == 1) {
    view.shape[1] = tensor.viewShape[role.axes[0]];
    view.strides[1] = tensor.strides[role.axes[0]];
    return view;
  }
  const int spatial = role.rank - 2;
  for (int i = 0; i < role.rank; ++i) {
    const int target = i < 2 ? i : 2 + (3 - spatial) + (i - 2);
    view.shape[target] = tensor.viewShape[role.axes[i]];
    view.strides[target] = tensor.strides[role.axes[i]];
  }
  return view;
}

TensorRole identityRole(bool isOutput, int index, int rank) {
  TensorRole role;
  role.present = true;
  role.isOutput = isOutput;
  role.index = index;
  role.rank = rank;
  for (int i = 0; i < 5; ++i) role.axes[i] = i;
  return role;
}

}  // namespace ops
}  // namespace aclcpu
