// conv_backward_vs_onednn: times our aclnnConvolutionBackward (dX + dW + db,
// fp32, cubeMathType 0) against oneDNN's backward primitives and PyTorch's
// aten::convolution_backward on the same problems, same machine, same thread
// count, and prints the times and ratios. A measurement, not a test.

#include <dnnl.h>
#include <omp.h>
#include <sched.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "bench_common.h"
#include "onednn_runner.h"
#include "ours_runner.h"
#include "problem_spec.h"
#include "torch_bridge.h"

#ifndef PEERS_SOURCE_DIR
#define PEERS_SOURCE_DIR "."
#endif

namespace {

using namespace peers;

struct Options {
  std::vector<ProblemSpec> problems;
  bool onlyGiven = false;
  int threads = 0;
  int rounds = 1;
  TimingOptions timing;
  bool torch = true;
  TorchOptions torchOptions;
  bool printProblems = false;
  bool verbose = false;
};

void usage() {
  std::printf(
      "usage: conv_backward_vs_onednn [PROBLEM...] [--only] [--threads N] [--repeat N]\n"
      "         [--warmup N] [--rounds N] [--no-torch] [--torch-default-malloc]\n"
      "         [--python PATH] [--torch-script PATH]\n"
      "         [--verbose] [--print-problems]\n"
      "Runs the built-in problem set plus the PROBLEMs given (only those with --only).\n"
      "PROBLEM is a compact descriptor as in aclnn-conv-backward, e.g. n8c64o64h56w56k3p1.\n"
      "Each time is the best of --repeat runs after --warmup runs; --rounds repeats the\n"
      "whole sweep and keeps the best per cell (use it on a shared machine).\n"
      "--threads N (default: the CPUs this process may use) sets ACLNN_CPU_THREADS for\n"
      "ours, omp_set_num_threads for oneDNN (OpenMP build) and torch.set_num_threads.\n"
      "PyTorch runs with glibc malloc tunables that keep freed memory (it allocates its\n"
      "gradients per call and re-faulting them costs 50-200 ms on this VM);\n"
      "--torch-default-malloc runs it with glibc's defaults instead.\n"
      "--print-problems writes the JSON lines torch_conv_backward.py reads, and exits.\n");
}

int availableCpus() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0) return CPU_COUNT(&set);
  return 1;
}

bool parseArguments(int argc, char** argv, Options* o) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const bool hasValue = i + 1 < argc;
    if (arg == "-h" || arg == "--help") {
      usage();
      std::exit(0);
    } else if (arg == "--only") {
      o->onlyGiven = true;
    } else if (arg == "--threads" && hasValue) {
      o->threads = std::atoi(argv[++i]);
    } else if (arg == "--repeat" && hasValue) {
      o->timing.repeats = std::max(1, std::atoi(argv[++i]));
    } else if (arg == "--warmup" && hasValue) {
      o->timing.warmups = std::max(0, std::atoi(argv[++i]));
    } else if (arg == "--rounds" && hasValue) {
      o->rounds = std::max(1, std::atoi(argv[++i]));
    } else if (arg == "--no-torch") {
      o->torch = false;
    } else if (arg == "--torch-default-malloc") {
      o->torchOptions.defaultMalloc = true;
    } else if (arg == "--python" && hasValue) {
      o->torchOptions.python = argv[++i];
    } else if (arg == "--torch-script" && hasValue) {
      o->torchOptions.script = argv[++i];
    } else if (arg == "--print-problems") {
      o->printProblems = true;
    } else if (arg == "--verbose") {
      o->verbose = true;
    } else if (!arg.empty() && arg[0] != '-') {
      ProblemSpec spec;
      std::string error;
      if (!parseProblem(arg, &spec, &error)) {
        std::fprintf(stderr, "cannot read problem '%s': %s\n", arg.c_str(), error.c_str());
        return false;
      }
      o->problems.push_back(spec);
    } else {
      usage();
      return false;
    }
  }
  if (!o->onlyGiven) {
    auto defaults = defaultProblems();
    o->problems.insert(o->problems.begin(), defaults.begin(), defaults.end());
  }
  if (o->problems.empty()) {
    std::fprintf(stderr, "no problems (--only needs at least one PROBLEM)\n");
    return false;
  }
  if (o->threads <= 0) o->threads = availableCpus();
  if (o->torchOptions.script.empty())
    o->torchOptions.script = std::string(PEERS_SOURCE_DIR) + "/torch_conv_backward.py";
  o->torchOptions.threads = o->threads;
  o->torchOptions.warmups = o->timing.warmups;
  o->torchOptions.repeats = o->timing.repeats;
  return true;
}

