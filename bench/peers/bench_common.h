#pragma once
// What every provider in the peer benchmark shares: the problem's host data
// (one copy, so all providers see identical inputs), the gradients a provider
// produced (for a sanity cross-check), and best-of timing.

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "problem_spec.h"

namespace peers {

struct TimingOptions {
  int warmups = 2;
  int repeats = 5;
  // Slow cells stop early: no further warm-up once one took longer than this,
  // and no further timed run once at least minRepeats took this long in total.
  double cellBudgetSeconds = 1.5;
  int minRepeats = 2;
};

// Inputs of one problem in PyTorch's contiguous layouts (NC[D]HW, and the
// weight as aclnnConvolutionBackward receives it).
struct HostProblem {
  ProblemSpec spec;
  std::vector<float> gradOutput, input, weight;
};

HostProblem makeHostProblem(const ProblemSpec& spec, uint32_t seed);

// Gradients in the same plain layouts as the inputs.
struct Gradients {
  std::vector<float> gradInput, gradWeight, gradBias;
};

struct Measurement {
  bool ok = false;
  std::string error;
  double seconds = 0;  // best of the timed repeats
  Gradients gradients;
};

// Runs `body` up to warmups + repeats times (see TimingOptions for the early
// stops) and returns the fastest of the timed runs in seconds; returns a
// negative value as soon as body fails.
template <typename Body>
double bestSeconds(const TimingOptions& options, Body&& body) {
  auto timed = [&](double* seconds) {
    const auto start = std::chrono::steady_clock::now();
    const bool ok = body();
    *seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return ok;
  };
  double elapsed = 0;
  for (int i = 0; i < options.warmups; ++i) {
    if (!timed(&elapsed)) return -1;
    if (elapsed > options.cellBudgetSeconds) break;
  }
  double best = 1e30, total = 0;
  const int repeats = options.repeats < 1 ? 1 : options.repeats;
  for (int i = 0; i < repeats; ++i) {
    if (!timed(&elapsed)) return -1;
    if (elapsed < best) best = elapsed;
    total += elapsed;
    if (i + 1 >= options.minRepeats && total > options.cellBudgetSeconds) break;
  }
  return best;
}

// max |a - b| / max |b|: a coarse check that two providers solved the same
// problem (not an accuracy test).
double relativeDifference(const std::vector<float>& a, const std::vector<float>& b);

int64_t elementCount(const std::vector<int64_t>& shape);

}  // namespace peers
