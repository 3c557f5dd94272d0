// This file must not include aclnn/acl_meta.h: it declares aclCreateTensor
// with the int parameters a C caller passes (the same ABI on every target we
// build for: the enums are int-sized).

#include "raw_tensor.h"

extern "C" aclTensor* aclCreateTensor(const int64_t* viewDims, uint64_t viewDimsNum,
                                      int32_t dataType, const int64_t* stride, int64_t offset,
                                      int32_t format, const int64_t* storageDims,
                                      uint64_t storageDimsNum, void* tensorData);

namespace robustness {

aclTensor* createTensorRaw(const int64_t* viewDims, uint64_t viewDimsNum, int32_t dataType,
                           const int64_t* stride, int64_t offset, int32_t format,
                           const int64_t* storageDims, uint64_t storageDimsNum, void* data) {
  return aclCreateTensor(viewDims, viewDimsNum, dataType, stride, offset, format, storageDims,
                         storageDimsNum, data);
}

}  // namespace robustness
