#pragma once
// Times aclnnConvolutionBackward (dX + dW + db) through the public API the
// way a CANN program repeats one operator: phase 1 once, the executor marked
// repeatable, then phase 2 + aclrtSynchronizeStream per timed run.

#include "acl/acl.h"
#include "bench_common.h"

namespace peers {

Measurement runOurs(const HostProblem& problem, const TimingOptions& options, aclrtStream stream);

}  // namespace peers