// Per problem, the best time of every provider over all rounds.
struct Row {
  double ours = -1, plain = -1, preferred = -1, preferredReorders = -1, torch = -1;
  double difference = -1;  // ours vs oneDNN plain, max over dX, dW, db
  std::string error, plainImpl, preferredImpl, torchBackend;
};

void keepBest(double* best, double seconds) {
  if (seconds >= 0 && (*best < 0 || seconds < *best)) *best = seconds;
}

std::string cell(double seconds) {
  char text[32];
  if (seconds < 0) return "-";
  std::snprintf(text, sizeof(text), "%.2f", seconds * 1e3);
  return text;
}

std::string ratio(double ours, double peer) {
  char text[32];
  if (ours < 0 || peer <= 0) return "-";
  std::snprintf(text, sizeof(text), "%.2f", ours / peer);
  return text;
}

void measureRound(const Options& o, aclrtStream stream, std::vector<Row>* rows) {
  for (size_t i = 0; i < o.problems.size(); ++i) {
    Row& row = (*rows)[i];
    const HostProblem problem = makeHostProblem(o.problems[i], 1);
    const Measurement ours = runOurs(problem, o.timing, stream);
    if (!ours.ok) row.error = "ours: " + ours.error;
    keepBest(&row.ours, ours.ok ? ours.seconds : -1);
    const OneDnnResult peer = runOneDnn(problem, o.timing);
    if (!peer.plain.ok && row.error.empty()) row.error = peer.plain.error;
    keepBest(&row.plain, peer.plain.ok ? peer.plain.seconds : -1);
    keepBest(&row.preferred, peer.preferred.ok ? peer.preferred.seconds : -1);
    keepBest(&row.preferredReorders, peer.preferredWithReordersSeconds);
    row.plainImpl = peer.plainImplementations;
    row.preferredImpl = peer.preferredImplementations;
    if (ours.ok && peer.plain.ok) {
      const Gradients &a = ours.gradients, &b = peer.plain.gradients;
      row.difference = std::max({relativeDifference(a.gradInput, b.gradInput),
                                 relativeDifference(a.gradWeight, b.gradWeight),
                                 relativeDifference(a.gradBias, b.gradBias)});
    }
  }
  if (!o.torch) return;
  std::string error;
  const auto torch = runTorch(o.problems, o.torchOptions, &error);
  if (torch.empty()) {
    std::fprintf(stderr, "PyTorch skipped: %s\n", error.c_str());
    return;
  }
  for (size_t i = 0; i < rows->size(); ++i) {
    keepBest(&(*rows)[i].torch, torch[i].seconds);
    (*rows)[i].torchBackend = torch[i].backend;
  }
}

