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

// The largest relative difference of the measured modes against `reference`.
double differenceOf(const std::vector<const Measurement*>& ours, const Outputs& reference) {
  double worst = -1;
  for (const Measurement* m : ours)
    if (m->ok) worst = std::max(worst, relativeDifference(m->outputs, reference));
  return worst;
}

void recordDnnl(const OneDnnResult& dnnl, CaseResult* r) {
  if (dnnl.plain.ok) r->dnnlPlain = dnnl.plain.seconds;
  if (dnnl.preferred.ok) r->dnnlPreferred = dnnl.preferred.seconds;
  r->dnnlPreferredReorders = dnnl.preferredWithReordersSeconds;
  if (!dnnl.plain.ok && r->error.empty()) r->error = dnnl.plain.error;
  if (!dnnl.preferred.ok && r->error.empty()) r->error = dnnl.preferred.error;
  r->dnnlPlainImpl = dnnl.plainImplementations;
  r->dnnlPreferredImpl = dnnl.preferredImplementations;
}

// One case of one sweep. `fp32` holds our fp32 cubeMathType 0 results of the
// same case and direction when they were measured before (else empty), for
// the low-precision rows' difference.
CaseResult measureCase(const RunOptions& o, const Sweep& sweep, const HostProblem& problem,
                       aclrtStream stream, Outputs* fp32) {
  CaseResult r;
  // Our operand values after the gather's rounding: bf16 and fp16 tensors
  // stay what they are, hf32 is fp32 with cubeMathType 1 (HF32 operands).
  const aclcpu::kernels::OperandValues operandValues[4] = {
      aclcpu::kernels::OperandValues::F32, aclcpu::kernels::OperandValues::BF16,
      aclcpu::kernels::OperandValues::F16, aclcpu::kernels::OperandValues::HF32};
  const OurKernels kernels =
      ourKernels(problem.spec, operandValues[static_cast<int>(sweep.precision)]);
  const OurNumerics numerics{tensorType(sweep.precision), cubeMathType(sweep.precision)};
  OneDnnOptions dnnlOptions;
  dnnlOptions.type = sweep.precision == Precision::Bf16 ? DnnlType::Bf16 : DnnlType::F32;
  dnnlOptions.forwardInference = o.dnnlInference;
  dnnlOptions.timeReference = o.timeDnnlReference;
  std::vector<const Measurement*> ours;
  OursBackwardResult backward;
  OursForwardResult forward;

  if (sweep.direction == Direction::Backward) {
    r.kernelData = kernels.data;
    r.kernelWeight = kernels.weight;
    backward = runOursBackward(problem, o.timing, stream, numerics, o.split, o.fused);
    if (backward.split.ok) r.oursSplit = backward.split.seconds;
    if (backward.fused.ok) r.oursFused = backward.fused.seconds;
    if (o.split && !backward.split.ok) r.error = "ours split: " + backward.split.error;
    if (o.fused && !backward.fused.ok && r.error.empty())
      r.error = "ours fused: " + backward.fused.error;
    if (backward.split.ok) {
      r.dataWorkspace = static_cast<double>(backward.dataWorkspace);
      r.weightWorkspace = static_cast<double>(backward.weightWorkspace);
    }
    if (backward.fused.ok) r.fusedWorkspace = static_cast<double>(backward.fusedWorkspace);
    ours = {&backward.split, &backward.fused};
  } else {
    r.kernelForward = kernels.forward;
    forward = runOursForward(problem, o.timing, stream, numerics);
    if (forward.forward.ok) {
      r.oursForward = forward.forward.seconds;
      r.forwardWorkspace = static_cast<double>(forward.workspace);
    } else {
      r.error = "ours: " + forward.forward.error;
    }
    ours = {&forward.forward};
  }

  if (sweep.precision == Precision::Fp32) {
    fp32->clear();
    for (const Measurement* m : ours)
      if (m->ok) {
        *fp32 = m->outputs;
        break;
      }
  } else if (!fp32->empty()) {
    r.differenceFp32 = differenceOf(ours, *fp32);
  }

  if (sweep.peers) {
    const OneDnnResult dnnl = sweep.direction == Direction::Backward
                                  ? runOneDnnBackward(problem, o.timing, dnnlOptions)
                                  : runOneDnnForward(problem, o.timing, dnnlOptions);
    recordDnnl(dnnl, &r);
    if (dnnl.plain.ok) r.difference = differenceOf(ours, dnnl.plain.outputs);
  }
  return r;
}

// Fp32 first: its results are the reference of the low-precision rows.
std::vector<size_t> sweepsOfCase(const RunOptions& o, Direction direction, size_t caseIndex) {
  std::vector<size_t> which;
  for (size_t s = 0; s < o.sweeps.size(); ++s)
    if (o.sweeps[s].direction == direction && o.sweeps[s].hasCase(caseIndex)) which.push_back(s);
  std::stable_sort(which.begin(), which.end(), [&](size_t a, size_t b) {
    return static_cast<int>(o.sweeps[a].precision) < static_cast<int>(o.sweeps[b].precision);
  });
  return which;
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
  for (Direction direction : o.directions) {
    for (size_t i = 0; i < o.problems.size(); ++i) {
      const std::vector<size_t> sweeps = sweepsOfCase(o, direction, i);
      if (sweeps.empty()) continue;
      const HostProblem problem = makeHostProblem(o.problems[i], 1);
      Outputs fp32;
      for (size_t s : sweeps)
        writeCaseResult(out, s, i, measureCase(o, o.sweeps[s], problem, stream, &fp32));
    }
  }
  aclrtDestroyStream(stream);
  aclrtResetDevice(0);
  aclFinalize();

  if (!o.torch) return 0;
  std::vector<TorchJobRef> where;
  const std::vector<TorchJob> jobs = torchJobs(o.sweeps, o.problems, &where);
  if (jobs.empty()) return 0;
  TorchOptions torchOptions = o.torchOptions;
  torchOptions.threads = threads;
  std::string error;
  const auto torch = runTorch(jobs, torchOptions, &error);
  if (torch.empty()) {
    std::fprintf(stderr, "PyTorch skipped: %s\n", error.c_str());
    return 0;
  }
  for (size_t j = 0; j < torch.size(); ++j) {
    CaseResult r;
    r.torchSplit = torch[j].splitSeconds;
    r.torchFused = torch[j].fusedSeconds;
    r.torchForward = torch[j].forwardSeconds;
    r.torchBackend = torch[j].backend;
    writeCaseResult(out, where[j].sweep, where[j].caseIndex, r);
  }
  return 0;
}

}  // namespace peers
