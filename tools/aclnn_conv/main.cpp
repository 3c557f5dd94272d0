// aclnn-conv: drives the aclnn convolution operators through the public API
// on a built-in set of problems (or the ones given on the command line),
// checks every result against the float64 reference and prints a table.
// `--op` picks the operator (backward, the default: aclnnConvolutionBackward;
// forward: aclnnConvolution; tbc: aclnnConvTbc; dw: aclnnConvDepthwise2d),
// `--train-step` runs a layer's forward and then its backward. Installed
// also as aclnn-conv-backward.

#include <cstdio>
#include <exception>
#include <new>
#include <string>

#include "command_line.h"
#include "exit_codes.h"
#include "problem_sets.h"
#include "run_problems.h"

namespace {

void printList(const CommandLine& c) {
  for (const ProblemSpec& spec : builtInProblems(c.op, c.trainStep))
    std::printf("%-26s %s\n", spec.name.c_str(), spec.compact().c_str());
}

int run(int argc, char** argv) {
  CommandLine commandLine;
  std::string error;
  if (!parseCommandLine(argc, argv, &commandLine, &error)) {
    std::fprintf(stderr, "aclnn-conv: %s\n(aclnn-conv --help lists the options)\n", error.c_str());
    return exitcode::kUsage;
  }
  switch (commandLine.action) {
    case CommandLine::Action::kHelp:
      printHelp(stdout);
      return exitcode::kPassed;
    case CommandLine::Action::kList:
      printList(commandLine);
      return exitcode::kPassed;
    case CommandLine::Action::kRun:
      break;
  }
  return runProblems(commandLine);
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "aclnn-conv: out of memory\n");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "aclnn-conv: internal error: %s\n", e.what());
  }
  return exitcode::kCannotRun;
}
