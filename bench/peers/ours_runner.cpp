#include "ours_runner.h"

#include <memory>

#include "aclnnop/aclnn_convolution.h"
#include "aclnnop/aclnn_convolution_backward.h"
#include "host_dtype.h"

namespace peers {
namespace {

aclFormat formatForRank(size_t rank) {
  return rank == 3 ? ACL_FORMAT_NCL : rank == 4 ? ACL_FORMAT_NCHW : ACL_FORMAT_NCDHW;
}

// A contiguous device buffer of one dtype and the aclTensor describing it;
// values go in and come out as fp32 (encoded and decoded on the host).
class DeviceTensor {
 public:
  DeviceTensor(const std::vector<int64_t>& shape, aclFormat format, aclDataType dtype)
      : dtype_(dtype),
        count_(static_cast<size_t>(elementCount(shape))),
        bytes_(count_ * hostdtype::bytes(dtype)) {
    if (aclrtMalloc(&data_, bytes_, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) data_ = nullptr;
    tensor_ = aclCreateTensor(shape.data(), shape.size(), dtype, nullptr, 0, format, shape.data(),
                              shape.size(), data_);
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
    std::vector<unsigned char> encoded(bytes_);
    hostdtype::encode(values, dtype_, encoded.data());
    aclrtMemcpy(data_, bytes_, encoded.data(), bytes_, ACL_MEMCPY_HOST_TO_DEVICE);
  }
  // Outputs are written before they are timed, so that no provider pays for
  // first-touch page faults inside the timed runs.
  void clear() { aclrtMemset(data_, bytes_, 0, bytes_); }
  std::vector<float> download() const {
    std::vector<unsigned char> encoded(bytes_);
    aclrtMemcpy(encoded.data(), bytes_, data_, bytes_, ACL_MEMCPY_DEVICE_TO_HOST);
    return hostdtype::decode(encoded.data(), count_, dtype_);
  }

 private:
  aclDataType dtype_;
  size_t count_, bytes_;
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

DeviceTensor plainTensor(const std::vector<int64_t>& shape, aclDataType dtype) {
  return DeviceTensor(shape, formatForRank(shape.size()), dtype);
}

// All tensors and attributes of one backward problem, shared by every call made on it.
struct Operands {
  Operands(const ProblemSpec& spec, aclDataType t)
      : gradOutput(spec.gradOutputShape(), formatForRank(spec.gradOutputShape().size()), t),
        input(spec.inputShape(), formatForRank(spec.inputShape().size()), t),
        weight(spec.weightShape(), formatForRank(spec.weightShape().size()), t),
        gradInput(spec.inputShape(), formatForRank(spec.inputShape().size()), t),
        gradWeight(spec.weightShape(), formatForRank(spec.weightShape().size()), t),
        gradBias({spec.gradOutputShape()[1]}, ACL_FORMAT_ND, t),
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

using Phase2 = aclnnStatus (*)(void*, uint64_t, aclOpExecutor*, aclrtStream);

// One planned call: a repeatable executor, its workspace and its phase 2.
class PlannedCall {
 public:
  explicit PlannedCall(Phase2 phase2) : phase2_(phase2) {}

  // A backward call of one outputMask.
  bool planBackward(const ProblemSpec& spec, Operands& o, int8_t cubeMathType, bool dx, bool dw,
                    bool db, std::string* error) {
    const bool maskValues[3] = {dx, dw, db};
    std::unique_ptr<aclBoolArray, aclnnStatus (*)(const aclBoolArray*)> mask(
        aclCreateBoolArray(maskValues, 3), aclDestroyBoolArray);
    aclOpExecutor* raw = nullptr;
    const aclnnStatus status = aclnnConvolutionBackwardGetWorkspaceSize(
        o.gradOutput.get(), o.input.get(), o.weight.get(), o.biasSizes.get(), o.stride.get(),
        o.padding.get(), o.dilation.get(), spec.transposed, o.outputPadding.get(),
        static_cast<int>(spec.groups), mask.get(), cubeMathType, o.gradInput.get(),
        o.gradWeight.get(), o.gradBias.get(), &workspaceSize_, &raw);
    return adopt(status, raw, error);
  }

  // The forward call: output = conv(input, weight) + bias.
  bool planForward(const ProblemSpec& spec, const DeviceTensor& input, const DeviceTensor& weight,
                   const DeviceTensor& bias, DeviceTensor& output, int8_t cubeMathType,
                   std::string* error) {
    const IntArray stride = intArray(spec.strideArray()), padding = intArray(spec.paddingArray()),
                   dilation = intArray(spec.dilationArray()),
                   outputPadding = intArray(spec.outputPaddingArray());
    aclOpExecutor* raw = nullptr;
    const aclnnStatus status = aclnnConvolutionGetWorkspaceSize(
        input.get(), weight.get(), bias.get(), stride.get(), padding.get(), dilation.get(),
        spec.transposed, outputPadding.get(), spec.groups, output.get(), cubeMathType,
        &workspaceSize_, &raw);
    return adopt(status, raw, error);
  }

 private:
  bool adopt(aclnnStatus status, aclOpExecutor* raw, std::string* error) {
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

 public:
  // Phase 2 and the stream synchronisation: what one timed call costs.
  bool run(aclrtStream stream, std::string* error) {
    const aclnnStatus status = phase2_(workspace_.get(), workspaceSize_, executor_.get(), stream);
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
  Phase2 phase2_;
  uint64_t workspaceSize_ = 0;
  std::unique_ptr<aclOpExecutor, ExecutorDeleter> executor_;
  std::unique_ptr<void, DeviceMemoryDeleter> workspace_;
};

}  // namespace

OursBackwardResult runOursBackward(const HostProblem& problem, const TimingOptions& options,
                                   aclrtStream stream, OurNumerics numerics, bool split,
                                   bool fused) {
  OursBackwardResult r;
  const ProblemSpec& spec = problem.spec;
  Operands o(spec, numerics.dtype);
  if (!o.valid()) {
    r.split.error = r.fused.error = "device allocation failed";
    return r;
  }
  o.gradOutput.upload(problem.gradOutput);
  o.input.upload(problem.input);
  o.weight.upload(problem.weight);
  auto download = [&] {
    return Outputs{o.gradInput.download(), o.gradWeight.download(), o.gradBias.download()};
  };
  auto clearOutputs = [&] {
    o.gradInput.clear();
    o.gradWeight.clear();
    o.gradBias.clear();
  };

  if (split) {
    PlannedCall data(aclnnConvolutionBackward), weights(aclnnConvolutionBackward);
    Measurement& m = r.split;
    if (data.planBackward(spec, o, numerics.cubeMathType, true, false, false, &m.error) &&
        weights.planBackward(spec, o, numerics.cubeMathType, false, true, true, &m.error)) {
      r.dataWorkspace = data.workspaceSize();
      r.weightWorkspace = weights.workspaceSize();
      clearOutputs();
      m.seconds = bestSeconds(
          options, [&] { return data.run(stream, &m.error) && weights.run(stream, &m.error); });
      if (m.seconds >= 0) {
        m.outputs = download();
        m.ok = true;
      }
    }
  }
  if (fused) {
    PlannedCall all(aclnnConvolutionBackward);
    Measurement& m = r.fused;
    if (all.planBackward(spec, o, numerics.cubeMathType, true, true, true, &m.error)) {
      r.fusedWorkspace = all.workspaceSize();
      clearOutputs();
      m.seconds = bestSeconds(options, [&] { return all.run(stream, &m.error); });
      if (m.seconds >= 0) {
        m.outputs = download();
        m.ok = true;
      }
    }
  }
  return r;
}

OursForwardResult runOursForward(const HostProblem& problem, const TimingOptions& options,
                                 aclrtStream stream, OurNumerics numerics) {
  OursForwardResult r;
  const ProblemSpec& spec = problem.spec;
  Measurement& m = r.forward;
  DeviceTensor input = plainTensor(spec.inputShape(), numerics.dtype),
               weight = plainTensor(spec.weightShape(), numerics.dtype),
               bias({spec.gradOutputShape()[1]}, ACL_FORMAT_ND, numerics.dtype),
               output = plainTensor(spec.gradOutputShape(), numerics.dtype);
  if (!input.valid() || !weight.valid() || !bias.valid() || !output.valid()) {
    m.error = "device allocation failed";
    return r;
  }
  input.upload(problem.input);
  weight.upload(problem.weight);
  bias.upload(problem.bias);
  PlannedCall call(aclnnConvolution);
  if (!call.planForward(spec, input, weight, bias, output, numerics.cubeMathType, &m.error))
    return r;
  r.workspace = call.workspaceSize();
  output.clear();
  m.seconds = bestSeconds(options, [&] { return call.run(stream, &m.error); });
  if (m.seconds >= 0) {
    m.outputs = Outputs{output.download()};
    m.ok = true;
  }
  return r;
}

}  // namespace peers
