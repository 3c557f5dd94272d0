#include "kernels/conv/im2col_gemm/im2col.h"

#include <algorithm>
#include <cstring>

#include "common/thread_pool.h"
#include "kernels/conv/im2col_gemm/stacked_images.h"
#include "kernels/conv/strided_rows.h"

namespace aclcpu {
namespace kernels {
namespace conv_detail {
namespace {

// Below this many column entries the pool costs more than it saves.
constexpr int64_t kMinParallelEntries = int64_t{1} << 15;

// Calls fn(od, oh, owBegin, owEnd, columnOffset) for the pieces of output rows
// covering positions [p0, p0 + count).
template <typename Fn>
void forEachOutputRowPiece(const ConvShape& shape, int64_t p0, int64_t count, Fn&& fn) {
  const int64_t outW = shape.out[2];
  const int64_t outHW = shape.out[1] * outW;
  int64_t od = p0 / outHW;
  int64_t oh = (p0 % outHW) / outW;
  int64_t ow = p0 % outW;
  int64_t done = 0;
  while (done < count) {
    const int64_t length = std::min(outW - ow, count - done);
    fn(od, oh, ow, ow + length, done);
    done += length;
    ow = 0;
    if (++oh == shape.out[1]) {
      oh = 0;
      ++od;
    }
  }
}

// Where tap `k` of the kernel lands, relative to the strided output position.
struct Tap {
  int64_t offset[3];
  int64_t wBegin, wEnd;  // output columns whose input column is inside x
};

Tap makeTap(const ConvShape& shape, int64_t k) {
  const int64_t kw = k % shape.kernel[2];
  const int64_t kh = (k / shape.kernel[2]) % shape.kernel[1];
  const int64_t kd = k / (shape.kernel[2] * shape.kernel[1]);
  const int64_t taps[3] = {kd, kh, kw};
  Tap tap;
  for (int d = 0; d < 3; ++d) tap.offset[d] = taps[d] * shape.dilation[d] - shape.padBefore[d];
  validOutputRange(tap.offset[2], shape.stride[2], shape.in[2], shape.out[2], &tap.wBegin,
                   &tap.wEnd);
  return tap;
}

// Input row (id * in[1] + ih) that output row (od, oh) reads through `tap`, or
// -1 when that row lies in the padding.
inline int64_t inputRowIndex(const ConvShape& shape, const Tap& tap, int64_t od, int64_t oh) {
  const int64_t id = od * shape.stride[0] + tap.offset[0];
  const int64_t ih = oh * shape.stride[1] + tap.offset[1];
  if (id < 0 || id >= shape.in[0] || ih < 0 || ih >= shape.in[1]) return -1;
  return id * shape.in[1] + ih;
}

// to[ow - owBegin] for the columns [owBegin, owEnd) of output row (od, oh).
void fillPiece(const ConvShape& shape, const Tap& tap, const float* xChannel,
               const StridedRowLoops& loops, int64_t od, int64_t oh, int64_t owBegin, int64_t owEnd,
               float* to) {
  const int64_t strideW = shape.stride[2];
  const int64_t row = inputRowIndex(shape, tap, od, oh);
  int64_t lo = owBegin, hi = owBegin;
  if (row >= 0) {
    lo = std::clamp(tap.wBegin, owBegin, owEnd);
    hi = std::clamp(tap.wEnd, lo, owEnd);
  }
  std::fill(to, to + (lo - owBegin), 0.0f);
  if (hi > lo) {
    // Input column of ow is ow * strideW + offset, inside [0, in) for ow in [lo, hi).
    const int64_t at = row * shape.in[2] + lo * strideW + tap.offset[2];
    const float* in = xChannel + at;
    float* first = to + (lo - owBegin);
    if (strideW == 1) {
      std::memcpy(first, in, static_cast<size_t>(hi - lo) * sizeof(float));
    } else {
      // The rest of the channel's planes may be read.
      loops.copy(in, shape.in[0] * shape.in[1] * shape.in[2] - at, strideW, hi - lo, first);
    }
  }
  std::fill(to + (hi - owBegin), to + (owEnd - owBegin), 0.0f);
}

void fillRow(const ConvShape& shape, const Tap& tap, const ColumnTile& tile, const float* xChannel,
             const StridedRowLoops& loops, float* dst) {
  forEachOutputRowPiece(
      shape, tile.positionBegin, tile.positionCount,
      [&](int64_t od, int64_t oh, int64_t owBegin, int64_t owEnd, int64_t columnOffset) {
        fillPiece(shape, tap, xChannel, loops, od, oh, owBegin, owEnd, dst + columnOffset);
      });
}

// Lines [line0, line0 + count) of a block: positions [first, first + count)
// of one image, step by step (one column-matrix row: a channel and a tap),
// the output-row pieces cut again where a sliver ends.
void packImagePiece(const ColumnSource& source, const float* xImage, int64_t k0, int64_t kb,
                    int64_t line0, int64_t first, int64_t count, int slot, float* dst) {
  const ConvShape& shape = *source.shape;
  const int64_t taps = source.geometry->kernelVolume;
  const StridedRowLoops loops = stridedRowLoops();
  const int64_t sliverFloats = kb * slot;
  for (int64_t p = 0; p < kb; ++p) {
    const int64_t r = k0 + p;
    const float* xChannel =
        xImage + (source.tile.channelBegin + r / taps) * source.geometry->inVolume;
    float* step = dst + p * slot;
    if (source.geometry->columnsAreInput) {  // the row is x's channel itself
      copyRunIntoSlivers(xChannel + first, count, line0, slot, sliverFloats, step);
      continue;
    }
    const Tap tap = makeTap(shape, r % taps);
    forEachOutputRowPiece(
        shape, first, count,
        [&](int64_t od, int64_t oh, int64_t owBegin, int64_t owEnd, int64_t offset) {
          int64_t lineIndex = line0 + offset;
          while (owBegin < owEnd) {
            const int64_t line = lineIndex % slot;
            const int64_t length = std::min<int64_t>(owEnd - owBegin, slot - line);
            float* to = step + lineIndex / slot * sliverFloats + line;
            fillPiece(shape, tap, xChannel, loops, od, oh, owBegin, owBegin + length, to);
            owBegin += length;
            lineIndex += length;
          }
        });
  }
}

}  // namespace

void packColumnBlock(const void* context, int64_t k0, int64_t n0, int64_t kb, int64_t nb, int slot,
                     float* dst) {
  const ColumnSource& source = *static_cast<const ColumnSource*>(context);
  const int64_t perImage = source.tile.positionCount;
  for (int64_t j = n0; j < n0 + nb;) {
    const int64_t image = j / perImage, position = j % perImage;
    const int64_t count = std::min(perImage - position, n0 + nb - j);
    packImagePiece(source, source.xGroup + image * source.imageStride, k0, kb, j - n0,
                   source.tile.positionBegin + position, count, slot, dst);
    j += count;
  }
  const int64_t tailLines = (nb + slot - 1) / slot * slot - nb;
  if (tailLines == 0) return;
  float* last = dst + nb / slot * kb * slot + nb % slot;
  for (int64_t p = 0; p < kb; ++p) std::fill(last + p * slot, last + p * slot + tailLines, 0.0f);
}

void im2colTile(const ConvShape& shape, const ConvGeometry& geometry, const ColumnTile& tile,
                const float* xGroup, float* col, int64_t images, int64_t imageStride) {
  const int64_t taps = geometry.kernelVolume;
  const int64_t rows = tile.channelCount * taps;
  const int64_t colStride = images * tile.positionCount;
  const StridedRowLoops loops = stridedRowLoops();
  auto body = [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      const Tap tap = makeTap(shape, r % taps);
      const float* xChannel = xGroup + (tile.channelBegin + r / taps) * geometry.inVolume;
      for (int64_t i = 0; i < images; ++i)
        fillRow(shape, tap, tile, xChannel + i * imageStride, loops,
                col + r * colStride + i * tile.positionCount);
    }
  };
  if (rows * colStride < kMinParallelEntries) {
    body(0, rows);
  } else {
    parallelFor(rows, body);
  }
}

void col2imTileAccumulate(const ConvShape& shape, const ConvGeometry& geometry,
                          const ColumnTile& tile, const float* col, int64_t colStride,
                          float* dxGroup) {
  const int64_t taps = geometry.kernelVolume;
  const int64_t strideW = shape.stride[2];
  const StridedRowLoops loops = stridedRowLoops();
  auto body = [&](int64_t begin, int64_t end) {
    for (int64_t c = begin; c < end; ++c) {
      float* dxChannel = dxGroup + (tile.channelBegin + c) * geometry.inVolume;
      for (int64_t k = 0; k < taps; ++k) {
        const Tap tap = makeTap(shape, k);
        const float* src = col + (c * taps + k) * colStride;
        forEachOutputRowPiece(
            shape, tile.positionBegin, tile.positionCount,
            [&](int64_t od, int64_t oh, int64_t owBegin, int64_t owEnd, int64_t columnOffset) {
              const int64_t row = inputRowIndex(shape, tap, od, oh);
              if (row < 0) return;
              const int64_t lo = std::clamp(tap.wBegin, owBegin, owEnd);
              const int64_t hi = std::clamp(tap.wEnd, lo, owEnd);
              if (hi <= lo) return;
              const float* in = src + columnOffset + (lo - owBegin);
              float* out = dxChannel + row * shape.in[2] + lo * strideW + tap.offset[2];
              const int64_t count = hi - lo;
              if (strideW == 1) {
                for (int64_t i = 0; i < count; ++i) out[i] += in[i];
              } else {
                loops.add(in, count, strideW, out);
              }
            });
      }
    }
  };
  if (tile.channelCount * taps * tile.positionCount < kMinParallelEntries) {
    body(0, tile.channelCount);
  } else {
    parallelFor(tile.channelCount, body);
  }
}

void col2imPointwiseStore(const ConvShape& shape, int64_t channels, const float* col,
                          int64_t colStride, float* dxChannels) {
  const Tap tap = makeTap(shape, 0);
  const int64_t inW = shape.in[2], strideW = shape.stride[2];
  const int64_t planeRows = shape.in[0] * shape.in[1];
  const StridedRowLoops loops = stridedRowLoops();
  // The output index whose window starts at input index i along one dim, or -1.
  auto source = [&](int d, int64_t i) -> int64_t {
    const int64_t shifted = i - tap.offset[d];
    if (shifted < 0 || shifted % shape.stride[d] != 0) return -1;
    const int64_t o = shifted / shape.stride[d];
    return o < shape.out[d] ? o : -1;
  };
  auto body = [&](int64_t begin, int64_t end) {
    for (int64_t c = begin; c < end; ++c) {
      const float* src = col + c * colStride;
      for (int64_t row = 0; row < planeRows; ++row) {
        float* out = dxChannels + (c * planeRows + row) * inW;
        const int64_t od = source(0, row / shape.in[1]), oh = source(1, row % shape.in[1]);
        if (od < 0 || oh < 0 || tap.wEnd <= tap.wBegin) {
          std::fill(out, out + inW, 0.0f);
          continue;
        }
        const float* in = src + (od * shape.out[1] + oh) * shape.out[2] + tap.wBegin;
        const int64_t first = tap.wBegin * strideW + tap.offset[2];
        const int64_t count = tap.wEnd - tap.wBegin;
        const int64_t last = first + (count - 1) * strideW;  // the last element stored
        std::fill(out, out + first, 0.0f);
        if (strideW == 1) {
          std::memcpy(out + first, in, static_cast<size_t>(count) * sizeof(float));
        } else {
          loops.spread(in, count, strideW, out + first);
        }
        std::fill(out + last + 1, out + inW, 0.0f);
      }
    }
  };
  if (channels * planeRows * inW < kMinParallelEntries) {
    body(0, channels);
  } else {
    parallelFor(channels, body);
  }
}

}  // namespace conv_detail
}  // namespace kernels
}  // namespace aclcpu
