#pragma once
// The check every operator shares: the outputs a run produced, read back
// from the device, against the float64 reference (src/reference, written
// independently of the engine) at sampled positions, with the operands
// rounded as the NPU rounds them under cubeMathType. The error of a position
// is |got - ref| / sum|terms| (the bound uses |operands|).

#include <cstdint>
#include <random>

#include "acl/acl.h"
#include "layer_tensors.h"
#include "problem_spec.h"
#include "reference/reference_conv.h"
#include "run_types.h"

struct CheckRequest {
  bool outputs[kOutputCount] = {false, false, false, false};  // which to compare
  bool forwardBias = false;                                   // y includes the bias b
};

struct CheckResult {
  bool checked[kOutputCount] = {false, false, false, false};
  double maxError[kOutputCount] = {0, 0, 0, 0};
};

// Throws std::invalid_argument when the reference cannot take the problem
// (a disagreement with the library, which accepted it).
CheckResult checkOutputs(const ProblemSpec& spec, const RunOptions& options,
                         const LayerTensors& tensors, const CheckRequest& request,
                         std::mt19937& rng);

// How the NPU rounds input and weight under cubeMathType (the compute dtype,
// then HF32 where it applies).
aclcpu::reference::OperandRounding operandRounding(aclDataType dtype, int8_t cubeMathType);

// Relative error bound the check uses for `dtype` under `cubeMathType`.
double toleranceFor(aclDataType dtype, int8_t cubeMathType);

const char* dtypeName(aclDataType dtype);
