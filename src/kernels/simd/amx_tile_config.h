#pragma once
// The memory image LDTILECFG reads (palette 1): each tile's rows and bytes
// per row. Plain data, for the AMX files. Keep a configuration in constant
// data, not a local: GCC 12 drops the stores into a local one as dead (it
// does not see LDTILECFG read them), which left every tile unconfigured and
// the first tile instruction faulting.

#include <cstdint>

namespace aclcpu {
namespace kernels {
namespace simd {

struct alignas(64) AmxTileConfig {
  uint8_t palette;
  uint8_t startRow;
  uint8_t reserved[14];
  uint16_t bytesPerRow[16];
  uint8_t rows[16];
};

}  // namespace simd
}  // namespace kernels
}  // namespace aclcpu
