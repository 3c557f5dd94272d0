#include "ops/common/executor_registration.h"

#include <utility>
#include <vector>

#include "ops/common/op_status.h"

namespace aclcpu {
namespace ops {

aclnnStatus bindAndRegister(const char* phase1Api, const char* phase2Api,
                            std::unique_ptr<aclOpExecutor> created, uint64_t workspaceBytes,
                            const std::vector<NamedTensor>& inputs,
                            const std::vector<bool>& inputsAccessed,
                            const std::vector<NamedTensor>& outputs,
                            const std::vector<bool>& outputsAccessed, uint64_t* workspaceSize,
                            aclOpExecutor** executor) {
  auto bind = [](std::vector<aclOpExecutor::Binding>& bindings,
                 const std::vector<NamedTensor>& tensors, const std::vector<bool>& accessed) {
    for (size_t i = 0; i < tensors.size(); ++i) {
      aclOpExecutor::Binding binding;
      if (tensors[i].tensor) {
        binding.present = true;
        binding.tensor = *tensors[i].tensor;
        binding.original = tensors[i].tensor;
        binding.name = tensors[i].name;
        binding.accessed = i < accessed.size() && accessed[i];
      }
      bindings.push_back(std::move(binding));
    }
  };
  bind(created->inputs, inputs, inputsAccessed);
  bind(created->outputs, outputs, outputsAccessed);
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
