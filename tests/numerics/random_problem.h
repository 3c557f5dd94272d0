#pragma once
// Seeded random convolution-backward problems and operand data for the
// sweeps. Every problem is valid for the API (it passes phase 1).

#include <cstdint>

#include "numerics/conv_case.h"
#include "numerics/host_tensor.h"

namespace numerics {

struct RandomCaseOptions {
  bool randomDtypes = true;    // else everything fp32
  bool randomCubeMath = true;  // else cubeMathType 0
  int maskBits = 7;            // outputMask as bits (0: gradInput, 1: gradWeight, 2: gradBias)
  // Medium problems: up to ~8x the channels and several times the spatial
  // extents, so the engine's blocked/threaded paths are reached.
  bool medium = false;
};

// 1D/2D/3D, transposed or not, groups incl. depthwise with a channel
// multiplier, stride (also > kernel), dilation, symmetric or 4-value 2D
// padding; a transposed case gets an outputPadding anywhere in [0, stride).
ConvCase randomConvCase(Rng& rng, const RandomCaseOptions& options);

// A value exact in `dtype`, magnitude in [2^-4, 2) or zero. fp32 values
// sometimes sit exactly on an HF32 tie (low 12 bits 0x800) or an fp16 tie
// (low 13 bits 0x1000) so the sweeps also cross the rounding rules.
double randomValue(DType dtype, Rng& rng);

void fillRandom(HostTensor* tensor, Rng& rng);

}  // namespace numerics
