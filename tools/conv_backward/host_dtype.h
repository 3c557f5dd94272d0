#pragma once
// Host-side encoding of fp32 values as the tensor dtypes the tool uploads
// (fp32, IEEE fp16, bf16; nearest even) and decoding of results.

#include <cstddef>
#include <vector>

#include "acl/acl.h"

namespace hostdtype {

size_t bytes(aclDataType dtype);
float roundTo(float value, aclDataType dtype);  // value representable in dtype
void encode(const std::vector<float>& values, aclDataType dtype, void* out);
std::vector<float> decode(const void* data, size_t count, aclDataType dtype);

}  // namespace hostdtype
