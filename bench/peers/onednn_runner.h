#pragma once
// Times oneDNN's backward-data + backward-weights (with bias) primitives on
// one problem: a convolution, or for a transposed problem a deconvolution.

#include <string>

#include "bench_common.h"

namespace peers {

struct OneDnnResult {
  // Plain nc[d]hw / [g]oi[d]hw memory, as our API takes it.
  Measurement plain;
  // format_tag::any: the layouts the primitives prefer, reorders excluded
  // (how a framework keeping blocked tensors across layers would see it).
  Measurement preferred;
  // The same plus reordering the inputs in and the gradients back to plain.
  double preferredWithReordersSeconds = -1;
  std::string plainImplementations, preferredImplementations;  // "data / weights"
};

OneDnnResult runOneDnn(const HostProblem& problem, const TimingOptions& options);

}  // namespace peers
