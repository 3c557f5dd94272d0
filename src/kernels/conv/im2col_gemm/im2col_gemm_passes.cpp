// The three convolution passes as im2col / col2im + sgemm per (batch, group),
// tiled over output positions (and input channels) so the column matrix stays
// bounded. The generic path: every ISA, every shape.

#include "kernels/conv/im2col_gemm/im2col_gemm_passes.h"

#include <algorithm>
#include <cstring>

#include "common/thread_pool.h"
#include "kernels/conv/conv_geometry.h"
#include "kernels/conv/im2col_gemm/im2col.h"
#include "kernels/conv/im2col_gemm/stacked_images.h"
#include "kernels/conv/scratch_region.h"
#include "kernels/gemm/gemm.h"

namespace aclcpu {
namespace kernels {
namespace im2col_gemm {
namespace {

using conv_detail::ColumnTile;
using conv_detail::ColumnTiling;
using conv_detail::ConvGeometry;

// Scratch = [gemm packing buffers][column matrix].
struct Scratch {
  void* gemm;
  float* columns;
};

uint64_t gemmPathScratchBytes(const ConvShape& shape) {
  const ConvGeometry geometry = conv_detail::describe(shape);
  const ColumnTiling tiling = conv_detail::planColumns(geometry);
  return scratchAligned(gemmScratchBytes()) + scratchAligned(tiling.columnFloats * sizeof(float));
}

Scratch splitScratch(void* scratch) {
  return {scratch, scratchRegion<float>(scratch, scratchAligned(gemmScratchBytes()))};
}

void zeroFloats(float* data, int64_t count) {
  if (count <= 0) return;
  constexpr int64_t kBlock = int64_t{1} << 16;
  if (count <= kBlock) {
    std::memset(data, 0, static_cast<size_t>(count) * sizeof(float));
    return;
  }
  parallelFor((count + kBlock - 1) / kBlock, [&](int64_t begin, int64_t end) {
    const int64_t first = begin * kBlock, last = std::min(count, end * kBlock);
    std::memset(data + first, 0, static_cast<size_t>(last - first) * sizeof(float));
  });
}

// Calls fn(tile) for every (position tile, channel chunk) of one group in a
// fixed order: positions outer, channels inner.
template <typename Fn>
void forEachTile(const ConvGeometry& geometry, const ColumnTiling& tiling, Fn&& fn) {
  for (int64_t p0 = 0; p0 < geometry.outVolume; p0 += tiling.positionsPerTile) {
    for (int64_t c0 = 0; c0 < geometry.cinPerGroup; c0 += tiling.channelsPerChunk) {
      ColumnTile tile;
      tile.positionBegin = p0;
      tile.positionCount = std::min(tiling.positionsPerTile, geometry.outVolume - p0);
      tile.channelBegin = c0;
      tile.channelCount = std::min(tiling.channelsPerChunk, geometry.cinPerGroup - c0);
      fn(tile);
    }
  }
}

// The weights packed once with gemm's packA when sgemm would pack them
// several times: once per product (image, stack of images or position tile)
// and per column block. RN50 1x1 256->64 56x56 batch 8 forward packed its
// 64 KB of weights 56 times, the 1x1/2 256->512 data gradient its 512 KB 16
// times (10% of that pass's time). Only while they stay in L2 between uses:
// packed once but read from L3 they cost as much as packing them again
// (the 1D k3 and k10 s5 512ch weight gradients' dy tiles, 5.6 and 1.6 MB
// packed once: 144 -> 147 and 98 -> 103 ms, 1 thread). 768 KB: three
// quarters of the 1 MB L2 of the Zen 5 this was measured on.
constexpr uint64_t kMaxPackedWeightBytes = uint64_t{768} << 10;

// The region weights of rows x depth packed once take: 0 (sgemm packs them
// as it goes) unless `products` products read them or one product's
// `columns` span several of sgemm's column blocks.
uint64_t packedWeightBytes(int64_t rows, int64_t depth, int64_t products, int64_t columns) {
  if (products < 2 && !gemmRepacksA(columns)) return 0;
  const uint64_t bytes = packedABytes(rows, depth);
  return bytes <= kMaxPackedWeightBytes ? bytes : 0;
}

// The weights for the products: packed into `region` when it has bytes, else the view.
PackedA packedOnceOrView(uint64_t regionBytes, float* region, int64_t rows, int64_t depth,
                         MatrixView view) {
  if (regionBytes == 0) return PackedA{view};
  return packA(rows, depth, view, region);
}

// The GEMM's slices, then one stacked product of rows x (images x positions).
uint64_t stackedProductBytes(int64_t rows, int64_t images, int64_t positions) {
  const uint64_t floats = static_cast<uint64_t>(rows) * static_cast<uint64_t>(images) *
                          static_cast<uint64_t>(positions);
  return scratchAligned(gemmScratchBytes()) + scratchAligned(floats * sizeof(float));
}

// With stacked images, the stacked column matrix follows the GEMM's slices;
// packed weights come after the larger of the two layouts.
uint64_t backwardDataProductBytes(const ConvShape& shape) {
  const ConvGeometry geometry = conv_detail::describe(shape);
  const int64_t rows = geometry.cinPerGroup * geometry.kernelVolume;
  const int64_t stack = conv_detail::imagesPerProduct(shape.batch, geometry.outVolume, rows);
  uint64_t bytes = gemmPathScratchBytes(shape);
  if (stack > 1) bytes = std::max(bytes, stackedProductBytes(rows, stack, geometry.outVolume));
  return bytes;
}

// The transposed weights (rows x Cog) are packed once when every product
// reads all their rows: stacked images, or tiles that split positions only.
uint64_t backwardDataPackedWeightBytes(const ConvShape& shape) {
  const ConvGeometry geometry = conv_detail::describe(shape);
  const int64_t rows = geometry.cinPerGroup * geometry.kernelVolume;
  const int64_t stack = conv_detail::imagesPerProduct(shape.batch, geometry.outVolume, rows);
  if (stack > 1)
    return packedWeightBytes(rows, geometry.coutPerGroup, (shape.batch + stack - 1) / stack,
                             stack * geometry.outVolume);
  const ColumnTiling tiling = conv_detail::planColumns(geometry);
  if (tiling.channelsPerChunk < geometry.cinPerGroup) return 0;
  const int64_t tiles =
      (geometry.outVolume + tiling.positionsPerTile - 1) / tiling.positionsPerTile;
  return packedWeightBytes(rows, geometry.coutPerGroup, shape.batch * tiles,
                           tiling.positionsPerTile);
}

}  // namespace

uint64_t scratchBytes(const ConvShape& shape) {
  return backwardDataProductBytes(shape) + backwardDataPackedWeightBytes(shape);
}

namespace {

// Column matrices that are not x itself are formed once per product, in
// parallel, and the GEMM reads them as a row-major B, whose slivers its
// tiles pack as they use them; gathered by sgemm's B packing instead, the
// gathers are repeated by every part of the GEMM (split by output channels,
// each thread packed all of B) and run before the tiles' multiply-adds.
// Measured: RN50 res5 1x1/2 1024->2048 14x14 batch 8 forward, 2 threads
// 7.8-8.0 -> 6.1 ms (the strided gathers were a third of each thread's
// time), 1 thread 13.0 -> 11.4; RN50 1x1/2 256->512 56x56, pass bench,
// 1 thread 12.0 -> 8.7 ms, 2 threads 6.5 -> 5.0; 1D k10 s5 512ch L4000
// batch 4, 94 -> 86 (2 threads 55 -> 53). Only while the columns take at
// most twice x's elements (a 3x3/2 layer's take 2.25x), so that the
// workspace stays near the operands' size.
bool formsColumns(const ConvGeometry& geometry) {
  return !geometry.columnsAreInput &&
         (geometry.kernelVolume == 1 ||
          geometry.kernelVolume * geometry.outVolume <= 2 * geometry.inVolume);
}

// With stacked images, their outputs side by side follow the GEMM's slices,
// then (formsColumns) their column matrices; packed weights come after these.
uint64_t forwardProductBytes(const ConvShape& shape) {
  const ConvGeometry geometry = conv_detail::describe(shape);
  const int64_t stack =
      conv_detail::imagesPerProduct(shape.batch, geometry.outVolume, geometry.coutPerGroup);
  const uint64_t columnFloats = static_cast<uint64_t>(geometry.cinPerGroup) *
                                static_cast<uint64_t>(geometry.kernelVolume) *
                                static_cast<uint64_t>(geometry.outVolume);
  if (stack == 1) {
    return scratchAligned(gemmScratchBytes()) +
           (formsColumns(geometry) ? scratchAligned(columnFloats * sizeof(float)) : 0);
  }
  uint64_t bytes = stackedProductBytes(geometry.coutPerGroup, stack, geometry.outVolume);
  if (formsColumns(geometry))
    bytes += scratchAligned(columnFloats * static_cast<uint64_t>(stack) * sizeof(float));
  return bytes;
}

uint64_t forwardPackedWeightBytes(const ConvShape& shape) {
  const ConvGeometry geometry = conv_detail::describe(shape);
  const int64_t stack =
      conv_detail::imagesPerProduct(shape.batch, geometry.outVolume, geometry.coutPerGroup);
  return packedWeightBytes(geometry.coutPerGroup, geometry.cinPerGroup * geometry.kernelVolume,
                           (shape.batch + stack - 1) / stack, stack * geometry.outVolume);
}

}  // namespace

uint64_t forwardScratchBytes(const ConvShape& shape) {
  return forwardProductBytes(shape) + forwardPackedWeightBytes(shape);
}

// After the data gradient's scratch: the transposed gradient of one group,
// for the shapes backwardWeight computes transposed.
uint64_t backwardWeightScratchBytes(const ConvShape& shape) {
  const ConvGeometry geometry = conv_detail::describe(shape);
  const uint64_t groupWeights = static_cast<uint64_t>(geometry.coutPerGroup) *
                                static_cast<uint64_t>(geometry.cinPerGroup) *
                                static_cast<uint64_t>(geometry.kernelVolume);
  return gemmPathScratchBytes(shape) + scratchAligned(groupWeights * sizeof(float));
}

void forward(const ConvShape& shape, const float* x, const float* w, float* y, void* scratch,
             const float* bias) {
  const ConvGeometry geometry = conv_detail::describe(shape);
  const int64_t P = geometry.outVolume, Q = geometry.inVolume, K = geometry.kernelVolume;
  const int64_t Cig = geometry.cinPerGroup, Cog = geometry.coutPerGroup;
  if (shape.batch == 0 || shape.outChannels == 0 || P == 0) return;
  if (Cig * K == 0) {  // empty reduction
    zeroFloats(y, shape.batch * shape.outChannels * P);
    if (bias)
      conv_detail::addChannelBias(y, shape.batch * shape.outChannels, P, shape.outChannels, bias);
    return;
  }
  // One product per (image, group), or per stack of images, covers every
  // position and channel: on x itself when the columns are x, on the formed
  // columns (formsColumns), else on blocks sgemm's packing gathers from x.
  const ColumnTile whole{0, Cig, 0, P};
  const bool hf32 = shape.inputRounding == Rounding::HF32;  // x rounded as packed
  const int64_t stack = conv_detail::imagesPerProduct(shape.batch, P, Cog);
  const uint64_t packedBytes = forwardPackedWeightBytes(shape);
  float* const packedRegion = scratchRegion<float>(scratch, forwardProductBytes(shape));
  auto groupWeightsOf = [&](int64_t g) {
    return packedOnceOrView(packedBytes, packedRegion, Cog, Cig * K,
                            MatrixView{w + g * Cog * Cig * K, Cig * K, 1});
  };
  if (stack > 1) {
    float* const stacked = scratchRegion<float>(scratch, scratchAligned(gemmScratchBytes()));
    float* const formed =
        stacked +
        scratchAligned(static_cast<uint64_t>(Cog * stack * P) * sizeof(float)) / sizeof(float);
    for (int64_t g = 0; g < shape.groups; ++g) {
      const PackedA weights = groupWeightsOf(g);
      for (int64_t n0 = 0; n0 < shape.batch; n0 += stack) {
        const int64_t images = std::min(stack, shape.batch - n0);
        const int64_t N = images * P;
        const float* xFirst = x + (n0 * shape.inChannels + g * Cig) * Q;
        const float* groupBias = bias ? bias + g * Cog : nullptr;
        if (formsColumns(geometry)) {
          conv_detail::im2colTile(shape, geometry, whole, xFirst, formed, images,
                                  shape.inChannels * Q);
          sgemm(Cog, N, Cig * K, weights, MatrixView{formed, N, 1, hf32}, stacked, N, false,
                scratch, groupBias);
        } else {
          const conv_detail::ColumnSource columns{&shape, &geometry, whole,
                                                  xFirst, images,    shape.inChannels * Q};
          sgemm(Cog, N, Cig * K, weights,
                PackedBSource{conv_detail::packColumnBlock, &columns, hf32}, stacked, N, false,
                scratch, groupBias);
        }
        conv_detail::unstackRows(stacked, Cog, images, P,
                                 y + (n0 * shape.outChannels + g * Cog) * P, shape.outChannels * P);
      }
    }
    return;
  }
  for (int64_t g = 0; g < shape.groups; ++g) {
    const PackedA weights = groupWeightsOf(g);
    for (int64_t n = 0; n < shape.batch; ++n) {
      const float* xGroup = x + (n * shape.inChannels + g * Cig) * Q;
      float* yGroup = y + (n * shape.outChannels + g * Cog) * P;
      const float* groupBias = bias ? bias + g * Cog : nullptr;
      if (geometry.columnsAreInput) {
        sgemm(Cog, P, Cig, weights, MatrixView{xGroup, Q, 1, hf32}, yGroup, P, false, scratch,
              groupBias);
      } else if (formsColumns(geometry)) {
        float* formed = scratchRegion<float>(scratch, scratchAligned(gemmScratchBytes()));
        conv_detail::im2colTile(shape, geometry, whole, xGroup, formed);
        sgemm(Cog, P, Cig * K, weights, MatrixView{formed, P, 1, hf32}, yGroup, P, false, scratch,
              groupBias);
      } else {
        const conv_detail::ColumnSource columns{&shape, &geometry, whole, xGroup};
        sgemm(Cog, P, Cig * K, weights, PackedBSource{conv_detail::packColumnBlock, &columns, hf32},
              yGroup, P, false, scratch, groupBias);
      }
    }
  }
}

void backwardData(const ConvShape& shape, const float* dy, const float* w, float* dx, void* scratch,
                  const float* bias) {
  const ConvGeometry geometry = conv_detail::describe(shape);
  const int64_t P = geometry.outVolume, Q = geometry.inVolume, K = geometry.kernelVolume;
  const int64_t Cig = geometry.cinPerGroup, Cog = geometry.coutPerGroup;
  if (shape.batch == 0 || shape.inChannels == 0 || Q == 0) return;
  if (Cog * K * P == 0) {  // no window touches x
    zeroFloats(dx, shape.batch * shape.inChannels * Q);
    if (bias)
      conv_detail::addChannelBias(dx, shape.batch * shape.inChannels, Q, shape.inChannels, bias);
    return;
  }
  const ColumnTiling tiling = conv_detail::planColumns(geometry);
  const Scratch parts = splitScratch(scratch);
  const int64_t rows = Cig * K;
  const bool hf32 = shape.inputRounding == Rounding::HF32;  // dy rounded as packed
  const int64_t stack = conv_detail::imagesPerProduct(shape.batch, P, rows);
  const uint64_t packedBytes = backwardDataPackedWeightBytes(shape);
  float* const packedRegion = scratchRegion<float>(scratch, backwardDataProductBytes(shape));
  auto groupWeightsOf = [&](int64_t g) {
    return packedOnceOrView(packedBytes, packedRegion, rows, Cog,
                            MatrixView{w + g * Cog * rows, 1, rows});
  };
  if (stack > 1) {
    // The column matrices of `stack` images side by side from one product.
    const ColumnTile whole{0, Cig, 0, P};
    for (int64_t g = 0; g < shape.groups; ++g) {
      const PackedA weightsT = groupWeightsOf(g);
      for (int64_t n0 = 0; n0 < shape.batch; n0 += stack) {
        const int64_t images = std::min(stack, shape.batch - n0);
        const int64_t N = images * P;
        const conv_detail::StackedRows gradients{dy + (n0 * shape.outChannels + g * Cog) * P, P,
                                                 shape.outChannels * P, P};
        const PackedBSource source{conv_detail::packStackedRowsBlock, &gradients, hf32};
        float* dxFirst = dx + (n0 * shape.inChannels + g * Cig) * Q;
        if (geometry.columnsAreInput) {
          sgemm(Cig, N, Cog, weightsT, source, parts.columns, N, false, parts.gemm,
                bias ? bias + g * Cig : nullptr);
          conv_detail::unstackRows(parts.columns, Cig, images, P, dxFirst, shape.inChannels * Q);
          continue;
        }
        sgemm(rows, N, Cog, weightsT, source, parts.columns, N, false, parts.gemm);
        for (int64_t i = 0; i < images; ++i) {
          float* dxGroup = dxFirst + i * shape.inChannels * Q;
          if (K == 1) {
            conv_detail::col2imPointwiseStore(shape, Cig, parts.columns + i * P, N, dxGroup);
          } else {
            zeroFloats(dxGroup, Cig * Q);
            conv_detail::col2imTileAccumulate(shape, geometry, whole, parts.columns + i * P, N,
                                              dxGroup);
          }
          if (bias) conv_detail::addChannelBias(dxGroup, Cig, Q, Cig, bias + g * Cig);
        }
      }
    }
    return;
  }
  for (int64_t g = 0; g < shape.groups; ++g) {
    const float* wGroup = w + g * Cog * Cig * K;
    // Packed, the weights cover every tile's rows: tiles then split
    // positions only (backwardDataPackedWeightBytes).
    const PackedA packedT = groupWeightsOf(g);
    for (int64_t n = 0; n < shape.batch; ++n) {
      const float* dyGroup = dy + (n * shape.outChannels + g * Cog) * P;
      float* dxGroup = dx + (n * shape.inChannels + g * Cig) * Q;
      // With identity columns every dx element is written exactly once below;
      // so it is when a 1x1x1 kernel's tiles hold every position (strided
      // pointwise layers: RN50 1x1/2 256->512 56x56 batch 8 data gradient,
      // 1 thread 14.9-15.7 -> 11.1 ms, 2 threads 8.0 -> 5.9; the zeroing pass
      // and the adds into dx were 5.7 ms of the 1-thread time).
      const bool storesPlanes = !geometry.columnsAreInput && K == 1 && tiling.positionsPerTile >= P;
      if (!geometry.columnsAreInput && !storesPlanes) zeroFloats(dxGroup, Cig * Q);
      forEachTile(geometry, tiling, [&](const ColumnTile& tile) {
        // columns[(c, k)][p] = sum over co of w[co, c, k] * dy[co, p]
        const PackedA weightsT =
            packedBytes > 0 ? packedT
                            : PackedA{MatrixView{wGroup + tile.channelBegin * K, 1, Cig * K}};
        const MatrixView gradients{dyGroup + tile.positionBegin, P, 1, hf32};
        if (geometry.columnsAreInput) {
          sgemm(tile.channelCount, tile.positionCount, Cog, weightsT, gradients,
                dxGroup + tile.channelBegin * Q + tile.positionBegin, Q, false, parts.gemm,
                bias ? bias + g * Cig + tile.channelBegin : nullptr);
          return;
        }
        sgemm(tile.channelCount * K, tile.positionCount, Cog, weightsT, gradients, parts.columns,
              tile.positionCount, false, parts.gemm);
        if (storesPlanes) {
          conv_detail::col2imPointwiseStore(shape, tile.channelCount, parts.columns,
                                            tile.positionCount, dxGroup + tile.channelBegin * Q);
          return;
        }
        conv_detail::col2imTileAccumulate(shape, geometry, tile, parts.columns, tile.positionCount,
                                          dxGroup);
      });
      // Scattered sums are complete only now.
      if (bias && !geometry.columnsAreInput)
        conv_detail::addChannelBias(dxGroup, Cig, Q, Cig, bias + g * Cig);
    }
  }
}

void backwardWeight(const ConvShape& shape, const float* x, const float* dy, float* dw,
                    void* scratch) {
  const ConvGeometry geometry = conv_detail::describe(shape);
  const int64_t P = geometry.outVolume, Q = geometry.inVolume, K = geometry.kernelVolume;
  const int64_t Cig = geometry.cinPerGroup, Cog = geometry.coutPerGroup;
  if (shape.outChannels == 0 || Cig * K == 0) return;
  if (shape.batch == 0 || P == 0) {  // empty reduction
    zeroFloats(dw, shape.outChannels * Cig * K);
    return;
  }
  const ColumnTiling tiling = conv_detail::planColumns(geometry);
  const Scratch parts = splitScratch(scratch);
  // Few weights per output channel (stems: 1-3 channels x taps) against many
  // output channels: dw^T = columns x dy^T fills the GEMM's tiles far better,
  // summed in scratch and transposed into dw at the end of each group.
  const int64_t rows = Cig * K;
  const bool transposed = gemmFillsBetterTransposed(Cog, rows);
  const bool hf32 = shape.inputRounding == Rounding::HF32;  // x and dy rounded as packed
  float* const dwT = scratchRegion<float>(scratch, gemmPathScratchBytes(shape));
  // One fixed accumulation order: groups, then batch, then tiles; the GEMM
  // adds each tile's product into dw (or dw^T).
  for (int64_t g = 0; g < shape.groups; ++g) {
    float* dwGroup = dw + g * Cog * rows;
    for (int64_t n = 0; n < shape.batch; ++n) {
      const float* xGroup = x + (n * shape.inChannels + g * Cig) * Q;
      const float* dyGroup = dy + (n * shape.outChannels + g * Cog) * P;
      forEachTile(geometry, tiling, [&](const ColumnTile& tile) {
        const float* columns = xGroup + tile.channelBegin * Q + tile.positionBegin;
        int64_t columnStride = Q;
        if (!geometry.columnsAreInput) {
          conv_detail::im2colTile(shape, geometry, tile, xGroup, parts.columns);
          columns = parts.columns;
          columnStride = tile.positionCount;
        }
        const bool first = n == 0 && tile.positionBegin == 0;
        const int64_t tileRows = tile.channelCount * K;
        if (transposed) {
          sgemm(tileRows, Cog, tile.positionCount, MatrixView{columns, columnStride, 1, hf32},
                MatrixView{dyGroup + tile.positionBegin, 1, P, hf32},
                dwT + tile.channelBegin * K * Cog, Cog, !first, parts.gemm);
        } else {
          sgemm(Cog, tileRows, tile.positionCount,
                MatrixView{dyGroup + tile.positionBegin, P, 1, hf32},
                MatrixView{columns, 1, columnStride, hf32}, dwGroup + tile.channelBegin * K, rows,
                !first, parts.gemm);
        }
      });
    }
    if (transposed) {
      for (int64_t co = 0; co < Cog; ++co) {
        for (int64_t r = 0; r < rows; ++r) dwGroup[co * rows + r] = dwT[r * Cog + co];
      }
    }
  }
}

}  // namespace im2col_gemm
}  // namespace kernels
}  // namespace aclcpu
