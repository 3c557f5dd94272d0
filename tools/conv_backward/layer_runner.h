#pragma once
// Runs one problem through the public aclnn API, as its LayerPlan says (one
// operator, or the forward and backward of a training step), times phase 2
// and checks the results against the float64 reference.
//
// Order, so that every outcome has one cause: phase 1 of every call first,
// on tensor descriptors without data (the library judges the problem before
// anything big is allocated); then the buffers, bound to the repeatable
// executors with aclSetInputTensorAddr / aclSetOutputTensorAddr; then the
// phase-2 repetitions (each runs every call in order) and the check.
//
// ACLNN_CONV_INJECT_ERROR=1 in the environment adds 1 to the first element
// of every checked output after the runs: the check's self-test (the tool
// must then report FAIL and exit 1).

#include "acl/acl.h"
#include "op_calls.h"
#include "problem_spec.h"
#include "run_types.h"

RunResult runLayer(const ProblemSpec& spec, const LayerPlan& plan, const RunOptions& options,
                   aclrtStream stream, RunObserver* observer);
