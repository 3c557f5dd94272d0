#pragma once
// The one tile configuration of the AMX kernels: all eight tiles 16 rows of
// 64 bytes. For files compiled with AMX only; static inline so that every
// including file keeps its own copy.

#include <immintrin.h>

#include <cstdint>

namespace aclcpu {
namespace kernels {
namespace blocked {

struct alignas(64) AmxTileConfig {
  uint8_t palette = 1;
  uint8_t startRow = 0;
  uint8_t reserved[14] = {};
  uint16_t bytesPerRow[16] = {};
  uint8_t rows[16] = {};
};

// Loaded for every job: other code in the process (another library's AMX
// kernels) may have changed the thread's configuration since, and loading
// it costs far less than one job.
static inline void configureAmxTiles() {
  AmxTileConfig c;
  for (int t = 0; t < 8; ++t) {
    c.bytesPerRow[t] = 64;
    c.rows[t] = 16;
  }
  _tile_loadconfig(&c);
}

}  // namespace blocked
}  // namespace kernels
}  // namespace aclcpu
