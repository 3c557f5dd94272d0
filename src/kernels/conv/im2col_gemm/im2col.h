#pragma once
// The column matrix of one (batch, group) slice, restricted to a tile of
// output positions [p0, p0 + pCount) and input channels [c0, c0 + cCount):
//   col[(c - c0) * K + k][p - p0] = x[c, p * stride - padBefore + k * dilation]
// (zero where the window leaves x). K = kernel volume, rows are pCount long.

#include <cstdint>

#include "kernels/conv/conv_geometry.h"

namespace aclcpu {
namespace kernels {
namespace conv_detail {

struct ColumnTile {
  int64_t channelBegin = 0;
  int64_t channelCount = 0;
  int64_t positionBegin = 0;
  int64_t positionCount = 0;
};

// xGroup points at channel 0 of the group; parallel over rows. With
// images > 1, the tile's matrices of that many images (image i's x at
// xGroup + i * imageStride) side by side: row r of image i at
// col + r * images * tile.positionCount + i * tile.positionCount.
void im2colTile(const ConvShape& shape, const ConvGeometry& geometry, const ColumnTile& tile,
                const float* xGroup, float* col, int64_t images = 1, int64_t imageStride = 0);

// The column matrix of a tile as sgemm's B (gemm.h, PackedBSource): its
// blocks packed straight from x, without the matrix itself. `context` is a
// ColumnSource that outlives the sgemm call. With images > 1 the matrices of
// that many consecutive images stand side by side (column j: image
// j / tile.positionCount), image i's x at xGroup + i * imageStride.
struct ColumnSource {
  const ConvShape* shape;
  const ConvGeometry* geometry;
  ColumnTile tile;
  const float* xGroup;
  int64_t images = 1;
  int64_t imageStride = 0;
};
void packColumnBlock(const void* context, int64_t k0, int64_t n0, int64_t kb, int64_t nb, int slot,
                     float* dst);

// dxGroup[c, window position] += col[row][p] for every entry of the tile.
// Parallel over channels; each channel adds taps, then positions, in a fixed
// order, so the result never depends on the thread count.
// col's rows are colStride floats apart (at least tile.positionCount).
void col2imTileAccumulate(const ConvShape& shape, const ConvGeometry& geometry,
                          const ColumnTile& tile, const float* col, int64_t colStride,
                          float* dxGroup);

// A 1x1x1 kernel's col2im, when col holds every output position (rows
// colStride floats apart): each dx element has at most one term, so the
// planes of channels [0, channels) from dxChannels on are stored whole, the
// term or +0 (no zeroing pass before, no read of dx). Parallel over channels.
void col2imPointwiseStore(const ConvShape& shape, int64_t channels, const float* col,
                          int64_t colStride, float* dxChannels);

}  // namespace conv_detail
}  // namespace kernels
}  // namespace aclcpu
