#pragma once
// The built-in problem sets the tool runs without arguments (--list prints
// them): realistic layers, small enough that a set runs in seconds.

#include <vector>

#include "op_calls.h"
#include "problem_spec.h"

// backward and every --train-step of aclnnConvolution: defaultProblems()
// (the main job's set); forward: normal, 1x1, strided, grouped, 1D, 3D,
// transposed; tbc: time-major 1D layers; dw: depthwise layers (the
// training steps of tbc and dw run their own sets).
std::vector<ProblemSpec> builtInProblems(OpKind op, bool trainStep);