void printTable(const Options& o, const std::vector<Row>& rows) {
  std::printf("%-26s %-28s %8s %8s %6s %8s %6s %8s %6s %8s %6s %8s\n", "problem", "descriptor",
              "ours", "dnnl", "ratio", "dnnlPref", "ratio", "dnnlP+R", "ratio", "torch", "ratio",
              "diff");
  for (size_t i = 0; i < rows.size(); ++i) {
    const Row& r = rows[i];
    const ProblemSpec& p = o.problems[i];
    char diff[32] = "-";
    if (r.difference >= 0) std::snprintf(diff, sizeof(diff), "%.1e", r.difference);
    std::printf("%-26s %-28s %8s %8s %6s %8s %6s %8s %6s %8s %6s %8s\n", p.name.c_str(),
                p.compact().c_str(), cell(r.ours).c_str(), cell(r.plain).c_str(),
                ratio(r.ours, r.plain).c_str(), cell(r.preferred).c_str(),
                ratio(r.ours, r.preferred).c_str(), cell(r.preferredReorders).c_str(),
                ratio(r.ours, r.preferredReorders).c_str(), cell(r.torch).c_str(),
                ratio(r.ours, r.torch).c_str(), diff);
    if (!r.error.empty()) std::printf("    error: %s\n", r.error.c_str());
  }
  // Geometric means over the problems every provider ran.
  auto geomean = [&](double Row::*peer) {
    double logSum = 0;
    int n = 0;
    for (const Row& r : rows)
      if (r.ours > 0 && r.*peer > 0) logSum += std::log(r.ours / (r.*peer)), ++n;
    return n ? ratio(std::exp(logSum / n), 1.0) + " (" + std::to_string(n) + ")" : std::string("-");
  };
  std::printf("geometric mean of ours/peer: dnnl %s, dnnlPref %s, dnnlP+R %s, torch %s\n",
              geomean(&Row::plain).c_str(), geomean(&Row::preferred).c_str(),
              geomean(&Row::preferredReorders).c_str(), geomean(&Row::torch).c_str());
  std::printf(
      "times: ms, best of %d runs after %d warm-up runs, best over %d round(s)\n"
      "ratio = ours / peer (above 1: we are slower)\n"
      "ours     aclnnConvolutionBackward phase 2 + aclrtSynchronizeStream (phase 1 once, executor"
      " repeatable)\n"
      "dnnl     oneDNN %d.%d.%d backward_data + backward_weights(+bias), plain nc[d]hw/[g]oi[d]hw\n"
      "dnnlPref oneDNN, format_tag::any (its preferred layouts), reorders excluded\n"
      "dnnlP+R  dnnlPref plus reordering inputs in and gradients back to plain\n"
      "torch    torch.ops.aten.convolution_backward, PyTorch (separate process%s)\n"
      "diff     max|ours - dnnl| / max|dnnl| over dX, dW, db (same inputs; a sanity check)\n",
      o.timing.repeats, o.timing.warmups, o.rounds, dnnl_version()->major, dnnl_version()->minor,
      dnnl_version()->patch,
      o.torchOptions.defaultMalloc ? ", default malloc" : ", malloc keeps freed memory");
  if (!o.verbose) return;
  std::printf(
      "implementations: oneDNN backward data / backward weights (plain; preferred), PyTorch"
      " ConvBackend:\n");
  for (size_t i = 0; i < rows.size(); ++i)
    std::printf("  %-26s %s; %s; torch %s\n", o.problems[i].name.c_str(), rows[i].plainImpl.c_str(),
                rows[i].preferredImpl.c_str(),
                rows[i].torchBackend.empty() ? "-" : rows[i].torchBackend.c_str());
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  if (!parseArguments(argc, argv, &o)) return 2;
  if (o.printProblems) {
    std::fputs(torchProblemLines(o.problems).c_str(), stdout);
    return 0;
  }
  // Before aclInit: our thread pool reads the variable once.
  setenv("ACLNN_CPU_THREADS", std::to_string(o.threads).c_str(), 1);
  setenv("OMP_NUM_THREADS", std::to_string(o.threads).c_str(), 1);
  omp_set_num_threads(o.threads);

  if (aclInit(nullptr) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS) {
    std::fprintf(stderr, "runtime initialisation failed: %s\n", aclGetRecentErrMsg());
    return 1;
  }
  aclrtStream stream = nullptr;
  aclrtCreateStream(&stream);
  std::printf(
      "conv backward dX+dW+db, fp32, cubeMathType 0; threads %d for every provider "
      "(ACLNN_CPU_THREADS=%d, oneDNN OpenMP omp_get_max_threads()=%d, torch.set_num_threads(%d))\n",
      o.threads, o.threads, omp_get_max_threads(), o.threads);
  std::fflush(stdout);

  std::vector<Row> rows(o.problems.size());
  for (int round = 0; round < o.rounds; ++round) {
    measureRound(o, stream, &rows);
    if (o.rounds > 1) std::fprintf(stderr, "round %d of %d done\n", round + 1, o.rounds);
  }
  printTable(o, rows);

  aclrtDestroyStream(stream);
  aclrtResetDevice(0);
  aclFinalize();
  return 0;
}
