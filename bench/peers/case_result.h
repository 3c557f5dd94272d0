#pragma once
// Everything measured for one case at one thread count, and the line format
// in which a measuring child process hands it to the parent (one
// "<case index> <key> <value>" line per field; a value runs to the line end).

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace peers {

struct CaseResult {
  // Seconds, best over rounds; negative where not measured or failed.
  double oursSplit = -1, oursFused = -1;
  double dnnlPlain = -1, dnnlPreferred = -1, dnnlPreferredReorders = -1;
  double torchSplit = -1, torchFused = -1;
  // max |ours - oneDNN plain| / max |oneDNN plain| over dX, dW, db and both modes.
  double difference = -1;
  // Bytes phase 1 asked for; negative where that mode did not run.
  double fusedWorkspace = -1, dataWorkspace = -1, weightWorkspace = -1;
  std::string kernelData, kernelWeight;  // our algorithm per pass
  std::string dnnlPlainImpl, dnnlPreferredImpl, torchBackend;
  std::string error;  // the first failure seen
};

void writeCaseResult(FILE* out, size_t index, const CaseResult& r);

// Reads the lines of one child's run and folds them into `results` (one
// entry per case): times keep the best, everything else the latest value.
void mergeCaseResults(FILE* in, std::vector<CaseResult>* results);

}  // namespace peers
