#pragma once
// The executor shared by the forward convolution operators: runs a
// ConvForwardProblem on the kernels inside the workspace planned in phase 1.

#include <cstdint>
#include <initializer_list>
#include <vector>

#include "executor/executor.h"
#include "ops/common/conv_forward_problem.h"
#include "ops/common/tensor_checks.h"

namespace aclcpu {
namespace ops {

// Byte offsets into the workspace (kNoBuffer when unused), 64-byte aligned.
struct ConvForwardPlan {
  uint64_t source = UINT64_MAX;  // fp32 operands, rounded per cubeMathType
  uint64_t weight = UINT64_MAX;
  uint64_t bias = UINT64_MAX;    // float[output channels], rounded per decision 8
  uint64_t result = UINT64_MAX;  // the fp32 result before its rounding and cast
  uint64_t scratch = UINT64_MAX;
  bool sourceInPlace = false;
  bool weightInPlace = false;
  // The pass reads the source and writes the output as 16-bit words (of
  // type problem.shape.io) when the output does not overlap an input (else
  // the fp32 regions above are used).
  bool onWords = false;
  uint64_t totalBytes = 0;
};

class ConvForwardExecutor : public aclOpExecutor {
 public:
  ConvForwardExecutor(const ConvForwardProblem& problem, const ConvForwardPlan& plan)
      : problem_(problem), plan_(plan) {}

  aclnnStatus run(const std::vector<Binding>& inputs, const std::vector<Binding>& outputs,
                  void* workspace, uint64_t workspaceSize) const override;

 private:
  ConvForwardProblem problem_;
  ConvForwardPlan plan_;
};

// The common end of phase 1 for the forward operators: plans the workspace,
// binds copies of `inputs` (source, weight, bias: null entries stay absent)
// and `outputs`, registers the executor. 161002 when the workspace size
// overflows 64 bits.
aclnnStatus finishConvForwardPhase1(const char* phase1Api, const char* phase2Api,
                                    const ConvForwardProblem& problem,
                                    std::initializer_list<NamedTensor> inputs,
                                    std::initializer_list<NamedTensor> outputs,
                                    uint64_t* workspaceSize, aclOpExecutor** executor);

}  // namespace ops
}  // namespace aclcpu
