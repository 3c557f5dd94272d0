#pragma once
// One call of a forward operator (aclnnConvolution, aclnnConvDepthwise2d or
// aclnnConvTbc) described by value, valid baselines for each, and the runner
// that checks a case end to end: the exact status; on failure a non-empty
// message that the read clears and not one output byte changed; on success
// phase 2 and the output (untouched when empty, else the reference's values).

#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "aclnn/opdev/op_errno.h"
#include "conformance/test_tensor.h"

namespace conformance {

enum class ForwardOp { Convolution, Depthwise2d, ConvTbc };

struct ForwardCall {
  ForwardOp op = ForwardOp::Convolution;
  TensorDesc input, weight, bias, output;  // input = self for Depthwise2d/ConvTbc
  std::optional<std::vector<int64_t>> stride, padding, dilation, outputPadding, kernelSize;
  bool transposed = false;
  int64_t groups = 1;
  int64_t pad = 0;  // ConvTbc
  int8_t cubeMathType = 0;
  bool nullWorkspaceSize = false;
  bool nullExecutor = false;
};

struct ForwardCase {
  std::string name;
  ForwardCall call;
  aclnnStatus expected;
  std::string mentions;  // substring the message must contain; optional
};

inline std::ostream& operator<<(std::ostream& out, const ForwardCase& c) { return out << c.name; }

ForwardCall with(ForwardCall base, const std::function<void(ForwardCall&)>& mutate);

// Baselines, all valid; shapes and their derivations are in the .cpp.
ForwardCall conv1d();
ForwardCall conv2d();
ForwardCall conv3d();
ForwardCall conv1dTransposed();
ForwardCall conv2dTransposed();
ForwardCall conv3dTransposed();
ForwardCall depthwise();
ForwardCall tbc();

// Sets every tensor's dtype.
void setDtypes(ForwardCall& call, aclDataType dtype);

void runForwardCase(const ForwardCase& testCase);

// Phase 1 of a call whose tensors stay alive; for the phase-2 tests.
class ForwardInvocation {
 public:
  explicit ForwardInvocation(ForwardCall call);
  ~ForwardInvocation();
  aclnnStatus getWorkspaceSize();
  aclnnStatus launch(void* workspace, uint64_t size, aclOpExecutor* executor);
  uint64_t workspaceSize() const { return workspaceSize_; }
  aclOpExecutor* executor() const { return executor_; }
  // Checks the output after a successful run (see runForwardCase).
  void checkOutput();
  void checkOutputUntouched();

 private:
  ForwardCall call_;
  std::unique_ptr<TestTensor> input_, weight_, bias_, output_;
  std::vector<uint8_t> outputBefore_;
  IntArrayPtr stride_, padding_, dilation_, outputPadding_, kernelSize_;
  uint64_t workspaceSize_ = 0;
  aclOpExecutor* executor_ = nullptr;
};

class Forward : public ::testing::TestWithParam<ForwardCase> {};

struct ForwardCaseName {
  template <class Info>
  std::string operator()(const Info& info) const {
    return info.param.name;
  }
};

constexpr aclnnStatus kOk = ACLNN_SUCCESS;
constexpr aclnnStatus kNull = ACLNN_ERR_PARAM_NULLPTR;
constexpr aclnnStatus kInvalid = ACLNN_ERR_PARAM_INVALID;
constexpr aclnnStatus kRuntime = 361001;

}  // namespace conformance

#define FORWARD_CASES(suite, table) \
  INSTANTIATE_TEST_SUITE_P(suite, Forward, ::testing::ValuesIn(table), ForwardCaseName())
