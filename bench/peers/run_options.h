#pragma once
// The benchmark's command-line settings, shared by the parent (orchestration
// and report) and the child processes that measure one thread count each.

#include <vector>

#include "bench_common.h"
#include "problem_spec.h"
#include "torch_bridge.h"

namespace peers {

struct RunOptions {
  std::vector<ProblemSpec> problems;
  std::vector<int> threads;  // one child process per entry and round
  int rounds = 2;
  TimingOptions timing;
  bool split = true, fused = true;  // our and PyTorch's modes
  bool torch = true;
  TorchOptions torchOptions;  // threads set per child
  bool markdown = false;
  bool verbose = false;
};

}  // namespace peers
