#pragma once
// Times oneDNN's convolution primitives on one problem, fp32 or bf16 memory:
// the forward (with bias), or backward-data + backward-weights (with bias);
// a convolution, or for a transposed problem a deconvolution.

#include <string>

#include "bench_common.h"

namespace peers {

enum class DnnlType { F32, Bf16 };

struct OneDnnOptions {
  DnnlType type = DnnlType::F32;
  bool forwardInference = false;  // forward_inference instead of forward_training
  bool timeReference = false;     // also time reference implementations (RunOptions)
};

struct OneDnnResult {
  // Plain nc[d]hw / [g]oi[d]hw memory, as our API takes it.
  Measurement plain;
  // format_tag::any: the layouts the primitives prefer, reorders excluded
  // (how a framework keeping blocked tensors across layers would see it).
  Measurement preferred;
  // The same plus reordering the inputs in and the results back to plain.
  double preferredWithReordersSeconds = -1;
  // impl_info_str of each primitive: the forward's, or "data / weights".
  std::string plainImplementations, preferredImplementations;
};

OneDnnResult runOneDnnBackward(const HostProblem& problem, const TimingOptions& timing,
                               const OneDnnOptions& options);
OneDnnResult runOneDnnForward(const HostProblem& problem, const TimingOptions& timing,
                              const OneDnnOptions& options);

// Whether an implementation string names a reference (non-JIT, unoptimised)
// implementation, e.g. "ref:any".
bool isReferenceImplementation(const std::string& implementations);

}  // namespace peers
