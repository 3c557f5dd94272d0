#pragma once
// Times our operators through the public API the way a CANN program repeats
// one operator: phase 1 once per call, the executor marked repeatable, then
// phase 2 + aclrtSynchronizeStream per timed run.
//
// Backward (aclnnConvolutionBackward), two modes:
//   split  one call with outputMask {1,0,0} (dX) and one with {0,1,1} (dW, db),
//          as oneDNN's and PyTorch's separate backward calls; timed together
//   fused  one call with outputMask {1,1,1}, what autograd issues
// Forward (aclnnConvolution): y = conv(x, w) + bias, or its transposed form.

#include <cstdint>

#include "acl/acl.h"
#include "bench_common.h"

namespace peers {

// The tensors' dtype (every tensor alike) and the cubeMathType of the calls.
struct OurNumerics {
  aclDataType dtype = ACL_FLOAT;
  int8_t cubeMathType = 0;
};

struct OursBackwardResult {
  Measurement split, fused;
  // What phase 1 asked for: the fused call, and the split mode's two calls.
  uint64_t fusedWorkspace = 0, dataWorkspace = 0, weightWorkspace = 0;
};

OursBackwardResult runOursBackward(const HostProblem& problem, const TimingOptions& options,
                                   aclrtStream stream, OurNumerics numerics, bool split,
                                   bool fused);

struct OursForwardResult {
  Measurement forward;
  uint64_t workspace = 0;
};

OursForwardResult runOursForward(const HostProblem& problem, const TimingOptions& options,
                                 aclrtStream stream, OurNumerics numerics);

}  // namespace peers
