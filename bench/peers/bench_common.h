#pragma once
// What every provider in the peer benchmark shares: the problem's host data
// (one copy, so all providers see identical inputs), the results a provider
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
// weight as aclnnConvolution[Backward] receives it): x, w and the bias of the
// forward; gradOutput, x and w of the backward. Values in [-1, 1]; each
// provider rounds them to its tensors' dtype the same way (host_dtype.h).
struct HostProblem {
  ProblemSpec spec;
  std::vector<float> gradOutput, input, weight, bias;
};

HostProblem makeHostProblem(const ProblemSpec& spec, uint32_t seed);

// What a provider computed, decoded to fp32, in the plain layouts of the
// inputs: {y} for the forward, {dX, dW, db} for the backward.
using Outputs = std::vector<std::vector<float>>;

struct Measurement {
  bool ok = false;
  std::string error;
  double seconds = 0;  // best of the timed repeats
  Outputs outputs;
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
// The largest relativeDifference over the outputs, pairwise.
double relativeDifference(const Outputs& a, const Outputs& b);

int64_t elementCount(const std::vector<int64_t>& shape);

}  // namespace peers
