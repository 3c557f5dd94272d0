#include "kernels/conv/conv_geometry.h"

#include <algorithm>

#include "common/thread_pool.h"

namespace aclcpu {
namespace kernels {
namespace conv_detail {

namespace {
// 16 MiB of fp32 per column matrix.
constexpr int64_t kColumnBudgetFloats = int64_t{4} << 20;
// Tiles narrower than this starve the GEMM; accept a larger buffer instead
// only when a single channel's rows already exceed the budget.
constexpr int64_t kMinPositionsPerTile = 256;
}  // namespace

bool unpaddedPointwise(const ConvShape& shape) {
  return describe(shape).kernelVolume == 1 && shape.padBefore[0] == 0 && shape.padBefore[1] == 0 &&
         shape.padBefore[2] == 0;
}

ConvGeometry describe(const ConvShape& shape) {
  ConvGeometry g;
  g.cinPerGroup = shape.groups > 0 ? shape.inChannels / shape.groups : 0;
  g.coutPerGroup = shape.groups > 0 ? shape.outChannels / shape.groups : 0;
  g.kernelVolume = shape.kernel[0] * shape.kernel[1] * shape.kernel[2];
  g.outVolume = shape.out[0] * shape.out[1] * shape.out[2];
  g.inVolume = shape.in[0] * shape.in[1] * shape.in[2];
  bool identity = true;
  for (int d = 0; d < 3; ++d) {
    identity = identity && shape.kernel[d] == 1 && shape.stride[d] == 1 &&
               shape.padBefore[d] == 0 && shape.out[d] == shape.in[d];
  }
  g.columnsAreInput = identity;
  return g;
}

ColumnTiling planColumns(const ConvGeometry& geometry) {
  ColumnTiling tiling;
  const int64_t positions = std::max<int64_t>(geometry.outVolume, 1);
  const int64_t channels = std::max<int64_t>(geometry.cinPerGroup, 1);
  const int64_t rowsPerChannel = std::max<int64_t>(geometry.kernelVolume, 1);
  const int64_t rows = channels * rowsPerChannel;
  if (rows <= kColumnBudgetFloats / positions) {
    tiling.positionsPerTile = positions;
    tiling.channelsPerChunk = channels;
  } else {
    tiling.positionsPerTile =
        std::min(positions, std::max(kMinPositionsPerTile, kColumnBudgetFloats / rows));
    tiling.channelsPerChunk = std::clamp<int64_t>(
        kColumnBudgetFloats / (rowsPerChannel * tiling.positionsPerTile), 1, channels);
  }
  tiling.columnFloats = geometry.columnsAreInput
                            ? 0
                            : static_cast<uint64_t>(tiling.channelsPerChunk) *
                                  static_cast<uint64_t>(rowsPerChannel) *
                                  static_cast<uint64_t>(tiling.positionsPerTile);
  return tiling;
}

bool useDirectLoops(const ConvShape& shape, const ConvGeometry& geometry) {
  return shape.groups > 1 && geometry.cinPerGroup * geometry.coutPerGroup <= 64;
}

void addChannelBias(float* rows, int64_t count, int64_t length, int64_t channels,
                    const float* bias) {
  parallelFor(count, [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      const float value = bias[r % channels];
      float* values = rows + r * length;
      for (int64_t i = 0; i < length; ++i) values[i] += value;
    }
  });
}

}  // namespace conv_detail
}  // namespace kernels
}  // namespace aclcpu
