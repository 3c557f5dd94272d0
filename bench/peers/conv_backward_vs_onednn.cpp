// conv_backward_vs_onednn: times our aclnnConvolutionBackward (split and
// fused) and, with --direction, our aclnnConvolution against oneDNN's
// primitives and PyTorch's CPU convolutions on the same problems, same
// machine, same thread counts; fp32 cubeMathType 0 by default, and with
// --dtype bf16 / fp16 / HF32 (fp32 tensors, cubeMathType 1) rows next to our
// fp32 time. Prints times, ratios, % of the measured hardware peak, the
// bandwidth bound of depthwise layers, workspace sizes and the kernels that
// ran. A measurement, not a test.
//
// Each (round, thread count) is measured by a child process of its own (see
// measure_threads.h); this process probes the machine, collects the
// children's results and prints the report.

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "case_result.h"
#include "machine_probe.h"
#include "measure_threads.h"
#include "peer_cases.h"
#include "report.h"
#include "run_options.h"
#include "torch_bridge.h"

#ifndef PEERS_SOURCE_DIR
#define PEERS_SOURCE_DIR "."
#endif

namespace {

using namespace peers;

void usage() {
  std::printf(
      "usage: conv_backward_vs_onednn [PROBLEM...] [--only] [--direction forward|backward|all]\n"
      "         [--dtype LIST] [--lowp-all-cases] [--threads LIST] [--rounds N]\n"
      "         [--repeat N] [--warmup N] [--cell-budget SECONDS] [--split-only | --fused-only]\n"
      "         [--no-torch] [--torch-default-malloc] [--python PATH] [--torch-script PATH]\n"
      "         [--dnnl-inference] [--time-dnnl-reference]\n"
      "         [--markdown] [--verbose] [--print-problems] [--list]\n"
      "Runs the built-in cases (issue #6's 15 layers, then the aclnn-conv-backward defaults)\n"
      "plus the PROBLEMs given (only those with --only). PROBLEM is a compact descriptor as in\n"
      "aclnn-conv-backward, e.g. n8c64o64h56w56k3p1; --list prints the built-in ones.\n"
      "--direction D   backward (default: aclnnConvolutionBackward), forward (aclnnConvolution\n"
      "                with bias) or all (both)\n"
      "--dtype LIST    fp32 (default), bf16, fp16, hf32 (fp32 tensors, cubeMathType 1), e.g.\n"
      "                fp32,bf16,fp16,hf32; low-precision rows also show our fp32 time (and\n"
      "                fp16 rows our bf16 time), measured in the same run\n"
      "--lowp-all-cases  low-precision rows on every case (default: the 10 cases --list marks)\n"
      "--dnnl-inference  oneDNN forward with forward_inference (default forward_training)\n"
      "--time-dnnl-reference  also time oneDNN primitives that are reference implementations\n"
      "                (skipped by default: tens of seconds per call)\n"
      "--threads LIST  thread counts, e.g. 1,2 (default): each is measured in a process of its\n"
      "                own with ACLNN_CPU_THREADS, omp_set_num_threads and torch.set_num_threads\n"
      "--rounds N      repeat everything N times (default 2), keep the best per cell\n"
      "--repeat N / --warmup N  timed runs (default 5) / warm-up runs (2) per cell; a cell\n"
      "                stops early once its runs took --cell-budget seconds (1.5), after >= 2\n"
      "--split-only / --fused-only  time only that mode of ours and PyTorch's\n"
      "--markdown      print markdown tables (for bench/peers/README.md)\n"
      "--verbose       also list oneDNN implementations and PyTorch backends per case\n"
      "PyTorch runs with glibc malloc tunables that keep freed memory (it allocates its\n"
      "gradients per call and re-faulting them costs 50-200 ms on a VM);\n"
      "--torch-default-malloc runs it with glibc's defaults instead.\n"
      "--print-problems writes the JSON lines torch_conv_backward.py reads, and exits.\n");
}

bool parseDirection(const std::string& text, std::vector<Direction>* directions) {
  if (text == "forward")
    *directions = {Direction::Forward};
  else if (text == "backward")
    *directions = {Direction::Backward};
  else if (text == "all")
    *directions = {Direction::Forward, Direction::Backward};
  else
    return false;
  return true;
}

bool parsePrecisionList(const std::string& text, std::vector<Precision>* precisions) {
  precisions->clear();
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');) {
    Precision p;
    if (!parsePrecision(item, &p)) return false;
    if (std::find(precisions->begin(), precisions->end(), p) == precisions->end())
      precisions->push_back(p);
  }
  std::sort(precisions->begin(), precisions->end());
  return !precisions->empty();
}

