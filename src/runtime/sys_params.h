#pragma once
// Internal read of the sys-param options for operators.

#include <cstdint>

namespace aclcpu {

// The value of aclSysParamOpt `opt` that applies to the calling thread: the
// most recently set of its current context's value (aclrtCtxSetSysParamOpt)
// and the process value (aclrtSetSysParamOpt). False when neither was set.
bool effectiveSysParamOpt(int opt, int64_t* value);

}  // namespace aclcpu
