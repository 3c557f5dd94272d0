#include "op_calls.h"

#include <memory>

#include "aclnnop/aclnn_convolution.h"
#include "aclnnop/aclnn_convolution_backward.h"
#include "kernel_names.h"

namespace {

using IntArrayPtr = std::shared_ptr<aclIntArray>;
using BoolArrayPtr = std::shared_ptr<aclBoolArray>;

// Attribute arrays live as long as the plan (the phase-1 call may be made
// at any time before it is destroyed). A null array reaches the operator,
// which reports it (only an allocation failure makes one).
IntArrayPtr intArray(const std::vector<int64_t>& values) {
  return IntArrayPtr(aclCreateIntArray(values.data(), values.size()),
                     [](aclIntArray* a) { aclDestroyIntArray(a); });
}
BoolArrayPtr boolArray(const bool* values, uint64_t n) {
  return BoolArrayPtr(aclCreateBoolArray(values, n),
                      [](aclBoolArray* a) { aclDestroyBoolArray(a); });
}

const char* const kOpNames[] = {"backward", "forward", "tbc", "dw"};

bool all(const int64_t* values, int first, int64_t expected) {
  for (int d = first; d < 3; ++d)
    if (values[d] != expected) return false;
  return true;
}

OpCall convolutionBackward(const ProblemSpec& spec, const RunOptions& options) {
  OpCall call;
  call.api = "aclnnConvolutionBackward";
  call.phase = "backward";
  call.inputs = {{0, Role::kDY}, {1, Role::kX}, {2, Role::kW}};
  call.outputs = {{0, Role::kDX}, {1, Role::kDW}, {2, Role::kDB}};
  call.arguments = {{"gradOutput", Role::kDY, true},  {"input", Role::kX, true},
                    {"weight", Role::kW, true},       {"gradInput", Role::kDX, false},
                    {"gradWeight", Role::kDW, false}, {"gradBias", Role::kDB, false}};
  const IntArrayPtr stride = intArray(spec.strideArray()), padding = intArray(spec.paddingArray()),
                    dilation = intArray(spec.dilationArray()),
                    outputPadding = intArray(spec.outputPaddingArray()),
                    biasSizes = intArray({spec.gradOutputShape()[1]});
  const BoolArrayPtr mask = boolArray(options.mask, 3);
  const bool transposed = spec.transposed;
  const int groups = static_cast<int>(spec.groups);
  const int8_t math = options.cubeMathType;
  call.phase1 = [=](const LayerTensors& t, uint64_t* ws, aclOpExecutor** executor) {
    return aclnnConvolutionBackwardGetWorkspaceSize(
        t.tensor(Role::kDY), t.tensor(Role::kX), t.tensor(Role::kW), biasSizes.get(), stride.get(),
        padding.get(), dilation.get(), transposed, outputPadding.get(), groups, mask.get(), math,
        t.tensor(Role::kDX), t.tensor(Role::kDW), t.tensor(Role::kDB), ws, executor);
  };
  call.phase2 = aclnnConvolutionBackward;
  call.flops = 2.0 * spec.macs() * (options.mask[0] + options.mask[1]);
  call.check.outputs[kOutDX] = options.mask[0];
  call.check.outputs[kOutDW] = options.mask[1];
  call.check.outputs[kOutDB] = options.mask[2];
  call.algorithms = kernelAlgorithms(spec, options.mask, options);
  return call;
}

OpCall convTbcBackward(const ProblemSpec& spec, const RunOptions& options) {
  OpCall call;
  call.api = "aclnnConvTbcBackward";
  call.phase = "backward";
  call.inputs = {{0, Role::kDY}, {1, Role::kX}, {2, Role::kW}, {3, Role::kB}};
  call.outputs = {{0, Role::kDX}, {1, Role::kDW}, {2, Role::kDB}};
  call.arguments = {{"self", Role::kDY, true},       {"input", Role::kX, true},
                    {"weight", Role::kW, true},      {"bias", Role::kB, true},
                    {"gradInput", Role::kDX, false}, {"gradWeight", Role::kDW, false},
                    {"gradBias", Role::kDB, false}};
  const int64_t pad = spec.pad[2];
  const int8_t math = options.cubeMathType;
  call.phase1 = [=](const LayerTensors& t, uint64_t* ws, aclOpExecutor** executor) {
    return aclnnConvTbcBackwardGetWorkspaceSize(
        t.tensor(Role::kDY), t.tensor(Role::kX), t.tensor(Role::kW), t.tensor(Role::kB), pad, math,
        t.tensor(Role::kDX), t.tensor(Role::kDW), t.tensor(Role::kDB), ws, executor);
  };
  call.phase2 = aclnnConvTbcBackward;
  call.flops = 2.0 * spec.macs() * 2;
  call.check.outputs[kOutDX] = call.check.outputs[kOutDW] = call.check.outputs[kOutDB] = true;
  const bool everything[3] = {true, true, true};
  call.algorithms = kernelAlgorithms(spec, everything, options);
  return call;
}

// The parts every forward operator shares: x, w and (optionally) b in,
// y out, the forward's work and its algorithm.
OpCall forwardCall(const char* api, const ProblemSpec& spec, const RunOptions& options, bool bias,
                   std::vector<OpCall::Argument> arguments) {
  OpCall call;
  call.api = api;
  call.phase = "forward";
  call.inputs = {{0, Role::kX}, {1, Role::kW}};
  if (bias) call.inputs.push_back({2, Role::kB});
  call.outputs = {{0, Role::kY}};
  call.arguments = std::move(arguments);
  if (!bias) call.arguments.erase(call.arguments.begin() + 2);
  call.flops = 2.0 * spec.macs();
  call.check.outputs[kOutY] = true;
  call.check.forwardBias = bias;
  call.algorithms = forwardAlgorithms(spec, options);
  return call;
}

OpCall convolution(const ProblemSpec& spec, const RunOptions& options) {
  OpCall call = forwardCall("aclnnConvolution", spec, options, options.bias,
                            {{"input", Role::kX, true},
                             {"weight", Role::kW, true},
                             {"bias", Role::kB, true},
                             {"output", Role::kY, true}});
  const IntArrayPtr stride = intArray(spec.strideArray()), padding = intArray(spec.paddingArray()),
                    dilation = intArray(spec.dilationArray()),
                    outputPadding = intArray(spec.outputPaddingArray());
  const bool transposed = spec.transposed, bias = options.bias;
  const int64_t groups = spec.groups;
  const int8_t math = options.cubeMathType;
  call.phase1 = [=](const LayerTensors& t, uint64_t* ws, aclOpExecutor** executor) {
    return aclnnConvolutionGetWorkspaceSize(
        t.tensor(Role::kX), t.tensor(Role::kW), bias ? t.tensor(Role::kB) : nullptr, stride.get(),
        padding.get(), dilation.get(), transposed, outputPadding.get(), groups, t.tensor(Role::kY),
        math, ws, executor);
  };
  call.phase2 = aclnnConvolution;
  return call;
}

OpCall convTbc(const ProblemSpec& spec, const RunOptions& options) {
  OpCall call = forwardCall("aclnnConvTbc", spec, options, true,
                            {{"self", Role::kX, true},
                             {"weight", Role::kW, true},
                             {"bias", Role::kB, true},
                             {"output", Role::kY, true}});
  const int64_t pad = spec.pad[2];
  const int8_t math = options.cubeMathType;
  call.phase1 = [=](const LayerTensors& t, uint64_t* ws, aclOpExecutor** executor) {
    return aclnnConvTbcGetWorkspaceSize(t.tensor(Role::kX), t.tensor(Role::kW), t.tensor(Role::kB),
                                        pad, t.tensor(Role::kY), math, ws, executor);
  };
  call.phase2 = aclnnConvTbc;
  return call;
}

OpCall convDepthwise2d(const ProblemSpec& spec, const RunOptions& options) {
  OpCall call = forwardCall("aclnnConvDepthwise2d", spec, options, options.bias,
                            {{"self", Role::kX, true},
                             {"weight", Role::kW, true},
                             {"bias", Role::kB, true},
                             {"out", Role::kY, true}});
  const IntArrayPtr kernelSize = intArray({spec.kernel[1], spec.kernel[2]}),
                    stride = intArray(spec.strideArray()), padding = intArray(spec.paddingArray()),
                    dilation = intArray(spec.dilationArray());
  const bool bias = options.bias;
  const int8_t math = options.cubeMathType;
  call.phase1 = [=](const LayerTensors& t, uint64_t* ws, aclOpExecutor** executor) {
    return aclnnConvDepthwise2dGetWorkspaceSize(
        t.tensor(Role::kX), t.tensor(Role::kW), kernelSize.get(),
        bias ? t.tensor(Role::kB) : nullptr, stride.get(), padding.get(), dilation.get(),
        t.tensor(Role::kY), math, ws, executor);
  };
  call.phase2 = aclnnConvDepthwise2d;
  return call;
}

}  // namespace

