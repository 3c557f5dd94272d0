#pragma once
// Float64 oracle for convolution backward, written from the gradient
// definitions of convolution-backward.md section 5 as direct loops.

#include <cstdint>
#include <vector>

namespace conformance {

struct ConvGeometry {
  bool transposed = false;
  int64_t groups = 1;
  // Per spatial dimension (1 to 3 entries each).
  // Only the low padding matters: the extents come from the actual tensors.
  std::vector<int64_t> stride, padLo, dilation;
};

struct HostTensor {
  std::vector<int64_t> shape;
  std::vector<double> values;  // row-major
};

// Exact sums (`value`) and sums of absolute terms (`magnitude`, for
// tolerances) for each gradient.
struct OracleResult {
  std::vector<double> value;
  std::vector<double> magnitude;
};

struct ConvGradients {
  OracleResult gradInput;   // input's shape
  OracleResult gradWeight;  // weight's shape
  OracleResult gradBias;    // [gradOutput.shape[1]]
};

// Operands are used exactly as given (apply any operand rounding first).
ConvGradients convBackwardOracle(const HostTensor& gradOutput, const HostTensor& input,
                                 const HostTensor& weight, const ConvGeometry& geometry);

}  // namespace conformance
