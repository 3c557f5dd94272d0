#include "report.h"

#include <dnnl.h>

#include <cmath>
#include <cstdio>
#include <string>

#include "bench_common.h"
#include "text_table.h"

namespace peers {
namespace {

std::string format(const char* pattern, double value) {
  char text[64];
  std::snprintf(text, sizeof(text), pattern, value);
  return text;
}

std::string ms(double seconds) { return seconds > 0 ? format("%.2f", seconds * 1e3) : "-"; }
std::string ratio(double peer, double ours) {
  return peer > 0 && ours > 0 ? format("%.2f", peer / ours) : "-";
}
std::string mb(double bytes) { return bytes >= 0 ? format("%.1f", bytes / 1048576.0) : "-"; }

// Depthwise: one input channel per group (with or without a multiplier), in
// the normal orientation (a transposed problem's x is its gradOutput).
bool isDepthwise(const ProblemSpec& p) {
  const int64_t xChannels = p.transposed ? p.outChannels : p.inChannels;
  return p.groups > 1 && p.groups == xChannels;
}

// Bytes that must move at least once: read x, dy, w; write dx, dw.
double mandatoryBytes(const ProblemSpec& p) {
  const double x = static_cast<double>(elementCount(p.inputShape()));
  const double dy = static_cast<double>(elementCount(p.gradOutputShape()));
  const double w = static_cast<double>(elementCount(p.weightShape()));
  return sizeof(float) * (2 * x + dy + 2 * w);
}

double operandBytes(const ProblemSpec& p) {
  return sizeof(float) *
         static_cast<double>(elementCount(p.inputShape()) + elementCount(p.gradOutputShape()) +
                             elementCount(p.weightShape()));
}

// The fastest of the peers a user of plain NCHW tensors can get, and its tag.
double bestUserVisiblePeer(const CaseResult& r, std::string* who) {
  const struct {
    double seconds;
    const char* tag;
  } peers[] = {{r.dnnlPlain, "dnnl"},
               {r.dnnlPreferredReorders, "dnnlP+R"},
               {r.torchSplit, "torchS"},
               {r.torchFused, "torchF"}};
  double best = -1;
  *who = "-";
  for (const auto& p : peers)
    if (p.seconds > 0 && (best < 0 || p.seconds < best)) best = p.seconds, *who = p.tag;
  return best;
}

// Geometric mean of peer/ours over the cases that have both.
struct GeoMean {
  double logSum = 0;
  int count = 0;
  void add(double peer, double ours) {
    if (peer > 0 && ours > 0) logSum += std::log(peer / ours), ++count;
  }
  std::string text() const {
    return count ? format("%.2f", std::exp(logSum / count)) + " (" + std::to_string(count) + ")"
                 : "-";
  }
};

void printHeader(const RunOptions& o, const MachineInfo& m, bool md) {
  const char* item = md ? "- " : "";
  std::printf("%sCPU: %s; flags: %s\n", item, m.cpuModel.c_str(), m.flags.c_str());
  if (m.fmaCoreGflops > 0) {
    std::printf("%sAVX-512 fp32 FMA peak, measured: one core %.1f GFLOP/s", item, m.fmaCoreGflops);
    for (const auto& [threads, gflops] : m.fmaThreadsGflops)
      std::printf("; probe on %d threads at once %.1f (%d x one core = %.1f)", threads, gflops,
                  threads, threads * m.fmaCoreGflops);
    std::printf("\n");
  } else {
    std::printf("%sno AVX-512: FMA peak not measured\n", item);
  }
  std::printf("%scopy bandwidth (memcpy of 256 MB, bytes read + written):", item);
  for (const auto& [threads, bytes] : m.copyBytesPerSecond)
    std::printf(" %d thread%s %.1f GB/s;", threads, threads > 1 ? "s" : "", bytes * 1e-9);
  std::printf("\n");
  std::printf(
      "%sconv backward, fp32, cubeMathType 0, plain NC[D]HW; oneDNN %d.%d.%d; PyTorch in a "
      "separate /usr/bin/python3 process (%s)\n",
      item, dnnl_version()->major, dnnl_version()->minor, dnnl_version()->patch,
      o.torchOptions.defaultMalloc ? "default malloc" : "malloc tunables keep freed memory");
  std::printf(
      "%stimes in ms: best of %d timed runs after %d warm-up runs for every provider (a slow "
      "cell stops warming up after one run longer than %.1f s, and timing after %d runs once "
      "its timed runs add up to %.1f s), best over %d round(s)\n",
      item, o.timing.repeats, o.timing.warmups, o.timing.cellBudgetSeconds, o.timing.minRepeats,
      o.timing.cellBudgetSeconds, o.rounds);
  std::printf("%sratios are peer / ours: **above 1 we are faster**\n", item);
}

void printLegend(bool md) {
  const char* item = md ? "- " : "  ";
  std::printf(
      "%soursS / oursF: aclnnConvolutionBackward split (mask {1,0,0} then {0,1,1}, summed) / "
      "fused (mask {1,1,1}); phase 2 + aclrtSynchronizeStream, phase 1 once\n"
      "%sdnnl: oneDNN backward data + weights(+bias) on plain layouts; dnnlP+R: on its preferred"
      " layouts with the reorders from and to plain timed; dnnlPref: the same, reorders excluded"
      " (kernel only)\n"
      "%storchS / torchF: torch.ops.aten.convolution_backward, masks [T,F,F] + [F,T,T] / "
      "[T,T,T]\n"
      "%sbest: the fastest user-visible peer (dnnl, dnnlP+R, torchS, torchF); best/S, best/F: "
      "its time / oursS, oursF; pref/S, pref/F: dnnlPref / oursS, oursF\n"
      "%s%%pkS, %%pkF: 4 x MACs / our time as %% of T x the one-core FMA peak\n"
      "%sbound (depthwise only): bytes of x, dy, w read and dx, dw written once / copy "
      "bandwidth at T threads; S/bnd%%, F/bnd%%: our time as %% of it (100%% = at the bound)\n"
      "%swsF, wsS: workspace phase 1 asked for, fused call / larger of the split calls (MB); "
      "ws/op: the larger / bytes of x, dy, w\n"
      "%sdiff: max|ours - dnnl| / max|dnnl| over dX, dW, db (same inputs; a sanity check)\n",
      item, item, item, item, item, item, item, item);
}

void printThreadTable(const RunOptions& o, const MachineInfo& m, int threads,
                      const std::vector<CaseResult>& results, bool md) {
  const double peak = threads * m.fmaCoreGflops * 1e9;
  const auto copy = m.copyBytesPerSecond.find(threads);
  const double bandwidth = copy == m.copyBytesPerSecond.end() ? 0 : copy->second;
  std::printf("\n%s%d thread%s\n\n", md ? "### " : "== ", threads, threads > 1 ? "s" : "");
  TextTable table({"case",   "oursS",  "oursF", "dnnl",   "dnnlP+R", "dnnlPref",
                   "torchS", "torchF", "best",  "best/S", "best/F",  "pref/S",
                   "pref/F", "%pkS",   "%pkF",  "bound",  "S/bnd%",  "F/bnd%",
                   "wsF",    "wsS",    "ws/op", "diff"});
  GeoMean bestSplit, bestFused, prefSplit, prefFused;
  for (size_t i = 0; i < results.size(); ++i) {
    const CaseResult& r = results[i];
    const ProblemSpec& p = o.problems[i];
    std::string who;
    const double best = bestUserVisiblePeer(r, &who);
    bestSplit.add(best, r.oursSplit);
    bestFused.add(best, r.oursFused);
    prefSplit.add(r.dnnlPreferred, r.oursSplit);
    prefFused.add(r.dnnlPreferred, r.oursFused);
    const double flops = 4 * p.macs();
    auto percentOfPeak = [&](double seconds) {
      return seconds > 0 && peak > 0 ? format("%.0f", 100 * flops / seconds / peak) : "-";
    };
    double bound = -1;
    if (isDepthwise(p) && bandwidth > 0) bound = mandatoryBytes(p) / bandwidth;
    auto percentOfBound = [&](double seconds) {
      return seconds > 0 && bound > 0 ? format("%.0f", 100 * seconds / bound) : "-";
    };
    const double splitWorkspace = std::max(r.dataWorkspace, r.weightWorkspace);
    const double workspace = std::max(splitWorkspace, r.fusedWorkspace);
    table.addRow({md ? p.name + " `" + p.compact() + "`" : p.name,
                  ms(r.oursSplit),
                  ms(r.oursFused),
                  ms(r.dnnlPlain),
                  ms(r.dnnlPreferredReorders),
                  ms(r.dnnlPreferred),
                  ms(r.torchSplit),
                  ms(r.torchFused),
                  who,
                  ratio(best, r.oursSplit),
                  ratio(best, r.oursFused),
                  ratio(r.dnnlPreferred, r.oursSplit),
                  ratio(r.dnnlPreferred, r.oursFused),
                  percentOfPeak(r.oursSplit),
                  percentOfPeak(r.oursFused),
                  ms(bound),
                  percentOfBound(r.oursSplit),
                  percentOfBound(r.oursFused),
                  mb(r.fusedWorkspace),
                  mb(splitWorkspace),
                  workspace >= 0 ? format("%.2f", workspace / operandBytes(p)) : "-",
                  r.difference >= 0 ? format("%.1e", r.difference) : "-"});
  }
  table.print(stdout, md);
  const std::string means = "geometric means at " + std::to_string(threads) + " thread" +
                            (threads > 1 ? "s" : "") + " (cases): best/S " + bestSplit.text() +
                            ", best/F " + bestFused.text() + ", pref/S " + prefSplit.text() +
                            ", pref/F " + prefFused.text();
  std::printf(md ? "\n**%s**\n" : "\n%s\n", means.c_str());
  for (size_t i = 0; i < results.size(); ++i)
    if (!results[i].error.empty())
      std::printf("%s%s: error: %s\n", md ? "- " : "  ", o.problems[i].name.c_str(),
                  results[i].error.c_str());
}

void printKernelTable(const RunOptions& o,
                      const std::map<int, std::vector<CaseResult>>& resultsByThreads, bool md) {
  std::printf("\n%sour kernels%s\n\n", md ? "### " : "== ",
              o.verbose ? ", oneDNN implementations (data / weights; plain, preferred), PyTorch "
                          "backend"
                        : "");
  std::vector<std::string> header = {"case", "descriptor", "GMAC", "dX pass", "dW pass"};
  if (o.verbose) header.insert(header.end(), {"oneDNN plain", "oneDNN preferred", "torch"});
  TextTable table(header);
  const std::vector<CaseResult>& any = resultsByThreads.begin()->second;
  for (size_t i = 0; i < o.problems.size(); ++i) {
    const ProblemSpec& p = o.problems[i];
    const CaseResult& r = any[i];
    std::vector<std::string> row = {p.name, md ? "`" + p.compact() + "`" : p.compact(),
                                    format("%.2f", p.macs() * 1e-9), r.kernelData, r.kernelWeight};
    if (o.verbose) row.insert(row.end(), {r.dnnlPlainImpl, r.dnnlPreferredImpl, r.torchBackend});
    table.addRow(row);
  }
  table.print(stdout, md);
}

}  // namespace

void printReport(const RunOptions& o, const MachineInfo& m,
                 const std::map<int, std::vector<CaseResult>>& resultsByThreads) {
  printHeader(o, m, o.markdown);
  for (const auto& [threads, results] : resultsByThreads)
    printThreadTable(o, m, threads, results, o.markdown);
  if (!resultsByThreads.empty()) printKernelTable(o, resultsByThreads, o.markdown);
  std::printf("\n");
  printLegend(o.markdown);
}

}  // namespace peers
