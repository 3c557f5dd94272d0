// aclrtMalloc / aclrtFree / aclrtMemcpy / aclrtMemset and their host and
// asynchronous variants. Device memory is host memory.

#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "acl/acl.h"
#include "common/checked_math.h"
#include "common/error_log.h"
#include "common/raw_enum.h"
#include "runtime/api_guard.h"
#include "runtime/memory_registry.h"
#include "runtime/runtime_state.h"
#include "runtime/stream_queue.h"

namespace aclcpu {
namespace {

constexpr size_t kAlignment = 64;

aclError allocate(const char* api, const char* argName, void** out, size_t size, MemoryKind kind) {
  const aclError usable = Runtime::instance().checkInitialized(api);
  if (usable != ACL_SUCCESS) return usable;
  if (out == nullptr) {
    recordErrorf("%s: argument %s is null; expected a pointer to receive the allocation", api,
                 argName);
    return ACL_ERROR_INVALID_PARAM;
  }
  if (size == 0) {
    recordErrorf("%s: argument size is 0; expected a positive byte count", api);
    return ACL_ERROR_INVALID_PARAM;
  }
  // As CANN: round up to a multiple of 32, plus 32 bytes of slack, so that
  // kernels may read whole 32-byte vectors at the tail.
  // No object may exceed PTRDIFF_MAX bytes; such sizes are refused up front.
  uint64_t padded = 0;
  if (!checkedAdd(static_cast<uint64_t>(size), uint64_t{63}, &padded)) padded = 0;
  padded = padded / 32 * 32;
  if (padded > static_cast<uint64_t>(PTRDIFF_MAX)) padded = 0;
  void* block = nullptr;
  if (padded == 0 || posix_memalign(&block, kAlignment, padded) != 0) {
    recordErrorf("%s: could not allocate %zu bytes; expected a size the host can provide", api,
                 size);
    return ACL_ERROR_RT_MEMORY_ALLOCATION;
  }
  AllocationRegistry::instance().add(block, size, kind);
  *out = block;
  return ACL_SUCCESS;
}

aclError release(const char* api, const char* argName, void* block, MemoryKind kind) {
  if (block == nullptr) {
    recordErrorf("%s: argument %s is null; expected a pointer returned by %s", api, argName,
                 kind == MemoryKind::kDevice ? "aclrtMalloc" : "aclrtMallocHost");
    return ACL_ERROR_INVALID_PARAM;
  }
  size_t offset = 0;
  switch (AllocationRegistry::instance().remove(block, kind, &offset)) {
    case AllocationRegistry::Removal::kRemoved:
      return ACL_SUCCESS;  // the registry quarantines, then frees, the memory
    case AllocationRegistry::Removal::kAlreadyFreed:
      recordErrorf(
          "%s: argument %s (%p) is not a live allocation (it points into a block that "
          "was already freed); expected a pointer from %s that was not freed yet",
          api, argName, block, kind == MemoryKind::kDevice ? "aclrtMalloc" : "aclrtMallocHost");
      return ACL_ERROR_INVALID_PARAM;
    case AllocationRegistry::Removal::kInterior:
      recordErrorf(
          "%s: argument %s (%p) points %zu bytes into an allocation; expected the "
          "pointer the allocation returned",
          api, argName, block, offset);
      return ACL_ERROR_INVALID_PARAM;
    case AllocationRegistry::Removal::kWrongKind:
      recordErrorf(
          "%s: argument %s (%p) was allocated by %s; expected memory from %s (free it "
          "with %s)",
          api, argName, block, kind == MemoryKind::kDevice ? "aclrtMallocHost" : "aclrtMalloc",
          kind == MemoryKind::kDevice ? "aclrtMalloc" : "aclrtMallocHost",
          kind == MemoryKind::kDevice ? "aclrtFreeHost" : "aclrtFree");
      return ACL_ERROR_INVALID_PARAM;
    case AllocationRegistry::Removal::kUnknown:
      break;
  }
  recordErrorf(
      "%s: argument %s (%p) is not a live allocation; expected a pointer from %s that "
      "was not freed yet",
      api, argName, block, kind == MemoryKind::kDevice ? "aclrtMalloc" : "aclrtMallocHost");
  return ACL_ERROR_INVALID_PARAM;
}

// [address, address + count) must not run past the end of a block we know.
bool checkWithinBlock(const char* api, const char* argName, const void* address, size_t count) {
  const AllocationRegistry::Lookup found = AllocationRegistry::instance().lookup(address);
  if (found.state == AllocationRegistry::Lookup::kFreed) {
    recordErrorf(
        "%s: argument %s (%p) points into a block of %zu bytes at %p that was freed; expected "
        "live memory",
        api, argName, address, found.size, reinterpret_cast<void*>(found.start));
    return false;
  }
  size_t available = 0;
  if (!AllocationRegistry::instance().overruns(address, count, &available)) return true;
  recordErrorf(
      "%s: %zu bytes at argument %s (%p) run past the end of its allocation; expected "
      "at most %zu bytes from that address",
      api, count, argName, address, available);
  return false;
}

// `kindValue` is the caller's raw aclrtMemcpyKind (see common/raw_enum.h).
aclError checkMemcpy(const char* api, void* dst, size_t destMax, const void* src, size_t count,
                     int kindValue) {
  const aclError usable = Runtime::instance().checkInitialized(api);
  if (usable != ACL_SUCCESS) return usable;
  if (dst == nullptr || src == nullptr) {
    recordErrorf("%s: argument %s is null; expected a valid address", api,
                 dst == nullptr ? "dst" : "src");
    return ACL_ERROR_INVALID_PARAM;
  }
  if (kindValue < ACL_MEMCPY_HOST_TO_HOST || kindValue > ACL_MEMCPY_INTER_DEVICE_TO_DEVICE) {
    recordErrorf("%s: argument kind is %d; expected an aclrtMemcpyKind in [0, 7]", api, kindValue);
    return ACL_ERROR_INVALID_PARAM;
  }
  if (count > destMax) {
    recordErrorf("%s: argument count (%zu) exceeds destMax (%zu); expected count <= destMax", api,
                 count, destMax);
    return ACL_ERROR_INVALID_PARAM;
  }
  if (!checkWithinBlock(api, "dst", dst, count) || !checkWithinBlock(api, "src", src, count)) {
    return ACL_ERROR_INVALID_PARAM;
  }
  return ACL_SUCCESS;
}

aclError checkMemset(const char* api, void* devPtr, size_t maxCount, size_t count) {
  const aclError usable = Runtime::instance().checkInitialized(api);
  if (usable != ACL_SUCCESS) return usable;
  if (devPtr == nullptr) {
    recordErrorf("%s: argument devPtr is null; expected a valid address", api);
    return ACL_ERROR_INVALID_PARAM;
  }
  if (count > maxCount) {
    recordErrorf("%s: argument count (%zu) exceeds maxCount (%zu); expected count <= maxCount", api,
                 count, maxCount);
    return ACL_ERROR_INVALID_PARAM;
  }
  if (!checkWithinBlock(api, "devPtr", devPtr, count)) return ACL_ERROR_INVALID_PARAM;
  return ACL_SUCCESS;
}

// Every kind is a host copy here; memmove keeps overlapping ranges correct.
void copyBytes(void* dst, const void* src, size_t count) {
  if (count != 0 && dst != src) std::memmove(dst, src, count);
}

}  // namespace
}  // namespace aclcpu

