// conv_backward_vs_onednn: times our aclnnConvolutionBackward (fp32,
// cubeMathType 0, split and fused) against oneDNN's backward primitives and
// PyTorch's aten::convolution_backward on the same problems, same machine,
// same thread counts, and prints times, ratios, % of the measured FMA peak,
// the bandwidth bound of depthwise layers, workspace sizes and the kernels
// that ran. A measurement, not a test.
//
// Each (round, thread count) is measured by a child process of its own (see
// measure_threads.h); this process probes the machine, collects the
// children's results and prints the report.

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
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
      "usage: conv_backward_vs_onednn [PROBLEM...] [--only] [--threads LIST] [--rounds N]\n"
      "         [--repeat N] [--warmup N] [--cell-budget SECONDS] [--split-only | --fused-only]\n"
      "         [--no-torch] [--torch-default-malloc] [--python PATH] [--torch-script PATH]\n"
      "         [--markdown] [--verbose] [--print-problems] [--list]\n"
      "Runs the built-in cases (issue #6's 15 layers, then the aclnn-conv-backward defaults)\n"
      "plus the PROBLEMs given (only those with --only). PROBLEM is a compact descriptor as in\n"
      "aclnn-conv-backward, e.g. n8c64o64h56w56k3p1; --list prints the built-in ones.\n"
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
  bool onlyGiven = false;
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
  for (const ProblemSpec& spec : given) {
    const bool known =
        std::any_of(o->problems.begin(), o->problems.end(),
                    [&](const ProblemSpec& p) { return p.compact() == spec.compact(); });
    if (!known) o->problems.push_back(spec);
  }
  if (o->problems.empty()) {
    std::fprintf(stderr, "no problems (--only needs at least one PROBLEM)\n");
    return Action::Fail;
  }
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
bool measureInChild(const RunOptions& o, int threads, std::vector<CaseResult>* results) {
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
    std::fputs(torchProblemLines(o.problems).c_str(), stdout);
    return 0;
  }
  if (action == Action::List) {
    for (const ProblemSpec& p : o.problems)
      std::printf("%-28s %s\n", p.compact().c_str(), p.name.c_str());
    return 0;
  }
  // Before any compute library starts threads (and before the children fork).
  std::fprintf(stderr, "probing FMA peak and copy bandwidth...\n");
  const MachineInfo machine = probeMachine(o.threads);

  std::map<int, std::vector<CaseResult>> results;
  for (int t : o.threads) results[t].resize(o.problems.size());
  bool ok = true;
  for (int round = 0; round < o.rounds; ++round) {
    for (int t : o.threads) {
      std::fprintf(stderr, "round %d of %d, %d thread(s)...\n", round + 1, o.rounds, t);
      ok = measureInChild(o, t, &results[t]) && ok;
    }
  }
  printReport(o, machine, results);
  return ok ? 0 : 1;
}
