// aclTensor: creation, re-initialisation, destruction and the getters.
// A tensor is a view (shape, element strides, element offset) over storage
// the caller owns; nothing here allocates or frees tensor data.

#include <cinttypes>
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "aclnn/acl_meta.h"
#include "aclnn/opdev/op_errno.h"
#include "common/checked_math.h"
#include "common/error_log.h"
#include "meta/c_boundary.h"
#include "meta/meta_types.h"

namespace {

// Row-major strides for `shape`. A product that overflows saturates at
// INT64_MAX: such a tensor cannot be addressed, and operators reject it by its
// element count before any stride is used.
std::vector<int64_t> contiguousStrides(const std::vector<int64_t>& shape) {
  std::vector<int64_t> strides(shape.size());
  int64_t running = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    strides[i] = running;
    if (!aclcpu::checkedMul(running, shape[i], &running)) running = INT64_MAX;
  }
  return strides;
}

// Checks the two pointer/count pairs aclCreateTensor and aclInitTensor accept
// and records a message naming `api` for the first bad one.
bool dimsArgumentsValid(const char* api, const int64_t* viewDims, uint64_t viewDimsNum,
                        const int64_t* storageDims, uint64_t storageDimsNum) {
  if (viewDims == nullptr && viewDimsNum > 0) {
    aclcpu::recordErrorf("%s: argument viewDims: expected a non-null pointer to %" PRIu64
                         " dims, got nullptr",
                         api, viewDimsNum);
    return false;
  }
  if (storageDims == nullptr && storageDimsNum > 0) {
    aclcpu::recordErrorf("%s: argument storageDims: expected a non-null pointer to %" PRIu64
                         " dims, got nullptr",
                         api, storageDimsNum);
    return false;
  }
  return true;
}

// Fills `tensor`; the pointer/count pairs must have passed dimsArgumentsValid.
// dataType and format arrive as the caller's raw integers (see
// common/raw_enum.h): they are stored bit for bit and validated by operators.
void assignTensor(aclTensor* tensor, const int64_t* viewDims, uint64_t viewDimsNum,
                  int32_t dataType, const int64_t* stride, int64_t offset, int32_t format,
                  const int64_t* storageDims, uint64_t storageDimsNum, void* data) {
  std::vector<int64_t> viewShape(viewDims, viewDims + viewDimsNum);
  std::vector<int64_t> strides = stride != nullptr
                                     ? std::vector<int64_t>(stride, stride + viewDimsNum)
                                     : contiguousStrides(viewShape);
  std::vector<int64_t> storageShape(storageDims, storageDims + storageDimsNum);
  // Everything that can throw happened above, so a failure leaves `tensor` as it was.
  tensor->viewShape = std::move(viewShape);
  tensor->strides = std::move(strides);
  tensor->offset = offset;
  static_assert(sizeof(tensor->dataType) == sizeof(dataType), "aclDataType is int-sized");
  static_assert(sizeof(tensor->format) == sizeof(format), "aclFormat is int-sized");
  std::memcpy(&tensor->dataType, &dataType, sizeof(dataType));
  std::memcpy(&tensor->format, &format, sizeof(format));
  tensor->storageShape = std::move(storageShape);
  tensor->data = data;
}

bool tensorArgumentPresent(const char* api, const void* tensor) {
  if (tensor != nullptr) return true;
  aclcpu::recordErrorf("%s: argument tensor: expected a non-null aclTensor, got nullptr", api);
  return false;
}

bool outputArgumentPresent(const char* api, const char* name, const void* pointer) {
  if (pointer != nullptr) return true;
  aclcpu::recordErrorf("%s: argument %s: expected a non-null output pointer, got nullptr", api,
                       name);
  return false;
}

// Shared body of the three getters that hand out a new[] copy of a dims vector.
aclnnStatus copyDimsOut(const char* api, const aclTensor* tensor, const char* dimsName,
                        int64_t** dims, const char* countName, uint64_t* count,
                        const std::vector<int64_t> aclTensor::*field) {
  if (!tensorArgumentPresent(api, tensor) || !outputArgumentPresent(api, dimsName, dims) ||
      !outputArgumentPresent(api, countName, count)) {
    return ACLNN_ERR_PARAM_NULLPTR;
  }
  return aclcpu::callNoThrow(api, static_cast<aclnnStatus>(ACLNN_ERR_INNER), [&]() {
    const std::vector<int64_t>& source = tensor->*field;
    int64_t* copy = new int64_t[source.size()];
    for (size_t i = 0; i < source.size(); ++i) copy[i] = source[i];
    *dims = copy;
    *count = source.size();
    return static_cast<aclnnStatus>(ACLNN_SUCCESS);
  });
}

}  // namespace

namespace aclcpu {

size_t elementBytesOf(int32_t rawDataType) {
  switch (rawDataType) {
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
      return 1;
    case ACL_DOUBLE:
    case ACL_INT64:
    case ACL_UINT64:
    case ACL_COMPLEX64:
      return 8;
    case ACL_COMPLEX128:
      return 16;
    default:
      return 0;
  }
}

int64_t viewElementCount(const aclTensor& tensor) {
  int64_t count = 1;
  if (!checkedProduct(tensor.viewShape.data(), tensor.viewShape.size(), &count)) return -1;
  return count;
}

}  // namespace aclcpu

