#pragma once
// Pointer forms of meta_types.h's rawDataType / rawFormat for the checks:
// a tensor's dtype and format as the raw integers the caller stored (never
// loaded through the enum type, see common/raw_enum.h).

#include "meta/meta_types.h"

namespace aclcpu {
namespace ops {

inline int32_t rawDataType(const aclTensor* t) { return aclcpu::rawDataType(*t); }
inline int32_t rawFormat(const aclTensor* t) { return aclcpu::rawFormat(*t); }

}  // namespace ops
}  // namespace aclcpu
