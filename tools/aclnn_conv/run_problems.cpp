#include "run_problems.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "exit_codes.h"
#include "layer_runner.h"
#include "problem_sets.h"
#include "progress_line.h"
#include "result_table.h"

namespace {

bool progressWanted(ProgressMode mode) {
  if (mode == ProgressMode::kOn) return true;
  if (mode == ProgressMode::kOff) return false;
  return isatty(fileno(stderr)) != 0;
}

// aclInit, device 0 and one stream for the whole run; torn down in reverse.
class Runtime {
 public:
  bool start(std::string* error) {
    if (aclInit(nullptr) != ACL_SUCCESS) return fail("aclInit", error);
    initialised_ = true;
    if (aclrtSetDevice(0) != ACL_SUCCESS) return fail("aclrtSetDevice(0)", error);
    deviceSet_ = true;
    if (aclrtCreateStream(&stream_) != ACL_SUCCESS) return fail("aclrtCreateStream", error);
    return true;
  }
  ~Runtime() {
    if (stream_) aclrtDestroyStream(stream_);
    if (deviceSet_) aclrtResetDevice(0);
    if (initialised_) aclFinalize();
  }
  aclrtStream stream() const { return stream_; }

 private:
  static bool fail(const char* call, std::string* error) {
    const char* message = aclGetRecentErrMsg();
    *error = std::string(call) + " failed: " + (message ? message : "");
    return false;
  }
  bool initialised_ = false, deviceSet_ = false;
  aclrtStream stream_ = nullptr;
};

}  // namespace

namespace {

// The outputs the table shows: what the operator (or the step) produces.
std::vector<Output> columnsFor(const CommandLine& c) {
  if (c.trainStep) return {kOutY, kOutDX, kOutDW, kOutDB};
  if (c.op == OpKind::kBackward) return {kOutDX, kOutDW, kOutDB};
  return {kOutY};
}

std::string settingsFor(const CommandLine& c) {
  const bool* m = c.run.mask;
  const std::string mask =
      "mask " + std::to_string(m[0]) + std::to_string(m[1]) + std::to_string(m[2]) + " (dX dW db)";
  const std::string bias = std::string("bias ") + (c.run.bias ? "on" : "off");
  if (c.trainStep) return bias + ", " + mask;
  return c.op == OpKind::kBackward ? mask : bias;
}

}  // namespace

int runProblems(const CommandLine& c) {
  // Before aclInit: the compute pool reads it once.
  if (c.threads > 0) setenv("ACLNN_CPU_THREADS", std::to_string(c.threads).c_str(), 1);
  const std::vector<ProblemSpec> problems =
      c.problems.empty() ? builtInProblems(c.op, c.trainStep) : c.problems;

  Runtime runtime;
  std::string error;
  if (!runtime.start(&error)) {
    std::fprintf(stderr, "aclnn-conv: runtime initialisation failed: %s\n", error.c_str());
    return exitcode::kCannotRun;
  }
  ResultTable table(stdout, c.run, columnsFor(c), c.trainStep, c.verbose);
  table.printHeader(planTitle(c.op, c.trainStep).c_str(), aclrtGetSocName(), settingsFor(c));
  ProgressLine progress(progressWanted(c.progress), stderr);
  for (size_t i = 0; i < problems.size(); ++i) {
    progress.beginProblem(static_cast<int>(i + 1), static_cast<int>(problems.size()),
                          problems[i].name);
    const LayerPlan plan = planLayer(c.op, c.trainStep, problems[i], c.run);
    const RunResult result = runLayer(problems[i], plan, c.run, runtime.stream(), &progress);
    progress.endProblem();
    table.printRow(problems[i], result);
  }
  table.printSummary();
  return table.exitCode();
}