aclTensor* aclCreateTensor(const int64_t* viewDims, uint64_t viewDimsNum, aclDataType dataType,
                           const int64_t* stride, int64_t offset, aclFormat format,
                           const int64_t* storageDims, uint64_t storageDimsNum, void* tensorData) {
  static constexpr const char* kApi = "aclCreateTensor";
  if (!dimsArgumentsValid(kApi, viewDims, viewDimsNum, storageDims, storageDimsNum)) {
    return nullptr;
  }
  // Never loaded through the enum types: a C caller may pass any int.
  const int32_t rawType = static_cast<int32_t>(aclcpu::rawEnumValue(dataType));
  const int32_t rawFormat = static_cast<int32_t>(aclcpu::rawEnumValue(format));
  return aclcpu::callNoThrow(kApi, static_cast<aclTensor*>(nullptr), [&]() {
    auto tensor = std::make_unique<aclTensor>();
    assignTensor(tensor.get(), viewDims, viewDimsNum, rawType, stride, offset, rawFormat,
                 storageDims, storageDimsNum, tensorData);
    return tensor.release();
  });
}

aclnnStatus aclInitTensor(aclTensor* tensor, const int64_t* viewDims, uint64_t viewDimsNum,
                          aclDataType dataType, const int64_t* stride, int64_t offset,
                          aclFormat format, const int64_t* storageDims, uint64_t storageDimsNum,
                          void* tensorDataAddr) {
  static constexpr const char* kApi = "aclInitTensor";
  if (!tensorArgumentPresent(kApi, tensor) ||
      !dimsArgumentsValid(kApi, viewDims, viewDimsNum, storageDims, storageDimsNum)) {
    return ACLNN_ERR_PARAM_NULLPTR;
  }
  const int32_t rawType = static_cast<int32_t>(aclcpu::rawEnumValue(dataType));
  const int32_t rawFormat = static_cast<int32_t>(aclcpu::rawEnumValue(format));
  return aclcpu::callNoThrow(kApi, static_cast<aclnnStatus>(ACLNN_ERR_INNER), [&]() {
    assignTensor(tensor, viewDims, viewDimsNum, rawType, stride, offset, rawFormat, storageDims,
                 storageDimsNum, tensorDataAddr);
    return static_cast<aclnnStatus>(ACLNN_SUCCESS);
  });
}

aclnnStatus aclDestroyTensor(const aclTensor* tensor) {
  delete tensor;
  return ACLNN_SUCCESS;
}

aclnnStatus aclGetViewShape(const aclTensor* tensor, int64_t** viewDims, uint64_t* viewDimsNum) {
  return copyDimsOut("aclGetViewShape", tensor, "viewDims", viewDims, "viewDimsNum", viewDimsNum,
                     &aclTensor::viewShape);
}

aclnnStatus aclGetStorageShape(const aclTensor* tensor, int64_t** storageDims,
                               uint64_t* storageDimsNum) {
  return copyDimsOut("aclGetStorageShape", tensor, "storageDims", storageDims, "storageDimsNum",
                     storageDimsNum, &aclTensor::storageShape);
}

aclnnStatus aclGetViewStrides(const aclTensor* tensor, int64_t** stridesValue,
                              uint64_t* stridesNum) {
  return copyDimsOut("aclGetViewStrides", tensor, "stridesValue", stridesValue, "stridesNum",
                     stridesNum, &aclTensor::strides);
}

aclnnStatus aclGetViewOffset(const aclTensor* tensor, int64_t* offset) {
  static constexpr const char* kApi = "aclGetViewOffset";
  if (!tensorArgumentPresent(kApi, tensor) || !outputArgumentPresent(kApi, "offset", offset)) {
    return ACLNN_ERR_PARAM_NULLPTR;
  }
  *offset = tensor->offset;
  return ACLNN_SUCCESS;
}

aclnnStatus aclGetFormat(const aclTensor* tensor, aclFormat* format) {
  static constexpr const char* kApi = "aclGetFormat";
  if (!tensorArgumentPresent(kApi, tensor) || !outputArgumentPresent(kApi, "format", format)) {
    return ACLNN_ERR_PARAM_NULLPTR;
  }
  std::memcpy(format, &tensor->format, sizeof(*format));
  return ACLNN_SUCCESS;
}

aclnnStatus aclGetDataType(const aclTensor* tensor, aclDataType* dataType) {
  static constexpr const char* kApi = "aclGetDataType";
  if (!tensorArgumentPresent(kApi, tensor) || !outputArgumentPresent(kApi, "dataType", dataType)) {
    return ACLNN_ERR_PARAM_NULLPTR;
  }
  std::memcpy(dataType, &tensor->dataType, sizeof(*dataType));
  return ACLNN_SUCCESS;
}

aclnnStatus aclSetRawTensorAddr(aclTensor* tensor, void* addr) {
  if (!tensorArgumentPresent("aclSetRawTensorAddr", tensor)) return ACLNN_ERR_PARAM_NULLPTR;
  tensor->data = addr;
  return ACLNN_SUCCESS;
}

aclnnStatus aclGetRawTensorAddr(const aclTensor* tensor, void** addr) {
  static constexpr const char* kApi = "aclGetRawTensorAddr";
  if (!tensorArgumentPresent(kApi, tensor) || !outputArgumentPresent(kApi, "addr", addr)) {
    return ACLNN_ERR_PARAM_NULLPTR;
  }
  *addr = tensor->data;
  return ACLNN_SUCCESS;
}
