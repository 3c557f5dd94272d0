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
  // Outputs are written before they are timed, so that no provider pays for
  // first-touch page faults inside the timed runs.
  void clear() { aclrtMemset(data_, bytes_, 0, bytes_); }
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

using IntArray = std::unique_ptr<aclIntArray, aclnnStatus (*)(const aclIntArray*)>;
IntArray intArray(const std::vector<int64_t>& values) {
  return IntArray(aclCreateIntArray(values.data(), values.size()), aclDestroyIntArray);
}

// All tensors and attributes of one problem, shared by every call made on it.
struct Operands {
  explicit Operands(const ProblemSpec& spec)
      : gradOutput(spec.gradOutputShape(), formatForRank(spec.gradOutputShape().size())),
        input(spec.inputShape(), formatForRank(spec.inputShape().size())),
        weight(spec.weightShape(), formatForRank(spec.weightShape().size())),
        gradInput(spec.inputShape(), formatForRank(spec.inputShape().size())),
        gradWeight(spec.weightShape(), formatForRank(spec.weightShape().size())),
        gradBias({spec.gradOutputShape()[1]}, ACL_FORMAT_ND),
        stride(intArray(spec.strideArray())),
        padding(intArray(spec.paddingArray())),
        dilation(intArray(spec.dilationArray())),
        outputPadding(intArray(spec.outputPaddingArray())),
        biasSizes(intArray({spec.gradOutputShape()[1]})) {}

  bool valid() const {
    for (const DeviceTensor* t : {&gradOutput, &input, &weight, &gradInput, &gradWeight, &gradBias})
      if (!t->valid()) return false;
    return true;
  }

  DeviceTensor gradOutput, input, weight, gradInput, gradWeight, gradBias;
  IntArray stride, padding, dilation, outputPadding, biasSizes;
};

// One planned call: the repeatable executor of one outputMask and its workspace.
class PlannedCall {
 public:
  bool plan(const ProblemSpec& spec, Operands& o, bool dx, bool dw, bool db, std::string* error) {
    const bool maskValues[3] = {dx, dw, db};
    std::unique_ptr<aclBoolArray, aclnnStatus (*)(const aclBoolArray*)> mask(
        aclCreateBoolArray(maskValues, 3), aclDestroyBoolArray);
    aclOpExecutor* raw = nullptr;
    const int8_t cubeMathType = 0;
    const aclnnStatus status = aclnnConvolutionBackwardGetWorkspaceSize(
        o.gradOutput.get(), o.input.get(), o.weight.get(), o.biasSizes.get(), o.stride.get(),
        o.padding.get(), o.dilation.get(), spec.transposed, o.outputPadding.get(),
        static_cast<int>(spec.groups), mask.get(), cubeMathType, o.gradInput.get(),
        o.gradWeight.get(), o.gradBias.get(), &workspaceSize_, &raw);
    if (status != 0) {
      *error = recentError("phase 1", status);
      return false;
    }
    executor_.reset(raw);
    aclSetAclOpExecutorRepeatable(executor_.get());
    if (workspaceSize_ > 0) {
      void* memory = nullptr;
      if (aclrtMalloc(&memory, workspaceSize_, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) {
        *error = "workspace allocation failed";
        return false;
      }
      aclrtMemset(memory, workspaceSize_, 0, workspaceSize_);
      workspace_.reset(memory);
    }
    return true;
  }

  // Phase 2 and the stream synchronisation: what one timed call costs.
  bool run(aclrtStream stream, std::string* error) {
    const aclnnStatus status =
        aclnnConvolutionBackward(workspace_.get(), workspaceSize_, executor_.get(), stream);
    if (status != 0) {
      *error = recentError("phase 2", status);
      return false;
    }
    const aclError sync = aclrtSynchronizeStream(stream);
    if (sync != ACL_SUCCESS) {
      *error = recentError("synchronize", sync);
      return false;
    }
    return true;
  }

  uint64_t workspaceSize() const { return workspaceSize_; }

 private:
  uint64_t workspaceSize_ = 0;
  std::unique_ptr<aclOpExecutor, ExecutorDeleter> executor_;
  std::unique_ptr<void, DeviceMemoryDeleter> workspace_;
};

}  // namespace

OursResult runOurs(const HostProblem& problem, const TimingOptions& options, aclrtStream stream,
                   bool split, bool fused) {
  OursResult r;
  const ProblemSpec& spec = problem.spec;
  Operands o(spec);
  if (!o.valid()) {
    r.split.error = r.fused.error = "device allocation failed";
    return r;
  }
  o.gradOutput.upload(problem.gradOutput);
  o.input.upload(problem.input);
  o.weight.upload(problem.weight);
  auto download = [&] {
    return Gradients{o.gradInput.download(), o.gradWeight.download(), o.gradBias.download()};
  };
  auto clearOutputs = [&] {
    o.gradInput.clear();
    o.gradWeight.clear();
    o.gradBias.clear();
  };

  if (split) {
    PlannedCall data, weights;
    Measurement& m = r.split;
    if (data.plan(spec, o, true, false, false, &m.error) &&
        weights.plan(spec, o, false, true, true, &m.error)) {
      r.dataWorkspace = data.workspaceSize();
      r.weightWorkspace = weights.workspaceSize();
      clearOutputs();
      m.seconds = bestSeconds(
          options, [&] { return data.run(stream, &m.error) && weights.run(stream, &m.error); });
      if (m.seconds >= 0) {
        m.gradients = download();
        m.ok = true;
      }
    }
  }
  if (fused) {
    PlannedCall all;
    Measurement& m = r.fused;
    if (all.plan(spec, o, true, true, true, &m.error)) {
      r.fusedWorkspace = all.workspaceSize();
      clearOutputs();
      m.seconds = bestSeconds(options, [&] { return all.run(stream, &m.error); });
      if (m.seconds >= 0) {
        m.gradients = download();
        m.ok = true;
      }
    }
  }
  return r;
}

}  // namespace peers