using aclcpu::guardApi;
using aclcpu::MemoryKind;

aclError aclrtMalloc(void** devPtr, size_t size, aclrtMemMallocPolicy policy) {
  // The policy picks NPU page sizes and memory types; host memory has one kind.
  (void)policy;
  return guardApi("aclrtMalloc", [&] {
    return aclcpu::allocate("aclrtMalloc", "devPtr", devPtr, size, MemoryKind::kDevice);
  });
}

aclError aclrtMallocHost(void** hostPtr, size_t size) {
  return guardApi("aclrtMallocHost", [&] {
    return aclcpu::allocate("aclrtMallocHost", "hostPtr", hostPtr, size, MemoryKind::kHost);
  });
}

aclError aclrtFree(void* devPtr) {
  return guardApi("aclrtFree", [&] {
    return aclcpu::release("aclrtFree", "devPtr", devPtr, MemoryKind::kDevice);
  });
}

aclError aclrtFreeHost(void* hostPtr) {
  return guardApi("aclrtFreeHost", [&] {
    return aclcpu::release("aclrtFreeHost", "hostPtr", hostPtr, MemoryKind::kHost);
  });
}

aclError aclrtMemcpy(void* dst, size_t destMax, const void* src, size_t count,
                     aclrtMemcpyKind kind) {
  return guardApi("aclrtMemcpy", [&]() -> aclError {
    const aclError status =
        aclcpu::checkMemcpy("aclrtMemcpy", dst, destMax, src, count, aclcpu::rawEnumValue(kind));
    if (status != ACL_SUCCESS) return status;
    aclcpu::copyBytes(dst, src, count);
    return ACL_SUCCESS;
  });
}

aclError aclrtMemcpyAsync(void* dst, size_t destMax, const void* src, size_t count,
                          aclrtMemcpyKind kind, aclrtStream stream) {
  return guardApi("aclrtMemcpyAsync", [&]() -> aclError {
    const aclError status = aclcpu::checkMemcpy("aclrtMemcpyAsync", dst, destMax, src, count,
                                                aclcpu::rawEnumValue(kind));
    if (status != ACL_SUCCESS) return status;
    return aclcpu::enqueueOnStream(
        stream,
        [dst, src, count]() -> aclError {
          aclcpu::copyBytes(dst, src, count);
          return ACL_SUCCESS;
        },
        "aclrtMemcpyAsync");
  });
}

aclError aclrtMemset(void* devPtr, size_t maxCount, int32_t value, size_t count) {
  return guardApi("aclrtMemset", [&]() -> aclError {
    const aclError status = aclcpu::checkMemset("aclrtMemset", devPtr, maxCount, count);
    if (status != ACL_SUCCESS) return status;
    if (count != 0) std::memset(devPtr, static_cast<unsigned char>(value), count);
    return ACL_SUCCESS;
  });
}

aclError aclrtMemsetAsync(void* devPtr, size_t maxCount, int32_t value, size_t count,
                          aclrtStream stream) {
  return guardApi("aclrtMemsetAsync", [&]() -> aclError {
    const aclError status = aclcpu::checkMemset("aclrtMemsetAsync", devPtr, maxCount, count);
    if (status != ACL_SUCCESS) return status;
    return aclcpu::enqueueOnStream(
        stream,
        [devPtr, value, count]() -> aclError {
          if (count != 0) std::memset(devPtr, static_cast<unsigned char>(value), count);
          return ACL_SUCCESS;
        },
        "aclrtMemsetAsync");
  });
}
