#include "result_table.h"

#include <string>
#include <vector>

#include "exit_codes.h"

namespace {

std::string shapeText(const std::vector<int64_t>& shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i) text += (i ? "," : "") + std::to_string(shape[i]);
  return text + "]";
}

}  // namespace

ResultTable::ResultTable(std::FILE* out, const RunOptions& options, bool verbose)
    : out_(out), options_(options), verbose_(verbose) {}

void ResultTable::printHeader(const char* operatorName, const char* deviceName) const {
  std::fprintf(out_, "%s on %s, dtype %s, cubeMathType %d, mask %d%d%d (dX dW db)\n", operatorName,
               deviceName, dtypeName(options_.dtype), options_.cubeMathType, options_.mask[0],
               options_.mask[1], options_.mask[2]);
  std::fprintf(out_, "%-26s %-34s %10s %9s %9s %9s %9s  %s\n", "problem", "descriptor", "time ms",
               "GFLOP/s", "err dX", "err dW", "err db", "result");
  std::fflush(out_);
}

void ResultTable::printRow(const ProblemSpec& spec, const RunResult& r) {
  const std::string descriptor = spec.compact();
  switch (r.outcome) {
    case RunOutcome::kRefused:
      ++refused_;
      if (r.status >= 0)
        std::fprintf(out_, "%-26s %-34s  REFUSED status %d: %s\n", spec.name.c_str(),
                     descriptor.c_str(), r.status, r.message.c_str());
      else
        std::fprintf(out_, "%-26s %-34s  REFUSED: %s\n", spec.name.c_str(), descriptor.c_str(),
                     r.message.c_str());
      break;
    case RunOutcome::kOutOfMemory:
      ++notRun_;
      std::fprintf(out_, "%-26s %-34s  NOT RUN, out of memory: %s\n", spec.name.c_str(),
                   descriptor.c_str(), r.message.c_str());
      break;
    case RunOutcome::kRuntimeError:
      ++notRun_;
      std::fprintf(out_, "%-26s %-34s  NOT RUN, runtime failure: %s\n", spec.name.c_str(),
                   descriptor.c_str(), r.message.c_str());
      break;
    case RunOutcome::kPassed:
    case RunOutcome::kCheckFailed: {
      const bool passed = r.outcome == RunOutcome::kPassed;
      passed ? ++passed_ : ++failed_;
      const int passes = options_.mask[0] + options_.mask[1];
      const double flops = 2.0 * spec.macs() * passes;
      char gflops[32] = "-";
      if (flops > 0 && r.seconds > 0)
        std::snprintf(gflops, sizeof(gflops), "%.1f", flops / r.seconds * 1e-9);
      char errors[3][32];
      for (int m = 0; m < 3; ++m) {
        if (r.checked[m])
          std::snprintf(errors[m], sizeof(errors[m]), "%.2e", r.maxError[m]);
        else
          std::snprintf(errors[m], sizeof(errors[m]), "-");
      }
      std::fprintf(out_, "%-26s %-34s %10.2f %9s %9s %9s %9s  %s%s%s\n", spec.name.c_str(),
                   descriptor.c_str(), r.seconds * 1e3, gflops, errors[0], errors[1], errors[2],
                   passed ? "PASS" : "FAIL", r.message.empty() ? "" : ": ", r.message.c_str());
      break;
    }
  }
  if (verbose_) {
    std::fprintf(out_, "    gradOutput %s, input %s, weight %s",
                 shapeText(spec.gradOutputShape()).c_str(), shapeText(spec.inputShape()).c_str(),
                 shapeText(spec.weightShape()).c_str());
    if (r.outcome == RunOutcome::kPassed || r.outcome == RunOutcome::kCheckFailed) {
      std::fprintf(out_, ", workspace %llu bytes\n",
                   static_cast<unsigned long long>(r.workspaceBytes));
      if (r.algorithms.empty()) {
        std::fprintf(out_, "    algorithms: none requested\n");
      } else {
        std::fprintf(out_, "    algorithms:");
        for (const PassAlgorithm& a : r.algorithms)
          std::fprintf(out_, " %s %s;", a.pass.c_str(), a.algorithm.c_str());
        std::fprintf(out_, "\n");
      }
    } else {
      std::fprintf(out_, "\n");
    }
  }
  std::fflush(out_);
}

void ResultTable::printSummary() const {
  std::fprintf(out_,
               "err = max |got - ref| / sum|terms| over sampled positions (float64 reference); "
               "tolerance %.0e for %s, cubeMathType %d\n",
               toleranceFor(options_.dtype, options_.cubeMathType), dtypeName(options_.dtype),
               options_.cubeMathType);
  std::fprintf(out_, "%d passed, %d failed, %d refused, %d not run\n", passed_, failed_, refused_,
               notRun_);
  std::fflush(out_);
}

int ResultTable::exitCode() const {
  if (failed_) return exitcode::kCheckFailed;
  if (notRun_) return exitcode::kCannotRun;
  if (refused_) return exitcode::kRefused;
  return exitcode::kPassed;
}
