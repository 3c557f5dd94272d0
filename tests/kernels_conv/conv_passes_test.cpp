// convForward / convBackwardData / convBackwardWeight against float64 loops
// written straight from the formula in kernel_types.h, on a seeded sweep of
// small shapes plus a few that force the tiled paths; and bit-identical
// results for 1 and 2 threads.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "common/thread_pool.h"
#include "kernels/conv/conv_passes.h"
#include "kernels_conv/conv_test_support.h"

namespace aclcpu {
namespace kernels {
namespace {

using namespace conv_test;  // NOLINT: the shared reference and scratch helpers

struct Outputs {
  std::vector<float> y, dx, dw;
};

Outputs runAllPasses(const ConvShape& s, const std::vector<float>& x, const std::vector<float>& w,
                     const std::vector<float>& dy) {
  Outputs out{poisoned(yCount(s)), poisoned(xCount(s)), poisoned(wCount(s))};
  {
    Scratch scratch(forwardScratchBytes(s));
    convForward(s, x.data(), w.data(), out.y.data(), scratch.get());
    EXPECT_TRUE(scratch.guardIntact()) << "forward overran its scratch: " << describe(s);
  }
  {
    Scratch scratch(backwardDataScratchBytes(s));
    convBackwardData(s, dy.data(), w.data(), out.dx.data(), scratch.get());
    EXPECT_TRUE(scratch.guardIntact()) << "backwardData overran its scratch: " << describe(s);
  }
  {
    Scratch scratch(backwardWeightScratchBytes(s));
    convBackwardWeight(s, x.data(), dy.data(), out.dw.data(), scratch.get());
    EXPECT_TRUE(scratch.guardIntact()) << "backwardWeight overran its scratch: " << describe(s);
  }
  return out;
}

void checkAgainstReference(const ConvShape& s, std::mt19937& rng) {
  SCOPED_TRACE(describe(s));
  const std::vector<float> x = randomValues(xCount(s), rng);
  const std::vector<float> w = randomValues(wCount(s), rng);
  const std::vector<float> dy = randomValues(yCount(s), rng);
  const Outputs out = runAllPasses(s, x, w, dy);
  EXPECT_TRUE(closeTo(referenceForward(s, x, w), out.y, "forward"));
  EXPECT_TRUE(closeTo(referenceBackwardData(s, dy, w), out.dx, "backwardData"));
  EXPECT_TRUE(closeTo(referenceBackwardWeight(s, x, dy), out.dw, "backwardWeight"));
}

// A random small shape: 1, 2 or 3 active spatial dims (the rest lifted), any
// group structure, stride larger or smaller than the kernel, dilation,
// asymmetric and oversized padding, and `out` possibly short of the full extent.
ConvShape randomShape(std::mt19937& rng) {
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  for (;;) {
    ConvShape s;
    const int dims = pick(1, 3);
    s.batch = pick(1, 3);
    const int kind = pick(0, 4);
    if (kind == 0) {  // dense
      s.groups = 1;
      s.inChannels = pick(1, 6);
      s.outChannels = pick(1, 6);
    } else if (kind == 1) {  // depthwise, maybe with a channel multiplier
      s.groups = pick(1, 6);
      s.inChannels = s.groups;
      s.outChannels = s.groups * pick(1, 3);
    } else if (kind == 2) {  // small groups
      s.groups = pick(2, 4);
      s.inChannels = s.groups * pick(1, 4);
      s.outChannels = s.groups * pick(1, 4);
    } else if (kind == 3) {  // groups big enough for the GEMM path
      s.groups = pick(2, 3);
      s.inChannels = s.groups * pick(8, 12);
      s.outChannels = s.groups * pick(8, 12);
    } else {  // wider dense
      s.groups = 1;
      s.inChannels = pick(8, 24);
      s.outChannels = pick(8, 24);
    }
    const int firstActive = 3 - dims;
    bool valid = true;
    for (int d = firstActive; d < 3; ++d) {
      s.in[d] = pick(1, dims == 3 ? 6 : 10);
      s.kernel[d] = pick(1, 4);
      s.stride[d] = pick(1, 4);
      s.dilation[d] = pick(1, 3);
      s.padBefore[d] = pick(0, 5);
      const int padAfter = pick(0, 4);
      const int64_t span = s.dilation[d] * (s.kernel[d] - 1) + 1;
      const int64_t padded = s.in[d] + s.padBefore[d] + padAfter;
      if (padded < span) {
        valid = false;
        break;
      }
      const int64_t full = (padded - span) / s.stride[d] + 1;
      s.out[d] = pick(0, 3) == 0 ? pick(1, static_cast<int>(full)) : full;
    }
    if (valid) return s;
  }
}

TEST(ConvPasses, RandomSweepMatchesFloat64Reference) {
  std::mt19937 rng(20240601);
  for (int i = 0; i < 400; ++i) {
    checkAgainstReference(randomShape(rng), rng);
    if (HasFailure()) break;
  }
}

ConvShape shape2d(int64_t n, int64_t cin, int64_t cout, int64_t g, int64_t h, int64_t w, int64_t k,
                  int64_t stride, int64_t pad) {
  ConvShape s;
  s.batch = n;
  s.inChannels = cin;
  s.outChannels = cout;
  s.groups = g;
  s.in[1] = h;
  s.in[2] = w;
  s.kernel[1] = s.kernel[2] = k;
  s.stride[1] = s.stride[2] = stride;
  s.padBefore[1] = s.padBefore[2] = pad;
  s.out[1] = (h + 2 * pad - k) / stride + 1;
  s.out[2] = (w + 2 * pad - k) / stride + 1;
  return s;
}

TEST(ConvPasses, HandPickedEdgeShapes) {
  std::mt19937 rng(77);
  std::vector<ConvShape> shapes;
  shapes.push_back(shape2d(2, 5, 7, 1, 6, 5, 1, 1, 0));  // 1x1 identity columns
  shapes.push_back(shape2d(2, 8, 6, 2, 6, 5, 1, 1, 0));  // 1x1 identity, groups on GEMM path?
  shapes.push_back(shape2d(1, 3, 4, 1, 9, 9, 1, 2, 0));  // 1x1 stride 2: skipped rows in dx
  shapes.push_back(shape2d(1, 2, 3, 1, 7, 7, 2, 3, 0));  // stride > kernel: dx gaps are zero
  shapes.push_back(shape2d(2, 4, 4, 4, 8, 8, 3, 1, 1));  // depthwise 3x3
  shapes.push_back(shape2d(1, 3, 2, 1, 3, 3, 3, 1, 6));  // padding larger than the kernel
  ConvShape cropped = shape2d(1, 3, 2, 1, 9, 9, 3, 1, 1);
  cropped.out[1] = 2;  // out shorter than the full extent: the bottom of x gets 0 in dx
  shapes.push_back(cropped);
  ConvShape emptyOut = shape2d(2, 3, 2, 1, 4, 4, 3, 1, 0);
  emptyOut.out[2] = 0;  // dx and dw must become zero, y is empty
  shapes.push_back(emptyOut);
  ConvShape kernelOutside = shape2d(1, 2, 2, 1, 3, 3, 1, 1, 0);
  kernelOutside.padBefore[1] = 5;  // every window lies in the padding
  kernelOutside.out[1] = 2;
  shapes.push_back(kernelOutside);
  for (const ConvShape& s : shapes) checkAgainstReference(s, rng);
}

TEST(ConvPasses, TiledPositionsAndChannelChunks) {
  std::mt19937 rng(31);
  // 64 channels x 27 taps x 4096 positions exceeds the 16 MiB column budget:
  // the position axis is tiled.
  ConvShape positions;
  positions.batch = 1;
  positions.inChannels = 64;
  positions.outChannels = 3;
  for (int d = 0; d < 3; ++d) {
    positions.in[d] = 16;
    positions.out[d] = 16;
    positions.kernel[d] = 3;
    positions.padBefore[d] = 1;
  }
  checkAgainstReference(positions, rng);
  // 2048 channels x 9 taps: even a minimal position tile needs channel chunks.
  ConvShape channels = shape2d(1, 2048, 2, 1, 18, 18, 3, 1, 1);
  checkAgainstReference(channels, rng);
}

TEST(ConvPasses, BitIdenticalForOneAndTwoThreads) {
  std::mt19937 rng(123);
  std::vector<ConvShape> shapes = {
      shape2d(2, 32, 48, 1, 20, 20, 3, 1, 1),   // GEMM path, parallel im2col/col2im
      shape2d(2, 48, 48, 48, 24, 24, 3, 2, 1),  // depthwise direct loops
      shape2d(2, 32, 32, 2, 12, 12, 1, 1, 0),   // identity columns, grouped GEMM
  };
  ConvShape tiled = shape2d(1, 2048, 2, 1, 18, 18, 3, 1, 1);
  shapes.push_back(tiled);
  for (const ConvShape& s : shapes) {
    SCOPED_TRACE(describe(s));
    const std::vector<float> x = randomValues(xCount(s), rng);
    const std::vector<float> w = randomValues(wCount(s), rng);
    const std::vector<float> dy = randomValues(yCount(s), rng);
    setComputeThreadCount(1);
    const Outputs one = runAllPasses(s, x, w, dy);
    setComputeThreadCount(2);
    const Outputs two = runAllPasses(s, x, w, dy);
    setComputeThreadCount(0);
    EXPECT_EQ(std::memcmp(one.y.data(), two.y.data(), one.y.size() * 4), 0);
    EXPECT_EQ(std::memcmp(one.dx.data(), two.dx.data(), one.dx.size() * 4), 0);
    EXPECT_EQ(std::memcmp(one.dw.data(), two.dw.data(), one.dw.size() * 4), 0);
  }
}

TEST(ConvPasses, ScratchStaysBoundedForHugeProblems) {
  // Shape arithmetic only: a 3D problem whose full column matrix would be
  // tens of GiB still needs a bounded scratch.
  ConvShape s;
  s.batch = 4;
  s.inChannels = 512;
  s.outChannels = 512;
  for (int d = 0; d < 3; ++d) {
    s.in[d] = s.out[d] = 64;
    s.kernel[d] = 3;
    s.padBefore[d] = 1;
  }
  const uint64_t limit = uint64_t{64} << 20;  // 16 MiB of columns + GEMM packing
  EXPECT_LT(forwardScratchBytes(s), limit);
  EXPECT_LT(backwardDataScratchBytes(s), limit);
  EXPECT_LT(backwardWeightScratchBytes(s), limit);
}

}  // namespace
}  // namespace kernels
}  // namespace aclcpu
