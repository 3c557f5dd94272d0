#pragma once
// Whole-image staging steps shared by the blocked drivers (fp32 and bf16):
// parallel loops over the staged rows of an image group.

#include <cstdint>

#include "kernels/conv/blocked/blocked_kernels.h"
#include "kernels/conv/blocked/blocked_plan.h"

namespace aclcpu {
namespace kernels {
namespace blocked {

inline int64_t rowsPerImage(const StagedLayout& l) { return l.blocks * l.size[0] * l.size[1]; }
inline int64_t denseImageFloats(const StagedLayout& l) {
  return l.channels * l.source[0] * l.source[1] * l.source[2];
}

// Stages `images` images starting at dense image `firstImage`, and zeroes
// the layout's slack; with `rounding` HF32 each value is rounded as it is
// staged (the caller's raw inputs; only kernel sets with stageHf32Rows, so
// only the AVX-512 registry entries claim such inputs).
void stage(const BlockedKernels& k, const float* dense, const StagedLayout& l, int64_t firstImage,
           int64_t images, float* staged, Rounding rounding = Rounding::None);

// Writes `images` staged images back to the dense tensor from `firstImage`
// on, plus bias[channel] when `bias` is not null; positions of reduced 1x1
// strided dims that no staged row maps to get 0 (or the bias).
void unstage(const BlockedKernels& k, const float* staged, const StagedLayout& l,
             int64_t firstImage, int64_t images, float* dense, const float* bias = nullptr);

// The same two on the caller's dense tensors of 16-bit words of `type`
// (BF16 or F16), AVX-512 only: staged as fp32; each result (plus bias)
// rounded to `type` once, nearest even.
void stageWords(const uint16_t* dense, ElementType type, const StagedLayout& l, int64_t firstImage,
                int64_t images, float* staged);
void unstageWords(const float* staged, const StagedLayout& l, int64_t firstImage, int64_t images,
                  uint16_t* dense, ElementType type, const float* bias = nullptr);

}  // namespace blocked
}  // namespace kernels
}  // namespace aclcpu
