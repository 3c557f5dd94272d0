#pragma once
// The command line of aclnn-conv: every option, its values and defaults, and
// a parser that judges every argument (nothing is silently accepted) and
// never exits or throws.

#include <cstdio>
#include <string>
#include <vector>

#include "api_runner.h"
#include "problem_spec.h"

enum class ProgressMode { kAuto, kOn, kOff };

struct CommandLine {
  enum class Action { kRun, kHelp, kList };
  Action action = Action::kRun;
  std::string op = "backward";  // --op; backward is the only operator driven so far
  RunOptions run;
  std::vector<ProblemSpec> problems;  // empty: the built-in set
  int threads = 0;                    // --threads; 0 leaves ACLNN_CPU_THREADS / all cores
  ProgressMode progress = ProgressMode::kAuto;
  bool verbose = false;
};

// Parses argv[1..argc). On a usage error returns false and sets *error to
// one line naming the argument and what was expected.
bool parseCommandLine(int argc, char** argv, CommandLine* commandLine, std::string* error);

void printHelp(std::FILE* out);
