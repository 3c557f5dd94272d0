#include "api_runner.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <exception>
#include <memory>
#include <new>
#include <random>
#include <stdexcept>
#include <vector>

#include "aclnnop/aclnn_convolution_backward.h"
#include "host_dtype.h"
#include "kernel_names.h"
#include "reference/reference_conv.h"

namespace {

using aclcpu::reference::OperandRounding;

aclFormat formatForRank(size_t rank) {
  return rank == 3 ? ACL_FORMAT_NCL : rank == 4 ? ACL_FORMAT_NCHW : ACL_FORMAT_NCDHW;
}

// Element count of a shape phase 1 accepted (so it fits in 64 bits).
int64_t count(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

std::string shapeText(const std::vector<int64_t>& shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i) text += (i ? "," : "") + std::to_string(shape[i]);
  return text + "]";
}

std::string bytesText(uint64_t bytes) {
  char text[64];
  if (bytes >= (1ull << 30))
    std::snprintf(text, sizeof(text), "%.1f GiB", static_cast<double>(bytes) / (1ull << 30));
  else if (bytes >= (1ull << 20))
    std::snprintf(text, sizeof(text), "%.1f MiB", static_cast<double>(bytes) / (1ull << 20));
  else
    std::snprintf(text, sizeof(text), "%llu bytes", static_cast<unsigned long long>(bytes));
  return text;
}

std::string recentMessage() {
  const char* message = aclGetRecentErrMsg();
  return message && *message ? message : "(no message)";
}

// A contiguous aclTensor; its device buffer is allocated only after phase 1
// accepted the descriptor.
class DeviceTensor {
 public:
  DeviceTensor(const char* name, const std::vector<int64_t>& shape, aclDataType dtype,
               aclFormat format)
      : name_(name), shape_(shape), dtype_(dtype) {
    tensor_ = aclCreateTensor(shape.data(), shape.size(), dtype, nullptr, 0, format, shape.data(),
                              shape.size(), nullptr);
  }
  ~DeviceTensor() {
    aclDestroyTensor(tensor_);
    if (data_) aclrtFree(data_);
  }
  DeviceTensor(const DeviceTensor&) = delete;
  DeviceTensor& operator=(const DeviceTensor&) = delete;

  const char* name() const { return name_; }
  const std::vector<int64_t>& shape() const { return shape_; }
  aclTensor* get() const { return tensor_; }

  // Allocates the buffer (at least one byte: aclrtMalloc refuses 0); on
  // failure returns false and says why in *error.
  bool allocate(std::string* error) {
    uint64_t bytes = 0;
    if (__builtin_mul_overflow(static_cast<uint64_t>(std::max<int64_t>(count(shape_), 1)),
                               static_cast<uint64_t>(hostdtype::bytes(dtype_)), &bytes)) {
      *error = std::string(name_) + " " + shapeText(shape_) + " does not fit in 64-bit memory";
      return false;
    }
    bytes_ = static_cast<size_t>(bytes);
    const aclError status = aclrtMalloc(&data_, bytes_, ACL_MEM_MALLOC_HUGE_FIRST);
    if (status != ACL_SUCCESS) {
      data_ = nullptr;
      *error = "aclrtMalloc of " + bytesText(bytes) + " for " + name_ + " " + shapeText(shape_) +
               " failed (error " + std::to_string(status) + "): " + recentMessage();
      return false;
    }
    return true;
  }
  void* data() const { return data_; }

  void upload(const std::vector<float>& values) {
    std::vector<unsigned char> raw(bytes_);
    hostdtype::encode(values, dtype_, raw.data());
    aclrtMemcpy(data_, bytes_, raw.data(), raw.size(), ACL_MEMCPY_HOST_TO_DEVICE);
  }
  std::vector<float> download() const {
    std::vector<unsigned char> raw(bytes_);
    aclrtMemcpy(raw.data(), raw.size(), data_, bytes_, ACL_MEMCPY_DEVICE_TO_HOST);
    return hostdtype::decode(raw.data(), static_cast<size_t>(count(shape_)), dtype_);
  }

