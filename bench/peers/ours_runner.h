#pragma once
// Times aclnnConvolutionBackward through the public API the way a CANN
// program repeats one operator: phase 1 once per call, the executor marked
// repeatable, then phase 2 + aclrtSynchronizeStream per timed run. Two modes:
//   split  one call with outputMask {1,0,0} (dX) and one with {0,1,1} (dW, db),
//          as oneDNN's and PyTorch's separate backward calls; timed together
//   fused  one call with outputMask {1,1,1}, what autograd issues

#include <cstdint>

#include "acl/acl.h"
#include "bench_common.h"

namespace peers {

struct OursResult {
  Measurement split, fused;
  // What phase 1 asked for: the fused call, and the split mode's two calls.
  uint64_t fusedWorkspace = 0, dataWorkspace = 0, weightWorkspace = 0;
};

OursResult runOurs(const HostProblem& problem, const TimingOptions& options, aclrtStream stream,
                   bool split, bool fused);

}  // namespace peers
