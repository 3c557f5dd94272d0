#pragma once
// Runs one problem through the public aclnn API, times phase 2 and checks the
// results against the float64 reference at sampled positions.
//
// Order, so that every outcome has one cause: phase 1 first, on tensor
// descriptors without data (the library judges the problem before anything
// big is allocated); then the buffers, bound to the repeatable executor with
// aclSetInputTensorAddr / aclSetOutputTensorAddr; then phase 2 and the check.

#include <cstdint>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "problem_spec.h"

struct RunOptions {
  aclDataType dtype = ACL_FLOAT;
  int8_t cubeMathType = 0;
  bool mask[3] = {true, true, true};  // gradInput, gradWeight, gradBias
  int repeats = 3;
  int samples = 256;  // checked positions per output (all, when fewer)
  uint32_t seed = 1;
};

// What a run is doing, for a progress display. Called on the running thread.
class RunObserver {
 public:
  virtual ~RunObserver() = default;
  virtual void stage(const char* what) = 0;               // "phase 1", "checking", ...
  virtual void repetitionsDone(int done, int total) = 0;  // phase-2 runs finished
};

enum class RunOutcome {
  kPassed,        // every requested output within tolerance
  kCheckFailed,   // an output differs from the reference (or the check could not run)
  kRefused,       // the library refused the problem (status and message in the result)
  kOutOfMemory,   // a buffer, the workspace or host data could not be allocated
  kRuntimeError,  // phase 2 or the stream failed
};

// The algorithm one pass ran, as the kernel layer will name it
// (e.g. "dX": "f32_convbwdd_direct_nchw16c_avx512").
struct PassAlgorithm {
  std::string pass;
  std::string algorithm;
};

struct RunResult {
  RunOutcome outcome = RunOutcome::kRuntimeError;
  int status = 0;                           // the refusing call's status (kRefused)
  std::string message;                      // why, for every outcome but kPassed / kCheckFailed
  double seconds = 0;                       // best phase 2 + synchronize
  bool checked[3] = {false, false, false};  // which outputs were compared
  double maxError[3] = {0, 0, 0};           // |got - ref| / sum|terms|, per output
  uint64_t workspaceBytes = 0;
  // Empty until the library reports per-pass algorithm names (see
  // passAlgorithms in api_runner.cpp); --verbose prints them.
  std::vector<PassAlgorithm> algorithms;
};

RunResult runProblem(const ProblemSpec& spec, const RunOptions& options, aclrtStream stream,
                     RunObserver* observer);

// Relative error bound the check uses for `dtype` under `cubeMathType`.
double toleranceFor(aclDataType dtype, int8_t cubeMathType);

const char* dtypeName(aclDataType dtype);
