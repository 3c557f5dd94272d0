#pragma once
// One aclnnConvTbcBackward call described by value, its baseline, and the
// runner that checks status, message and results (conv-tbc-backward.md).

#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "aclnn/opdev/op_errno.h"
#include "operand_model.h"
#include "test_tensor.h"

namespace conformance {

struct TbcCall {
  TensorDesc self, input, weight, bias;  // formats default to ND
  int64_t pad = 1;
  int8_t cubeMathType = 0;
  TensorDesc gradInput, gradWeight, gradBias;
  bool nullWorkspaceSize = false;
  bool nullExecutor = false;
  DataPattern data = DataPattern::Grid;
};

struct TbcCase {
  std::string name;
  TbcCall call;
  aclnnStatus expected;
  std::string mentions;  // substring the error message must contain; optional
};

inline std::ostream& operator<<(std::ostream& out, const TbcCase& c) { return out << c.name; }

// T = 5, B = 2, C_in = 3, C_out = 4, K = 3, pad = 1: T_out = 5 + 2 - 3 + 1 = 5.
TbcCall tbc();
TbcCall with(TbcCall base, const std::function<void(TbcCall&)>& mutate);
// gradInput/gradWeight/gradBias (fp32) shaped like input/weight/bias.
void deriveOutputs(TbcCall& call);

class TbcInvocation {
 public:
  explicit TbcInvocation(TbcCall call);
  ~TbcInvocation();
  TbcInvocation(const TbcInvocation&) = delete;
  TbcInvocation& operator=(const TbcInvocation&) = delete;

  aclnnStatus getWorkspaceSize();
  uint64_t workspaceSize() const { return workspaceSize_; }
  aclOpExecutor* executor() const { return executor_; }
  void checkOutputs();
  void checkOutputsUntouched();
  std::vector<double> outputValues(int index) const { return outputs_[index]->values(); }
  // Overwrites an input's values (row-major over its view).
  void setInputValues(int index, const std::vector<double>& values);

 private:
  TbcCall call_;
  std::unique_ptr<TestTensor> inputs_[4];   // self, input, weight, bias
  std::unique_ptr<TestTensor> outputs_[3];  // gradInput, gradWeight, gradBias
  std::vector<uint8_t> outputBytesBefore_[3];
  uint64_t workspaceSize_ = 0;
  aclOpExecutor* executor_ = nullptr;
};

void runTbcCase(const TbcCase& testCase);

struct TbcCaseName {
  template <class Info>
  std::string operator()(const Info& info) const {
    return info.param.name;
  }
};

}  // namespace conformance
