#include "conformance_forward/forward_call.h"

#include <cmath>
#include <memory>

#include "aclnnop/aclnn_convolution.h"
#include "conformance/acl_session.h"
#include "conformance/check_values.h"
#include "conformance/operand_model.h"
#include "reference/reference_conv.h"
#include "support/axis_permutation.h"

namespace conformance {

ForwardCall with(ForwardCall base, const std::function<void(ForwardCall&)>& mutate) {
  mutate(base);
  return base;
}

namespace {

ForwardCall make(std::vector<int64_t> input, std::vector<int64_t> weight,
                 std::vector<int64_t> output, int64_t groups, std::vector<int64_t> stride,
                 std::vector<int64_t> padding, std::vector<int64_t> dilation,
                 std::vector<int64_t> outputPadding, bool transposed, int64_t biasChannels) {
  ForwardCall call;
  call.input = tensor(std::move(input));
  call.weight = tensor(std::move(weight));
  call.output = tensor(std::move(output));
  call.bias = tensor({biasChannels});
  call.groups = groups;
  call.stride = std::move(stride);
  call.padding = std::move(padding);
  call.dilation = std::move(dilation);
  call.outputPadding = std::move(outputPadding);
  call.transposed = transposed;
  return call;
}

}  // namespace

// L: (9 + 2 - 3) / 2 + 1 = 5.
ForwardCall conv1d() {
  return make({2, 4, 9}, {6, 4, 3}, {2, 6, 5}, 1, {2}, {1}, {1}, {0}, false, 6);
}

// Groups 2. H: (5 + 2 - 3) / 2 + 1 = 3. W: (5 + 2 - 2*2 - 1) / 1 + 1 = 3.
ForwardCall conv2d() {
  return make({2, 4, 5, 5}, {6, 2, 3, 3}, {2, 6, 3, 3}, 2, {2, 1}, {1, 1}, {1, 2}, {0, 0}, false,
              6);
}

// Groups 2. D: 4 - 2 + 1 = 3. H: (5 + 2 - 3) / 2 + 1 = 3. W: 3 - 1 + 1 = 3.
ForwardCall conv3d() {
  return make({1, 4, 4, 5, 3}, {4, 2, 2, 3, 1}, {1, 4, 3, 3, 3}, 2, {1, 2, 1}, {0, 1, 0}, {1, 1, 2},
              {0, 0, 0}, false, 4);
}

// (4 - 1)*3 - 2*1 + 2*(3 - 1) + 2 + 1 = 14; channels weight[1] * G = 2.
ForwardCall conv1dTransposed() {
  return make({2, 3, 4}, {3, 2, 3}, {2, 2, 14}, 1, {3}, {1}, {2}, {2}, true, 2);
}

// Groups 2, channels 3*2 = 6. H = 2*2 - 2 + 2 + 1 + 1 = 6, W = 2*2 - 0 + 2 + 0 + 1 = 7.
ForwardCall conv2dTransposed() {
  return make({2, 4, 3, 3}, {4, 3, 3, 3}, {2, 6, 6, 7}, 2, {2, 2}, {1, 0}, {1, 1}, {1, 0}, true, 6);
}

// D = 2 - 0 + 1 + 1 + 1 = 5, H = 2 - 2 + 1 + 0 + 1 = 2, W = 2 - 2 + 1 + 1 + 1 = 3.
ForwardCall conv3dTransposed() {
  return make({1, 2, 2, 3, 2}, {2, 2, 2, 2, 2}, {1, 2, 5, 2, 3}, 1, {2, 1, 2}, {0, 1, 1}, {1, 1, 1},
              {1, 0, 1}, true, 2);
}

// Multiplier 2. H: (5 + 2 - 3) / 1 + 1 = 5. W: (5 - 3) / 2 + 1 = 2.
ForwardCall depthwise() {
  ForwardCall call =
      make({2, 3, 5, 5}, {6, 1, 3, 3}, {2, 6, 5, 2}, 3, {1, 2}, {1, 0}, {1, 1}, {}, false, 6);
  call.op = ForwardOp::Depthwise2d;
  call.outputPadding.reset();
  call.kernelSize = std::vector<int64_t>{3, 3};
  return call;
}

// T = 5, B = 2, C_in = 3, C_out = 4, K = 3, pad 1: T_out = 5 + 2 - 3 + 1 = 5.
ForwardCall tbc() {
  ForwardCall call;
  call.op = ForwardOp::ConvTbc;
  call.input = tensor({5, 2, 3});
  call.weight = tensor({3, 3, 4});
  call.bias = tensor({4});
  call.output = tensor({5, 2, 4});
  call.pad = 1;
  return call;
}

void setDtypes(ForwardCall& call, aclDataType dtype) {
  call.input.dtype = call.weight.dtype = call.bias.dtype = call.output.dtype = dtype;
}

namespace {

aclFormat defaultFormat(const ForwardCall& call, size_t rank, bool isBias) {
  if (isBias) return ACL_FORMAT_ND;
  if (call.op == ForwardOp::ConvTbc) return ACL_FORMAT_ND;
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

std::unique_ptr<TestTensor> materialize(const ForwardCall& call, const TensorDesc& desc,
                                        bool isBias) {
  if (!desc.present) return nullptr;
  return std::make_unique<TestTensor>(
      desc, desc.format.value_or(defaultFormat(call, desc.shape.size(), isBias)));
}

constexpr int64_t kLargestFilledTensor = int64_t{1} << 20;

bool isFilledFloat(const TestTensor* t) {
  if (!t || !isFloatType(t->desc().dtype)) return false;
  for (int64_t d : t->desc().shape)
    if (d < 0) return false;
  return t->numel() <= kLargestFilledTensor;
}

using test_support::Axes;

Axes axesOf(const ForwardCall& call, const TestTensor& t, bool isWeight) {
  if (call.op == ForwardOp::ConvTbc)
    return isWeight ? test_support::kernelMajorAxes() : test_support::timeMajorAxes();
  if (t.desc().shape.size() == 5 && t.desc().format == ACL_FORMAT_NDHWC)
    return test_support::ndhwcAxes();
  return test_support::identityAxes(t.desc().shape.size());
}

aclDataType promote(aclDataType a, aclDataType b) { return a == b ? a : ACL_FLOAT; }

}  // namespace

ForwardInvocation::ForwardInvocation(ForwardCall call) : call_(std::move(call)) {
  input_ = materialize(call_, call_.input, false);
  weight_ = materialize(call_, call_.weight, false);
  bias_ = materialize(call_, call_.bias, true);
  output_ = materialize(call_, call_.output, false);
  int seed = 11;
  for (TestTensor* t : {input_.get(), weight_.get(), bias_.get()}) {
    ++seed;
    if (!isFilledFloat(t)) continue;
    t->fillStorageBytes(0);
    t->setValues(patternValues(t->numel(), seed, DataPattern::Grid));
  }
  if (output_) {
    output_->fillStorageBytes(kSentinelByte);
    outputBefore_ = output_->storageBytes();
  }
  stride_ = makeIntArray(call_.stride);
  padding_ = makeIntArray(call_.padding);
  dilation_ = makeIntArray(call_.dilation);
  outputPadding_ = makeIntArray(call_.outputPadding);
  kernelSize_ = makeIntArray(call_.kernelSize);
}

ForwardInvocation::~ForwardInvocation() = default;

aclnnStatus ForwardInvocation::getWorkspaceSize() {
  auto h = [](const std::unique_ptr<TestTensor>& t) { return t ? t->get() : nullptr; };
  uint64_t* size = call_.nullWorkspaceSize ? nullptr : &workspaceSize_;
  aclOpExecutor** executor = call_.nullExecutor ? nullptr : &executor_;
  switch (call_.op) {
    case ForwardOp::Depthwise2d:
      return aclnnConvDepthwise2dGetWorkspaceSize(
          h(input_), h(weight_), kernelSize_.get(), h(bias_), stride_.get(), padding_.get(),
          dilation_.get(), h(output_), call_.cubeMathType, size, executor);
    case ForwardOp::ConvTbc:
      return aclnnConvTbcGetWorkspaceSize(h(input_), h(weight_), h(bias_), call_.pad, h(output_),
                                          call_.cubeMathType, size, executor);
    default:
      return aclnnConvolutionGetWorkspaceSize(h(input_), h(weight_), h(bias_), stride_.get(),
                                              padding_.get(), dilation_.get(), call_.transposed,
                                              outputPadding_.get(), call_.groups, h(output_),
                                              call_.cubeMathType, size, executor);
  }
}

aclnnStatus ForwardInvocation::launch(void* workspace, uint64_t size, aclOpExecutor* executor) {
  switch (call_.op) {
    case ForwardOp::Depthwise2d:
      return aclnnConvDepthwise2d(workspace, size, executor, testStream());
    case ForwardOp::ConvTbc:
      return aclnnConvTbc(workspace, size, executor, testStream());
    default:
      return aclnnConvolution(workspace, size, executor, testStream());
  }
}

void ForwardInvocation::checkOutputUntouched() {
  if (output_) {
    EXPECT_EQ(output_->storageBytes(), outputBefore_) << "output must not be written";
  }
}

void ForwardInvocation::checkOutput() {
  if (output_->numel() == 0) {
    checkOutputUntouched();
    return;
  }
  EXPECT_EQ(output_->changedBytesOutsideView(outputBefore_), 0) << "written outside its view";
  // The reference, in [N, C, spatial...] order, with decision 8's rounding;
  // grid data keeps every sum exact, so the comparison is exact.
  const Axes inAxes = axesOf(call_, *input_, false), wAxes = axesOf(call_, *weight_, true),
             outAxes = axesOf(call_, *output_, false);
  aclcpu::reference::ConvParams p;
  p.transposed = call_.transposed;
  p.groups = call_.op == ForwardOp::Depthwise2d ? call_.input.shape[1] : call_.groups;
  p.inputShape = test_support::logicalShape(call_.input.shape, inAxes);
  p.weightShape = test_support::logicalShape(call_.weight.shape, wAxes);
  p.gradOutputShape = test_support::logicalShape(call_.output.shape, outAxes);
  p.spatialDims = static_cast<int>(p.inputShape.size()) - 2;
  for (int s = 0; s < p.spatialDims; ++s) {
    if (call_.op == ForwardOp::ConvTbc) {
      p.stride.push_back(1);
      p.dilation.push_back(1);
      p.padBefore.push_back(call_.pad);
      p.padAfter.push_back(call_.pad);
      continue;
    }
    const auto& padding = *call_.padding;
    const bool two = padding.size() == static_cast<size_t>(2 * p.spatialDims);
    p.stride.push_back((*call_.stride)[s]);
    p.dilation.push_back((*call_.dilation)[s]);
    p.padBefore.push_back(two ? padding[2 * s] : padding[s]);
    p.padAfter.push_back(two ? padding[2 * s + 1] : padding[s]);
  }
  const aclDataType compute =
      call_.cubeMathType == 2 ? ACL_FLOAT16 : promote(call_.input.dtype, call_.weight.dtype);
  std::vector<double> expected(static_cast<size_t>(output_->numel()), 0.0);
  std::vector<double> sum(expected.size(), 0.0);
  if (input_->numel() > 0 && weight_->numel() > 0)
    sum = aclcpu::reference::convolutionForward(
        p, test_support::toLogical(input_->values(), call_.input.shape, inAxes),
        test_support::toLogical(weight_->values(), call_.weight.shape, wAxes));
  const std::vector<double> bias = bias_ ? bias_->values() : std::vector<double>();
  const std::vector<int64_t> map = test_support::logicalIndexOf(call_.output.shape, outAxes);
  int64_t spatial = 1;
  for (size_t i = 2; i < p.gradOutputShape.size(); ++i) spatial *= p.gradOutputShape[i];
  for (size_t i = 0; i < expected.size(); ++i) {
    const int64_t logical = map[i];
    const double b = bias.empty() ? 0.0 : bias[(logical / spatial) % p.gradOutputShape[1]];
    expected[i] = roundToDtype(
        roundToDtype(
            sum[logical] + roundToDtype(b, compute == ACL_FLOAT16 ? ACL_FLOAT16 : ACL_FLOAT),
            compute),
        call_.output.dtype);
  }
  expectValues("output", output_->values(), expected);
}

void runForwardCase(const ForwardCase& testCase) {
  ForwardInvocation invocation(testCase.call);
  clearErrorMessages();
  const aclnnStatus status = invocation.getWorkspaceSize();
  ASSERT_EQ(status, testCase.expected);
  if (status != ACLNN_SUCCESS) {
    const std::string message = expectErrorMessageRecorded();
    if (!testCase.mentions.empty()) {
      EXPECT_NE(message.find(testCase.mentions), std::string::npos)
          << "message should name '" << testCase.mentions << "': " << message;
    }
    invocation.checkOutputUntouched();
    return;
  }
  ASSERT_NE(invocation.executor(), nullptr);
  DeviceBuffer workspace(invocation.workspaceSize());
  ASSERT_EQ(invocation.launch(workspace.get(), invocation.workspaceSize(), invocation.executor()),
            ACLNN_SUCCESS);
  ASSERT_EQ(aclrtSynchronizeStream(testStream()), ACL_SUCCESS);
  invocation.checkOutput();
}

TEST_P(Forward, Conforms) { runForwardCase(GetParam()); }

}  // namespace conformance
