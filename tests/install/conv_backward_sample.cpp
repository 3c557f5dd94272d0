// A CANN-style user program, written the way the official aclnn samples are
// (C++11, acl/acl.h + aclnnop header, two-phase call, unique_ptr clean-up),
// run against the *installed* library. It executes the two documentation
// examples with all-ones data and checks the hand-derived results:
//   ConvolutionBackward doc sample: gradInput == 2, gradWeight == 98, gradBias == 98
//   ConvTbcBackward doc sample:     gradInput == 2, gradWeight == 5,  gradBias == 5
// Exit status 0 only if every element matches.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_convolution_backward.h"

namespace {

using TensorPtr = std::unique_ptr<aclTensor, aclnnStatus (*)(const aclTensor*)>;
using IntArrayPtr = std::unique_ptr<aclIntArray, aclnnStatus (*)(const aclIntArray*)>;
using BoolArrayPtr = std::unique_ptr<aclBoolArray, aclnnStatus (*)(const aclBoolArray*)>;
using DeviceMemory = std::unique_ptr<void, aclError (*)(void*)>;

// Outputs are pre-filled with this, so an output the library never writes fails.
const float kUnwrittenSentinel = -7.0f;

const char* RecentError() {
  const char* message = aclGetRecentErrMsg();
  return message != nullptr ? message : "(no error message recorded)";
}

bool Succeeded(int status, const char* what) {
  if (status == ACL_SUCCESS) return true;
  std::printf("FAIL: %s returned %d: %s\n", what, status, RecentError());
  return false;
}

int64_t ElementCount(const std::vector<int64_t>& shape) {
  int64_t count = 1;
  for (size_t i = 0; i < shape.size(); ++i) count *= shape[i];
  return count;
}

std::vector<int64_t> RowMajorStrides(const std::vector<int64_t>& shape) {
  std::vector<int64_t> strides(shape.size(), 1);
  for (size_t i = shape.size(); i > 1; --i) strides[i - 2] = strides[i - 1] * shape[i - 1];
  return strides;
}

// A float32 tensor in device memory, initialised from the host with one value.
struct DeviceTensor {
  DeviceTensor() : memory(nullptr, aclrtFree), tensor(nullptr, aclDestroyTensor), bytes(0) {}
  DeviceMemory memory;
  TensorPtr tensor;
  size_t bytes;
};

bool CreateDeviceTensor(const std::vector<int64_t>& shape, aclFormat format, float fill,
                        DeviceTensor* out) {
  const std::vector<float> host(static_cast<size_t>(ElementCount(shape)), fill);
  out->bytes = host.size() * sizeof(float);
  void* device = nullptr;
  if (!Succeeded(aclrtMalloc(&device, out->bytes, ACL_MEM_MALLOC_HUGE_FIRST), "aclrtMalloc")) {
    return false;
  }
  out->memory.reset(device);
  if (!Succeeded(
          aclrtMemcpy(device, out->bytes, host.data(), out->bytes, ACL_MEMCPY_HOST_TO_DEVICE),
          "aclrtMemcpy(host to device)")) {
    return false;
  }
  const std::vector<int64_t> strides = RowMajorStrides(shape);
  out->tensor.reset(aclCreateTensor(shape.data(), shape.size(), aclDataType::ACL_FLOAT,
                                    strides.data(), 0, format, shape.data(), shape.size(), device));
  if (out->tensor == nullptr) {
    std::printf("FAIL: aclCreateTensor returned nullptr: %s\n", RecentError());
    return false;
  }
  return true;
}

bool IsClose(float actual, float expected) {
  return std::fabs(actual - expected) <= 1e-5f * std::fabs(expected);
}

// Copies a device tensor back and counts elements that differ from `expected`.
int CountMismatches(const char* name, const DeviceTensor& tensor, float expected) {
  std::vector<float> host(tensor.bytes / sizeof(float), 0.0f);
  if (!Succeeded(aclrtMemcpy(host.data(), tensor.bytes, tensor.memory.get(), tensor.bytes,
                             ACL_MEMCPY_DEVICE_TO_HOST),
                 "aclrtMemcpy(device to host)")) {
    return 1;
  }
  int mismatches = 0;
  for (size_t i = 0; i < host.size(); ++i) {
    if (IsClose(host[i], expected)) continue;
    if (mismatches < 5) {
      std::printf("FAIL: %s[%zu] = %.9g, expected %.9g\n", name, i, host[i], expected);
    }
    ++mismatches;
  }
  std::printf("%s: %zu elements, %d mismatches (expected %g)\n", name, host.size(), mismatches,
              expected);
  return mismatches;
}

// Phase 2 plus synchronisation, with the workspace phase 1 asked for.
bool RunPhaseTwo(aclnnStatus (*launch)(void*, uint64_t, aclOpExecutor*, const aclrtStream),
                 const char* name, uint64_t workspaceSize, aclOpExecutor* executor,
                 aclrtStream stream) {
  DeviceMemory workspace(nullptr, aclrtFree);
  if (workspaceSize > 0) {
    void* address = nullptr;
    if (!Succeeded(aclrtMalloc(&address, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST),
                   "aclrtMalloc(workspace)")) {
      return false;
    }
    workspace.reset(address);
  }
  if (!Succeeded(launch(workspace.get(), workspaceSize, executor, stream), name)) return false;
  return Succeeded(aclrtSynchronizeStream(stream), "aclrtSynchronizeStream");
}

// Doc sample of aclnnConvolutionBackward: 2-D, 1x1 kernel, HF32 allowed.
int RunConvolutionBackwardDocSample(aclrtStream stream) {
  std::printf("== aclnnConvolutionBackward doc sample ==\n");
  DeviceTensor gradOutput, input, weight, gradInput, gradWeight, gradBias;
  if (!CreateDeviceTensor({2, 2, 7, 7}, aclFormat::ACL_FORMAT_NCHW, 1.0f, &gradOutput) ||
      !CreateDeviceTensor({2, 2, 7, 7}, aclFormat::ACL_FORMAT_NCHW, 1.0f, &input) ||
      !CreateDeviceTensor({2, 2, 1, 1}, aclFormat::ACL_FORMAT_NCHW, 1.0f, &weight) ||
      !CreateDeviceTensor({2, 2, 7, 7}, aclFormat::ACL_FORMAT_NCHW, kUnwrittenSentinel,
                          &gradInput) ||
      !CreateDeviceTensor({2, 2, 1, 1}, aclFormat::ACL_FORMAT_NCHW, kUnwrittenSentinel,
                          &gradWeight) ||
      !CreateDeviceTensor({2}, aclFormat::ACL_FORMAT_ND, kUnwrittenSentinel, &gradBias)) {
    return 1;
  }

  const std::vector<int64_t> biasSizesData = {2};
  const std::vector<int64_t> ones = {1, 1};
  const std::vector<int64_t> zeros = {0, 0};
  const bool outputMaskData[3] = {true, true, true};
  IntArrayPtr biasSizes(aclCreateIntArray(biasSizesData.data(), biasSizesData.size()),
                        aclDestroyIntArray);
  IntArrayPtr stride(aclCreateIntArray(ones.data(), ones.size()), aclDestroyIntArray);
  IntArrayPtr padding(aclCreateIntArray(zeros.data(), zeros.size()), aclDestroyIntArray);
  IntArrayPtr dilation(aclCreateIntArray(ones.data(), ones.size()), aclDestroyIntArray);
  IntArrayPtr outputPadding(aclCreateIntArray(zeros.data(), zeros.size()), aclDestroyIntArray);
  BoolArrayPtr outputMask(aclCreateBoolArray(outputMaskData, 3), aclDestroyBoolArray);
  if (!biasSizes || !stride || !padding || !dilation || !outputPadding || !outputMask) {
    std::printf("FAIL: creating the attribute arrays: %s\n", RecentError());
    return 1;
  }

  const bool transposed = false;
  const int groups = 1;
  const int8_t cubeMathType = 1;
  uint64_t workspaceSize = 0;
  aclOpExecutor* executor = nullptr;
  const aclnnStatus status = aclnnConvolutionBackwardGetWorkspaceSize(
      gradOutput.tensor.get(), input.tensor.get(), weight.tensor.get(), biasSizes.get(),
      stride.get(), padding.get(), dilation.get(), transposed, outputPadding.get(), groups,
      outputMask.get(), cubeMathType, gradInput.tensor.get(), gradWeight.tensor.get(),
      gradBias.tensor.get(), &workspaceSize, &executor);
  if (!Succeeded(status, "aclnnConvolutionBackwardGetWorkspaceSize")) return 1;
  if (!RunPhaseTwo(aclnnConvolutionBackward, "aclnnConvolutionBackward", workspaceSize, executor,
                   stream)) {
    return 1;
  }

  // gradInput = sum over C_out of w = 2; gradWeight = gradBias = N*H*W = 98.
  int failures = 0;
  failures += CountMismatches("gradInput", gradInput, 2.0f);
  failures += CountMismatches("gradWeight", gradWeight, 98.0f);
  failures += CountMismatches("gradBias", gradBias, 98.0f);
  return failures;
}

// Doc sample of aclnnConvTbcBackward: time-major 1-D convolution, pad 0.
int RunConvTbcBackwardDocSample(aclrtStream stream) {
  std::printf("== aclnnConvTbcBackward doc sample ==\n");
  DeviceTensor self, input, weight, bias, gradInput, gradWeight, gradBias;
  if (!CreateDeviceTensor({5, 1, 2}, aclFormat::ACL_FORMAT_ND, 1.0f, &self) ||
      !CreateDeviceTensor({5, 1, 2}, aclFormat::ACL_FORMAT_ND, 1.0f, &input) ||
      !CreateDeviceTensor({1, 2, 2}, aclFormat::ACL_FORMAT_ND, 1.0f, &weight) ||
      !CreateDeviceTensor({2}, aclFormat::ACL_FORMAT_ND, 1.0f, &bias) ||
      !CreateDeviceTensor({5, 1, 2}, aclFormat::ACL_FORMAT_ND, kUnwrittenSentinel, &gradInput) ||
      !CreateDeviceTensor({1, 2, 2}, aclFormat::ACL_FORMAT_ND, kUnwrittenSentinel, &gradWeight) ||
      !CreateDeviceTensor({2}, aclFormat::ACL_FORMAT_ND, kUnwrittenSentinel, &gradBias)) {
    return 1;
  }

  const int64_t pad = 0;
  const int8_t cubeMathType = 1;
  uint64_t workspaceSize = 0;
  aclOpExecutor* executor = nullptr;
  const aclnnStatus status = aclnnConvTbcBackwardGetWorkspaceSize(
      self.tensor.get(), input.tensor.get(), weight.tensor.get(), bias.tensor.get(), pad,
      cubeMathType, gradInput.tensor.get(), gradWeight.tensor.get(), gradBias.tensor.get(),
      &workspaceSize, &executor);
  if (!Succeeded(status, "aclnnConvTbcBackwardGetWorkspaceSize")) return 1;
  if (!RunPhaseTwo(aclnnConvTbcBackward, "aclnnConvTbcBackward", workspaceSize, executor, stream)) {
    return 1;
  }

  // gradInput = K*C_out = 2; gradWeight = gradBias = T_out*B = 5.
  int failures = 0;
  failures += CountMismatches("gradInput", gradInput, 2.0f);
  failures += CountMismatches("gradWeight", gradWeight, 5.0f);
  failures += CountMismatches("gradBias", gradBias, 5.0f);
  return failures;
}

}  // namespace

int main() {
  const int32_t deviceId = 0;
  if (!Succeeded(aclInit(nullptr), "aclInit")) return 1;
  if (!Succeeded(aclrtSetDevice(deviceId), "aclrtSetDevice")) return 1;
  aclrtStream stream = nullptr;
  if (!Succeeded(aclrtCreateStream(&stream), "aclrtCreateStream")) return 1;

  int failures = 0;
  failures += RunConvolutionBackwardDocSample(stream);
  failures += RunConvTbcBackwardDocSample(stream);

  if (!Succeeded(aclrtDestroyStream(stream), "aclrtDestroyStream")) ++failures;
  if (!Succeeded(aclrtResetDevice(deviceId), "aclrtResetDevice")) ++failures;
  if (!Succeeded(aclFinalize(), "aclFinalize")) ++failures;

  std::printf("%s (%d failures)\n", failures == 0 ? "PASS" : "FAIL", failures);
  return failures == 0 ? 0 : 1;
}
