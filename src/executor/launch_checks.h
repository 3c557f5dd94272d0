#pragma once
// The address checks of phase 2, made on the snapshot a launch is about to
// enqueue (after aclSet*TensorAddr could have changed any address), for every
// operator alike (docs/input-validation.md):
//
//   - a binding the run accesses, with elements, and a null data address:
//     161001;
//   - its byte range wraps the address space, runs out of the aclrtMalloc
//     block its address lies in, or lies in a freed (quarantined) block:
//     161002;
//   - two written bindings whose byte ranges intersect: 161002;
//   - a workspace in a freed block, or running out of its block: 161002.

#include <cstdint>
#include <vector>

#include "executor/executor.h"

namespace aclcpu {

aclnnStatus checkLaunchAddresses(const char* apiName,
                                 const std::vector<aclOpExecutor::Binding>& inputs,
                                 const std::vector<aclOpExecutor::Binding>& outputs,
                                 void* workspace, uint64_t workspaceSize);

}  // namespace aclcpu
