#pragma once
// The executor shared by the convolution-backward operators: runs a
// ConvBackwardProblem on the kernels, inside the workspace laid out by the
// plan.

#include <memory>

#include "executor/executor.h"
#include "ops/common/conv_plan.h"
#include "ops/common/conv_problem.h"

namespace aclcpu {
namespace ops {

class ConvBackwardExecutor : public aclOpExecutor {
 public:
  ConvBackwardExecutor(const ConvBackwardProblem& problem, const ConvWorkspacePlan& plan)
      : problem_(problem), plan_(plan) {}

  aclnnStatus run(const std::vector<Binding>& inputs, const std::vector<Binding>& outputs,
                  void* workspace, uint64_t workspaceSize) const override;

 private:
  void runEmpty(const std::vector<Binding>& inputs, const std::vector<Binding>& outputs,
                char* workspace) const;
  void runGradBias(const std::vector<Binding>& inputs, const std::vector<Binding>& outputs,
                   char* workspace) const;

  ConvBackwardProblem problem_;
  ConvWorkspacePlan plan_;
};

// Binds copies of the given tensors (null entries stay absent), registers the
// executor and returns the handle.
aclOpExecutor* createConvBackwardExecutor(const char* phase2Api, const ConvBackwardProblem& problem,
                                          const ConvWorkspacePlan& plan,
                                          std::initializer_list<const aclTensor*> inputs,
                                          std::initializer_list<const aclTensor*> outputs);

}  // namespace ops
}  // namespace aclcpu
