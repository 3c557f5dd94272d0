#pragma once
// Hands the problems to torch_conv_backward.py (PyTorch runs in its own
// Python process) and collects its best times.

#include <string>
#include <vector>

#include "problem_spec.h"
#include "sweep.h"

namespace peers {

// One PyTorch measurement: a problem in one direction and dtype.
struct TorchJob {
  const ProblemSpec* problem = nullptr;
  Direction direction = Direction::Backward;
  Precision precision = Precision::Fp32;  // fp32 or bf16
};

// The jobs of every sweep that has peers, in sweep order (index = position).
struct TorchJobRef {
  size_t sweep = 0, caseIndex = 0;
};
std::vector<TorchJob> torchJobs(const std::vector<Sweep>& sweeps,
                                const std::vector<ProblemSpec>& problems,
                                std::vector<TorchJobRef>* where);

// One JSON object per line describing the call (its "index" is the job's
// position); problems PyTorch cannot express (asymmetric padding) carry
// "padding": null.
std::string torchProblemLines(const std::vector<TorchJob>& jobs);

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
  double splitSeconds = -1, fusedSeconds = -1;  // backward jobs
  double forwardSeconds = -1;                   // forward jobs
  std::string backend;  // the ConvBackend PyTorch picks, or why it did not run
};

// One entry per job; empty (and *error set) if the script could not be run
// at all.
std::vector<TorchTiming> runTorch(const std::vector<TorchJob>& jobs, const TorchOptions& options,
                                  std::string* error);

}  // namespace peers
