#pragma once
// The benchmark's case set: the 15 layers of issue #6's table (same shapes and
// batch sizes) followed by the default problems of the aclnn-conv-backward
// tool, without duplicates.

#include <vector>

#include "problem_spec.h"

namespace peers {

std::vector<ProblemSpec> benchmarkCases();

// The cases of the low-precision rows (bf16, fp16, hf32) unless every case is
// asked for: the six layers of issue #9's table, a 1x1, a second depthwise,
// a grouped and a transposed layer; indices into `cases` (built-in cases
// missing from it are left out).
std::vector<size_t> lowPrecisionCases(const std::vector<ProblemSpec>& cases);

// A descriptor given on the command line takes the name of the built-in case
// with the same compact form, if there is one.
void nameLikeBuiltInCase(ProblemSpec* spec);

}  // namespace peers
