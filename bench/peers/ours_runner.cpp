#include "ours_runner.h"

#include <memory>

#include "aclnnop/aclnn_convolution_backward.h"

namespace peers {
namespace {

aclFormat formatForRank(size_t rank) {
  return rank == 3 ? ACL_FORMAT_NCL : rank == 4 ? ACL_FORMAT_NCHW : ACL_FORMAT_NCDHW;
}

// A contiguous fp32 device buffer and the aclTensor describing it.
class DeviceTensor {
 public:
  DeviceTensor(const std::vector<int64_t>& shape, aclFormat format)
      : bytes_(static_cast<size_t>(elementCount(shape)) * sizeof(float)) {
    if (aclrtMalloc(&data_, bytes_, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) data_ = nullptr;
    tensor_ = aclCreateTensor(shape.data(), shape.size(), ACL_FLOAT, nullptr, 0, format,
                              shape.data(), shape.size(), data_);
  }
  ~DeviceTensor() {
    aclDestroyTensor(tensor_);
    aclrtFree(data_);
  }
  DeviceTensor(const DeviceTensor&) = delete;
  DeviceTensor& operator=(const DeviceTensor&) = delete;

  bool valid() const { return data_ && tensor_; }
  aclTensor* get() const { return tensor_; }
  void upload(const std::vector<float>& values) {
    aclrtMemcpy(data_, bytes_, values.data(), values.size() * sizeof(float),
                ACL_MEMCPY_HOST_TO_DEVICE);
  }
  std::vector<float> download() const {
    std::vector<float> values(bytes_ / sizeof(float));
    aclrtMemcpy(values.data(), bytes_, data_, bytes_, ACL_MEMCPY_DEVICE_TO_HOST);
    return values;
  }

 private:
  size_t bytes_;
  void* data_ = nullptr;
  aclTensor* tensor_ = nullptr;
};

struct ExecutorDeleter {
  void operator()(aclOpExecutor* executor) const { aclDestroyAclOpExecutor(executor); }
};
struct DeviceMemoryDeleter {
  void operator()(void* memory) const { aclrtFree(memory); }
};

std::string recentError(const char* what, int status) {
  const char* message = aclGetRecentErrMsg();
  return std::string(what) + " status " + std::to_string(status) + ": " + (message ? message : "");
}

}  // namespace

Measurement runOurs(const HostProblem& problem, const TimingOptions& options, aclrtStream stream) {
  Measurement m;
  const ProblemSpec& spec = problem.spec;
  const auto inShape = spec.inputShape(), wShape = spec.weightShape(),
             goShape = spec.gradOutputShape();
  const int64_t biasChannels = goShape[1];
  DeviceTensor gradOutput(goShape, formatForRank(goShape.size()));
  DeviceTensor input(inShape, formatForRank(inShape.size()));
  DeviceTensor weight(wShape, formatForRank(wShape.size()));
  DeviceTensor gradInput(inShape, formatForRank(inShape.size()));
  DeviceTensor gradWeight(wShape, formatForRank(wShape.size()));
  DeviceTensor gradBias({biasChannels}, ACL_FORMAT_ND);
  for (const DeviceTensor* t : {&gradOutput, &input, &weight, &gradInput, &gradWeight, &gradBias}) {
    if (!t->valid()) {
      m.error = "device allocation failed";
      return m;
    }
  }
  gradOutput.upload(problem.gradOutput);
  input.upload(problem.input);
  weight.upload(problem.weight);

  const auto strideV = spec.strideArray(), padV = spec.paddingArray(), dilV = spec.dilationArray(),
             opV = spec.outputPaddingArray();
  using IntArray = std::unique_ptr<aclIntArray, aclnnStatus (*)(const aclIntArray*)>;
  IntArray stride(aclCreateIntArray(strideV.data(), strideV.size()), aclDestroyIntArray);
  IntArray padding(aclCreateIntArray(padV.data(), padV.size()), aclDestroyIntArray);
  IntArray dilation(aclCreateIntArray(dilV.data(), dilV.size()), aclDestroyIntArray);
  IntArray outputPadding(aclCreateIntArray(opV.data(), opV.size()), aclDestroyIntArray);
  IntArray biasSizes(aclCreateIntArray(&biasChannels, 1), aclDestroyIntArray);
  const bool maskValues[3] = {true, true, true};
  std::unique_ptr<aclBoolArray, aclnnStatus (*)(const aclBoolArray*)> mask(
      aclCreateBoolArray(maskValues, 3), aclDestroyBoolArray);

  uint64_t workspaceSize = 0;
  aclOpExecutor* rawExecutor = nullptr;
  const int8_t cubeMathType = 0;
  aclnnStatus status = aclnnConvolutionBackwardGetWorkspaceSize(
      gradOutput.get(), input.get(), weight.get(), biasSizes.get(), stride.get(), padding.get(),
      dilation.get(), spec.transposed, outputPadding.get(), static_cast<int>(spec.groups),
      mask.get(), cubeMathType, gradInput.get(), gradWeight.get(), gradBias.get(), &workspaceSize,
      &rawExecutor);
  if (status != 0) {
    m.error = recentError("phase 1", status);
    return m;
  }
  std::unique_ptr<aclOpExecutor, ExecutorDeleter> executor(rawExecutor);
  aclSetAclOpExecutorRepeatable(executor.get());
  std::unique_ptr<void, DeviceMemoryDeleter> workspace;
  if (workspaceSize > 0) {
    void* raw = nullptr;
    if (aclrtMalloc(&raw, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) {
      m.error = "workspace allocation failed";
      return m;
    }
    workspace.reset(raw);
  }

  m.seconds = bestSeconds(options, [&] {
    status = aclnnConvolutionBackward(workspace.get(), workspaceSize, executor.get(), stream);
    if (status != 0) {
      m.error = recentError("phase 2", status);
      return false;
    }
    const aclError sync = aclrtSynchronizeStream(stream);
    if (sync != ACL_SUCCESS) {
      m.error = recentError("synchronize", sync);
      return false;
    }
    return true;
  });
  if (m.seconds < 0) return m;
  m.gradients = {gradInput.download(), gradWeight.download(), gradBias.download()};
  m.ok = true;
  return m;
}

}  // namespace peers
