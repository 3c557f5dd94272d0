#pragma once
// Phase-1 planning: where every buffer of a ConvBackwardProblem's run lives in
// the caller's workspace, so that phase 2 never touches the heap.

#include <cstdint>

#include "ops/common/conv_problem.h"
#include "ops/common/workspace_allocator.h"

namespace aclcpu {
namespace ops {

// Operands the kernels read straight from the caller's memory (dense fp32 and
// no operand rounding), so they need no workspace copy.
struct InPlaceOperands {
  bool x = false;
  bool w = false;
  bool dy = false;
};

// Byte offsets into the workspace (kNoBuffer when the run does not need it),
// each 64-byte aligned.
struct ConvWorkspacePlan {
  uint64_t x = kNoBuffer;  // fp32 operands, rounded per cubeMathType
  uint64_t w = kNoBuffer;
  uint64_t dy = kNoBuffer;
  uint64_t gradInput = kNoBuffer;  // fp32 results before the final cast
  uint64_t gradWeight = kNoBuffer;
  uint64_t biasSums = kNoBuffer;    // double[biasChannels]
  uint64_t biasValues = kNoBuffer;  // float[biasChannels]
  uint64_t scratch = kNoBuffer;     // the kernels' scratch, shared by the passes
  int64_t biasChannels = 0;
  InPlaceOperands inPlace;
  // gradInput's pass reads its operand (dy, or x when it is a forward pass)
  // and writes gradInput as 16-bit words (of type problem.shape.io) when
  // gradInput shares no byte with an input (else the fp32 regions above are
  // used).
  bool gradInputOnWords = false;
  // gradWeight's pass reads x and dy as 16-bit words.
  bool gradWeightOnWords = false;
  // gradBias's channel sums come from gradWeight's pass, which reads
  // gradOutput's values anyway (kernels::backwardWeightSumsDy), into biasSums.
  bool gradBiasFromWeightPass = false;
  uint64_t totalBytes = 0;
};

// Lays out the workspace for `problem`; biasChannels is the channel count of
// problem.biasSource. Returns false when a size overflows 64 bits.
bool planConvWorkspace(const ConvBackwardProblem& problem, int64_t biasChannels,
                       const InPlaceOperands& inPlace, ConvWorkspacePlan* plan);

}  // namespace ops
}  // namespace aclcpu
