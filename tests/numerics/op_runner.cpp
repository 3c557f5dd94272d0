#include "numerics/op_runner.h"

#include <gtest/gtest.h>

#include <memory>
#include <sstream>

#include "acl/acl.h"
#include "common/thread_pool.h"

namespace numerics {
namespace {

constexpr int32_t kDevice = 0;

// aclInit, a device and one stream for the whole test binary.
class AclEnvironment : public ::testing::Environment {
 public:
  void SetUp() override {
    ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS) << aclGetRecentErrMsg();
    ASSERT_EQ(aclrtSetDevice(kDevice), ACL_SUCCESS) << aclGetRecentErrMsg();
    ASSERT_EQ(aclrtCreateStream(&stream_), ACL_SUCCESS) << aclGetRecentErrMsg();
  }
  void TearDown() override {
    if (stream_) {
      EXPECT_EQ(aclrtDestroyStream(stream_), ACL_SUCCESS);
    }
    stream_ = nullptr;
    EXPECT_EQ(aclrtResetDevice(kDevice), ACL_SUCCESS);
    EXPECT_EQ(aclFinalize(), ACL_SUCCESS);
  }
  static aclrtStream stream() { return stream_; }

 private:
  static aclrtStream stream_;
};
aclrtStream AclEnvironment::stream_ = nullptr;

[[maybe_unused]] ::testing::Environment* const kEnvironment =
    ::testing::AddGlobalTestEnvironment(new AclEnvironment);

class DeviceBuffer {
 public:
  explicit DeviceBuffer(size_t bytes) {
    // aclrtMalloc rejects size 0; empty tensors still get a real address.
    if (aclrtMalloc(&ptr_, bytes == 0 ? 64 : bytes, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS)
      ptr_ = nullptr;
  }
  ~DeviceBuffer() {
    if (ptr_) aclrtFree(ptr_);
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  void* get() const { return ptr_; }

 private:
  void* ptr_ = nullptr;
};

aclFormat formatFor(size_t rank, const RunOptions& options) {
  switch (rank) {
    case 3:
      return options.rank3AsNcl ? ACL_FORMAT_NCL : ACL_FORMAT_ND;
    case 4:
      return ACL_FORMAT_NCHW;
    case 5:
      return ACL_FORMAT_NCDHW;
    default:
      return ACL_FORMAT_ND;
  }
}

// A host tensor's device copy and its aclTensor descriptor.
class DeviceTensor {
 public:
  DeviceTensor(const HostTensor& host, aclFormat format)
      : buffer_(host.storage().size()), bytes_(host.storage().size()) {
    if (!buffer_.get()) return;
    if (bytes_ > 0 && aclrtMemcpy(buffer_.get(), bytes_, host.storage().data(), bytes_,
                                  ACL_MEMCPY_HOST_TO_DEVICE) != ACL_SUCCESS)
      return;
    const Layout& l = host.layout();
    const int64_t storageDims[1] = {l.storageElements};
    tensor_ = aclCreateTensor(l.shape.data(), l.shape.size(), aclTypeOf(host.dtype()),
                              l.strides.data(), l.offset, format, storageDims, 1, buffer_.get());
  }
  ~DeviceTensor() {
    if (tensor_) aclDestroyTensor(tensor_);
  }
  DeviceTensor(const DeviceTensor&) = delete;
  DeviceTensor& operator=(const DeviceTensor&) = delete;

  aclTensor* get() const { return tensor_; }
  // True when the device copy still equals the host tensor (inputs are read only).
  bool unchanged(const HostTensor& host) const {
    std::vector<uint8_t> now(bytes_);
    if (bytes_ > 0 && aclrtMemcpy(now.data(), bytes_, buffer_.get(), bytes_,
                                  ACL_MEMCPY_DEVICE_TO_HOST) != ACL_SUCCESS)
      return false;
    return now == host.storage();
  }
  bool download(HostTensor* host) const {
    return bytes_ == 0 || aclrtMemcpy(host->storage().data(), bytes_, buffer_.get(), bytes_,
                                      ACL_MEMCPY_DEVICE_TO_HOST) == ACL_SUCCESS;
  }

 private:
  DeviceBuffer buffer_;
  size_t bytes_;
  aclTensor* tensor_ = nullptr;
};

std::unique_ptr<DeviceTensor> deviceCopy(const HostTensor* host, aclFormat format) {
  if (!host) return nullptr;
  return std::make_unique<DeviceTensor>(*host, format);
}

aclTensor* handle(const std::unique_ptr<DeviceTensor>& t) { return t ? t->get() : nullptr; }

struct IntArray {
  explicit IntArray(const std::vector<int64_t>& v) : array(aclCreateIntArray(v.data(), v.size())) {}
  ~IntArray() { aclDestroyIntArray(array); }
  IntArray(const IntArray&) = delete;
  IntArray& operator=(const IntArray&) = delete;
  aclIntArray* array;
};

struct BoolArray {
  explicit BoolArray(const std::array<bool, 3>& v) : array(aclCreateBoolArray(v.data(), 3)) {}
  ~BoolArray() { aclDestroyBoolArray(array); }
  BoolArray(const BoolArray&) = delete;
  BoolArray& operator=(const BoolArray&) = delete;
  aclBoolArray* array;
};

std::string recentError() {
  const char* message = aclGetRecentErrMsg();
  return message ? message : "";
}

// Phase 2 + synchronize + download, shared by both operators.
template <typename Phase2>
void finishRun(Phase2 phase2, aclOpExecutor* executor, OpOutcome* outcome,
               std::initializer_list<std::pair<const DeviceTensor*, const HostTensor*>> inputs,
               std::initializer_list<std::pair<const DeviceTensor*, HostTensor*>> outputs) {
  std::unique_ptr<DeviceBuffer> workspace;
  if (outcome->workspaceSize > 0) {
    workspace = std::make_unique<DeviceBuffer>(outcome->workspaceSize);
    if (!workspace->get()) {
      outcome->message = "aclrtMalloc of the workspace failed";
      return;
    }
  }
  outcome->phase2 = phase2(workspace ? workspace->get() : nullptr, outcome->workspaceSize, executor,
                           AclEnvironment::stream());
  if (outcome->phase2 != 0) {
    outcome->message = recentError();
    return;
  }
  outcome->synchronize = aclrtSynchronizeStream(AclEnvironment::stream());
  if (outcome->synchronize != ACL_SUCCESS) outcome->message = recentError();
  for (const auto& [device, host] : outputs) {
    if (device && host && !device->download(host)) outcome->message = "download failed";
  }
  for (const auto& [device, host] : inputs) {
    if (!device->unchanged(*host)) outcome->inputsModified = true;
  }
}

bool allCreated(std::initializer_list<const std::unique_ptr<DeviceTensor>*> tensors) {
  for (const auto* t : tensors)
    if (*t && !(*t)->get()) return false;
  return true;
}

}  // namespace

std::string OpOutcome::describe() const {
  std::ostringstream out;
  if (inputsModified) out << "AN INPUT WAS MODIFIED ";
  out << "phase1=" << phase1 << " phase2=" << phase2 << " sync=" << synchronize
      << " workspace=" << workspaceSize;
  if (!message.empty()) out << " message: " << message;
  return out.str();
}

OpOutcome runConvolutionBackward(const ConvAttrs& attrs, const HostTensor& gradOutput,
                                 const HostTensor& input, const HostTensor& weight,
                                 HostTensor* gradInput, HostTensor* gradWeight,
                                 HostTensor* gradBias, const RunOptions& options) {
  OpOutcome outcome;
  auto fmt = [&](const HostTensor* t) { return formatFor(t ? t->shape().size() : 0, options); };
  const auto dGradOutput = deviceCopy(&gradOutput, fmt(&gradOutput));
  const auto dInput = deviceCopy(&input, fmt(&input));
  const auto dWeight = deviceCopy(&weight, fmt(&weight));
  const auto dGradInput = deviceCopy(gradInput, fmt(gradInput));
  const auto dGradWeight = deviceCopy(gradWeight, fmt(gradWeight));
  const auto dGradBias = deviceCopy(gradBias, ACL_FORMAT_ND);
  if (!allCreated({&dGradOutput, &dInput, &dWeight, &dGradInput, &dGradWeight, &dGradBias})) {
    outcome.message = "device tensor creation failed: " + recentError();
    return outcome;
  }
  const std::unique_ptr<IntArray> biasSizes =
      attrs.biasSizes.empty() ? nullptr : std::make_unique<IntArray>(attrs.biasSizes);
  const IntArray stride(attrs.stride), padding(attrs.padding), dilation(attrs.dilation),
      outputPadding(attrs.outputPadding);
  const BoolArray mask(attrs.mask);

  if (options.computeThreads > 0) aclcpu::setComputeThreadCount(options.computeThreads);
  aclOpExecutor* executor = nullptr;
  outcome.phase1 = aclnnConvolutionBackwardGetWorkspaceSize(
      dGradOutput->get(), dInput->get(), dWeight->get(), biasSizes ? biasSizes->array : nullptr,
      stride.array, padding.array, dilation.array, attrs.transposed, outputPadding.array,
      attrs.groups, mask.array, attrs.cubeMathType, handle(dGradInput), handle(dGradWeight),
      handle(dGradBias), &outcome.workspaceSize, &executor);
  if (outcome.phase1 != 0) {
    outcome.message = recentError();
    return outcome;
  }
  finishRun(aclnnConvolutionBackward, executor, &outcome,
            {{dGradOutput.get(), &gradOutput}, {dInput.get(), &input}, {dWeight.get(), &weight}},
            {{dGradInput.get(), gradInput},
             {dGradWeight.get(), gradWeight},
             {dGradBias.get(), gradBias}});
  return outcome;
}

OpOutcome runConvTbcBackward(const HostTensor& self, const HostTensor& input,
                             const HostTensor& weight, const HostTensor& bias, int64_t pad,
                             int8_t cubeMathType, HostTensor* gradInput, HostTensor* gradWeight,
                             HostTensor* gradBias, const RunOptions& options) {
  OpOutcome outcome;
  const aclFormat tbc = options.rank3AsNcl ? ACL_FORMAT_NCL : ACL_FORMAT_ND;
  const auto dSelf = deviceCopy(&self, tbc);
  const auto dInput = deviceCopy(&input, tbc);
  const auto dWeight = deviceCopy(&weight, tbc);
  const auto dBias = deviceCopy(&bias, ACL_FORMAT_ND);
  const auto dGradInput = deviceCopy(gradInput, tbc);
  const auto dGradWeight = deviceCopy(gradWeight, tbc);
  const auto dGradBias = deviceCopy(gradBias, ACL_FORMAT_ND);
  if (!allCreated({&dSelf, &dInput, &dWeight, &dBias, &dGradInput, &dGradWeight, &dGradBias})) {
    outcome.message = "device tensor creation failed: " + recentError();
    return outcome;
  }
  if (options.computeThreads > 0) aclcpu::setComputeThreadCount(options.computeThreads);
  aclOpExecutor* executor = nullptr;
  outcome.phase1 = aclnnConvTbcBackwardGetWorkspaceSize(
      dSelf->get(), dInput->get(), dWeight->get(), dBias->get(), pad, cubeMathType,
      handle(dGradInput), handle(dGradWeight), handle(dGradBias), &outcome.workspaceSize,
      &executor);
  if (outcome.phase1 != 0) {
    outcome.message = recentError();
    return outcome;
  }
  finishRun(aclnnConvTbcBackward, executor, &outcome,
            {{dSelf.get(), &self},
             {dInput.get(), &input},
             {dWeight.get(), &weight},
             {dBias.get(), &bias}},
            {{dGradInput.get(), gradInput},
             {dGradWeight.get(), gradWeight},
             {dGradBias.get(), gradBias}});
  return outcome;
}

OpOutcome runConvolution(const ForwardConvAttrs& attrs, const HostTensor& input,
                         const HostTensor& weight, const HostTensor* bias, HostTensor* output,
                         const RunOptions& options) {
  OpOutcome outcome;
  const auto dInput = deviceCopy(&input, attrs.inputFormat);
  const auto dWeight = deviceCopy(&weight, attrs.weightFormat);
  const auto dBias = deviceCopy(bias, ACL_FORMAT_ND);
  const auto dOutput = deviceCopy(output, attrs.outputFormat);
  if (!allCreated({&dInput, &dWeight, &dBias, &dOutput})) {
    outcome.message = "device tensor creation failed: " + recentError();
    return outcome;
  }
  const IntArray stride(attrs.stride), padding(attrs.padding), dilation(attrs.dilation),
      outputPadding(attrs.outputPadding);
  if (options.computeThreads > 0) aclcpu::setComputeThreadCount(options.computeThreads);
  aclOpExecutor* executor = nullptr;
  outcome.phase1 = aclnnConvolutionGetWorkspaceSize(
      dInput->get(), dWeight->get(), handle(dBias), stride.array, padding.array, dilation.array,
      attrs.transposed, outputPadding.array, attrs.groups, handle(dOutput), attrs.cubeMathType,
      &outcome.workspaceSize, &executor);
  if (outcome.phase1 != 0) {
    outcome.message = recentError();
    return outcome;
  }
  if (dBias) {
    finishRun(aclnnConvolution, executor, &outcome,
              {{dInput.get(), &input}, {dWeight.get(), &weight}, {dBias.get(), bias}},
              {{dOutput.get(), output}});
  } else {
    finishRun(aclnnConvolution, executor, &outcome,
              {{dInput.get(), &input}, {dWeight.get(), &weight}}, {{dOutput.get(), output}});
  }
  return outcome;
}

OpOutcome runConvDepthwise2d(const DepthwiseAttrs& attrs, const HostTensor& self,
                             const HostTensor& weight, const HostTensor* bias, HostTensor* out,
                             const RunOptions& options) {
  OpOutcome outcome;
  const auto dSelf = deviceCopy(&self, ACL_FORMAT_NCHW);
  const auto dWeight = deviceCopy(&weight, ACL_FORMAT_NCHW);
  const auto dBias = deviceCopy(bias, ACL_FORMAT_ND);
  const auto dOut = deviceCopy(out, ACL_FORMAT_NCHW);
  if (!allCreated({&dSelf, &dWeight, &dBias, &dOut})) {
    outcome.message = "device tensor creation failed: " + recentError();
    return outcome;
  }
  const IntArray kernelSize(attrs.kernelSize), stride(attrs.stride), padding(attrs.padding),
      dilation(attrs.dilation);
  if (options.computeThreads > 0) aclcpu::setComputeThreadCount(options.computeThreads);
  aclOpExecutor* executor = nullptr;
  outcome.phase1 = aclnnConvDepthwise2dGetWorkspaceSize(
      dSelf->get(), dWeight->get(), kernelSize.array, handle(dBias), stride.array, padding.array,
      dilation.array, handle(dOut), attrs.cubeMathType, &outcome.workspaceSize, &executor);
  if (outcome.phase1 != 0) {
    outcome.message = recentError();
    return outcome;
  }
  if (dBias) {
    finishRun(aclnnConvDepthwise2d, executor, &outcome,
              {{dSelf.get(), &self}, {dWeight.get(), &weight}, {dBias.get(), bias}},
              {{dOut.get(), out}});
  } else {
    finishRun(aclnnConvDepthwise2d, executor, &outcome,
              {{dSelf.get(), &self}, {dWeight.get(), &weight}}, {{dOut.get(), out}});
  }
  return outcome;
}

OpOutcome runConvTbc(const HostTensor& self, const HostTensor& weight, const HostTensor& bias,
                     int64_t pad, int8_t cubeMathType, HostTensor* output,
                     const RunOptions& options) {
  OpOutcome outcome;
  const aclFormat tbc = options.rank3AsNcl ? ACL_FORMAT_NCL : ACL_FORMAT_ND;
  const auto dSelf = deviceCopy(&self, tbc);
  const auto dWeight = deviceCopy(&weight, tbc);
  const auto dBias = deviceCopy(&bias, ACL_FORMAT_ND);
  const auto dOutput = deviceCopy(output, tbc);
  if (!allCreated({&dSelf, &dWeight, &dBias, &dOutput})) {
    outcome.message = "device tensor creation failed: " + recentError();
    return outcome;
  }
  if (options.computeThreads > 0) aclcpu::setComputeThreadCount(options.computeThreads);
  aclOpExecutor* executor = nullptr;
  outcome.phase1 =
      aclnnConvTbcGetWorkspaceSize(dSelf->get(), dWeight->get(), dBias->get(), pad, handle(dOutput),
                                   cubeMathType, &outcome.workspaceSize, &executor);
  if (outcome.phase1 != 0) {
    outcome.message = recentError();
    return outcome;
  }
  finishRun(aclnnConvTbc, executor, &outcome,
            {{dSelf.get(), &self}, {dWeight.get(), &weight}, {dBias.get(), &bias}},
            {{dOutput.get(), output}});
  return outcome;
}

}  // namespace numerics