 private:
  const char* name_;
  std::vector<int64_t> shape_;
  aclDataType dtype_;
  size_t bytes_ = 0;
  void* data_ = nullptr;
  aclTensor* tensor_ = nullptr;
};

std::vector<float> randomValues(int64_t n, aclDataType dtype, std::mt19937& rng) {
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> values(static_cast<size_t>(n));
  for (auto& v : values) v = hostdtype::roundTo(dist(rng), dtype);
  return values;
}

OperandRounding operandRounding(aclDataType dtype, int8_t math) {
  if (math == 2) return OperandRounding::F16;
  if (dtype == ACL_FLOAT)
    return (math == 1 || math == 3) ? OperandRounding::HF32 : OperandRounding::None;
  return dtype == ACL_FLOAT16 ? OperandRounding::F16 : OperandRounding::BF16;
}

std::vector<int64_t> samplePositions(int64_t n, int samples, std::mt19937& rng) {
  std::vector<int64_t> positions;
  if (n <= samples) {
    for (int64_t i = 0; i < n; ++i) positions.push_back(i);
    return positions;
  }
  std::uniform_int_distribution<int64_t> dist(0, n - 1);
  positions.push_back(0);
  positions.push_back(n - 1);
  while (static_cast<int>(positions.size()) < samples) positions.push_back(dist(rng));
  return positions;
}

aclcpu::reference::ConvParams referenceParams(const ProblemSpec& spec) {
  aclcpu::reference::ConvParams p;
  p.spatialDims = spec.spatialDims;
  p.transposed = spec.transposed;
  p.groups = spec.groups;
  p.inputShape = spec.inputShape();
  p.weightShape = spec.weightShape();
  p.gradOutputShape = spec.gradOutputShape();
  p.stride = spec.strideArray();
  p.dilation = spec.dilationArray();
  const auto padding = spec.paddingArray();
  if (spec.fourValuePadding) {
    p.padBefore = {padding[0], padding[2]};
    p.padAfter = {padding[1], padding[3]};
  } else {
    p.padBefore = p.padAfter = padding;
  }
  return p;
}

}  // namespace

// Relative error bound for an output of `dtype`, measured against sum|terms|:
// fp32 accumulation, plus the final roundings (operand dtype for gradInput,
// then the output dtype).
double toleranceFor(aclDataType dtype, int8_t math) {
  double tol = 2e-5;
  if (math == 2 || dtype == ACL_FLOAT16) tol = std::max(tol, 1e-3);
  if (dtype == ACL_BF16) tol = std::max(tol, 8e-3);
  return tol;
}

const char* dtypeName(aclDataType dtype) {
  return dtype == ACL_FLOAT16 ? "fp16" : dtype == ACL_BF16 ? "bf16" : "fp32";
}

