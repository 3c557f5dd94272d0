#include "report.h"

#include <dnnl.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <string>

#include "bench_common.h"
#include "onednn_runner.h"
#include "report_columns.h"
#include "text_table.h"

namespace peers {
namespace {

// Geometric mean of numerator / denominator over the rows that have both.
struct GeoMean {
  double logSum = 0;
  int count = 0;
  void add(double numerator, double denominator) {
    if (numerator > 0 && denominator > 0) logSum += std::log(numerator / denominator), ++count;
  }
  std::string text() const {
    return count ? format("%.2f", std::exp(logSum / count)) + " (" + std::to_string(count) + ")"
                 : "-";
  }
};

std::string directionsText(const RunOptions& o) {
  return o.directions.size() > 1 ? "forward and backward" : directionName(o.directions[0]);
}

std::string precisionsText(const RunOptions& o) {
  std::string text;
  for (Precision p : o.precisions) {
    if (!text.empty()) text += " / ";
    text += p == Precision::Fp32   ? "fp32, cubeMathType 0"
            : p == Precision::Hf32 ? "hf32 (fp32 tensors, cubeMathType 1)"
                                   : std::string(precisionName(p)) + " (cubeMathType 0)";
  }
  return text;
}

void printPeak(const char* item, const char* what, const Peak& peak) {
  std::printf("%s%s, measured: one core %.1f GFLOP/s", item, what, peak.coreGflops);
  for (const auto& [threads, gflops] : peak.threadsGflops)
    std::printf("; probe on %d threads at once %.1f (%d x one core = %.1f)", threads, gflops,
                threads, threads * peak.coreGflops);
  std::printf("\n");
}

void printHeader(const RunOptions& o, const MachineInfo& m, bool md) {
  const char* item = md ? "- " : "";
  std::printf("%sCPU: %s; flags: %s\n", item, m.cpuModel.c_str(), m.flags.c_str());
  if (m.fmaCoreGflops > 0) {
    Peak fma{m.fmaCoreGflops, m.fmaThreadsGflops};
    printPeak(item, "AVX-512 fp32 FMA peak", fma);
  } else {
    std::printf("%sno AVX-512: FMA peak not measured\n", item);
  }
  if (m.bf16Probed) {
    if (m.dpbf16.coreGflops > 0)
      printPeak(item, "AVX512-BF16 VDPBF16PS peak (bf16 products into fp32)", m.dpbf16);
    else
      std::printf("%sno AVX512-BF16 (cpuid): VDPBF16PS peak not measured\n", item);
    if (m.amx.coreGflops > 0)
      printPeak(item, "AMX TDPBF16PS peak (bf16 products into fp32)", m.amx);
    else
      std::printf("%sAMX bf16 peak not measured: %s\n", item, m.amxPermission.c_str());
    std::string name;
    lowPrecisionPeakGflops(m, 1, &name);
    std::printf("%s%%pk of bf16, fp16 and hf32 rows: of T x the one-core %s peak\n", item,
                name.c_str());
  }
  std::printf("%scopy bandwidth (memcpy of 256 MB, bytes read + written):", item);
  for (const auto& [threads, bytes] : m.copyBytesPerSecond)
    std::printf(" %d thread%s %.1f GB/s;", threads, threads > 1 ? "s" : "", bytes * 1e-9);
  std::printf("\n");
  std::printf(
      "%sconv %s, %s, plain NC[D]HW; oneDNN %d.%d.%d; PyTorch in a "
      "separate /usr/bin/python3 process (%s)\n",
      item, directionsText(o).c_str(), precisionsText(o).c_str(), dnnl_version()->major,
      dnnl_version()->minor, dnnl_version()->patch,
      o.torchOptions.defaultMalloc ? "default malloc" : "malloc tunables keep freed memory");
  std::printf(
      "%stimes in ms: best of %d timed runs after %d warm-up runs for every provider (a slow "
      "cell stops warming up after one run longer than %.1f s, and timing after %d runs once "
      "its timed runs add up to %.1f s), best over %d round(s)\n",
      item, o.timing.repeats, o.timing.warmups, o.timing.cellBudgetSeconds, o.timing.minRepeats,
      o.timing.cellBudgetSeconds, o.rounds);
  std::printf("%sratios are peer / ours: **above 1 we are faster**\n", item);
}

bool anySweep(const RunOptions& o, const std::function<bool(const Sweep&)>& test) {
  for (const Sweep& s : o.sweeps)
    if (s.printed && test(s)) return true;
  return false;
}

void printLegend(const RunOptions& o, bool md) {
  const char* item = md ? "- " : "  ";
  const bool backward =
      anySweep(o, [](const Sweep& s) { return s.direction == Direction::Backward; });
  const bool forward =
      anySweep(o, [](const Sweep& s) { return s.direction == Direction::Forward; });
  const bool low = anySweep(o, [](const Sweep& s) { return isLowPrecision(s.precision); });
  const bool fp16 = anySweep(o, [](const Sweep& s) { return s.precision == Precision::Fp16; });
  if (backward)
    std::printf(
        "%soursS / oursF: aclnnConvolutionBackward split (mask {1,0,0} then {0,1,1}, summed) / "
        "fused (mask {1,1,1}); phase 2 + aclrtSynchronizeStream, phase 1 once\n"
        "%sdnnl: oneDNN backward data + weights(+bias) on plain layouts; dnnlP+R: on its "
        "preferred layouts with the reorders from and to plain timed; dnnlPref: the same, "
        "reorders excluded (kernel only)\n"
        "%storchS / torchF: torch.ops.aten.convolution_backward, masks [T,F,F] + [F,T,T] / "
        "[T,T,T]\n"
        "%sbest: the fastest user-visible peer (dnnl, dnnlP+R, torchS, torchF); best/S, best/F: "
        "its time / oursS, oursF; pref/S, pref/F: dnnlPref / oursS, oursF\n"
        "%s%%pkS, %%pkF: 4 x MACs / our time as %% of T x the one-core peak\n"
        "%sbound (depthwise only): bytes of x, dy, w read and dx, dw written once / copy "
        "bandwidth at T threads; S/bnd%%, F/bnd%%: our time as %% of it (100%% = at the bound)\n"
        "%swsF, wsS: workspace phase 1 asked for, fused call / larger of the split calls (MB); "
        "ws/op: the larger / bytes of x, dy, w\n",
        item, item, item, item, item, item, item);
  if (forward)
    std::printf(
        "%sours (forward): aclnnConvolution, y = conv(x, w) + bias (transposed=true for a "
        "transposed case); phase 2 + aclrtSynchronizeStream, phase 1 once\n"
        "%sdnnl / dnnlP+R / dnnlPref (forward): oneDNN %s (deconvolution_forward for "
        "transposed) with bias, plain layouts / preferred layouts with the reorders of x, w in "
        "and y out timed / kernel only\n"
        "%storch (forward): torch.nn.functional.conv{1,2,3}d / conv_transpose{1,2,3}d with bias\n"
        "%sbest/o, pref/o: the fastest of dnnl, dnnlP+R, torch / dnnlPref, over ours; %%pk: "
        "2 x MACs / our time; bound, bnd%%: x, w read and y written once; ws: workspace (MB), "
        "ws/op: / bytes of x, w, y\n",
        item, item,
        o.dnnlInference ? "convolution_forward, forward_inference"
                        : "convolution_forward, forward_training",
        item, item);
  if (low)
    std::printf(
        "%sbf16 / fp16 rows: every tensor of that dtype, cubeMathType 0; hf32 rows: fp32 "
        "tensors, cubeMathType 1; oneDNN and PyTorch in bf16 (fp16 and hf32 have no CPU peer); "
        "bound and ws/op in the tensors' element size\n"
        "%so32S, o32F, o32: our fp32 cubeMathType 0 time of the same case, same run; 32/S, "
        "32/F, 32/o: that time / ours (above 1: the low precision is faster)\n"
        "%s%s"
        "%s%%pk of low-precision rows: of the low-precision peak named in the header; d32: "
        "max|ours - our fp32| / max|our fp32| (the rounding of the precision, not an error)\n",
        item, item, fp16 ? item : "",
        fp16 ? "bf16S, bf16F, bf16: our bf16 time of the same case; b16/S, b16/F, b16/o: that "
               "time / our fp16 time\n"
             : "",
        item);
  std::printf(
      "%sdiff: max|ours - dnnl| / max|dnnl| over every output (same inputs; a sanity check)\n",
      item);
}

void printTable(const RunOptions& o, const MachineInfo& m, int threads, size_t sweepIndex,
                const SweepResults& results, bool md) {
  const Sweep& sweep = o.sweeps[sweepIndex];
  std::string peakName;
  const double peak =
      (isLowPrecision(sweep.precision) ? lowPrecisionPeakGflops(m, threads, &peakName)
                                       : threads * m.fmaCoreGflops) *
      1e9;
  const auto copy = m.copyBytesPerSecond.find(threads);
  const double bandwidth = copy == m.copyBytesPerSecond.end() ? 0 : copy->second;
  const bool onlyDefault = o.sweeps.size() == 1 && sweep.direction == Direction::Backward &&
                           sweep.precision == Precision::Fp32;
  const std::string threadsText = std::to_string(threads) + " thread" + (threads > 1 ? "s" : "");
  const std::string title = (onlyDefault ? "" : sweep.title() + ", ") + threadsText;
  std::printf("\n%s%s\n\n", md ? "### " : "== ", title.c_str());

  const std::vector<Column> columns = columnsOf(sweep);
  std::vector<std::string> header;
  for (const Column& c : columns) header.push_back(c.header);
  TextTable table(header);
  std::vector<GeoMean> means(columns.size());
  for (size_t i : sweep.cases) {
    auto baseline = [&](Precision p) -> const CaseResult* {
      const int s = findSweep(o.sweeps, sweep.direction, p, i);
      return s < 0 ? nullptr : &results[static_cast<size_t>(s)][i];
    };
    const Row row{o.problems[i],
                  results[sweepIndex][i],
                  baseline(Precision::Fp32),
                  baseline(Precision::Bf16),
                  peak,
                  bandwidth,
                  sweep,
                  md};
    std::vector<std::string> cells;
    for (size_t c = 0; c < columns.size(); ++c) {
      if (columns[c].text) {
        cells.push_back(columns[c].text(row));
      } else {
        const double numerator = columns[c].numerator(row),
                     denominator = columns[c].denominator(row);
        cells.push_back(ratioText(numerator, denominator));
        means[c].add(numerator, denominator);
      }
    }
    table.addRow(cells);
  }
  table.print(stdout, md);
  std::string summary = "geometric means " + (onlyDefault ? "" : "of " + sweep.title() + " ") +
                        "at " + threadsText + " (cases):";
  const char* separator = " ";
  for (size_t c = 0; c < columns.size(); ++c) {
    if (columns[c].text) continue;
    summary += separator + columns[c].header + " " + means[c].text();
    separator = ", ";
  }
  std::printf(md ? "\n**%s**\n" : "\n%s\n", summary.c_str());
  const char* item = md ? "- " : "  ";
  for (size_t i : sweep.cases) {
    const CaseResult& r = results[sweepIndex][i];
    if (!r.error.empty())
      std::printf("%s%s: error: %s\n", item, o.problems[i].name.c_str(), r.error.c_str());
    if (sweep.peers && (isReferenceImplementation(r.dnnlPlainImpl) ||
                        isReferenceImplementation(r.dnnlPreferredImpl)))
      std::printf(
          "%s%s: oneDNN %s falls back to a reference implementation (plain %s; "
          "preferred %s)\n",
          item, o.problems[i].name.c_str(), precisionName(sweep.precision), r.dnnlPlainImpl.c_str(),
          r.dnnlPreferredImpl.c_str());
  }
}

void printKernelTable(const RunOptions& o, Direction direction,
                      const std::map<int, SweepResults>& resultsByThreads, bool md) {
  const bool backward = direction == Direction::Backward;
  // oneDNN's implementations and PyTorch's backend with --verbose; oneDNN's
  // bf16 implementations always (whether it has a bf16 kernel at all matters).
  std::vector<size_t> peerSweeps;
  size_t peerCount = 0;
  for (size_t s = 0; s < o.sweeps.size(); ++s) {
    const Sweep& sweep = o.sweeps[s];
    if (sweep.direction != direction || !sweep.peers) continue;
    ++peerCount;
    if (o.verbose || sweep.precision == Precision::Bf16) peerSweeps.push_back(s);
  }
  const bool onlyDefault = o.sweeps.size() == 1 && backward;
  const std::string what = o.verbose ? ", oneDNN implementations (data / weights; plain, "
                                       "preferred), PyTorch backend"
                           : !peerSweeps.empty() ? ", oneDNN bf16 implementations"
                                                 : "";
  std::printf("\n%sour kernels%s%s\n\n", md ? "### " : "== ",
              onlyDefault ? "" : (std::string(" (") + directionName(direction) + ")").c_str(),
              what.c_str());
  std::vector<std::string> header = {"case", "descriptor", "GMAC"};
  if (backward)
    header.insert(header.end(), {"dX pass", "dW pass"});
  else
    header.push_back("forward pass");
  for (size_t s : peerSweeps) {
    const std::string dtype =
        peerCount > 1 ? std::string(" ") + precisionName(o.sweeps[s].precision) : "";
    header.insert(header.end(), {"oneDNN" + dtype + " plain", "oneDNN" + dtype + " preferred"});
    if (o.verbose) header.push_back("torch" + dtype);
  }
  TextTable table(header);
  const SweepResults& any = resultsByThreads.begin()->second;
  for (size_t i = 0; i < o.problems.size(); ++i) {
    // Our kernel names are the same in every sweep that has the case.
    const CaseResult* ours = nullptr;
    for (size_t s = 0; s < o.sweeps.size() && !ours; ++s)
      if (o.sweeps[s].direction == direction && o.sweeps[s].hasCase(i)) ours = &any[s][i];
    if (!ours) continue;
    const ProblemSpec& p = o.problems[i];
    std::vector<std::string> row = {p.name, md ? "`" + p.compact() + "`" : p.compact(),
                                    format("%.2f", p.macs() * 1e-9)};
    if (backward)
      row.insert(row.end(), {ours->kernelData, ours->kernelWeight});
    else
      row.push_back(ours->kernelForward);
    for (size_t s : peerSweeps) {
      const CaseResult& r = any[s][i];
      const bool has = o.sweeps[s].hasCase(i);
      row.insert(row.end(), {has ? r.dnnlPlainImpl : "-", has ? r.dnnlPreferredImpl : "-"});
      if (o.verbose) row.push_back(has ? r.torchBackend : "-");
    }
    table.addRow(row);
  }
  table.print(stdout, md);
}

}  // namespace

void printReport(const RunOptions& o, const MachineInfo& m,
                 const std::map<int, SweepResults>& resultsByThreads) {
  printHeader(o, m, o.markdown);
  for (size_t s = 0; s < o.sweeps.size(); ++s) {
    if (!o.sweeps[s].printed) continue;
    for (const auto& [threads, results] : resultsByThreads)
      printTable(o, m, threads, s, results, o.markdown);
  }
  if (!resultsByThreads.empty())
    for (Direction d : o.directions) printKernelTable(o, d, resultsByThreads, o.markdown);
  std::printf("\n");
  printLegend(o, o.markdown);
  if (anySweep(o, [](const Sweep& s) { return isLowPrecision(s.precision); }))
    std::printf(
        "%sour kernel names are the kernel layer's selection for the row's operand values; "
        "bf16 and fp16 rows (dense tensors) run them on the caller's 16-bit words where the "
        "algorithm has a words run (AMX, depthwise planes, blocked AVX-512), else on fp32 "
        "copies\n",
        o.markdown ? "- " : "  ");
}

void printCaseList(const RunOptions& o) {
  for (size_t i = 0; i < o.problems.size(); ++i) {
    const bool low = std::find(o.lowPrecisionCases.begin(), o.lowPrecisionCases.end(), i) !=
                     o.lowPrecisionCases.end();
    std::printf("%-28s %s%s\n", o.problems[i].compact().c_str(), o.problems[i].name.c_str(),
                low ? "  [low-precision rows]" : "");
  }
}

}  // namespace peers
