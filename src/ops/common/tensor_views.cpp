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
  // Integer arithmetic: a tensor the run never touches may have a null
  // address, and pointer arithmetic on null is undefined. The offset was
  // bounds-checked in phase 1 (ops/common/view_checks.h), so it cannot overflow.
  view.data = reinterpret_cast<void*>(reinterpret_cast<uintptr_t>(tensor.data) +
                                      static_cast<uintptr_t>(tensor.offset) *
                                          floatElementBytes(tensor.dataType));
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

bool isDenseOf(const kernels::View5& view, kernels::ElementType type) {
  if (view.type != type) return false;
  int64_t expected = 1;
  for (int d = 4; d >= 0; --d) {
    if (view.shape[d] != 1 && view.strides[d] != expected) return false;
    expected *= view.shape[d];
  }
  return true;
}

ByteRange byteRange(const kernels::View5& view) {
  const int64_t elementBytes = view.type == kernels::ElementType::F32 ? 4 : 2;
  int64_t low = 0, high = 0;  // element offsets of the extreme elements
  for (int d = 0; d < 5; ++d) {
    if (view.shape[d] == 0) return {};
    const int64_t reach = (view.shape[d] - 1) * view.strides[d];
    (reach < 0 ? low : high) += reach;
  }
  const auto base = reinterpret_cast<uintptr_t>(view.data);
  return {base + static_cast<uintptr_t>(low * elementBytes),
          base + static_cast<uintptr_t>((high + 1) * elementBytes)};
}

bool overlaps(const ByteRange& a, const ByteRange& b) {
  return a.begin < a.end && b.begin < b.end && a.begin < b.end && b.begin < a.end;
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