namespace {

using IntArray = std::unique_ptr<aclIntArray, aclnnStatus (*)(const aclIntArray*)>;
using BoolArray = std::unique_ptr<aclBoolArray, aclnnStatus (*)(const aclBoolArray*)>;
using Executor = std::unique_ptr<aclOpExecutor, aclnnStatus (*)(aclOpExecutor*)>;
using Workspace = std::unique_ptr<void, aclError (*)(void*)>;

IntArray intArray(const std::vector<int64_t>& values) {
  return IntArray(aclCreateIntArray(values.data(), values.size()), aclDestroyIntArray);
}

RunResult refused(int status, std::string message) {
  RunResult result;
  result.outcome = RunOutcome::kRefused;
  result.status = status;
  result.message = std::move(message);
  return result;
}

RunResult failedWith(RunOutcome outcome, std::string message) {
  RunResult result;
  result.outcome = outcome;
  result.message = std::move(message);
  return result;
}

// Compares the requested outputs with the reference at sampled positions,
// on operands rounded as the NPU would (cubeMathType); the bound uses
// |operands|. Fills result->checked and result->maxError.
void checkOutputs(const ProblemSpec& spec, const RunOptions& options, std::mt19937& rng,
                  const std::vector<float>& goValues, const std::vector<float>& inValues,
                  const std::vector<float>& wValues, const DeviceTensor& gradInput,
                  const DeviceTensor& gradWeight, const DeviceTensor& gradBias, RunResult* result) {
  const auto params = referenceParams(spec);
  const OperandRounding rounding = operandRounding(options.dtype, options.cubeMathType);
  auto reader = [rounding](const std::vector<float>& v, bool absolute) {
    return aclcpu::reference::ElementReader([&v, rounding, absolute](int64_t i) {
      const double x = aclcpu::reference::roundOperand(v[static_cast<size_t>(i)], rounding);
      return absolute ? std::fabs(x) : x;
    });
  };
  const auto go = reader(goValues, false), in = reader(inValues, false), w = reader(wValues, false);
  const auto goAbs = reader(goValues, true), inAbs = reader(inValues, true),
             wAbs = reader(wValues, true);
  auto relative = [](double got, double ref, double bound) {
    return std::fabs(got - ref) / std::max(bound, 1e-30);
  };
  if (options.mask[0]) {
    const auto got = gradInput.download();
    for (int64_t i : samplePositions(count(gradInput.shape()), options.samples, rng)) {
      const double ref = aclcpu::reference::gradInputAt(params, go, in, w, i);
      const double bound = aclcpu::reference::gradInputAt(params, goAbs, inAbs, wAbs, i);
      result->maxError[0] = std::max(result->maxError[0], relative(got[i], ref, bound));
    }
    result->checked[0] = true;
  }
  if (options.mask[1]) {
    const auto got = gradWeight.download();
    for (int64_t i : samplePositions(count(gradWeight.shape()), options.samples, rng)) {
      const double ref = aclcpu::reference::gradWeightAt(params, go, in, w, i);
      const double bound = aclcpu::reference::gradWeightAt(params, goAbs, inAbs, wAbs, i);
      result->maxError[1] = std::max(result->maxError[1], relative(got[i], ref, bound));
    }
    result->checked[1] = true;
  }
  if (options.mask[2]) {
    const auto got = gradBias.download();
    // gradBias is summed from the original gradOutput, never rounded by cubeMathType.
    const auto goPlain = aclcpu::reference::ElementReader(
        [&goValues](int64_t i) { return static_cast<double>(goValues[static_cast<size_t>(i)]); });
    const auto goPlainAbs = aclcpu::reference::ElementReader([&goValues](int64_t i) {
      return std::fabs(static_cast<double>(goValues[static_cast<size_t>(i)]));
    });
    for (int64_t c = 0; c < count(gradBias.shape()); ++c) {
      const double ref = aclcpu::reference::gradBiasAt(params, goPlain, c);
      const double bound = aclcpu::reference::gradBiasAt(params, goPlainAbs, c);
      result->maxError[2] = std::max(result->maxError[2], relative(got[c], ref, bound));
    }
    result->checked[2] = true;
  }
}

RunResult runChecked(const ProblemSpec& spec, const RunOptions& options, aclrtStream stream,
                     RunObserver* observer) {
  std::mt19937 rng(options.seed);
  observer->stage("phase 1");
  const auto goShape = spec.gradOutputShape();
  const int64_t biasChannels = goShape[1];
  DeviceTensor gradOutput("gradOutput", goShape, options.dtype, formatForRank(goShape.size()));
  DeviceTensor input("input", spec.inputShape(), options.dtype,
                     formatForRank(spec.inputShape().size()));
  DeviceTensor weight("weight", spec.weightShape(), options.dtype,
                      formatForRank(spec.weightShape().size()));
  DeviceTensor gradInput("gradInput", spec.inputShape(), options.dtype,
                         formatForRank(spec.inputShape().size()));
  DeviceTensor gradWeight("gradWeight", spec.weightShape(), options.dtype,
                          formatForRank(spec.weightShape().size()));
  DeviceTensor gradBias("gradBias", {biasChannels}, options.dtype, ACL_FORMAT_ND);
  DeviceTensor* const inputs[] = {&gradOutput, &input, &weight};
  DeviceTensor* const outputs[] = {&gradInput, &gradWeight, &gradBias};
  for (DeviceTensor* t : {&gradOutput, &input, &weight, &gradInput, &gradWeight, &gradBias}) {
    if (!t->get())
      return refused(-1, std::string("aclCreateTensor refused ") + t->name() + " " +
                             shapeText(t->shape()) + ": " + recentMessage());
  }

  const IntArray stride = intArray(spec.strideArray()), padding = intArray(spec.paddingArray()),
                 dilation = intArray(spec.dilationArray()),
                 outputPadding = intArray(spec.outputPaddingArray()),
                 biasSizes = intArray({biasChannels});
  const BoolArray mask(aclCreateBoolArray(options.mask, 3), aclDestroyBoolArray);
  if (!stride || !padding || !dilation || !outputPadding || !biasSizes || !mask)
    return failedWith(RunOutcome::kOutOfMemory,
                      "creating the attribute arrays failed: " + recentMessage());

  uint64_t workspaceSize = 0;
  aclOpExecutor* rawExecutor = nullptr;
  const aclnnStatus status = aclnnConvolutionBackwardGetWorkspaceSize(
      gradOutput.get(), input.get(), weight.get(), biasSizes.get(), stride.get(), padding.get(),
      dilation.get(), spec.transposed, outputPadding.get(), static_cast<int>(spec.groups),
      mask.get(), options.cubeMathType, gradInput.get(), gradWeight.get(), gradBias.get(),
      &workspaceSize, &rawExecutor);
  if (status != 0) return refused(status, recentMessage());
  aclSetAclOpExecutorRepeatable(rawExecutor);
  const Executor executor(rawExecutor, aclDestroyAclOpExecutor);

  observer->stage("allocating");
  std::string error;
  for (DeviceTensor* t : {&gradOutput, &input, &weight, &gradInput, &gradWeight, &gradBias}) {
    if (!t->allocate(&error)) return failedWith(RunOutcome::kOutOfMemory, error);
  }
  for (size_t i = 0; i < 3; ++i) {
    if (aclSetInputTensorAddr(executor.get(), i, inputs[i]->get(), inputs[i]->data()) != 0 ||
        aclSetOutputTensorAddr(executor.get(), i, outputs[i]->get(), outputs[i]->data()) != 0)
      return failedWith(RunOutcome::kRuntimeError,
                        "binding the buffers failed: " + recentMessage());
  }
  Workspace workspace(nullptr, aclrtFree);
  if (workspaceSize > 0) {
    void* raw = nullptr;
    const aclError wsStatus = aclrtMalloc(&raw, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST);
    if (wsStatus != ACL_SUCCESS)
      return failedWith(RunOutcome::kOutOfMemory, "aclrtMalloc of " + bytesText(workspaceSize) +
                                                      " for the workspace failed (error " +
                                                      std::to_string(wsStatus) +
                                                      "): " + recentMessage());
    workspace.reset(raw);
  }

  observer->stage("preparing data");
  const auto goValues = randomValues(count(gradOutput.shape()), options.dtype, rng);
  const auto inValues = randomValues(count(input.shape()), options.dtype, rng);
  const auto wValues = randomValues(count(weight.shape()), options.dtype, rng);
  gradOutput.upload(goValues);
  input.upload(inValues);
  weight.upload(wValues);

  RunResult result;
  result.workspaceBytes = workspaceSize;
  result.algorithms = kernelAlgorithms(spec, options.mask);
  result.seconds = 1e30;
  observer->stage("running");
  const int repeats = std::max(1, options.repeats);
  observer->repetitionsDone(0, repeats);
  for (int r = 0; r < repeats; ++r) {
    const auto start = std::chrono::steady_clock::now();
    const aclnnStatus runStatus =
        aclnnConvolutionBackward(workspace.get(), workspaceSize, executor.get(), stream);
    const aclError syncStatus = aclrtSynchronizeStream(stream);
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (runStatus != 0 || syncStatus != ACL_SUCCESS)
      return failedWith(RunOutcome::kRuntimeError,
                        "phase 2 status " + std::to_string(runStatus) + ", synchronize " +
                            std::to_string(syncStatus) + ": " + recentMessage());
    result.seconds = std::min(result.seconds, elapsed);
    observer->repetitionsDone(r + 1, repeats);
  }

  observer->stage("checking");
  try {
    checkOutputs(spec, options, rng, goValues, inValues, wValues, gradInput, gradWeight, gradBias,
                 &result);
  } catch (const std::bad_alloc&) {
    throw;
  } catch (const std::exception& e) {
    // The reference refuses a problem the library accepted: a disagreement.
    result.outcome = RunOutcome::kCheckFailed;
    result.message = std::string("the reference cannot check this problem: ") + e.what();
    return result;
  }
  const double tolerance = toleranceFor(options.dtype, options.cubeMathType);
  bool pass = true;
  for (int m = 0; m < 3; ++m)
    pass = pass && (!result.checked[m] || result.maxError[m] <= tolerance);
  result.outcome = pass ? RunOutcome::kPassed : RunOutcome::kCheckFailed;
  return result;
}

}  // namespace

RunResult runProblem(const ProblemSpec& spec, const RunOptions& options, aclrtStream stream,
                     RunObserver* observer) {
  try {
    return runChecked(spec, options, stream, observer);
  } catch (const std::bad_alloc&) {
    return failedWith(RunOutcome::kOutOfMemory,
                      "host memory ran out (random operands, downloads or the check)");
  } catch (const std::length_error&) {
    return failedWith(RunOutcome::kOutOfMemory, "host data larger than a vector can hold");
  }
}