const char* opName(OpKind op) { return kOpNames[static_cast<int>(op)]; }

bool expressible(OpKind op, const ProblemSpec& spec, std::string* why) {
  const int first = 3 - spec.spatialDims;
  const bool outputPadding = !all(spec.outputPadding, first, 0);
  if (op == OpKind::kTbc) {
    const char* problem = spec.spatialDims != 1           ? "it is not 1D"
                          : spec.groups != 1              ? "it has groups (g) other than 1"
                          : !all(spec.stride, first, 1)   ? "it has a stride (s) other than 1"
                          : !all(spec.dilation, first, 1) ? "it has a dilation (dl) other than 1"
                          : spec.transposed               ? "it is transposed (t)"
                          : outputPadding                 ? "it has an output padding (op)"
                                                          : nullptr;
    if (problem) {
      *why = std::string(
                 "aclnnConvTbc computes 1D convolutions with stride 1, dilation 1, "
                 "groups 1 and padding p on both ends of time (n batch B, c C_in, "
                 "o C_out, w or l time T, k K), but ") +
             problem;
      return false;
    }
  } else if (op == OpKind::kDepthwise) {
    const std::string groups = "its groups g" + std::to_string(spec.groups) +
                               " differ from its input channels c" +
                               std::to_string(spec.inChannels);
    const char* problem = spec.spatialDims != 2            ? "it is not 2D"
                          : spec.transposed                ? "it is transposed (t)"
                          : spec.groups != spec.inChannels ? groups.c_str()
                          : spec.fourValuePadding          ? "it has 4-value padding (pt pb pl pr)"
                          : outputPadding                  ? "it has an output padding (op)"
                                                           : nullptr;
    if (problem) {
      *why = std::string(
                 "aclnnConvDepthwise2d computes 2D depthwise convolutions (groups g = "
                 "input channels c, o a multiple of c, symmetric padding), but ") +
             problem;
      return false;
    }
  }
  return true;
}

