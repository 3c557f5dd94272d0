#include "ops/common/executor_registration.h"

#include <utility>
#include <vector>

#include "ops/common/op_status.h"

namespace aclcpu {
namespace ops {

aclnnStatus bindAndRegister(const char* phase1Api, const char* phase2Api,
                            std::unique_ptr<aclOpExecutor> created, uint64_t workspaceBytes,
                            std::initializer_list<const aclTensor*> inputs,
                            std::initializer_list<const aclTensor*> outputs,
                            uint64_t* workspaceSize, aclOpExecutor** executor) {
  auto bind = [](std::vector<aclOpExecutor::Binding>& bindings,
                 std::initializer_list<const aclTensor*> tensors) {
    for (const aclTensor* tensor : tensors) {
      aclOpExecutor::Binding binding;
      if (tensor) {
        binding.present = true;
        binding.tensor = *tensor;
        binding.original = tensor;
      }
      bindings.push_back(std::move(binding));
    }
  };
  bind(created->inputs, inputs);
  bind(created->outputs, outputs);
  created->workspaceSize = workspaceBytes;
  created->apiName = phase2Api;
  aclOpExecutor* handle = registerExecutor(std::move(created));
  if (!handle) return fail(kInnerNullptr, phase1Api, "executor creation failed");
  *workspaceSize = workspaceBytes;
  *executor = handle;
  return kSuccess;
}

}  // namespace ops
}  // namespace aclcpu
