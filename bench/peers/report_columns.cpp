#include "report_columns.h"

#include <algorithm>
#include <cstdio>

#include "bench_common.h"

namespace peers {

std::string format(const char* pattern, double value) {
  char text[64];
  std::snprintf(text, sizeof(text), pattern, value);
  return text;
}

std::string ratioText(double numerator, double denominator) {
  return numerator > 0 && denominator > 0 ? format("%.2f", numerator / denominator) : "-";
}

namespace {

std::string ms(double seconds) { return seconds > 0 ? format("%.2f", seconds * 1e3) : "-"; }
std::string mb(double bytes) { return bytes >= 0 ? format("%.1f", bytes / 1048576.0) : "-"; }

// Depthwise: one input channel per group (with or without a multiplier), in
// the normal orientation (a transposed problem's x is its gradOutput).
bool isDepthwise(const ProblemSpec& p) {
  const int64_t xChannels = p.transposed ? p.outChannels : p.inChannels;
  return p.groups > 1 && p.groups == xChannels;
}

double count(const std::vector<int64_t>& shape) { return static_cast<double>(elementCount(shape)); }

// Elements that must move at least once: backward reads x, dy, w and writes
// dx, dw; forward reads x, w and writes y.
double mandatoryElements(const ProblemSpec& p, Direction d) {
  const double x = count(p.inputShape()), y = count(p.gradOutputShape()),
               w = count(p.weightShape());
  return d == Direction::Backward ? 2 * x + y + 2 * w : x + w + y;
}

// The operands of one call: x, dy, w (backward) or x, w, y (forward).
double operandElements(const ProblemSpec& p) {
  return count(p.inputShape()) + count(p.gradOutputShape()) + count(p.weightShape());
}

const CaseResult kNone;
const CaseResult& orNone(const CaseResult* r) { return r ? *r : kNone; }

// The fastest of the peers a user of plain NCHW tensors can get, and its tag.
double bestUserVisiblePeer(const CaseResult& r, Direction d, std::string* who) {
  struct Candidate {
    double seconds;
    const char* tag;
  };
  const std::vector<Candidate> backward = {{r.dnnlPlain, "dnnl"},
                                           {r.dnnlPreferredReorders, "dnnlP+R"},
                                           {r.torchSplit, "torchS"},
                                           {r.torchFused, "torchF"}};
  const std::vector<Candidate> forward = {
      {r.dnnlPlain, "dnnl"}, {r.dnnlPreferredReorders, "dnnlP+R"}, {r.torchForward, "torch"}};
  double best = -1;
  *who = "-";
  for (const Candidate& c : d == Direction::Backward ? backward : forward)
    if (c.seconds > 0 && (best < 0 || c.seconds < best)) best = c.seconds, *who = c.tag;
  return best;
}

double bestPeer(const Row& row) {
  std::string who;
  return bestUserVisiblePeer(row.r, row.sweep.direction, &who);
}

Column textColumn(std::string header, std::function<std::string(const Row&)> text) {
  return {std::move(header), std::move(text), nullptr, nullptr};
}

Column timeColumn(std::string header, std::function<double(const Row&)> seconds) {
  return textColumn(std::move(header), [seconds](const Row& row) { return ms(seconds(row)); });
}

Column ratioColumn(std::string header, std::function<double(const Row&)> numerator,
                   std::function<double(const Row&)> denominator) {
  return {std::move(header), nullptr, std::move(numerator), std::move(denominator)};
}

}  // namespace

std::vector<Column> columnsOf(const Sweep& sweep) {
  using R = const Row&;
  const bool backward = sweep.direction == Direction::Backward;
  const bool low = isLowPrecision(sweep.precision);
  const bool fp16 = sweep.precision == Precision::Fp16;
  const double flopsPerMac = backward ? 4 : 2;
  std::vector<Column> c;
  c.push_back(textColumn("case", [](R row) {
    return row.markdown ? row.problem.name + " `" + row.problem.compact() + "`" : row.problem.name;
  }));

  // Our times in each mode, and the accessors the ratio columns use.
  struct Mode {
    const char* suffix;
    double CaseResult::*field;
  };
  const std::vector<Mode> modes =
      backward ? std::vector<Mode>{{"S", &CaseResult::oursSplit}, {"F", &CaseResult::oursFused}}
               : std::vector<Mode>{{"", &CaseResult::oursForward}};
  auto ours = [](double CaseResult::*f) { return [f](R row) { return row.r.*f; }; };
  auto fp32 = [](double CaseResult::*f) { return [f](R row) { return orNone(row.fp32).*f; }; };
  auto bf16 = [](double CaseResult::*f) { return [f](R row) { return orNone(row.bf16).*f; }; };
  auto tag = [backward](const char* base, const char* suffix) {
    return std::string(base) + (backward ? suffix : "");
  };
  // "best/S" or, for the single forward mode, "best/o".
  auto over = [backward](const char* base, const char* suffix) {
    return std::string(base) + "/" + (backward ? suffix : "o");
  };

  for (const Mode& m : modes) c.push_back(timeColumn(tag("ours", m.suffix), ours(m.field)));
  if (fp16)
    for (const Mode& m : modes) c.push_back(timeColumn(tag("bf16", m.suffix), bf16(m.field)));
  if (low)
    for (const Mode& m : modes) c.push_back(timeColumn(tag("o32", m.suffix), fp32(m.field)));

  if (sweep.peers) {
    c.push_back(timeColumn("dnnl", [](R row) { return row.r.dnnlPlain; }));
    c.push_back(timeColumn("dnnlP+R", [](R row) { return row.r.dnnlPreferredReorders; }));
    c.push_back(timeColumn("dnnlPref", [](R row) { return row.r.dnnlPreferred; }));
    if (backward) {
      c.push_back(timeColumn("torchS", [](R row) { return row.r.torchSplit; }));
      c.push_back(timeColumn("torchF", [](R row) { return row.r.torchFused; }));
    } else {
      c.push_back(timeColumn("torch", [](R row) { return row.r.torchForward; }));
    }
    c.push_back(textColumn("best", [](R row) {
      std::string who;
      bestUserVisiblePeer(row.r, row.sweep.direction, &who);
      return who;
    }));
    for (const Mode& m : modes)
      c.push_back(ratioColumn(over("best", m.suffix), bestPeer, ours(m.field)));
    for (const Mode& m : modes)
      c.push_back(ratioColumn(
          over("pref", m.suffix), [](R row) { return row.r.dnnlPreferred; }, ours(m.field)));
  }
  if (fp16)
    for (const Mode& m : modes)
      c.push_back(ratioColumn(over("b16", m.suffix), bf16(m.field), ours(m.field)));
  if (low)
    for (const Mode& m : modes)
      c.push_back(ratioColumn(over("32", m.suffix), fp32(m.field), ours(m.field)));

  for (const Mode& m : modes) {
    auto seconds = ours(m.field);
    c.push_back(textColumn(tag("%pk", m.suffix), [seconds, flopsPerMac](R row) {
      const double s = seconds(row);
      return s > 0 && row.peakFlops > 0
                 ? format("%.0f", 100 * flopsPerMac * row.problem.macs() / s / row.peakFlops)
                 : "-";
    }));
  }
  // The depthwise traffic bound, in the tensors' element size.
  auto bound = [](R row) {
    if (!isDepthwise(row.problem) || row.bandwidth <= 0) return -1.0;
    return static_cast<double>(elementBytes(row.sweep.precision)) *
           mandatoryElements(row.problem, row.sweep.direction) / row.bandwidth;
  };
  c.push_back(timeColumn("bound", bound));
  for (const Mode& m : modes) {
    auto seconds = ours(m.field);
    c.push_back(
        textColumn(backward ? std::string(m.suffix) + "/bnd%" : "bnd%", [seconds, bound](R row) {
          const double s = seconds(row), b = bound(row);
          return s > 0 && b > 0 ? format("%.0f", 100 * s / b) : "-";
        }));
  }
  auto workspace = [](R row) {
    return std::max(
        {row.r.dataWorkspace, row.r.weightWorkspace, row.r.fusedWorkspace, row.r.forwardWorkspace});
  };
  if (backward) {
    c.push_back(textColumn("wsF", [](R row) { return mb(row.r.fusedWorkspace); }));
    c.push_back(textColumn(
        "wsS", [](R row) { return mb(std::max(row.r.dataWorkspace, row.r.weightWorkspace)); }));
  } else {
    c.push_back(textColumn("ws", [](R row) { return mb(row.r.forwardWorkspace); }));
  }
  c.push_back(textColumn("ws/op", [workspace](R row) {
    const double bytes =
        static_cast<double>(elementBytes(row.sweep.precision)) * operandElements(row.problem);
    return workspace(row) >= 0 ? format("%.2f", workspace(row) / bytes) : "-";
  }));
  if (sweep.peers)
    c.push_back(textColumn("diff", [](R row) {
      return row.r.difference >= 0 ? format("%.1e", row.r.difference) : "-";
    }));
  if (low)
    c.push_back(textColumn("d32", [](R row) {
      return row.r.differenceFp32 >= 0 ? format("%.1e", row.r.differenceFp32) : "-";
    }));
  return c;
}

}  // namespace peers
