// The AMX row micro-kernel: 16-position x 16-channel fp32 tiles accumulated
// by TDPBF16PS over (tap, 32-element reduction word block) pairs. Up to four
// accumulator tiles (4 x 1 or 2 x 2 blocks of 16 x 16), two activation
// tiles and two weight tiles fill the eight tile registers. Only called
// after a cpuid check and the OS's tile-state permission. Keep this file
// free of library templates (see f32_conv_rows_nb16_avx512.cpp).

#include <immintrin.h>

#include <cstring>

#include "kernels/conv/blocked/blocked_bf16_kernels.h"

namespace aclcpu {
namespace kernels {
namespace blocked {
namespace {

// Copies `rows` rows of 16 floats between a tile image and out.
void copyRows(const float* from, int64_t fromStride, float* to, int64_t toStride, int rows) {
  for (int r = 0; r < rows; ++r) std::memcpy(to + r * toStride, from + r * fromStride, 64);
}

// Stores tile T (16 x 16 fp32) to `rows` rows of out at `stride` floats; a
// short tile goes through a tile image so that no row past `rows` is
// touched. Macros: the tile intrinsics take the register number as a
// literal.
#define ACLCPU_STORE_TILE(T, out, stride, rows)                               \
  do {                                                                        \
    if ((rows) == 16) {                                                       \
      _tile_stored(T, (out), (stride) * static_cast<int64_t>(sizeof(float))); \
    } else {                                                                  \
      alignas(64) float image[16 * 16];                                       \
      _tile_stored(T, image, 64);                                             \
      copyRows(image, 16, (out), (stride), (rows));                           \
    }                                                                         \
  } while (0)

// Starts tile T at zero, or (accumulating) at what `rows` rows of out hold.
#define ACLCPU_START_TILE(T, accumulate, out, stride, rows)                  \
  do {                                                                       \
    if (!(accumulate)) {                                                     \
      _tile_zero(T);                                                         \
    } else if ((rows) == 16) {                                               \
      _tile_loadd(T, (out), (stride) * static_cast<int64_t>(sizeof(float))); \
    } else {                                                                 \
      alignas(64) float image[16 * 16] = {};                                 \
      copyRows((out), (stride), image, 16, (rows));                          \
      _tile_loadd(T, image, 64);                                             \
    }                                                                        \
  } while (0)

// MT position tiles x NB channel blocks; accumulators in tiles 0..3,
// activations in 4 and 5, weights in 6 and 7. lastRows: valid rows of the
// last position tile.
template <int MT, int NB>
void runTiles(const Bf16RowJob& j, int64_t t0, int lastRows) {
  static_assert(MT * NB <= 4, "four accumulator tiles");
  const int64_t aStride = static_cast<int64_t>(j.inStep) * 64;
  const int64_t tileStep =
      16 * static_cast<int64_t>(j.inStep) * 16;  // words between position tiles
  const uint32_t* in = j.in + t0 * j.inStep * 16;
  float* out = j.out + t0 * j.outColStep;
  const int64_t mStep = 16 * j.outColStep;
  auto rowsOf = [&](int m) { return m == MT - 1 ? lastRows : 16; };
  // Accumulator tile of (position tile m, block b): NB == 2: 2m + b; else m.
  const bool acc = j.accumulate;
  const int64_t cs = j.outColStep, bs = j.outBlockStride;
  if constexpr (NB == 2) {
    ACLCPU_START_TILE(0, acc, out, cs, rowsOf(0));
    ACLCPU_START_TILE(1, acc, out + bs, cs, rowsOf(0));
    if constexpr (MT == 2) {
      ACLCPU_START_TILE(2, acc, out + mStep, cs, rowsOf(1));
      ACLCPU_START_TILE(3, acc, out + mStep + bs, cs, rowsOf(1));
    }
  } else {
    ACLCPU_START_TILE(0, acc, out, cs, rowsOf(0));
    if constexpr (MT > 1) ACLCPU_START_TILE(1, acc, out + mStep, cs, rowsOf(1));
    if constexpr (MT > 2) ACLCPU_START_TILE(2, acc, out + 2 * mStep, cs, rowsOf(2));
    if constexpr (MT > 3) ACLCPU_START_TILE(3, acc, out + 3 * mStep, cs, rowsOf(3));
  }
  for (int64_t k = 0; k < j.tapCount; ++k) {
    const uint32_t* a = in + j.taps[k];
    const uint32_t* b = j.weights + k * j.tapStride;
    _tile_loadd(6, b, 64);
    if constexpr (NB == 2) {
      _tile_loadd(7, b + 256, 64);
      _tile_loadd(4, a, aStride);
      _tile_dpbf16ps(0, 4, 6);
      _tile_dpbf16ps(1, 4, 7);
      if constexpr (MT == 2) {
        _tile_loadd(5, a + tileStep, aStride);
        _tile_dpbf16ps(2, 5, 6);
        _tile_dpbf16ps(3, 5, 7);
      }
    } else {
      _tile_loadd(4, a, aStride);
      _tile_dpbf16ps(0, 4, 6);
      if constexpr (MT > 1) {
        _tile_loadd(5, a + tileStep, aStride);
        _tile_dpbf16ps(1, 5, 6);
      }
      if constexpr (MT > 2) {
        _tile_loadd(4, a + 2 * tileStep, aStride);
        _tile_dpbf16ps(2, 4, 6);
      }
      if constexpr (MT > 3) {
        _tile_loadd(5, a + 3 * tileStep, aStride);
        _tile_dpbf16ps(3, 5, 6);
      }
    }
  }
  if constexpr (NB == 2) {
    ACLCPU_STORE_TILE(0, out, j.outColStep, rowsOf(0));
    ACLCPU_STORE_TILE(1, out + j.outBlockStride, j.outColStep, rowsOf(0));
    if constexpr (MT == 2) {
      ACLCPU_STORE_TILE(2, out + mStep, j.outColStep, rowsOf(1));
      ACLCPU_STORE_TILE(3, out + mStep + j.outBlockStride, j.outColStep, rowsOf(1));
    }
  } else {
    ACLCPU_STORE_TILE(0, out, j.outColStep, rowsOf(0));
    if constexpr (MT > 1) ACLCPU_STORE_TILE(1, out + mStep, j.outColStep, rowsOf(1));
    if constexpr (MT > 2) ACLCPU_STORE_TILE(2, out + 2 * mStep, j.outColStep, rowsOf(2));
    if constexpr (MT > 3) ACLCPU_STORE_TILE(3, out + 3 * mStep, j.outColStep, rowsOf(3));
  }
}

}  // namespace

void bf16_conv_rows_m16n16_amx(const Bf16RowJob& job) {
  const int maxTiles = job.nb == 2 ? 2 : 4;
  for (int64_t t = 0; t < job.count;) {
    const int64_t left = job.count - t;
    const int mt = static_cast<int>(left >= 16 * maxTiles ? maxTiles : (left + 15) / 16);
    const int lastRows = static_cast<int>(left - 16 * (mt - 1) >= 16 ? 16 : left - 16 * (mt - 1));
    if (job.nb == 2) {
      if (mt == 2)
        runTiles<2, 2>(job, t, lastRows);
      else
        runTiles<1, 2>(job, t, lastRows);
    } else {
      switch (mt) {
        case 4:
          runTiles<4, 1>(job, t, lastRows);
          break;
        case 3:
          runTiles<3, 1>(job, t, lastRows);
          break;
        case 2:
          runTiles<2, 1>(job, t, lastRows);
          break;
        default:
          runTiles<1, 1>(job, t, lastRows);
          break;
      }
    }
    t += 16 * mt;
  }
}

}  // namespace blocked
}  // namespace kernels
}  // namespace aclcpu
