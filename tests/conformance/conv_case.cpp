#include "conv_case.h"

#include <gtest/gtest.h>

#include <cmath>
#include <memory>

#include "acl_session.h"
#include "aclnnop/aclnn_convolution_backward.h"
#include "check_values.h"
#include "conv_oracle.h"
#include "operand_model.h"

namespace conformance {

ConvCall with(ConvCall base, const std::function<void(ConvCall&)>& mutate) {
  mutate(base);
  return base;
}

void deriveOutputs(ConvCall& call) {
  call.gradInput = tensor(call.input.shape);
  call.gradWeight = tensor(call.weight.shape);
  call.gradBias = tensor({call.gradOutput.shape.at(1)});
}

namespace {

ConvCall make(std::vector<int64_t> gradOutput, std::vector<int64_t> input,
              std::vector<int64_t> weight, int groups, std::vector<int64_t> stride,
              std::vector<int64_t> padding, std::vector<int64_t> dilation,
              std::vector<int64_t> outputPadding, bool transposed) {
  ConvCall call;
  call.gradOutput = tensor(std::move(gradOutput));
  call.input = tensor(std::move(input));
  call.weight = tensor(std::move(weight));
  call.groups = groups;
  call.stride = std::move(stride);
  call.padding = std::move(padding);
  call.dilation = std::move(dilation);
  call.outputPadding = std::move(outputPadding);
  call.transposed = transposed;
  call.biasSizes = std::vector<int64_t>{call.gradOutput.shape[1]};
  deriveOutputs(call);
  return call;
}

}  // namespace

// L: (9 + 2*1 - 3) / 2 + 1 = 5.
ConvCall conv1d() { return make({2, 6, 5}, {2, 4, 9}, {6, 4, 3}, 1, {2}, {1}, {1}, {0}, false); }

// Groups 2. H: (5 + 2 - 3) / 2 + 1 = 3. W: (5 + 2 - 2*2 - 1) / 1 + 1 = 3.
ConvCall conv2d() {
  return make({2, 6, 3, 3}, {2, 4, 5, 5}, {6, 2, 3, 3}, 2, {2, 1}, {1, 1}, {1, 2}, {0, 0}, false);
}

// Groups 2. D: (4 - 2) + 1 = 3. H: (5 + 2 - 3) / 2 + 1 = 3. W: (3 - 1) + 1 = 3.
ConvCall conv3d() {
  return make({1, 4, 3, 3, 3}, {1, 4, 4, 5, 3}, {4, 2, 2, 3, 1}, 2, {1, 2, 1}, {0, 1, 0}, {1, 1, 2},
              {0, 0, 0}, false);
}

// out = (4 - 1)*3 - 2*1 + 2*(3 - 1) + 2 + 1 = 14; floor relation (14 + 2 - 5) / 3 + 1 = 4.
ConvCall conv1dTransposed() {
  return make({2, 2, 14}, {2, 3, 4}, {3, 2, 3}, 1, {3}, {1}, {2}, {2}, true);
}

// Groups 2, gradOutput C = 3*2. H = 2*2 - 2 + 2 + 1 + 1 = 6, W = 2*2 + 2 + 1 = 7.
ConvCall conv2dTransposed() {
  return make({2, 6, 6, 7}, {2, 4, 3, 3}, {4, 3, 3, 3}, 2, {2, 2}, {1, 0}, {1, 1}, {1, 0}, true);
}

// D = 2 + 1 + 1 + 1 = 5, H = 2 - 2 + 1 + 1 = 2, W = 2 - 2 + 1 + 1 + 1 = 3.
ConvCall conv3dTransposed() {
  return make({1, 2, 5, 2, 3}, {1, 2, 2, 3, 2}, {2, 2, 2, 2, 2}, 1, {2, 1, 2}, {0, 1, 1}, {1, 1, 1},
              {1, 0, 1}, true);
}

aclFormat convFormat(size_t rank) {
  switch (rank) {
    case 3:
      return ACL_FORMAT_NCL;
    case 4:
      return ACL_FORMAT_NCHW;
    case 5:
      return ACL_FORMAT_NCDHW;
    default:
      return ACL_FORMAT_ND;
  }
}

namespace {

std::unique_ptr<TestTensor> materialize(const TensorDesc& desc) {
  if (!desc.present) return nullptr;
  return std::make_unique<TestTensor>(desc, desc.format.value_or(convFormat(desc.shape.size())));
}

constexpr int64_t kLargestFilledTensor = int64_t{1} << 24;

HostTensor roundOperand(const HostTensor& original, OperandRounding rounding) {
  return {original.shape, roundOperands(original.values, rounding)};
}

ConvGeometry geometryOf(const ConvCall& call) {
  ConvGeometry geometry;
  geometry.transposed = call.transposed;
  geometry.groups = call.groups;
  geometry.stride = *call.stride;
  geometry.dilation = *call.dilation;
  const std::vector<int64_t>& padding = *call.padding;
  const size_t dims = call.input.shape.size() - 2;
  for (size_t i = 0; i < dims; ++i) {
    // 4-element 2D padding is [top, bottom, left, right].
    geometry.padLo.push_back(padding.size() == 4 ? padding[2 * i] : padding[i]);
  }
  return geometry;
}

ConvGradients oracleFor(const ConvCall& call, const HostTensor& gradOutput, const HostTensor& input,
                        const HostTensor& weight, OperandRounding rounding) {
  return convBackwardOracle(roundOperand(gradOutput, rounding), roundOperand(input, rounding),
                            roundOperand(weight, rounding), geometryOf(call));
}

bool differsSomewhere(const OracleResult& a, const OracleResult& b,
                      const std::vector<double>& tol) {
  for (size_t i = 0; i < a.value.size(); ++i) {
    if (std::fabs(a.value[i] - b.value[i]) > 4 * tol[i] + 1e-30) return true;
  }
  return false;
}

void expectUntouched(const char* name, const TestTensor& t, const std::vector<uint8_t>& before) {
  EXPECT_EQ(t.storageBytes(), before) << name << " must not be written";
}

struct OutputsView {
  const TestTensor* gradOutput;
  const TestTensor* input;
  const TestTensor* weight;
  const std::unique_ptr<TestTensor>* outputs;
  const std::vector<uint8_t>* outputBytesBefore;
};

void checkEmptyPath(const ConvCall& call, const OutputsView& m, const std::vector<bool>& mask) {
  if (m.outputs[0])
    expectUntouched("gradInput (empty path)", *m.outputs[0], m.outputBytesBefore[0]);
  if (m.outputs[1] && mask[1]) {
    expectValues("gradWeight (empty path, zero-filled)", m.outputs[1]->values(),
                 std::vector<double>(m.outputs[1]->numel(), 0.0));
  }
  if (m.outputs[2] && mask[2]) {
    // Decision 4: the true sum of gradOutput over N and the spatial dims.
    HostTensor gradOutput{call.gradOutput.shape, m.gradOutput->values()};
    const int64_t channels = gradOutput.shape[1];
    const int64_t inner =
        gradOutput.values.size() / std::max<int64_t>(1, gradOutput.shape[0] * channels);
    // Without elements every sum is zero, whatever gradBias's length.
    const bool noTerms = gradOutput.values.empty();
    std::vector<double> sums(static_cast<size_t>(noTerms ? m.outputs[2]->numel() : channels), 0.0);
    for (int64_t n = 0; n < gradOutput.shape[0]; ++n)
      for (int64_t c = 0; c < channels; ++c)
        for (int64_t s = 0; s < inner; ++s)
          sums[c] += gradOutput.values[(n * channels + c) * inner + s];
    expectValues("gradBias (empty path, true sum)", m.outputs[2]->values(),
                 roundThrough(sums, {call.gradOutput.dtype, call.gradBias.dtype}));
  }
}

void checkComputePath(const ConvCall& call, const OutputsView& m, const std::vector<bool>& mask) {
  const HostTensor gradOutput{call.gradOutput.shape, m.gradOutput->values()};
  const HostTensor input{call.input.shape, m.input->values()};
  const HostTensor weight{call.weight.shape, m.weight->values()};
  const OperandModel operands =
      operandModel(call.gradOutput.dtype, call.input.dtype, call.weight.dtype, call.cubeMathType);
  const ConvGradients expected = oracleFor(call, gradOutput, input, weight, operands.rounding);

  if (call.data == DataPattern::Fine) {
    // The data must be able to tell the cubeMathType models apart.
    const OperandRounding other =
        operands.rounding == OperandRounding::None ? OperandRounding::Hf32 : OperandRounding::None;
    const ConvGradients alternative = oracleFor(call, gradOutput, input, weight, other);
    ASSERT_TRUE(differsSomewhere(expected.gradInput, alternative.gradInput,
                                 tolerancesFor(expected.gradInput.magnitude, call.data)) ||
                differsSomewhere(expected.gradWeight, alternative.gradWeight,
                                 tolerancesFor(expected.gradWeight.magnitude, call.data)))
        << "test data cannot distinguish the cubeMathType rounding models";
  }

  if (mask[0]) {
    expectValues(
        "gradInput", m.outputs[0]->values(),
        roundThrough(expected.gradInput.value, {ACL_FLOAT, operands.dtype, call.gradInput.dtype}),
        tolerancesFor(expected.gradInput.magnitude, call.data));
  }
  if (mask[1]) {
    expectValues("gradWeight", m.outputs[1]->values(),
                 roundThrough(expected.gradWeight.value, {ACL_FLOAT, call.gradWeight.dtype}),
                 tolerancesFor(expected.gradWeight.magnitude, call.data));
  }
  if (mask[2]) {
    // Section 6.3: from the original gradOutput, rounded once to its dtype.
    const ConvGradients plain = convBackwardOracle(gradOutput, input, weight, geometryOf(call));
    expectValues("gradBias", m.outputs[2]->values(),
                 roundThrough(plain.gradBias.value, {call.gradOutput.dtype, call.gradBias.dtype}));
  }
  const char* names[3] = {"gradInput", "gradWeight", "gradBias"};
  for (int i = 0; i < 3; ++i) {
    if (m.outputs[i] && mask[i]) {
      EXPECT_EQ(m.outputs[i]->changedBytesOutsideView(m.outputBytesBefore[i]), 0)
          << names[i] << " was written outside its view";
    }
  }
}

}  // namespace

ConvInvocation::ConvInvocation(ConvCall call) : call_(std::move(call)) {
  gradOutput_ = materialize(call_.gradOutput);
  input_ = materialize(call_.input);
  weight_ = materialize(call_.weight);
  outputs_[0] = materialize(call_.gradInput);
  outputs_[1] = materialize(call_.gradWeight);
  outputs_[2] = materialize(call_.gradBias);
  int seed = 1;
  for (TestTensor* t : {gradOutput_.get(), input_.get(), weight_.get()}) {
    ++seed;
    if (!t || !isFloatType(t->desc().dtype) || t->numel() > kLargestFilledTensor) continue;
    t->fillStorageBytes(0);  // defined bytes around strided views
    t->setValues(patternValues(t->numel(), seed, call_.data));
  }
  for (int i = 0; i < 3; ++i) {
    if (!outputs_[i]) continue;
    outputs_[i]->fillStorageBytes(kSentinelByte);
    outputBytesBefore_[i] = outputs_[i]->storageBytes();
  }
  biasSizes_ = makeIntArray(call_.biasSizes);
  stride_ = makeIntArray(call_.stride);
  padding_ = makeIntArray(call_.padding);
  dilation_ = makeIntArray(call_.dilation);
  outputPadding_ = makeIntArray(call_.outputPadding);
  outputMask_ = makeBoolArray(call_.outputMask);
}

ConvInvocation::~ConvInvocation() = default;

aclnnStatus ConvInvocation::getWorkspaceSize() {
  auto handle = [](const std::unique_ptr<TestTensor>& t) { return t ? t->get() : nullptr; };
  return aclnnConvolutionBackwardGetWorkspaceSize(
      handle(gradOutput_), handle(input_), handle(weight_), biasSizes_.get(), stride_.get(),
      padding_.get(), dilation_.get(), call_.transposed, outputPadding_.get(), call_.groups,
      outputMask_.get(), call_.cubeMathType, handle(outputs_[0]), handle(outputs_[1]),
      handle(outputs_[2]), call_.nullWorkspaceSize ? nullptr : &workspaceSize_,
      call_.nullExecutor ? nullptr : &executor_);
}

void ConvInvocation::destroyDescriptors() {
  biasSizes_.reset();
  stride_.reset();
  padding_.reset();
  dilation_.reset();
  outputPadding_.reset();
  outputMask_.reset();
  for (TestTensor* t : {gradOutput_.get(), input_.get(), weight_.get(), outputs_[0].get(),
                        outputs_[1].get(), outputs_[2].get()}) {
    if (t) t->destroyHandle();
  }
}

std::vector<uint8_t> ConvInvocation::outputBytes(int index) const {
  return outputs_[index] ? outputs_[index]->storageBytes() : std::vector<uint8_t>{};
}

void ConvInvocation::checkOutputsUntouched() {
  for (int i = 0; i < 3; ++i) {
    if (outputs_[i])
      expectUntouched("output of a rejected call", *outputs_[i], outputBytesBefore_[i]);
  }
}

void ConvInvocation::checkOutputs() {
  const std::vector<bool>& mask = *call_.outputMask;
  for (int i = 0; i < 3; ++i) {
    if (outputs_[i] && !mask[i]) {
      expectUntouched("masked-off output", *outputs_[i], outputBytesBefore_[i]);
    }
  }
  const OutputsView view{gradOutput_.get(), input_.get(), weight_.get(), outputs_,
                         outputBytesBefore_};
  if (input_->numel() == 0 || weight_->numel() == 0) {
    checkEmptyPath(call_, view, mask);
  } else {
    checkComputePath(call_, view, mask);
  }
}

void runConvCase(const ConvCase& testCase) {
  ConvInvocation invocation(testCase.call);
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
  ASSERT_EQ(aclnnConvolutionBackward(workspace.get(), invocation.workspaceSize(),
                                     invocation.executor(), testStream()),
            ACLNN_SUCCESS);
  ASSERT_EQ(aclrtSynchronizeStream(testStream()), ACL_SUCCESS);
  invocation.checkOutputs();
}

}  // namespace conformance
