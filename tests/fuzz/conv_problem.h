#pragma once
// A small, consistent aclnnConvolutionBackward problem chosen from the
// fuzzer's input (1D/2D/3D, groups, transposed, any stride, padding and
// dilation), as the shapes and attribute arrays the API takes.

#include <cstdint>
#include <vector>

#include "fuzz_bytes.h"

namespace fuzz {

struct ConvProblem {
  int spatialDims = 2;
  bool transposed = false;
  int groups = 1;
  std::vector<int64_t> gradOutput, input, weight, gradBias;
  std::vector<int64_t> stride, padding, dilation, outputPadding;  // spatialDims each
  std::vector<int64_t> biasSizes;
};

// `maxExtent` bounds each spatial extent (the differential target keeps
// problems tiny so that the float64 reference stays cheap).
ConvProblem consistentProblem(FuzzBytes& in, int64_t maxExtent);

}  // namespace fuzz
