// The one tile configuration of the AMX kernels: all eight tiles 16 rows of
// 64 bytes.

#include <immintrin.h>

#include <cstdint>

#include "kernels/conv/blocked/blocked_bf16_kernels.h"

namespace aclcpu {
namespace kernels {
namespace blocked {
namespace {

struct alignas(64) AmxTileConfig {
  uint8_t palette;
  uint8_t startRow;
  uint8_t reserved[14];
  uint16_t bytesPerRow[16];
  uint8_t rows[16];
};

// Constant data, not a local: GCC 12 drops the stores into a local
// configuration as dead (it does not see LDTILECFG read them), which left
// every tile unconfigured and the first tile instruction faulting.
constexpr AmxTileConfig kTileConfig = {
    1, 0, {}, {64, 64, 64, 64, 64, 64, 64, 64}, {16, 16, 16, 16, 16, 16, 16, 16}};

}  // namespace

void configureBf16Tiles_amx() { _tile_loadconfig(&kTileConfig); }

}  // namespace blocked
}  // namespace kernels
}  // namespace aclcpu
