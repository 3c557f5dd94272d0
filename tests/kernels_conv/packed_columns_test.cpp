// The column matrix packed straight from x (im2col.h, packColumnBlock), the
// forward im2col pass's sgemm B: every block it writes must hold exactly the
// entries of the column matrices that im2colTile forms (one image, or several
// side by side), in sgemm's sliver layout with zero tails; and sgemm on it must give the bits of
// sgemm on the formed matrix, for every micro-kernel this CPU runs and for small cache blocks that
// cut rows, slivers and K blocks in odd places.

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "kernels/conv/conv_geometry.h"
#include "kernels/conv/im2col_gemm/im2col.h"
#include "kernels/conv/im2col_gemm/stacked_images.h"
#include "kernels/gemm/gemm.h"
#include "kernels/gemm/gemm_testing.h"
#include "kernels_conv/conv_test_support.h"

namespace aclcpu {
namespace kernels {
namespace conv_detail {
namespace {

using conv_test::randomValues;

int pick(std::mt19937& rng, int lo, int hi) {
  return std::uniform_int_distribution<int>(lo, hi)(rng);
}

// A random 1D, 2D or 3D geometry with strides, dilations and padding (also
// padding wider than the kernel reaches, so whole rows fall outside x).
ConvShape randomShape(std::mt19937& rng) {
  ConvShape s;
  s.inChannels = pick(rng, 1, 5);
  s.outChannels = pick(rng, 1, 9);
  const int dims = pick(rng, 1, 3);
  for (int d = 3 - dims; d < 3; ++d) {
    s.kernel[d] = pick(rng, 1, d == 2 ? 7 : 3);
    s.stride[d] = pick(rng, 1, 3);
    s.dilation[d] = pick(rng, 1, 2);
    s.padBefore[d] = pick(rng, 0, 3);
    s.in[d] = pick(rng, 1, d == 2 ? 40 : 6);
    const int64_t span = (s.kernel[d] - 1) * s.dilation[d] + 1;
    const int64_t room = s.in[d] + 2 * s.padBefore[d] - span;
    s.out[d] = room < 0 ? 1 : room / s.stride[d] + 1;
  }
  return s;
}

ColumnTile wholeTile(const ConvGeometry& g) { return {0, g.cinPerGroup, 0, g.outVolume}; }

// A random block [k0, k0 + kb) x [n0, n0 + nb) of a rows x cols B.
struct Block {
  int64_t k0, kb, n0, nb;
};
Block randomBlock(std::mt19937& rng, int64_t rows, int64_t cols) {
  Block b;
  b.k0 = pick(rng, 0, static_cast<int>(rows - 1));
  b.kb = pick(rng, 1, static_cast<int>(rows - b.k0));
  b.n0 = pick(rng, 0, static_cast<int>(cols - 1));
  b.nb = pick(rng, 1, static_cast<int>(cols - b.n0));
  return b;
}

constexpr float kUntouched = -777.25f;

// Packs `block` with `pack` (gemm.h, PackedBSource) and checks every line of
// every sliver against expected(k, j), zero past the block's last column, and
// that nothing after the block was written.
template <typename Pack, typename Expected>
::testing::AssertionResult packsExactly(Pack pack, const void* context, const Block& b, int slot,
                                        Expected&& expected) {
  const int64_t slivers = (b.nb + slot - 1) / slot;
  std::vector<float> packed(static_cast<size_t>(slivers * b.kb * slot + 1), kUntouched);
  pack(context, b.k0, b.n0, b.kb, b.nb, slot, packed.data());
  for (int64_t p = 0; p < b.kb; ++p) {
    for (int64_t l = 0; l < slivers * slot; ++l) {
      const float want = l < b.nb ? expected(b.k0 + p, b.n0 + l) : 0.0f;
      const float got = packed[(l / slot) * b.kb * slot + p * slot + l % slot];
      if (std::memcmp(&want, &got, sizeof(float)) != 0) {
        return ::testing::AssertionFailure()
               << "block k0 " << b.k0 << " kb " << b.kb << " n0 " << b.n0 << " nb " << b.nb
               << " slot " << slot << ": step " << p << " line " << l << " holds " << got
               << ", expected " << want;
      }
    }
  }
  if (packed.back() != kUntouched) return ::testing::AssertionFailure() << "wrote past the block";
  return ::testing::AssertionSuccess();
}

TEST(PackedColumns, BlocksHoldTheColumnMatricesInSliverLayout) {
  std::mt19937 rng(0x9ac0u);
  int blocks = 0, stacked = 0, pointwise = 0;
  for (int trial = 0; trial < 400; ++trial) {
    ConvShape s = randomShape(rng);
    if (trial % 8 == 0) {  // pointwise: the columns are x itself
      for (int d = 0; d < 3; ++d) {
        s.kernel[d] = s.stride[d] = s.dilation[d] = 1;
        s.padBefore[d] = 0;
        s.out[d] = s.in[d];
      }
    }
    const ConvGeometry g = describe(s);
    const ColumnTile tile = wholeTile(g);
    const int64_t images = pick(rng, 1, 3);
    const int64_t imageStride = s.inChannels * g.inVolume + pick(rng, 0, 5);
    const std::vector<float> x = randomValues(images * imageStride, rng);
    const int64_t rows = g.cinPerGroup * g.kernelVolume, perImage = g.outVolume;
    const int64_t cols = images * perImage;
    // The images' column matrices side by side.
    std::vector<float> matrix(static_cast<size_t>(rows * cols));
    std::vector<float> one(static_cast<size_t>(rows * perImage));
    for (int64_t i = 0; i < images; ++i) {
      im2colTile(s, g, tile, x.data() + i * imageStride, one.data());
      for (int64_t r = 0; r < rows; ++r) {
        std::memcpy(&matrix[r * cols + i * perImage], &one[r * perImage],
                    static_cast<size_t>(perImage) * sizeof(float));
      }
    }
    const ColumnSource source{&s, &g, tile, x.data(), images, imageStride};
    for (int slot : {16, 48, 5}) {
      const Block b = randomBlock(rng, rows, cols);
      ASSERT_TRUE(packsExactly(packColumnBlock, &source, b, slot,
                               [&](int64_t k, int64_t j) { return matrix[k * cols + j]; }))
          << conv_test::describe(s) << " images " << images;
      stacked += b.n0 / perImage != (b.n0 + b.nb - 1) / perImage;
      ++blocks;
      pointwise += g.columnsAreInput;
    }
  }
  EXPECT_EQ(blocks, 1200);
  EXPECT_GT(stacked, 100) << "blocks that span two images";
  EXPECT_GT(pointwise, 100) << "blocks whose columns are x";
}

// The data gradient's stacked operand (stacked_images.h): images' row-major
// matrices side by side, packed and unpacked again.
TEST(PackedColumns, StackedRowsPackAndUnstackExactly) {
  std::mt19937 rng(0x9ac2u);
  for (int trial = 0; trial < 200; ++trial) {
    const int64_t images = pick(rng, 1, 4), rows = pick(rng, 1, 20), perImage = pick(rng, 1, 60);
    const int64_t rowStride = perImage + pick(rng, 0, 3);
    const int64_t imageStride = rows * rowStride + pick(rng, 0, 7);
    const std::vector<float> data = randomValues(images * imageStride, rng);
    const StackedRows source{data.data(), rowStride, imageStride, perImage};
    const int64_t cols = images * perImage;
    const int slot = trial % 2 ? 48 : 16;
    ASSERT_TRUE(
        packsExactly(packStackedRowsBlock, &source, randomBlock(rng, rows, cols), slot,
                     [&](int64_t k, int64_t j) {
                       return data[(j / perImage) * imageStride + k * rowStride + j % perImage];
                     }))
        << "trial " << trial;

    // unstackRows puts stacked[r][i * perImage + c] at to[i * imageStride' + r * perImage + c].
    const std::vector<float> stacked = randomValues(rows * cols, rng);
    const int64_t outStride = rows * perImage + pick(rng, 0, 5);
    std::vector<float> out(static_cast<size_t>(images * outStride), kUntouched);
    unstackRows(stacked.data(), rows, images, perImage, out.data(), outStride);
    for (int64_t i = 0; i < images; ++i) {
      for (int64_t k = 0; k < outStride; ++k) {
        const float got = out[i * outStride + k];
        const float expected = k < rows * perImage
                                   ? stacked[(k / perImage) * cols + i * perImage + k % perImage]
                                   : kUntouched;
        ASSERT_EQ(std::memcmp(&expected, &got, sizeof(float)), 0) << "unstack trial " << trial;
      }
    }
  }
}

struct GemmRestore {
  ~GemmRestore() {
    forceGemmIsaForTesting(GemmIsa::Auto);
    overrideGemmBlockingForTesting(0, 0, 0);
  }
};

TEST(PackedColumns, SgemmOnPackedColumnsEqualsSgemmOnTheMatrix) {
  GemmRestore restore;
  std::mt19937 rng(0x9ac1u);
  int runs = 0;
  for (GemmIsa isa : {GemmIsa::Scalar, GemmIsa::Avx2, GemmIsa::Avx512}) {
    if (!forceGemmIsaForTesting(isa)) {
      std::printf("[ skipped  ] gemm ISA %d: this CPU cannot run it\n", static_cast<int>(isa));
      continue;
    }
    for (bool smallBlocks : {false, true}) {
      ASSERT_TRUE(smallBlocks ? overrideGemmBlockingForTesting(5, 8, 50)
                              : overrideGemmBlockingForTesting(0, 0, 0));
      std::vector<unsigned char> scratch(gemmScratchBytes() + 64);
      void* aligned = scratch.data() + (64 - reinterpret_cast<uintptr_t>(scratch.data()) % 64) % 64;
      for (int trial = 0; trial < 40; ++trial) {
        const ConvShape s = randomShape(rng);
        const ConvGeometry g = describe(s);
        const ColumnTile tile = wholeTile(g);
        const int64_t rows = g.cinPerGroup * g.kernelVolume, cols = g.outVolume;
        const std::vector<float> x = randomValues(s.inChannels * g.inVolume, rng);
        const std::vector<float> w = randomValues(s.outChannels * rows, rng);
        const std::vector<float> bias = randomValues(s.outChannels, rng);
        std::vector<float> matrix(static_cast<size_t>(rows * cols));
        im2colTile(s, g, tile, x.data(), matrix.data());
        std::vector<float> expected(static_cast<size_t>(s.outChannels * cols));
        std::vector<float> got(expected.size());
        const MatrixView a{w.data(), rows, 1};
        sgemm(s.outChannels, cols, rows, a, MatrixView{matrix.data(), cols, 1}, expected.data(),
              cols, false, aligned, bias.data());
        const ColumnSource source{&s, &g, tile, x.data()};
        sgemm(s.outChannels, cols, rows, a, PackedBSource{packColumnBlock, &source}, got.data(),
              cols, false, aligned, bias.data());
        ASSERT_EQ(std::memcmp(expected.data(), got.data(), expected.size() * sizeof(float)), 0)
            << conv_test::describe(s) << " gemm " << gemmKernelName()
            << (smallBlocks ? " small blocks" : "");
        ++runs;
      }
    }
  }
  EXPECT_GT(runs, 0);
}

}  // namespace
}  // namespace conv_detail
}  // namespace kernels
}  // namespace aclcpu
