#include "measure_threads.h"

#include <omp.h>

#include <algorithm>
#include <cstdlib>
#include <string>

#include "acl/acl.h"
#include "case_result.h"
#include "onednn_runner.h"
#include "our_kernels.h"
#include "ours_runner.h"

namespace peers {
namespace {

double differenceOf(const Gradients& a, const Gradients& b) {
  return std::max({relativeDifference(a.gradInput, b.gradInput),
                   relativeDifference(a.gradWeight, b.gradWeight),
                   relativeDifference(a.gradBias, b.gradBias)});
}

CaseResult measureCase(const RunOptions& o, const ProblemSpec& spec, aclrtStream stream) {
  CaseResult r;
  const HostProblem problem = makeHostProblem(spec, 1);
  const OurKernels kernels = ourKernels(spec);
  r.kernelData = kernels.data;
  r.kernelWeight = kernels.weight;

  const OursResult ours = runOurs(problem, o.timing, stream, o.split, o.fused);
  if (ours.split.ok) r.oursSplit = ours.split.seconds;
  if (ours.fused.ok) r.oursFused = ours.fused.seconds;
  if (o.split && !ours.split.ok) r.error = "ours split: " + ours.split.error;
  if (o.fused && !ours.fused.ok && r.error.empty()) r.error = "ours fused: " + ours.fused.error;
  if (ours.split.ok) {
    r.dataWorkspace = static_cast<double>(ours.dataWorkspace);
    r.weightWorkspace = static_cast<double>(ours.weightWorkspace);
  }
  if (ours.fused.ok) r.fusedWorkspace = static_cast<double>(ours.fusedWorkspace);

  const OneDnnResult dnnl = runOneDnn(problem, o.timing);
  if (dnnl.plain.ok) r.dnnlPlain = dnnl.plain.seconds;
  if (dnnl.preferred.ok) r.dnnlPreferred = dnnl.preferred.seconds;
  r.dnnlPreferredReorders = dnnl.preferredWithReordersSeconds;
  if (!dnnl.plain.ok && r.error.empty()) r.error = dnnl.plain.error;
  r.dnnlPlainImpl = dnnl.plainImplementations;
  r.dnnlPreferredImpl = dnnl.preferredImplementations;
  if (dnnl.plain.ok) {
    const Gradients& reference = dnnl.plain.gradients;
    if (ours.split.ok) r.difference = differenceOf(ours.split.gradients, reference);
    if (ours.fused.ok)
      r.difference = std::max(r.difference, differenceOf(ours.fused.gradients, reference));
  }
  return r;
}

}  // namespace

int measureAtThreadCount(const RunOptions& o, int threads, FILE* out) {
  // Before aclInit: our thread pool reads the variable once.
  const std::string count = std::to_string(threads);
  setenv("ACLNN_CPU_THREADS", count.c_str(), 1);
  setenv("OMP_NUM_THREADS", count.c_str(), 1);
  omp_set_num_threads(threads);
  if (aclInit(nullptr) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS) {
    std::fprintf(stderr, "runtime initialisation failed: %s\n", aclGetRecentErrMsg());
    return 1;
  }
  aclrtStream stream = nullptr;
  aclrtCreateStream(&stream);
  for (size_t i = 0; i < o.problems.size(); ++i)
    writeCaseResult(out, i, measureCase(o, o.problems[i], stream));
  aclrtDestroyStream(stream);
  aclrtResetDevice(0);
  aclFinalize();

  if (!o.torch) return 0;
  TorchOptions torchOptions = o.torchOptions;
  torchOptions.threads = threads;
  std::string error;
  const auto torch = runTorch(o.problems, torchOptions, &error);
  if (torch.empty()) {
    std::fprintf(stderr, "PyTorch skipped: %s\n", error.c_str());
    return 0;
  }
  for (size_t i = 0; i < torch.size(); ++i) {
    CaseResult r;
    r.torchSplit = torch[i].splitSeconds;
    r.torchFused = torch[i].fusedSeconds;
    r.torchBackend = torch[i].backend;
    writeCaseResult(out, i, r);
  }
  return 0;
}

}  // namespace peers
