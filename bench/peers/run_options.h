#pragma once
// The benchmark's command-line settings, shared by the parent (orchestration
// and report) and the child processes that measure one thread count each.

#include <vector>

#include "bench_common.h"
#include "problem_spec.h"
#include "sweep.h"
#include "torch_bridge.h"

namespace peers {

struct RunOptions {
  std::vector<ProblemSpec> problems;      // every case of every sweep
  std::vector<size_t> lowPrecisionCases;  // indices into problems: the bf16, fp16, hf32 rows
  std::vector<Sweep> sweeps;              // planSweeps of the directions and precisions asked for
  std::vector<Direction> directions = {Direction::Backward};
  std::vector<Precision> precisions = {Precision::Fp32};
  std::vector<int> threads;  // one child process per entry and round
  int rounds = 2;
  TimingOptions timing;
  bool split = true, fused = true;  // our and PyTorch's backward modes
  bool torch = true;
  TorchOptions torchOptions;  // threads set per child
  // oneDNN's forward primitives with prop_kind forward_inference instead of
  // forward_training (what PyTorch's ideep asks for).
  bool dnnlInference = false;
  // A oneDNN primitive that is only a reference implementation ("ref" in its
  // name; e.g. a data type without a JIT kernel) is not timed unless this is
  // set: a reference convolution takes tens of seconds per call.
  bool timeDnnlReference = false;
  bool markdown = false;
  bool verbose = false;
};

}  // namespace peers
