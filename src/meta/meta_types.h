#pragma once
// Definitions of the opaque aclnn meta objects declared in aclnn/acl_meta.h.
// Operators read these directly; users only see the opaque handles.

#include <cstdint>
#include <vector>

#include "aclnn/acl_meta.h"
#include "common/raw_enum.h"

struct aclTensor {
  std::vector<int64_t> viewShape;
  std::vector<int64_t> strides;  // elements, one per view dim
  int64_t offset = 0;            // elements from `data` to the first view element
  aclDataType dataType = ACL_DT_UNDEFINED;
  aclFormat format = ACL_FORMAT_UNDEFINED;
  std::vector<int64_t> storageShape;
  void* data = nullptr;
};

struct aclScalar {
  aclDataType dataType = ACL_DT_UNDEFINED;
  alignas(16) unsigned char bytes[16] = {};  // the value, as many bytes as the dtype needs
};

struct aclIntArray {
  std::vector<int64_t> values;
};

struct aclFloatArray {
  std::vector<float> values;
};

struct aclBoolArray {
  std::vector<bool> values;
};

struct aclTensorList {
  std::vector<aclTensor*> tensors;  // owned: destroying the list destroys them
};

struct aclScalarList {
  std::vector<aclScalar*> scalars;  // owned
};

namespace aclcpu {

// Number of elements in the tensor's view (1 for a 0-D tensor); -1 when a
// dim is negative or the product overflows int64.
int64_t viewElementCount(const aclTensor& tensor);

// A tensor's dtype and format as the integers the caller passed: they may be
// out of the enums' range, so they are never loaded through the enum type
// before they are validated (common/raw_enum.h).
inline int32_t rawDataType(const aclTensor& tensor) {
  return static_cast<int32_t>(rawEnumValue(tensor.dataType));
}
inline int32_t rawFormat(const aclTensor& tensor) {
  return static_cast<int32_t>(rawEnumValue(tensor.format));
}

// Bytes per element of a dtype given as its raw value (0 when it has no
// whole-byte size or is unknown).
size_t elementBytesOf(int32_t rawDataType);

}  // namespace aclcpu
