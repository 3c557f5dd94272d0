// aclScalar: one value of any element type, copied at creation.

#include <cstring>
#include <memory>

#include "aclnn/acl_meta.h"
#include "aclnn/opdev/op_errno.h"
#include "common/error_log.h"
#include "meta/c_boundary.h"
#include "meta/meta_types.h"

namespace {

// Bytes one scalar of `dataType` occupies in the caller's buffer. Types
// narrower than a byte are read as one byte. 0 for types a scalar cannot hold.
// Kept local on purpose: meta must not depend on the runtime's aclDataTypeSize.
size_t scalarByteSize(int dataType) {
  switch (dataType) {
    case ACL_COMPLEX128:
      return 16;
    case ACL_INT64:
    case ACL_UINT64:
    case ACL_DOUBLE:
    case ACL_COMPLEX64:
      return 8;
    case ACL_FLOAT:
    case ACL_INT32:
    case ACL_UINT32:
    case ACL_COMPLEX32:
      return 4;
    case ACL_FLOAT16:
    case ACL_BF16:
    case ACL_INT16:
    case ACL_UINT16:
      return 2;
    case ACL_INT8:
    case ACL_UINT8:
    case ACL_BOOL:
    case ACL_INT4:
    case ACL_UINT1:
    case ACL_HIFLOAT8:
    case ACL_FLOAT8_E5M2:
    case ACL_FLOAT8_E4M3FN:
    case ACL_FLOAT8_E8M0:
    case ACL_FLOAT6_E3M2:
    case ACL_FLOAT6_E2M3:
    case ACL_FLOAT4_E2M1:
    case ACL_FLOAT4_E1M2:
    case ACL_HIFLOAT4:
    case ACL_HIFLOAT4_SCALE:
      return 1;
    default:
      return 0;
  }
}

}  // namespace

aclScalar* aclCreateScalar(void* value, aclDataType dataType) {
  static constexpr const char* kApi = "aclCreateScalar";
  if (value == nullptr) {
    aclcpu::recordErrorf("%s: argument value: expected a non-null pointer, got nullptr", kApi);
    return nullptr;
  }
  // Read through the underlying integer: a C caller may pass any int.
  const int rawType = static_cast<int>(aclcpu::rawEnumValue(dataType));
  const size_t bytes = scalarByteSize(rawType);
  if (bytes == 0) {
    aclcpu::recordErrorf("%s: argument dataType: expected a numeric or bool aclDataType, got %d",
                         kApi, rawType);
    return nullptr;
  }
  return aclcpu::callNoThrow(kApi, static_cast<aclScalar*>(nullptr), [&]() {
    auto scalar = std::make_unique<aclScalar>();
    static_assert(sizeof(scalar->bytes) >= 16, "aclScalar must hold a complex128");
    scalar->dataType = dataType;  // validated above, so a valid enum value
    std::memcpy(scalar->bytes, value, bytes);
    return scalar.release();
  });
}

aclnnStatus aclDestroyScalar(const aclScalar* scalar) {
  delete scalar;
  return ACLNN_SUCCESS;
}
