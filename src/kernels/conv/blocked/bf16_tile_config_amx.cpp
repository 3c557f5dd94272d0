// The one tile configuration of the AMX kernels: all eight tiles 16 rows of
// 64 bytes.

#include <immintrin.h>

#include <cstdint>

#include "kernels/conv/blocked/blocked_bf16_kernels.h"
#include "kernels/simd/amx_tile_config.h"

namespace aclcpu {
namespace kernels {
namespace blocked {
namespace {

using simd::AmxTileConfig;

// Constant data (amx_tile_config.h says why).
constexpr AmxTileConfig kTileConfig = {
    1, 0, {}, {64, 64, 64, 64, 64, 64, 64, 64}, {16, 16, 16, 16, 16, 16, 16, 16}};

}  // namespace

void configureBf16Tiles_amx() { _tile_loadconfig(&kTileConfig); }

}  // namespace blocked
}  // namespace kernels
}  // namespace aclcpu
