#pragma once
// A tensor's dtype and format as the raw integers the caller stored: an
// aclTensor comes from C callers that may pass any int, and loading an
// out-of-range value through the enum type is undefined behaviour. Checks
// compare these integers with the enumerators.

#include "common/raw_enum.h"
#include "meta/meta_types.h"

namespace aclcpu {
namespace ops {

inline int rawDataType(const aclTensor* t) { return rawEnumValue(t->dataType); }
inline int rawFormat(const aclTensor* t) { return rawEnumValue(t->format); }

}  // namespace ops
}  // namespace aclcpu
