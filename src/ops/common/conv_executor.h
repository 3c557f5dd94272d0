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
  void sumGradBias(const std::vector<Binding>& inputs, const std::vector<Binding>& outputs,
                   char* workspace) const;
  void storeGradBias(const std::vector<Binding>& inputs, const std::vector<Binding>& outputs,
                     char* workspace) const;

  ConvBackwardProblem problem_;
  ConvWorkspacePlan plan_;
};

// The common end of phase 1: lays out the workspace for `problem` (whose
// bias source has `biasChannels` channels), binds copies of the tensors (null
// entries stay absent), registers the executor and hands it and its workspace
// size to the caller. Fails with 161002 when the workspace size overflows.
aclnnStatus finishConvBackwardPhase1(const char* phase1Api, const char* phase2Api,
                                     const ConvBackwardProblem& problem, int64_t biasChannels,
                                     std::initializer_list<const aclTensor*> inputs,
                                     std::initializer_list<const aclTensor*> outputs,
                                     uint64_t* workspaceSize, aclOpExecutor** executor);

}  // namespace ops
}  // namespace aclcpu
