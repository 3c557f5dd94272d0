#pragma once
// Failing an aclnn call: record a message for aclGetRecentErrMsg() that names
// the API and the argument, what was expected and what was given, and return
// the status.

#include <cstdint>
#include <string>
#include <vector>

#include "aclnn/acl_meta.h"

namespace aclcpu {
namespace ops {

// The aclnn status codes (the public chain does not define ACLNN_*).
constexpr aclnnStatus kSuccess = 0;
constexpr aclnnStatus kParamNullptr = 161001;
constexpr aclnnStatus kParamInvalid = 161002;
constexpr aclnnStatus kRuntimeError = 361001;
constexpr aclnnStatus kInner = 561000;
constexpr aclnnStatus kInnerNullptr = 561103;

// Records "<api>: <printf message>" and returns `status`.
aclnnStatus fail(aclnnStatus status, const char* api, const char* format, ...)
    __attribute__((format(printf, 3, 4)));

// "[2, 3, 4]"
std::string shapeString(const std::vector<int64_t>& dims);

// "FLOAT16", "BF16", ... (or the number when unknown). Both take the raw
// value (meta_types.h rawDataType / rawFormat): it may be out of range.
std::string dataTypeName(int32_t type);

// "NCHW", "ND", ...
std::string formatName(int32_t format);

}  // namespace ops
}  // namespace aclcpu
