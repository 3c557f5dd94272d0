#pragma once
// aclCreateTensor as a C caller sees it: dtype and format are plain ints, so
// a test can pass values outside the enums without loading them through the
// enum types itself (which UBSan's enum check would flag in the test).

#include <cstdint>

struct aclTensor;

namespace robustness {

aclTensor* createTensorRaw(const int64_t* viewDims, uint64_t viewDimsNum, int32_t dataType,
                           const int64_t* stride, int64_t offset, int32_t format,
                           const int64_t* storageDims, uint64_t storageDimsNum, void* data);

}  // namespace robustness
