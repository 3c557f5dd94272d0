#pragma once
// The operators the tool drives, each as one OpCall: the public phase-1
// call on a layer's tensors, its phase-2 function, which tensors it binds at
// which index (aclSetInputTensorAddr / aclSetOutputTensorAddr), what it
// produces and how much it computes. A LayerPlan is the calls one problem
// runs: one operator, or the forward and the backward of a training step on
// the same tensors.

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "acl/acl.h"
#include "layer_tensors.h"
#include "problem_spec.h"
#include "reference_check.h"
#include "run_types.h"

enum class OpKind {
  kBackward,   // aclnnConvolutionBackward
  kForward,    // aclnnConvolution (transposed too)
  kTbc,        // aclnnConvTbc (training step: + aclnnConvTbcBackward)
  kDepthwise,  // aclnnConvDepthwise2d (training step: + aclnnConvolutionBackward, groups = C)
};

const char* opName(OpKind op);  // the --op value: "backward", "forward", "tbc", "dw"

// Whether `op` can express the descriptor (aclnnConvTbc: 1D, stride 1,
// dilation 1, groups 1, not transposed; aclnnConvDepthwise2d: 2D, groups =
// input channels, not transposed, symmetric padding). False with *why
// saying what does not fit. Values the operator refuses but can be given
// (stride 0, kernel larger than the input, ...) are expressible.
bool expressible(OpKind op, const ProblemSpec& spec, std::string* why);

using Phase2Function = aclnnStatus (*)(void*, uint64_t, aclOpExecutor*, aclrtStream);

struct OpCall {
  std::string api;                                       // e.g. "aclnnConvolution"
  std::string phase;                                     // "forward" or "backward"
  std::vector<std::pair<size_t, Role>> inputs, outputs;  // binding index, tensor
  // Every tensor in the API's order, by its API name ("gradOutput", ...);
  // `shown`: listed by --verbose (the backward's outputs, shaped like its
  // inputs, are not).
  struct Argument {
    std::string name;
    Role role;
    bool shown;
  };
  std::vector<Argument> arguments;
  std::function<aclnnStatus(const LayerTensors&, uint64_t*, aclOpExecutor**)> phase1;
  Phase2Function phase2 = nullptr;
  double flops = 0;  // 2 x multiply-accumulates of its passes
  CheckRequest check;
  std::vector<PassAlgorithm> algorithms;
};

struct LayerPlan {
  Layout layout = Layout::kChannelsFirst;
  std::vector<OpCall> calls;
  std::vector<Role> randomInputs;  // filled with random operands, in this order
};

// The operators a run of `op` calls, for the table's header, e.g.
// "aclnnConvolution" or "training step: aclnnConvolution + aclnnConvolutionBackward".
std::string planTitle(OpKind op, bool trainStep);

// The calls of `op` (with trainStep: its forward, then the backward of the
// same layer). The problem must be expressible by `op`.
LayerPlan planLayer(OpKind op, bool trainStep, const ProblemSpec& spec, const RunOptions& options);