bool parseThreadList(const std::string& text, std::vector<int>* threads) {
  threads->clear();
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');) {
    const int t = std::atoi(item.c_str());
    if (t < 1 || t > 4096) return false;
    if (std::find(threads->begin(), threads->end(), t) == threads->end()) threads->push_back(t);
  }
  return !threads->empty();
}

enum class Action { Run, PrintProblems, List, Fail };

Action parseArguments(int argc, char** argv, RunOptions* o) {
  bool onlyGiven = false, lowPrecisionAllCases = false;
  Action action = Action::Run;
  o->threads = {1, 2};
  std::vector<ProblemSpec> given;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const bool hasValue = i + 1 < argc;
    if (arg == "-h" || arg == "--help") {
      usage();
      std::exit(0);
    } else if (arg == "--only") {
      onlyGiven = true;
    } else if (arg == "--threads" && hasValue) {
      if (!parseThreadList(argv[++i], &o->threads)) {
        std::fprintf(stderr, "--threads takes a list of positive counts, e.g. 1,2\n");
        return Action::Fail;
      }
    } else if (arg == "--direction" && hasValue) {
      if (!parseDirection(argv[++i], &o->directions)) {
        std::fprintf(stderr, "--direction takes forward, backward or all\n");
        return Action::Fail;
      }
    } else if (arg == "--dtype" && hasValue) {
      if (!parsePrecisionList(argv[++i], &o->precisions)) {
        std::fprintf(stderr, "--dtype takes a list of fp32, bf16, fp16, hf32\n");
        return Action::Fail;
      }
    } else if (arg == "--lowp-all-cases") {
      lowPrecisionAllCases = true;
    } else if (arg == "--dnnl-inference") {
      o->dnnlInference = true;
    } else if (arg == "--time-dnnl-reference") {
      o->timeDnnlReference = true;
    } else if (arg == "--repeat" && hasValue) {
      o->timing.repeats = std::max(1, std::atoi(argv[++i]));
    } else if (arg == "--warmup" && hasValue) {
      o->timing.warmups = std::max(0, std::atoi(argv[++i]));
    } else if (arg == "--cell-budget" && hasValue) {
      o->timing.cellBudgetSeconds = std::max(0.0, std::atof(argv[++i]));
    } else if (arg == "--rounds" && hasValue) {
      o->rounds = std::max(1, std::atoi(argv[++i]));
    } else if (arg == "--split-only") {
      o->fused = false;
    } else if (arg == "--fused-only") {
      o->split = false;
    } else if (arg == "--no-torch") {
      o->torch = false;
    } else if (arg == "--torch-default-malloc") {
      o->torchOptions.defaultMalloc = true;
    } else if (arg == "--python" && hasValue) {
      o->torchOptions.python = argv[++i];
    } else if (arg == "--torch-script" && hasValue) {
      o->torchOptions.script = argv[++i];
    } else if (arg == "--markdown") {
      o->markdown = true;
    } else if (arg == "--verbose") {
      o->verbose = true;
    } else if (arg == "--print-problems") {
      action = Action::PrintProblems;
    } else if (arg == "--list") {
      action = Action::List;
    } else if (!arg.empty() && arg[0] != '-') {
      ProblemSpec spec;
      std::string error;
      if (!parseProblem(arg, &spec, &error)) {
        std::fprintf(stderr, "cannot read problem '%s': %s\n", arg.c_str(), error.c_str());
        return Action::Fail;
      }
      nameLikeBuiltInCase(&spec);
      given.push_back(spec);
    } else {
      usage();
      return Action::Fail;
    }
  }
  if (!o->split && !o->fused) {
    std::fprintf(stderr, "--split-only and --fused-only exclude each other\n");
    return Action::Fail;
  }
  if (!onlyGiven) o->problems = benchmarkCases();
  std::vector<size_t> lowPrecision =
      lowPrecisionAllCases || onlyGiven ? std::vector<size_t>() : lowPrecisionCases(o->problems);
  for (const ProblemSpec& spec : given) {
    const auto known =
        std::find_if(o->problems.begin(), o->problems.end(),
                     [&](const ProblemSpec& p) { return p.compact() == spec.compact(); });
    const size_t index = static_cast<size_t>(known - o->problems.begin());
    if (known == o->problems.end()) o->problems.push_back(spec);
    // A problem named on the command line gets low-precision rows too.
    if (std::find(lowPrecision.begin(), lowPrecision.end(), index) == lowPrecision.end())
      lowPrecision.push_back(index);
  }
  if (o->problems.empty()) {
    std::fprintf(stderr, "no problems (--only needs at least one PROBLEM)\n");
    return Action::Fail;
  }
  std::vector<size_t> all(o->problems.size());
  for (size_t i = 0; i < all.size(); ++i) all[i] = i;
  if (lowPrecisionAllCases || onlyGiven) lowPrecision = all;
  std::sort(lowPrecision.begin(), lowPrecision.end());
  o->lowPrecisionCases = lowPrecision;
  o->sweeps = planSweeps(o->directions, o->precisions, all, lowPrecision);
  if (o->torchOptions.script.empty())
    o->torchOptions.script = std::string(PEERS_SOURCE_DIR) + "/torch_conv_backward.py";
  o->torchOptions.warmups = o->timing.warmups;
  o->torchOptions.repeats = o->timing.repeats;
  o->torchOptions.cellBudgetSeconds = o->timing.cellBudgetSeconds;
  o->torchOptions.split = o->split;
  o->torchOptions.fused = o->fused;
  return action;
}

