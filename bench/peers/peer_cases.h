#pragma once
// The benchmark's case set: the 15 layers of issue #6's table (same shapes and
// batch sizes) followed by the default problems of the aclnn-conv-backward
// tool, without duplicates.

#include <vector>

#include "problem_spec.h"

namespace peers {

std::vector<ProblemSpec> benchmarkCases();

// A descriptor given on the command line takes the name of the built-in case
// with the same compact form, if there is one.
void nameLikeBuiltInCase(ProblemSpec* spec);

}  // namespace peers
