#pragma once
// Hands the problems to torch_conv_backward.py (PyTorch runs in its own
// Python process) and collects its best times.

#include <string>
#include <vector>

#include "problem_spec.h"

namespace peers {

// One JSON object per line describing the aten::convolution_backward call;
// problems PyTorch cannot express (asymmetric padding) carry "padding": null.
std::string torchProblemLines(const std::vector<ProblemSpec>& problems);

struct TorchOptions {
  std::string python = "/usr/bin/python3";
  std::string script;
  int threads = 1, warmups = 2, repeats = 5;
  double cellBudgetSeconds = 1.5;  // as TimingOptions
  bool split = true, fused = true;
  // PyTorch allocates its gradients on every call. glibc's default then
  // returns large blocks to the kernel and faults them in again, which on a
  // VM such as ours costs more than the convolution (50-200 ms per call).
  // Unless this is set, the script runs with malloc tunables that keep freed
  // memory, so the numbers compare compute with compute.
  bool defaultMalloc = false;
};

struct TorchTiming {
  // Negative where PyTorch failed, could not run it, or the mode was not asked for.
  double splitSeconds = -1, fusedSeconds = -1;
  std::string backend;  // the ConvBackend PyTorch picks, or why it did not run
};

// One entry per problem; empty (and *error set) if the script could not be
// run at all.
std::vector<TorchTiming> runTorch(const std::vector<ProblemSpec>& problems,
                                  const TorchOptions& options, std::string* error);

}  // namespace peers
