#pragma once
// Everything measured for one case of one sweep at one thread count, and the
// line format in which a measuring child process hands it to the parent (one
// "<sweep index> <case index> <key> <value>" line per field; a value runs to
// the line end).

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace peers {

struct CaseResult {
  // Seconds, best over rounds; negative where not measured or failed.
  double oursSplit = -1, oursFused = -1;  // backward
  double oursForward = -1;                // forward
  // The direction's primitives: backward data + weights, or the forward.
  double dnnlPlain = -1, dnnlPreferred = -1, dnnlPreferredReorders = -1;
  double torchSplit = -1, torchFused = -1;  // backward
  double torchForward = -1;                 // forward
  // max |ours - oneDNN plain| / max |oneDNN plain| over every output (both
  // backward modes), same dtype and inputs.
  double difference = -1;
  // The same against our own fp32 cubeMathType 0 results (low-precision rows).
  double differenceFp32 = -1;
  // Bytes phase 1 asked for; negative where that mode did not run.
  double fusedWorkspace = -1, dataWorkspace = -1, weightWorkspace = -1, forwardWorkspace = -1;
  std::string kernelData, kernelWeight, kernelForward;  // our algorithm per pass
  std::string dnnlPlainImpl, dnnlPreferredImpl, torchBackend;
  std::string error;  // the first failure seen
};

// Results per sweep (RunOptions::sweeps), then per case (RunOptions::problems).
using SweepResults = std::vector<std::vector<CaseResult>>;

void writeCaseResult(FILE* out, size_t sweep, size_t index, const CaseResult& r);

// Reads the lines of one child's run and folds them into `results`: times
// keep the best, everything else the latest value.
void mergeCaseResults(FILE* in, SweepResults* results);

}  // namespace peers
