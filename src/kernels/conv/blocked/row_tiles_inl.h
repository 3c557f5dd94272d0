#pragma once
// How the row kernels (fp32 and bf16) cut a row into register tiles. Static
// inline: every including file, whatever its ISA flags, keeps its own copy.

#include <cstdint>

namespace aclcpu {
namespace kernels {
namespace blocked {

// Cuts a row of `count` positions into `tiles` register tiles whose widths
// differ by at most one (56 positions in tiles of at most 6: six of 6 and
// four of 5, not nine of 6 and a sliver of 2), calling tile(pos, width) for
// each in order.
template <typename Tile>
static inline void forEachRowTile(int64_t count, int64_t tiles, Tile&& tile) {
  for (int64_t i = 0; i < tiles; ++i) {
    const int64_t pos = i * count / tiles;
    tile(pos, (i + 1) * count / tiles - pos);
  }
}

}  // namespace blocked
}  // namespace kernels
}  // namespace aclcpu
