#pragma once
// One forward problem (aclnnConvolution normal or transposed,
// aclnnConvDepthwise2d or aclnnConvTbc) as the forward numerics tests state
// it, seeded random generators for each operator, the oracle (the float64
// reference of src/reference with decision 8's rounding, and a rigorous
// per-element bound) and a runner that goes through the public API.

#include <cstdint>
#include <string>
#include <vector>

#include "numerics/conv_oracle.h"
#include "numerics/host_tensor.h"
#include "numerics/op_runner.h"

namespace numerics {

enum class ForwardOp { Convolution, Depthwise2d, ConvTbc };

struct ForwardCase {
  ForwardOp op = ForwardOp::Convolution;
  bool transposed = false;
  int64_t groups = 1;
  // Shapes as passed to the API (NDHWC tensors in [N, D, H, W, C] order,
  // ConvTbc's in [T, B, C] / [K, C_in, C_out]).
  Shape inputShape, weightShape, outputShape;
  bool inputChannelsLast = false;   // 3D only; the output follows the input
  bool weightChannelsLast = false;  // 3D only
  std::vector<int64_t> stride, padding, dilation, outputPadding;
  int64_t pad = 0;  // ConvTbc
  bool hasBias = true;
  DType inputType = DType::F32, weightType = DType::F32, biasType = DType::F32,
        outputType = DType::F32;
  int8_t cubeMathType = 0;

  int spatialDims() const { return static_cast<int>(inputShape.size()) - 2; }
  int64_t outputChannels() const;
  std::string describe() const;
};

// `medium`: several times the channels and extents, so that the engine's
// blocked and multi-threaded paths are reached.
ForwardCase randomConvolutionCase(Rng& rng, bool medium = false);
ForwardCase randomDepthwiseCase(Rng& rng);
ForwardCase randomConvTbcCase(Rng& rng);

// The compute dtype c of decision 8.
DType computeDtypeOf(const ForwardCase& c);

// Expected output (in the output tensor's own dim order) with bounds.
ElementBounds expectForward(const ForwardCase& c, const std::vector<double>& input,
                            const std::vector<double>& weight, const std::vector<double>& bias);

// The tensors of one run: inputs filled at random, the output full of sentinels.
struct ForwardTensors {
  HostTensor input, weight, bias, output;
};
ForwardTensors makeForwardTensors(const ForwardCase& c, Rng& rng, bool randomLayouts);

OpOutcome runForward(const ForwardCase& c, ForwardTensors* t, const RunOptions& options = {});

// Runs the case and checks status, values, out-of-view bytes; "" when all is well.
std::string checkForwardCase(const ForwardCase& c, Rng& rng, bool randomLayouts);

}  // namespace numerics
