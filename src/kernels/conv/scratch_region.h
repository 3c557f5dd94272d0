#pragma once
// A typed pointer into a pass's scratch at a byte offset its plan computed
// (the offsets keep every region 64-byte aligned).

#include <cstdint>

namespace aclcpu {
namespace kernels {

// bytes rounded up to whole 64-byte regions.
constexpr uint64_t scratchAligned(uint64_t bytes) { return (bytes + 63) / 64 * 64; }

template <typename T>
T* scratchRegion(void* scratch, uint64_t offset) {
  return reinterpret_cast<T*>(static_cast<unsigned char*>(scratch) + offset);
}

}  // namespace kernels
}  // namespace aclcpu
