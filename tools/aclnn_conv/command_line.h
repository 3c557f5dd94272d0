#pragma once
// The command line of aclnn-conv: every option, its values and defaults, and
// a parser that judges every argument (nothing is silently accepted) and
// never exits or throws.

#include <cstdio>
#include <string>
#include <vector>

#include "op_calls.h"
#include "problem_spec.h"
#include "run_types.h"

enum class ProgressMode { kAuto, kOn, kOff };

struct CommandLine {
  enum class Action { kRun, kHelp, kList };
  Action action = Action::kRun;
  OpKind op = OpKind::kBackward;  // --op
  bool trainStep = false;         // --train-step: forward, then backward of each layer
  RunOptions run;
  std::vector<ProblemSpec> problems;  // empty: the built-in set of the operator
  int threads = 0;                    // --threads; 0 leaves ACLNN_CPU_THREADS / all cores
  ProgressMode progress = ProgressMode::kAuto;
  bool verbose = false;
};

// Parses argv[1..argc). On a usage error returns false and sets *error to
// one line naming the argument and what was expected.
bool parseCommandLine(int argc, char** argv, CommandLine* commandLine, std::string* error);

void printHelp(std::FILE* out);