// Measures one thread count in a child process and folds its results in.
bool measureInChild(const RunOptions& o, int threads, SweepResults* results) {
  int fds[2];
  if (pipe(fds) != 0) return false;
  std::fflush(nullptr);  // the child must not repeat buffered output
  const pid_t child = fork();
  if (child < 0) return false;
  if (child == 0) {
    close(fds[0]);
    FILE* out = fdopen(fds[1], "w");
    const int status = out ? measureAtThreadCount(o, threads, out) : 1;
    if (out) std::fclose(out);
    std::fflush(nullptr);
    _exit(status);
  }
  close(fds[1]);
  FILE* in = fdopen(fds[0], "r");
  if (in) {
    mergeCaseResults(in, results);
    std::fclose(in);
  }
  int status = 0;
  waitpid(child, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::fprintf(stderr, "the measurement at %d thread(s) failed (status %d)\n", threads, status);
    return false;
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  RunOptions o;
  const Action action = parseArguments(argc, argv, &o);
  if (action == Action::Fail) return 2;
  if (action == Action::PrintProblems) {
    std::vector<TorchJobRef> where;
    std::fputs(torchProblemLines(torchJobs(o.sweeps, o.problems, &where)).c_str(), stdout);
    return 0;
  }
  if (action == Action::List) {
    printCaseList(o);
    return 0;
  }
  const bool lowPrecision = std::any_of(o.precisions.begin(), o.precisions.end(), isLowPrecision);
  // Before any compute library starts threads (and before the children fork).
  std::fprintf(stderr, "probing %s and copy bandwidth...\n",
               lowPrecision ? "FMA, AVX512-BF16 and AMX peaks" : "FMA peak");
  const MachineInfo machine = probeMachine(o.threads, lowPrecision);

  const auto start = std::chrono::steady_clock::now();
  std::map<int, SweepResults> results;
  for (int t : o.threads)
    results[t].assign(o.sweeps.size(), std::vector<CaseResult>(o.problems.size()));
  bool ok = true;
  for (int round = 0; round < o.rounds; ++round) {
    for (int t : o.threads) {
      const double elapsed =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      std::fprintf(stderr, "round %d of %d, %d thread(s)... (%.0f s so far)\n", round + 1, o.rounds,
                   t, elapsed);
      ok = measureInChild(o, t, &results[t]) && ok;
    }
  }
  std::fprintf(stderr, "measured in %.0f s\n",
               std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  printReport(o, machine, results);
  return ok ? 0 : 1;
}
