#pragma once
// Runs one problem through the public aclnn API, times phase 2 and checks the
// results against the float64 reference at sampled positions.

#include <cstdint>
#include <string>

#include "acl/acl.h"
#include "problem_spec.h"

struct RunOptions {
  aclDataType dtype = ACL_FLOAT;
  int8_t cubeMathType = 0;
  bool mask[3] = {true, true, true};
  int repeats = 3;
  int samples = 256;  // checked positions per output (all, when fewer)
  uint32_t seed = 1;
};

struct RunResult {
  bool ok = false;  // API calls succeeded
  std::string error;
  double seconds = 0;              // best phase 2 + synchronize
  double maxError[3] = {0, 0, 0};  // |got - ref| / sum|terms|, per output
  double tolerance = 0;
  bool pass = false;
};

RunResult runProblem(const ProblemSpec& spec, const RunOptions& options, aclrtStream stream);

const char* dtypeName(aclDataType dtype);
