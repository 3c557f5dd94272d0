#pragma once
// What the tool asks of one run and what it gets back, for every operator:
// the options, the outputs a run can check, the result of each phase (one
// operator call) and of the whole problem.

#include <cstdint>
#include <string>
#include <vector>

#include "acl/acl.h"

// The outputs a run can check, in table order: the forward result y and the
// three gradients.
enum Output { kOutY = 0, kOutDX, kOutDW, kOutDB, kOutputCount };

struct RunOptions {
  aclDataType dtype = ACL_FLOAT;
  int8_t cubeMathType = 0;
  bool mask[3] = {true, true, true};  // gradInput, gradWeight, gradBias
  bool bias = true;                   // forward operators: pass a bias
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

// The algorithm one pass ran, as the kernel layer names it
// (e.g. "dX": "f32_convbwdd_direct_nchw16c_avx512").
struct PassAlgorithm {
  std::string pass;
  std::string algorithm;
};

// One operator call of a problem (a training step has two).
struct PhaseResult {
  std::string phase;   // "forward" or "backward"
  std::string api;     // e.g. "aclnnConvolution"
  std::string shapes;  // its tensors, e.g. "input [..], weight [..]" (for --verbose)
  double seconds = 0;  // best phase 2 + synchronize
  double flops = 0;    // 2 x multiply-accumulates of its passes
  bool checked[kOutputCount] = {false, false, false, false};
  double maxError[kOutputCount] = {0, 0, 0, 0};  // |got - ref| / sum|terms|, per output
  bool passed = false;
  uint64_t workspaceBytes = 0;
  std::vector<PassAlgorithm> algorithms;  // per pass, for --verbose
};

struct RunResult {
  RunOutcome outcome = RunOutcome::kRuntimeError;
  int status = 0;                   // the refusing call's status (kRefused); -1 when not a status
  std::string message;              // why, for every outcome but kPassed / kCheckFailed
  std::vector<PhaseResult> phases;  // filled once phase 1 accepted every call
  double stepSeconds = 0;           // best time of one repetition of all phases
};
