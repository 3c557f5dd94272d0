#pragma once
// One aclnnConvolutionBackward call described by value (all 17 arguments),
// baseline builders that satisfy every rule, and the runner that executes a
// case end to end and checks status, message and results.

#include <functional>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "aclnn/opdev/op_errno.h"
#include "operand_model.h"
#include "test_tensor.h"

namespace conformance {

struct ConvCall {
  TensorDesc gradOutput, input, weight;
  std::optional<std::vector<int64_t>> biasSizes, stride, padding, dilation, outputPadding;
  bool transposed = false;
  int groups = 1;
  std::optional<std::vector<bool>> outputMask = std::vector<bool>{true, true, true};
  int8_t cubeMathType = 0;
  TensorDesc gradInput, gradWeight, gradBias;
  bool nullWorkspaceSize = false;
  bool nullExecutor = false;
  DataPattern data = DataPattern::Grid;
};

struct ConvCase {
  std::string name;
  ConvCall call;
  aclnnStatus expected;
  // Substring the error message must contain (an argument name); optional.
  std::string mentions;
};

inline std::ostream& operator<<(std::ostream& out, const ConvCase& c) { return out << c.name; }

// Applies `mutate` to a copy of `base`.
ConvCall with(ConvCall base, const std::function<void(ConvCall&)>& mutate);

// Sets gradInput/gradWeight/gradBias (fp32) to the shapes the inputs imply.
void deriveOutputs(ConvCall& call);

// Baselines, all valid. Shapes are in the .cpp with their derivations.
ConvCall conv1d();
ConvCall conv2d();
ConvCall conv3d();
ConvCall conv1dTransposed();
ConvCall conv2dTransposed();
ConvCall conv3dTransposed();

// The default storage format for a conv tensor of this rank (NCL/NCHW/NCDHW, else ND).
aclFormat convFormat(size_t rank);

// One call's tensors (inputs filled with the case's data pattern, outputs
// with a sentinel) and attribute arrays, kept alive across both phases.
class ConvInvocation {
 public:
  explicit ConvInvocation(ConvCall call);
  ~ConvInvocation();
  ConvInvocation(const ConvInvocation&) = delete;
  ConvInvocation& operator=(const ConvInvocation&) = delete;

  // Phase 1 with the call's arguments; keeps the workspace size and executor.
  aclnnStatus getWorkspaceSize();
  uint64_t workspaceSize() const { return workspaceSize_; }
  aclOpExecutor* executor() const { return executor_; }

  // Checks every output after a successful phase 2 and stream sync: masked
  // outputs untouched, empty-path rules, or the oracle's values.
  void checkOutputs();
  // Checks that no output byte changed (after a rejected call).
  void checkOutputsUntouched();

  // Destroys the caller-side descriptors (arrays and aclTensors, not the
  // memory): phase 1 must have copied what phase 2 needs.
  void destroyDescriptors();

  // Raw storage of output 0 (gradInput), 1 (gradWeight) or 2 (gradBias).
  std::vector<uint8_t> outputBytes(int index) const;

 private:
  ConvCall call_;
  std::unique_ptr<TestTensor> gradOutput_, input_, weight_;
  std::unique_ptr<TestTensor> outputs_[3];  // gradInput, gradWeight, gradBias
  std::vector<uint8_t> outputBytesBefore_[3];
  IntArrayPtr biasSizes_, stride_, padding_, dilation_, outputPadding_;
  BoolArrayPtr outputMask_;
  uint64_t workspaceSize_ = 0;
  aclOpExecutor* executor_ = nullptr;
};

// Runs phase 1 (and phase 2 on success) and checks everything the spec defines.
void runConvCase(const ConvCase& testCase);

// Name generator for INSTANTIATE_TEST_SUITE_P.
struct ConvCaseName {
  template <class Info>
  std::string operator()(const Info& info) const {
    return info.param.name;
  }
};

}  // namespace conformance
