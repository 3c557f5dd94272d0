#pragma once
// The last step of every operator's phase 1: bind copies of the call's
// tensors to a freshly built executor, register it and hand the handle and
// its workspace size to the caller.

#include <cstdint>
#include <initializer_list>
#include <memory>

#include "executor/executor.h"

namespace aclcpu {
namespace ops {

// Null entries stay absent bindings. Fails with 561103 when registration
// runs out of memory.
aclnnStatus bindAndRegister(const char* phase1Api, const char* phase2Api,
                            std::unique_ptr<aclOpExecutor> created, uint64_t workspaceBytes,
                            std::initializer_list<const aclTensor*> inputs,
                            std::initializer_list<const aclTensor*> outputs,
                            uint64_t* workspaceSize, aclOpExecutor** executor);

}  // namespace ops
}  // namespace aclcpu
