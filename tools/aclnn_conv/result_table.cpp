#include "result_table.h"

#include <string>
#include <utility>

#include "exit_codes.h"
#include "reference_check.h"

namespace {

const char* const kColumnTitles[kOutputCount] = {"err y", "err dX", "err dW", "err db"};

}  // namespace

ResultTable::ResultTable(std::FILE* out, const RunOptions& options, std::vector<Output> columns,
                         bool phases, bool verbose)
    : out_(out),
      options_(options),
      columns_(std::move(columns)),
      phases_(phases),
      verbose_(verbose) {}

void ResultTable::printHeader(const char* title, const char* deviceName,
                              const std::string& settings) const {
  std::fprintf(out_, "%s on %s, dtype %s, cubeMathType %d%s%s\n", title, deviceName,
               dtypeName(options_.dtype), options_.cubeMathType, settings.empty() ? "" : ", ",
               settings.c_str());
  std::fprintf(out_, "%-26s %-34s ", "problem", "descriptor");
  if (phases_) std::fprintf(out_, "%-8s ", "phase");
  std::fprintf(out_, "%10s %9s", "time ms", "GFLOP/s");
  for (Output column : columns_) std::fprintf(out_, " %9s", kColumnTitles[column]);
  std::fprintf(out_, "  %s\n", "result");
  std::fflush(out_);
}

void ResultTable::printMeasured(const char* name, const char* descriptor, const char* phase,
                                double seconds, double flops, const bool* checked,
                                const double* errors, bool passed,
                                const std::string& message) const {
  char gflops[32] = "-";
  if (flops > 0 && seconds > 0)
    std::snprintf(gflops, sizeof(gflops), "%.1f", flops / seconds * 1e-9);
  std::fprintf(out_, "%-26s %-34s ", name, descriptor);
  if (phases_) std::fprintf(out_, "%-8s ", phase);
  std::fprintf(out_, "%10.2f %9s", seconds * 1e3, gflops);
  for (Output column : columns_) {
    char error[32] = "-";
    if (checked && checked[column]) std::snprintf(error, sizeof(error), "%.2e", errors[column]);
    std::fprintf(out_, " %9s", error);
  }
  std::fprintf(out_, "  %s%s%s\n", passed ? "PASS" : "FAIL", message.empty() ? "" : ": ",
               message.c_str());
}

void ResultTable::printRow(const ProblemSpec& spec, const RunResult& r) {
  const std::string descriptor = spec.compact();
  const char* name = spec.name.c_str();
  switch (r.outcome) {
    case RunOutcome::kRefused:
      ++refused_;
      if (r.status >= 0)
        std::fprintf(out_, "%-26s %-34s  REFUSED status %d: %s\n", name, descriptor.c_str(),
                     r.status, r.message.c_str());
      else
        std::fprintf(out_, "%-26s %-34s  REFUSED: %s\n", name, descriptor.c_str(),
                     r.message.c_str());
      break;
    case RunOutcome::kOutOfMemory:
      ++notRun_;
      std::fprintf(out_, "%-26s %-34s  NOT RUN, out of memory: %s\n", name, descriptor.c_str(),
                   r.message.c_str());
      break;
    case RunOutcome::kRuntimeError:
      ++notRun_;
      std::fprintf(out_, "%-26s %-34s  NOT RUN, runtime failure: %s\n", name, descriptor.c_str(),
                   r.message.c_str());
      break;
    case RunOutcome::kPassed:
    case RunOutcome::kCheckFailed: {
      const bool passed = r.outcome == RunOutcome::kPassed;
      passed ? ++passed_ : ++failed_;
      if (!phases_) {
        const PhaseResult& p = r.phases.at(0);
        printMeasured(name, descriptor.c_str(), "", p.seconds, p.flops, p.checked, p.maxError,
                      passed, r.message);
        break;
      }
      // A training step: one row per phase (the problem named on the first),
      // then the step's total and verdict.
      double flops = 0;
      for (size_t i = 0; i < r.phases.size(); ++i) {
        const PhaseResult& p = r.phases[i];
        flops += p.flops;
        printMeasured(i == 0 ? name : "", i == 0 ? descriptor.c_str() : "", p.phase.c_str(),
                      p.seconds, p.flops, p.checked, p.maxError, p.passed, "");
      }
      printMeasured("", "", "step", r.stepSeconds, flops, nullptr, nullptr, passed, r.message);
      break;
    }
  }
  if (verbose_) printVerbose(r);
  std::fflush(out_);
}

void ResultTable::printVerbose(const RunResult& r) const {
  const bool ran = r.outcome == RunOutcome::kPassed || r.outcome == RunOutcome::kCheckFailed;
  for (const PhaseResult& p : r.phases) {
    const std::string prefix = phases_ ? p.phase + " " + p.api + ": " : "";
    std::fprintf(out_, "    %s%s", prefix.c_str(), p.shapes.c_str());
    if (!ran) {
      std::fprintf(out_, "\n");
      continue;
    }
    std::fprintf(out_, ", workspace %llu bytes\n",
                 static_cast<unsigned long long>(p.workspaceBytes));
    const std::string label = phases_ ? p.phase + " algorithms:" : "algorithms:";
    if (p.algorithms.empty()) {
      std::fprintf(out_, "    %s none requested\n", label.c_str());
    } else {
      std::fprintf(out_, "    %s", label.c_str());
      for (const PassAlgorithm& a : p.algorithms)
        std::fprintf(out_, " %s %s;", a.pass.c_str(), a.algorithm.c_str());
      std::fprintf(out_, "\n");
    }
  }
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
