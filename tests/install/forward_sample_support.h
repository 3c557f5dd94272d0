// Helpers shared by the forward sample programs, written the way CANN's
// aclnn samples write theirs (C++11, acl/acl.h, unique_ptr clean-up): fp32
// device tensors filled from the host, phase 2 with the workspace phase 1
// asked for, and exact comparisons against hand-derived values.
#ifndef ACLNN_CPU_FORWARD_SAMPLE_SUPPORT_H_
#define ACLNN_CPU_FORWARD_SAMPLE_SUPPORT_H_

#include <cstdint>
#include <cstdio>
#include <memory>
#include <vector>

#include "acl/acl.h"
#include "aclnn/acl_meta.h"

namespace sample {

typedef std::unique_ptr<aclTensor, aclnnStatus (*)(const aclTensor*)> TensorPtr;
typedef std::unique_ptr<aclIntArray, aclnnStatus (*)(const aclIntArray*)> IntArrayPtr;
typedef std::unique_ptr<aclBoolArray, aclnnStatus (*)(const aclBoolArray*)> BoolArrayPtr;
typedef std::unique_ptr<void, aclError (*)(void*)> DeviceMemory;

// Outputs are pre-filled with this, so an output the library never writes fails.
const float kUnwritten = -7.0f;

inline const char* RecentError() {
  const char* message = aclGetRecentErrMsg();
  return message != nullptr ? message : "(no error message recorded)";
}

inline bool Succeeded(int status, const char* what) {
  if (status == 0) return true;
  std::printf("FAIL: %s returned %d: %s\n", what, status, RecentError());
  return false;
}

inline int64_t ElementCount(const std::vector<int64_t>& shape) {
  int64_t count = 1;
  for (size_t i = 0; i < shape.size(); ++i) count *= shape[i];
  return count;
}

struct DeviceTensor {
  DeviceTensor() : memory(nullptr, aclrtFree), tensor(nullptr, aclDestroyTensor), bytes(0) {}
  DeviceMemory memory;
  TensorPtr tensor;
  size_t bytes;
};

// A contiguous fp32 tensor filled with `fill`.
inline bool Create(const std::vector<int64_t>& shape, aclFormat format, float fill,
                   DeviceTensor* out) {
  const std::vector<float> host(static_cast<size_t>(ElementCount(shape)), fill);
  out->bytes = host.size() * sizeof(float);
  void* device = nullptr;
  if (!Succeeded(aclrtMalloc(&device, out->bytes, ACL_MEM_MALLOC_HUGE_FIRST), "aclrtMalloc"))
    return false;
  out->memory.reset(device);
  if (!Succeeded(
          aclrtMemcpy(device, out->bytes, host.data(), out->bytes, ACL_MEMCPY_HOST_TO_DEVICE),
          "aclrtMemcpy(host to device)"))
    return false;
  std::vector<int64_t> strides(shape.size(), 1);
  for (size_t i = shape.size(); i > 1; --i) strides[i - 2] = strides[i - 1] * shape[i - 1];
  out->tensor.reset(aclCreateTensor(shape.data(), shape.size(), ACL_FLOAT, strides.data(), 0,
                                    format, shape.data(), shape.size(), device));
  if (out->tensor.get() == nullptr) {
    std::printf("FAIL: aclCreateTensor returned nullptr: %s\n", RecentError());
    return false;
  }
  return true;
}

inline IntArrayPtr IntArray(const std::vector<int64_t>& values) {
  return IntArrayPtr(aclCreateIntArray(values.data(), values.size()), aclDestroyIntArray);
}

inline bool RunPhaseTwo(aclnnStatus (*launch)(void*, uint64_t, aclOpExecutor*, aclrtStream),
                        const char* name, uint64_t workspaceSize, aclOpExecutor* executor,
                        aclrtStream stream) {
  DeviceMemory workspace(nullptr, aclrtFree);
  if (workspaceSize > 0) {
    void* address = nullptr;
    if (!Succeeded(aclrtMalloc(&address, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST),
                   "aclrtMalloc(workspace)"))
      return false;
    workspace.reset(address);
  }
  if (!Succeeded(launch(workspace.get(), workspaceSize, executor, stream), name)) return false;
  return Succeeded(aclrtSynchronizeStream(stream), "aclrtSynchronizeStream");
}

// Copies the tensor back and counts elements that are not exactly expected[i]
// (all-ones data makes every result a small integer, exact in fp32).
inline int CountMismatches(const char* name, const DeviceTensor& tensor,
                           const std::vector<float>& expected) {
  std::vector<float> host(tensor.bytes / sizeof(float), 0.0f);
  if (!Succeeded(aclrtMemcpy(host.data(), tensor.bytes, tensor.memory.get(), tensor.bytes,
                             ACL_MEMCPY_DEVICE_TO_HOST),
                 "aclrtMemcpy(device to host)"))
    return 1;
  if (host.size() != expected.size()) {
    std::printf("FAIL: %s has %zu elements, expected %zu\n", name, host.size(), expected.size());
    return 1;
  }
  int mismatches = 0;
  for (size_t i = 0; i < host.size(); ++i) {
    if (host[i] == expected[i]) continue;
    if (mismatches < 5)
      std::printf("FAIL: %s[%zu] = %.9g, expected %.9g\n", name, i, host[i], expected[i]);
    ++mismatches;
  }
  std::printf("%s: %zu elements, %d mismatches\n", name, host.size(), mismatches);
  return mismatches;
}

// Number of kernel taps (kernel k, stride 1, dilation 1, padding p) that land
// inside an input of extent `in` for every output position, e.g. [1, 2, 2, 1].
inline std::vector<float> TapCounts(int64_t in, int64_t k, int64_t p, int64_t out) {
  std::vector<float> counts;
  for (int64_t o = 0; o < out; ++o) {
    int n = 0;
    for (int64_t t = 0; t < k; ++t) {
      const int64_t i = o - p + t;
      if (i >= 0 && i < in) ++n;
    }
    counts.push_back(static_cast<float>(n));
  }
  return counts;
}

// Expected values of an all-ones result [outer, a, b, c] = scale*A[a]*B[b]*C[c] + offset.
inline std::vector<float> Outer(int64_t outer, const std::vector<float>& a,
                                const std::vector<float>& b, const std::vector<float>& c,
                                float scale, float offset) {
  std::vector<float> values;
  for (int64_t n = 0; n < outer; ++n)
    for (size_t i = 0; i < a.size(); ++i)
      for (size_t j = 0; j < b.size(); ++j)
        for (size_t k = 0; k < c.size(); ++k) values.push_back(scale * a[i] * b[j] * c[k] + offset);
  return values;
}

// Runs every sample function and reports; returns the process status.
inline int RunSamples(int (*const* samples)(aclrtStream), size_t count) {
  const int32_t deviceId = 0;
  if (!Succeeded(aclInit(nullptr), "aclInit")) return 1;
  if (!Succeeded(aclrtSetDevice(deviceId), "aclrtSetDevice")) return 1;
  aclrtStream stream = nullptr;
  if (!Succeeded(aclrtCreateStream(&stream), "aclrtCreateStream")) return 1;
  int failures = 0;
  for (size_t i = 0; i < count; ++i) failures += samples[i](stream);
  if (!Succeeded(aclrtDestroyStream(stream), "aclrtDestroyStream")) ++failures;
  if (!Succeeded(aclrtResetDevice(deviceId), "aclrtResetDevice")) ++failures;
  if (!Succeeded(aclFinalize(), "aclFinalize")) ++failures;
  std::printf("%s (%d failures)\n", failures == 0 ? "PASS" : "FAIL", failures);
  return failures == 0 ? 0 : 1;
}

}  // namespace sample

#endif  // ACLNN_CPU_FORWARD_SAMPLE_SUPPORT_H_
