#include "api_runner.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <memory>
#include <random>
#include <vector>

#include "aclnnop/aclnn_convolution_backward.h"
#include "host_dtype.h"
#include "reference/reference_conv.h"

namespace {

using aclcpu::reference::OperandRounding;

aclFormat formatForRank(size_t rank) {
  return rank == 3 ? ACL_FORMAT_NCL : rank == 4 ? ACL_FORMAT_NCHW : ACL_FORMAT_NCDHW;
}

int64_t count(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

// A device buffer plus the aclTensor describing it (contiguous).
class DeviceTensor {
 public:
  DeviceTensor(const std::vector<int64_t>& shape, aclDataType dtype, aclFormat format)
      : shape_(shape), dtype_(dtype) {
    bytes_ = static_cast<size_t>(std::max<int64_t>(count(shape), 1)) * hostdtype::bytes(dtype);
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

// Relative error bound for an output of `dtype`, measured against sum|terms|:
// fp32 accumulation, plus the final roundings (operand dtype for gradInput,
// then the output dtype).
double toleranceFor(aclDataType dtype, int8_t math) {
  double tol = 2e-5;
  if (math == 2 || dtype == ACL_FLOAT16) tol = std::max(tol, 1e-3);
  if (dtype == ACL_BF16) tol = std::max(tol, 8e-3);
  return tol;
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

const char* dtypeName(aclDataType dtype) {
  return dtype == ACL_FLOAT16 ? "fp16" : dtype == ACL_BF16 ? "bf16" : "fp32";
}

RunResult runProblem(const ProblemSpec& spec, const RunOptions& options, aclrtStream stream) {
  RunResult result;
  std::mt19937 rng(options.seed);
  const auto inShape = spec.inputShape(), wShape = spec.weightShape(),
             goShape = spec.gradOutputShape();
  for (int64_t d : goShape) {
    if (d <= 0) {
      result.error = "the problem has an empty or negative output extent";
      return result;
    }
  }
  const int64_t biasChannels = goShape[1];
  const std::vector<int64_t> biasShape = {biasChannels};

  const auto goValues = randomValues(count(goShape), options.dtype, rng);
  const auto inValues = randomValues(count(inShape), options.dtype, rng);
  const auto wValues = randomValues(count(wShape), options.dtype, rng);

  DeviceTensor gradOutput(goShape, options.dtype, formatForRank(goShape.size()));
  DeviceTensor input(inShape, options.dtype, formatForRank(inShape.size()));
  DeviceTensor weight(wShape, options.dtype, formatForRank(wShape.size()));
  DeviceTensor gradInput(inShape, options.dtype, formatForRank(inShape.size()));
  DeviceTensor gradWeight(wShape, options.dtype, formatForRank(wShape.size()));
  DeviceTensor gradBias(biasShape, options.dtype, ACL_FORMAT_ND);
  for (const DeviceTensor* t : {&gradOutput, &input, &weight, &gradInput, &gradWeight, &gradBias}) {
    if (!t->valid()) {
      result.error = "device allocation failed";
      return result;
    }
  }
  gradOutput.upload(goValues);
  input.upload(inValues);
  weight.upload(wValues);

  const auto strideV = spec.strideArray(), padV = spec.paddingArray(), dilV = spec.dilationArray(),
             opV = spec.outputPaddingArray();
  std::unique_ptr<aclIntArray, aclnnStatus (*)(const aclIntArray*)> stride(
      aclCreateIntArray(strideV.data(), strideV.size()), aclDestroyIntArray),
      padding(aclCreateIntArray(padV.data(), padV.size()), aclDestroyIntArray),
      dilation(aclCreateIntArray(dilV.data(), dilV.size()), aclDestroyIntArray),
      outputPadding(aclCreateIntArray(opV.data(), opV.size()), aclDestroyIntArray),
      biasSizes(aclCreateIntArray(&biasChannels, 1), aclDestroyIntArray);
  std::unique_ptr<aclBoolArray, aclnnStatus (*)(const aclBoolArray*)> mask(
      aclCreateBoolArray(options.mask, 3), aclDestroyBoolArray);

  uint64_t workspaceSize = 0;
  aclOpExecutor* executor = nullptr;
  aclnnStatus status = aclnnConvolutionBackwardGetWorkspaceSize(
      gradOutput.get(), input.get(), weight.get(), biasSizes.get(), stride.get(), padding.get(),
      dilation.get(), spec.transposed, outputPadding.get(), static_cast<int>(spec.groups),
      mask.get(), options.cubeMathType, gradInput.get(), gradWeight.get(), gradBias.get(),
      &workspaceSize, &executor);
  if (status != 0) {
    const char* message = aclGetRecentErrMsg();
    result.error = "phase 1 status " + std::to_string(status) + ": " + (message ? message : "");
    return result;
  }
  aclSetAclOpExecutorRepeatable(executor);
  void* workspace = nullptr;
  if (workspaceSize > 0 &&
      aclrtMalloc(&workspace, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) {
    aclDestroyAclOpExecutor(executor);
    result.error = "workspace allocation failed";
    return result;
  }
  result.seconds = 1e30;
  for (int r = 0; r < std::max(1, options.repeats); ++r) {
    const auto start = std::chrono::steady_clock::now();
    status = aclnnConvolutionBackward(workspace, workspaceSize, executor, stream);
    const aclError syncStatus = aclrtSynchronizeStream(stream);
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (status != 0 || syncStatus != ACL_SUCCESS) {
      const char* message = aclGetRecentErrMsg();
      result.error = "phase 2 status " + std::to_string(status) + "/" + std::to_string(syncStatus) +
                     ": " + (message ? message : "");
      break;
    }
    result.seconds = std::min(result.seconds, elapsed);
  }
  aclDestroyAclOpExecutor(executor);
  aclrtFree(workspace);
  if (!result.error.empty()) return result;
  result.ok = true;

  // Check sampled positions against the reference on the operands rounded
  // as the NPU would (cubeMathType); the bound uses |operands|.
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
    for (int64_t i : samplePositions(count(inShape), options.samples, rng)) {
      const double ref = aclcpu::reference::gradInputAt(params, go, in, w, i);
      const double bound = aclcpu::reference::gradInputAt(params, goAbs, inAbs, wAbs, i);
      result.maxError[0] = std::max(result.maxError[0], relative(got[i], ref, bound));
    }
  }
  if (options.mask[1]) {
    const auto got = gradWeight.download();
    for (int64_t i : samplePositions(count(wShape), options.samples, rng)) {
      const double ref = aclcpu::reference::gradWeightAt(params, go, in, w, i);
      const double bound = aclcpu::reference::gradWeightAt(params, goAbs, inAbs, wAbs, i);
      result.maxError[1] = std::max(result.maxError[1], relative(got[i], ref, bound));
    }
  }
  if (options.mask[2]) {
    const auto got = gradBias.download();
    const auto goPlain = aclcpu::reference::ElementReader(
        [&goValues](int64_t i) { return static_cast<double>(goValues[static_cast<size_t>(i)]); });
    const auto goPlainAbs = aclcpu::reference::ElementReader([&goValues](int64_t i) {
      return std::fabs(static_cast<double>(goValues[static_cast<size_t>(i)]));
    });
    for (int64_t c = 0; c < biasChannels; ++c) {
      const double ref = aclcpu::reference::gradBiasAt(params, goPlain, c);
      const double bound = aclcpu::reference::gradBiasAt(params, goPlainAbs, c);
      result.maxError[2] = std::max(result.maxError[2], relative(got[c], ref, bound));
    }
  }
  result.tolerance = toleranceFor(options.dtype, options.cubeMathType);
  result.pass = true;
  for (double e : result.maxError) result.pass = result.pass && e <= result.tolerance;
  return result;
}
