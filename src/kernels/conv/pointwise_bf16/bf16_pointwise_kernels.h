#pragma once
// The micro-kernels of the bf16 pointwise convolution (defined in
// bf16_gemm_m32n32_amx.cpp, bf16_gemm_m8n32_avx512bf16.cpp and
// bf16_panel_pack_avx512.cpp; call only after the CPU checks, the AMX kernel
// with the tiles configured by blocked::configureBf16Tiles_amx).
//
// One panel of up to 32 positions of one image, every output channel:
//   out[m * outRowStride + p] = round(bias[m] + sum over k-steps s, in
//     order, of the tile dot product over the step's channels k of
//     a(m, k) * b[k * bRowStride + p])
// for m < M, p < n, with b read as bf16 words or as fp32 values that are
// bf16 values (32 channels per step), or (hiLo) as fp32 or half values
// split exactly into bf16 hi + lo (16 channels per step, each step two tile
// products: (hi, lo) x (a hi, a lo) and (hi, lo) x (a lo, a hi)); the result
// stored as fp32 or rounded once (nearest even) to bf16 or half words. The output-channel
// orientation of the tiles (rows = channels, columns = positions) matches NC[D]HW, so neither
// operand nor result is transposed: b is only interleaved in channel pairs into L1 panels
// (packBf16Panels_avx512), which the kernels read.

#include <cstdint>

namespace aclcpu {
namespace kernels {
namespace pointwise_bf16 {

constexpr int64_t kPanelPositions = 32;
constexpr int64_t kMaxKSteps = 32;  // reduction channels up to 1024 (a 64 KB panel)
// Words of one packed panel of kSteps steps; a buffer of kChunkWords holds
// kMaxKSteps / kSteps of them.
constexpr int64_t panelWords(int64_t kSteps) { return 2 * kSteps * 512; }
constexpr int64_t kChunkWords = panelWords(kMaxKSteps);

struct Bf16PointwiseJob {
  // Packed a: for output-channel tile t (16 channels) and k-step s, 16 rows
  // of 32 bf16 (a(16 t + r, 32 s + j)) at a + (t * kSteps + s) * 512;
  // hiLo: rows of 16 (hi, lo) pairs at a + ((t * kSteps + s) * 2) * 512 and
  // (lo, hi) pairs 512 words further.
  const uint16_t* a = nullptr;
  int64_t m = 0;       // output channels
  int64_t k = 0;       // reduction channels
  int64_t kSteps = 0;  // ceil(k / 32) (hiLo: ceil(k / 16)), at most kMaxKSteps
  bool hiLo = false;
  const uint16_t* bWords = nullptr;  // one of the two; half words when hiLo
  const float* bFloats = nullptr;
  int64_t bRowStride = 0;  // elements between reduction channels
  int64_t n = 0;           // positions, 1..kPanelPositions
  const float* bias = nullptr;
  uint16_t* outWords = nullptr;  // one of the two
  bool outHalf = false;          // outWords are half words
  float* outFloats = nullptr;
  int64_t outRowStride = 0;
  // bf16 words rounded by the scalar rule's vector form only (AMX: not by
  // VCVTNE2PS2BF16, which flushes subnormal results): a bias holding a
  // subnormal value, the only way to a subnormal output.
  bool exactRounding = false;
  const uint16_t* panel = nullptr;  // b packed, 64-byte aligned (packBf16Panels_avx512)
  int64_t prefetchPositions = 0;    // packing pairs: prefetch b rows this far ahead (0: not)
};

// Packs b's positions [0, positions) as panels of kPanelPositions positions
// at panels + i * panelWords(kSteps), i = 0, 1, ... (at most kChunkWords
// words: positions <= kMaxKSteps / kSteps * kPanelPositions). Pairs: for position
// tile t (16 positions) and channel pair q, 16 words (bf16(2q),
// bf16(2q + 1)) at panel + (t * kSteps * 16 + q) * 32; hiLo: for tile t and
// channel q, 16 (hi, lo) words there. False when b holds a bf16Unsafe value.
bool packBf16Panels_avx512(const Bf16PointwiseJob& job, int64_t positions, uint16_t* panels);

void bf16_pointwise_m32n32_amx(const Bf16PointwiseJob& job);
// The same with AVX512-BF16, bf16 pairs only (hiLo false); no tile
// configuration needed.
void bf16_pointwise_m8n32_avx512bf16(const Bf16PointwiseJob& job);

// The weight gradient of one block of reduction steps (32 positions of one
// image each) for output channels [0, m) and input channels [n0, n0 + 32):
//   partial[o * partialStride + c - n0] (+)= sum over the steps, in order,
//     of the tile dot product over their positions p of
//     dy[o][p] * x[c][p]
// (with `accumulate` added to what partial holds). x and dy are dense
// [images][channels][positions], as bf16 words or as fp32 bf16 values.
// False when x's channels [n0, n0 + 32) or (checkDy) dy hold a bf16Unsafe
// value in these steps.
struct Bf16PointwiseWeightJob {
  const uint16_t* xWords = nullptr;  // one of each pair
  const float* xFloats = nullptr;
  const uint16_t* dyWords = nullptr;
  const float* dyFloats = nullptr;
  int64_t m = 0, n = 0;  // output channels, input channels
  int64_t n0 = 0;
  int64_t positions = 0;  // per image
  int64_t stepsPerImage = 0;
  int64_t firstStep = 0, steps = 0;  // global step index (image-major), at most kMaxBlockSteps
  bool checkDy = false;
  float* partial = nullptr;
  int64_t partialStride = 0;  // floats between output channels, a multiple of 16
  bool accumulate = false;
  uint16_t* panel = nullptr;  // 64-byte aligned, kMaxBlockSteps * 2 * 512 words
};
constexpr int64_t kMaxBlockSteps = 32;
bool bf16_pointwise_bwdw_m32n32_amx(const Bf16PointwiseWeightJob& job);

}  // namespace pointwise_bf16
}  // namespace kernels
}  // namespace aclcpu
