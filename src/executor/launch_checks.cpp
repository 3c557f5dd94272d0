#include "executor/launch_checks.h"

#include <string>

#include "aclnn/opdev/op_errno.h"
#include "common/checked_math.h"
#include "common/error_log.h"
#include "runtime/memory_registry.h"

namespace aclcpu {
namespace {

using Binding = aclOpExecutor::Binding;

// The bytes a binding's view can touch, [begin, end).
struct Bytes {
  bool empty = true;
  bool valid = true;  // false: the range cannot be formed without overflow
  uintptr_t begin = 0;
  uintptr_t end = 0;
};

Bytes bytesOf(const aclTensor& t) {
  Bytes bytes;
  int64_t low = t.offset, high = t.offset;
  for (size_t d = 0; d < t.viewShape.size(); ++d) {
    if (t.viewShape[d] <= 0) return bytes;  // empty: touches nothing
    const int64_t stride = d < t.strides.size() ? t.strides[d] : 0;
    int64_t reach = 0;
    if (!checkedMul(t.viewShape[d] - 1, stride, &reach) ||
        !checkedAdd(reach < 0 ? low : high, reach, reach < 0 ? &low : &high))
      bytes.valid = false;
  }
  bytes.empty = false;
  size_t size = elementBytesOf(rawDataType(t));
  if (size == 0) size = 1;
  int64_t lowBytes = 0, endBytes = 0;
  if (!bytes.valid || low < 0 || !checkedMul(low, static_cast<int64_t>(size), &lowBytes) ||
      !checkedAdd(high, int64_t{1}, &endBytes) ||
      !checkedMul(endBytes, static_cast<int64_t>(size), &endBytes)) {
    bytes.valid = false;
    return bytes;
  }
  const auto base = reinterpret_cast<uintptr_t>(t.data);
  if (__builtin_add_overflow(base, static_cast<uintptr_t>(lowBytes), &bytes.begin) ||
      __builtin_add_overflow(base, static_cast<uintptr_t>(endBytes), &bytes.end))
    bytes.valid = false;
  return bytes;
}

std::string bindingName(const Binding& binding, const char* side, size_t index) {
  std::string name = binding.name ? binding.name : side;
  name += " (";
  name += side;
  name += " " + std::to_string(index) + ")";
  return name;
}

// The memory rules for one range starting at `address`.
aclnnStatus checkInBlock(const char* apiName, const std::string& name, const void* address,
                         uintptr_t begin, uintptr_t end) {
  const AllocationRegistry::Lookup found = AllocationRegistry::instance().lookup(address);
  if (found.state == AllocationRegistry::Lookup::kFreed) {
    recordErrorf(
        "%s: %s: expected live memory, got address %p inside a block of %zu bytes at %p that "
        "was freed",
        apiName, name.c_str(), address, found.size, reinterpret_cast<void*>(found.start));
    return ACLNN_ERR_PARAM_INVALID;
  }
  if (found.state == AllocationRegistry::Lookup::kLive &&
      (begin < found.start || end - found.start > found.size)) {
    recordErrorf(
        "%s: %s: expected its bytes [%p, %p) to lie inside the aclrtMalloc block of %zu bytes "
        "at %p that holds its address, got a range that leaves the block",
        apiName, name.c_str(), reinterpret_cast<void*>(begin), reinterpret_cast<void*>(end),
        found.size, reinterpret_cast<void*>(found.start));
    return ACLNN_ERR_PARAM_INVALID;
  }
  return ACLNN_SUCCESS;
}

aclnnStatus checkBinding(const char* apiName, const Binding& binding, const char* side,
                         size_t index, Bytes* bytes) {
  *bytes = Bytes();
  if (!binding.present || !binding.accessed) return ACLNN_SUCCESS;
  *bytes = bytesOf(binding.tensor);
  if (bytes->empty) return ACLNN_SUCCESS;
  const std::string name = bindingName(binding, side, index);
  if (binding.tensor.data == nullptr) {
    recordErrorf(
        "%s: %s: expected a data address for a tensor the operator %s, got nullptr (set at "
        "phase 1 or by aclSet*TensorAddr)",
        apiName, name.c_str(), side[0] == 'i' ? "reads" : "writes");
    return ACLNN_ERR_PARAM_NULLPTR;
  }
  if (!bytes->valid) {
    recordErrorf("%s: %s: expected a view whose byte range fits the address space at %p", apiName,
                 name.c_str(), binding.tensor.data);
    return ACLNN_ERR_PARAM_INVALID;
  }
  return checkInBlock(apiName, name, binding.tensor.data, bytes->begin, bytes->end);
}

}  // namespace

aclnnStatus checkLaunchAddresses(const char* apiName, const std::vector<Binding>& inputs,
                                 const std::vector<Binding>& outputs, void* workspace,
                                 uint64_t workspaceSize) {
  Bytes bytes;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const aclnnStatus s = checkBinding(apiName, inputs[i], "input", i, &bytes);
    if (s != ACLNN_SUCCESS) return s;
  }
  std::vector<Bytes> written(outputs.size());
  for (size_t i = 0; i < outputs.size(); ++i) {
    const aclnnStatus s = checkBinding(apiName, outputs[i], "output", i, &written[i]);
    if (s != ACLNN_SUCCESS) return s;
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    for (size_t j = i + 1; j < outputs.size(); ++j) {
      const Bytes& a = written[i];
      const Bytes& b = written[j];
      if (a.empty || b.empty || !(a.begin < b.end && b.begin < a.end)) continue;
      recordErrorf(
          "%s: %s and %s: expected outputs that share no memory, got byte ranges [%p, %p) and "
          "[%p, %p)",
          apiName, bindingName(outputs[i], "output", i).c_str(),
          bindingName(outputs[j], "output", j).c_str(), reinterpret_cast<void*>(a.begin),
          reinterpret_cast<void*>(a.end), reinterpret_cast<void*>(b.begin),
          reinterpret_cast<void*>(b.end));
      return ACLNN_ERR_PARAM_INVALID;
    }
  }
  if (workspace != nullptr && workspaceSize != 0) {
    const auto begin = reinterpret_cast<uintptr_t>(workspace);
    uintptr_t end = 0;
    if (__builtin_add_overflow(begin, static_cast<uintptr_t>(workspaceSize), &end)) {
      recordErrorf("%s: argument workspace: %llu bytes at %p wrap the address space", apiName,
                   static_cast<unsigned long long>(workspaceSize), workspace);
      return ACLNN_ERR_PARAM_INVALID;
    }
    const aclnnStatus s = checkInBlock(apiName, "argument workspace", workspace, begin, end);
    if (s != ACLNN_SUCCESS) return s;
  }
  return ACLNN_SUCCESS;
}

}  // namespace aclcpu
