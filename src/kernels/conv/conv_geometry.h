#pragma once
// Derived sizes of a ConvShape and the index arithmetic shared by the
// im2col/col2im packers and the direct loops.

#include <cstdint>

#include "kernels/kernel_types.h"

namespace aclcpu {
namespace kernels {
namespace conv_detail {

struct ConvGeometry {
  int64_t cinPerGroup = 0;
  int64_t coutPerGroup = 0;
  int64_t kernelVolume = 0;  // taps per (co, ci) pair
  int64_t outVolume = 0;     // output positions P
  int64_t inVolume = 0;      // input positions Q
  // 1x1x1 kernel, unit stride, no padding and out == in: the column matrix is x itself.
  bool columnsAreInput = false;
};

ConvGeometry describe(const ConvShape& shape);

// A 1x1x1 kernel with no padding (any stride): every output position reads
// one input position, so the columns are x subsampled (pointwise layers and
// their strided projections).
bool unpaddedPointwise(const ConvShape& shape);

// floor / ceil of a / b for b > 0 and any sign of a.
inline int64_t floorDiv(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }
inline int64_t ceilDiv(int64_t a, int64_t b) { return a >= 0 ? (a + b - 1) / b : -((-a) / b); }

// Output indices o in [*begin, *end) whose input index o * stride + offset
// lies in [0, in); the range is clipped to [0, out).
inline void validOutputRange(int64_t offset, int64_t stride, int64_t in, int64_t out,
                             int64_t* begin, int64_t* end) {
  int64_t lo = ceilDiv(-offset, stride);
  int64_t hi = floorDiv(in - 1 - offset, stride) + 1;
  lo = lo < 0 ? 0 : (lo > out ? out : lo);
  hi = hi > out ? out : hi;
  if (hi < lo) hi = lo;
  *begin = lo;
  *end = hi;
}

// How the output-position axis P and the input-channel axis of one group are
// cut so the column buffer stays bounded whatever the problem size. Depends
// on the shape only, never on the thread count.
struct ColumnTiling {
  int64_t positionsPerTile = 0;  // columns of the column matrix
  int64_t channelsPerChunk = 0;  // input channels per column matrix (kernelVolume rows each)
  uint64_t columnFloats = 0;     // buffer size; 0 when no column matrix is needed
};

ColumnTiling planColumns(const ConvGeometry& geometry);

// Groups whose per-group GEMM would be tiny (depthwise, channel multipliers,
// small grouped convolutions) run as direct loops parallel over channels.
bool useDirectLoops(const ConvShape& shape, const ConvGeometry& geometry);

// rows[r * length + i] += bias[r % channels] for r < count, i < length, on
// the shared pool: a pass's bias added after its sums, for the algorithms
// that cannot add it as they store.
void addChannelBias(float* rows, int64_t count, int64_t length, int64_t channels,
                    const float* bias);

}  // namespace conv_detail
}  // namespace kernels
}  // namespace aclcpu
