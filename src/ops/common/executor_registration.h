#pragma once
// The last step of every operator's phase 1: bind copies of the call's
// tensors to a freshly built executor, register it and hand the handle and
// its workspace size to the caller.

#include <cstdint>
#include <memory>
#include <vector>

#include "executor/executor.h"
#include "ops/common/tensor_checks.h"

namespace aclcpu {
namespace ops {

// Null entries stay absent bindings; each binding keeps its argument name
// and whether the run touches it (the launch checks the addresses of those).
// Fails with 561103 when registration runs out of memory.
aclnnStatus bindAndRegister(const char* phase1Api, const char* phase2Api,
                            std::unique_ptr<aclOpExecutor> created, uint64_t workspaceBytes,
                            const std::vector<NamedTensor>& inputs,
                            const std::vector<bool>& inputsAccessed,
                            const std::vector<NamedTensor>& outputs,
                            const std::vector<bool>& outputsAccessed, uint64_t* workspaceSize,
                            aclOpExecutor** executor);

}  // namespace ops
}  // namespace aclcpu