std::string planTitle(OpKind op, bool trainStep) {
  const char* forward = op == OpKind::kTbc         ? "aclnnConvTbc"
                        : op == OpKind::kDepthwise ? "aclnnConvDepthwise2d"
                                                   : "aclnnConvolution";
  const char* backward = op == OpKind::kTbc ? "aclnnConvTbcBackward" : "aclnnConvolutionBackward";
  if (trainStep) return std::string("training step: ") + forward + " + " + backward;
  return op == OpKind::kBackward ? backward : forward;
}

LayerPlan planLayer(OpKind op, bool trainStep, const ProblemSpec& spec, const RunOptions& options) {
  LayerPlan plan;
  plan.layout = op == OpKind::kTbc ? Layout::kTimeMajor : Layout::kChannelsFirst;
  if (op == OpKind::kBackward && !trainStep) {
    plan.calls.push_back(convolutionBackward(spec, options));
    plan.randomInputs = {Role::kDY, Role::kX, Role::kW};
    return plan;
  }
  if (op == OpKind::kTbc)
    plan.calls.push_back(convTbc(spec, options));
  else if (op == OpKind::kDepthwise)
    plan.calls.push_back(convDepthwise2d(spec, options));
  else
    plan.calls.push_back(convolution(spec, options));
  plan.randomInputs = {Role::kX, Role::kW, Role::kB};
  if (trainStep) {
    // The backward of the same layer on the same x and w, with a given dy,
    // as a training step runs it. A depthwise layer's backward is the
    // grouped convolution backward (groups = C).
    plan.calls.push_back(op == OpKind::kTbc ? convTbcBackward(spec, options)
                                            : convolutionBackward(spec, options));
    plan.randomInputs.push_back(Role::kDY);
  }
  return plan;
}
