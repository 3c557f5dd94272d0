#include "tbc_case.h"

#include <gtest/gtest.h>

#include <cmath>

#include "acl_session.h"
#include "aclnnop/aclnn_convolution_backward.h"
#include "check_values.h"

namespace conformance {

TbcCall tbc() {
  TbcCall call;
  call.self = tensor({5, 2, 4});
  call.input = tensor({5, 2, 3});
  call.weight = tensor({3, 3, 4});
  call.bias = tensor({4});
  call.pad = 1;
  deriveOutputs(call);
  return call;
}

TbcCall with(TbcCall base, const std::function<void(TbcCall&)>& mutate) {
  mutate(base);
  return base;
}

void deriveOutputs(TbcCall& call) {
  call.gradInput = tensor(call.input.shape);
  call.gradWeight = tensor(call.weight.shape);
  call.gradBias = tensor(call.bias.shape);
}

namespace {

std::unique_ptr<TestTensor> materialize(const TensorDesc& desc) {
  if (!desc.present) return nullptr;
  return std::make_unique<TestTensor>(desc, desc.format.value_or(ACL_FORMAT_ND));
}

struct Exact {
  std::vector<double> value, magnitude;
  explicit Exact(size_t count) : value(count), magnitude(count) {}
  void add(size_t index, double term) {
    value[index] += term;
    magnitude[index] += std::fabs(term);
  }
};

// conv-tbc-backward.md section 1, as direct loops over [T, B, C] layouts.
struct TbcGradients {
  Exact gradInput, gradWeight, gradBias;
};

TbcGradients tbcOracle(const std::vector<int64_t>& inputShape,
                       const std::vector<int64_t>& weightShape, const std::vector<double>& self,
                       const std::vector<double>& input, const std::vector<double>& weight,
                       int64_t pad) {
  const int64_t T = inputShape[0], B = inputShape[1], Cin = inputShape[2];
  const int64_t K = weightShape[0], Cout = weightShape[2];
  const int64_t Tout = T + 2 * pad - K + 1;
  TbcGradients g{Exact(input.size()), Exact(weight.size()), Exact(static_cast<size_t>(Cout))};
  for (int64_t to = 0; to < Tout; ++to)
    for (int64_t b = 0; b < B; ++b)
      for (int64_t co = 0; co < Cout; ++co) {
        const double dy = self[(to * B + b) * Cout + co];
        g.gradBias.add(co, dy);
        for (int64_t k = 0; k < K; ++k) {
          const int64_t t = to + k - pad;
          if (t < 0 || t >= T) continue;
          for (int64_t ci = 0; ci < Cin; ++ci) {
            const size_t x = (t * B + b) * Cin + ci;
            const size_t w = (k * Cin + ci) * Cout + co;
            g.gradInput.add(x, dy * weight[w]);
            g.gradWeight.add(w, input[x] * dy);
          }
        }
      }
  return g;
}

void expectUntouched(const char* name, const TestTensor& t, const std::vector<uint8_t>& before) {
  EXPECT_EQ(t.storageBytes(), before) << name << " must not be written";
}

}  // namespace

TbcInvocation::TbcInvocation(TbcCall call) : call_(std::move(call)) {
  const TensorDesc* in[4] = {&call_.self, &call_.input, &call_.weight, &call_.bias};
  const TensorDesc* out[3] = {&call_.gradInput, &call_.gradWeight, &call_.gradBias};
  for (int i = 0; i < 4; ++i) {
    inputs_[i] = materialize(*in[i]);
    TestTensor* t = inputs_[i].get();
    if (!t || !isFloatType(t->desc().dtype)) continue;
    t->fillStorageBytes(0);
    t->setValues(patternValues(t->numel(), i + 2, call_.data));
  }
  for (int i = 0; i < 3; ++i) {
    outputs_[i] = materialize(*out[i]);
    if (!outputs_[i]) continue;
    outputs_[i]->fillStorageBytes(kSentinelByte);
    outputBytesBefore_[i] = outputs_[i]->storageBytes();
  }
}

TbcInvocation::~TbcInvocation() = default;

void TbcInvocation::setInputValues(int index, const std::vector<double>& values) {
  inputs_[index]->setValues(values);
}

aclnnStatus TbcInvocation::getWorkspaceSize() {
  auto handle = [](const std::unique_ptr<TestTensor>& t) { return t ? t->get() : nullptr; };
  return aclnnConvTbcBackwardGetWorkspaceSize(
      handle(inputs_[0]), handle(inputs_[1]), handle(inputs_[2]), handle(inputs_[3]), call_.pad,
      call_.cubeMathType, handle(outputs_[0]), handle(outputs_[1]), handle(outputs_[2]),
      call_.nullWorkspaceSize ? nullptr : &workspaceSize_,
      call_.nullExecutor ? nullptr : &executor_);
}

void TbcInvocation::checkOutputsUntouched() {
  for (int i = 0; i < 3; ++i) {
    if (outputs_[i])
      expectUntouched("output of a rejected call", *outputs_[i], outputBytesBefore_[i]);
  }
}

void TbcInvocation::checkOutputs() {
  const std::vector<double> self = inputs_[0]->values();
  const bool emptyPath =
      inputs_[1]->numel() == 0 || inputs_[2]->numel() == 0 || inputs_[3]->numel() == 0;
  const std::vector<int64_t>& inputShape = call_.input.shape;
  const std::vector<int64_t>& weightShape = call_.weight.shape;

  if (emptyPath) {
    // Section 4.1 with the project decision: zeros, and the true sum of self.
    expectValues("gradInput (empty path)", outputs_[0]->values(),
                 std::vector<double>(outputs_[0]->numel(), 0.0));
    expectValues("gradWeight (empty path)", outputs_[1]->values(),
                 std::vector<double>(outputs_[1]->numel(), 0.0));
    const int64_t channels = call_.self.shape[2];
    std::vector<double> sums(static_cast<size_t>(channels), 0.0);
    for (size_t i = 0; i < self.size(); ++i) sums[i % channels] += self[i];
    expectValues("gradBias (empty path, true sum of self)", outputs_[2]->values(),
                 roundThrough(sums, {call_.self.dtype, call_.gradBias.dtype}));
  } else {
    const OperandModel model =
        operandModel(call_.self.dtype, call_.input.dtype, call_.weight.dtype, call_.cubeMathType);
    const TbcGradients rounded =
        tbcOracle(inputShape, weightShape, roundOperands(self, model.rounding),
                  roundOperands(inputs_[1]->values(), model.rounding),
                  roundOperands(inputs_[2]->values(), model.rounding), call_.pad);
    expectValues(
        "gradInput", outputs_[0]->values(),
        roundThrough(rounded.gradInput.value, {ACL_FLOAT, model.dtype, call_.gradInput.dtype}),
        tolerancesFor(rounded.gradInput.magnitude, call_.data));
    expectValues("gradWeight", outputs_[1]->values(),
                 roundThrough(rounded.gradWeight.value, {ACL_FLOAT, call_.gradWeight.dtype}),
                 tolerancesFor(rounded.gradWeight.magnitude, call_.data));
    // gradBias from the original self (section 6.3 of the convolution spec).
    std::vector<double> sums(static_cast<size_t>(call_.self.shape[2]), 0.0);
    for (size_t i = 0; i < self.size(); ++i) sums[i % sums.size()] += self[i];
    expectValues("gradBias", outputs_[2]->values(),
                 roundThrough(sums, {call_.self.dtype, call_.gradBias.dtype}));
  }
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(outputs_[i]->changedBytesOutsideView(outputBytesBefore_[i]), 0)
        << "output " << i << " was written outside its view";
  }
}

void runTbcCase(const TbcCase& testCase) {
  TbcInvocation invocation(testCase.call);
  clearErrorMessages();
  const aclnnStatus status = invocation.getWorkspaceSize();
  ASSERT_EQ(status, testCase.expected);
  if (status != ACLNN_SUCCESS) {
    const std::string message = expectErrorMessageRecorded();
    if (!testCase.mentions.empty()) {
      EXPECT_NE(message.find(testCase.mentions), std::string::npos)
          << "message should name '" << testCase.mentions << "': " << message;
    }
    invocation.checkOutputsUntouched();
    return;
  }
  ASSERT_NE(invocation.executor(), nullptr);
  DeviceBuffer workspace(invocation.workspaceSize());
  ASSERT_EQ(aclnnConvTbcBackward(workspace.get(), invocation.workspaceSize(), invocation.executor(),
                                 testStream()),
            ACLNN_SUCCESS);
  ASSERT_EQ(aclrtSynchronizeStream(testStream()), ACL_SUCCESS);
  invocation.checkOutputs();
}

}  // namespace conformance
