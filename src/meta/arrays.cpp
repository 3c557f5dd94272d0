// aclIntArray, aclFloatArray, aclBoolArray: value arrays copied at creation,
// so the caller's buffer may change or go away afterwards. A null pointer or a
// size of 0 gives a valid empty array (upstream behaviour), never nullptr.

#include <cstdint>
#include <memory>

#include "aclnn/acl_meta.h"
#include "aclnn/opdev/op_errno.h"
#include "common/error_log.h"
#include "meta/c_boundary.h"
#include "meta/meta_types.h"

namespace {

template <typename Array, typename Value>
Array* createArray(const char* api, const Value* values, uint64_t size) {
  return aclcpu::callNoThrow(api, static_cast<Array*>(nullptr), [&]() {
    auto array = std::make_unique<Array>();
    if (values != nullptr) array->values.assign(values, values + size);
    return array.release();
  });
}

template <typename Array>
aclnnStatus arraySize(const char* api, const Array* array, uint64_t* size) {
  if (array == nullptr) {
    aclcpu::recordErrorf("%s: argument array: expected a non-null array, got nullptr", api);
    return ACLNN_ERR_PARAM_NULLPTR;
  }
  if (size == nullptr) {
    aclcpu::recordErrorf("%s: argument size: expected a non-null output pointer, got nullptr", api);
    return ACLNN_ERR_PARAM_NULLPTR;
  }
  *size = array->values.size();
  return ACLNN_SUCCESS;
}

}  // namespace

aclIntArray* aclCreateIntArray(const int64_t* value, uint64_t size) {
  return createArray<aclIntArray>("aclCreateIntArray", value, size);
}

aclFloatArray* aclCreateFloatArray(const float* value, uint64_t size) {
  return createArray<aclFloatArray>("aclCreateFloatArray", value, size);
}

aclBoolArray* aclCreateBoolArray(const bool* value, uint64_t size) {
  return createArray<aclBoolArray>("aclCreateBoolArray", value, size);
}

aclnnStatus aclDestroyIntArray(const aclIntArray* array) {
  delete array;
  return ACLNN_SUCCESS;
}

aclnnStatus aclDestroyFloatArray(const aclFloatArray* array) {
  delete array;
  return ACLNN_SUCCESS;
}

aclnnStatus aclDestroyBoolArray(const aclBoolArray* array) {
  delete array;
  return ACLNN_SUCCESS;
}

aclnnStatus aclGetIntArraySize(const aclIntArray* array, uint64_t* size) {
  return arraySize("aclGetIntArraySize", array, size);
}

aclnnStatus aclGetFloatArraySize(const aclFloatArray* array, uint64_t* size) {
  return arraySize("aclGetFloatArraySize", array, size);
}

aclnnStatus aclGetBoolArraySize(const aclBoolArray* array, uint64_t* size) {
  return arraySize("aclGetBoolArraySize", array, size);
}
