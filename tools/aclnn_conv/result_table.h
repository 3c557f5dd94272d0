#pragma once
// The tool's table: a header, one row per problem (with a training step: one
// per phase and one for the step; outputs a run does not produce as '-',
// refusals with the library's status and message), optional verbose detail,
// and a summary with the exit code it implies.

#include <cstdio>
#include <vector>

#include "problem_spec.h"
#include "run_types.h"

class ResultTable {
 public:
  // `columns`: the outputs shown (backward: dX dW db; forward: y; training
  // step: all four). `phases`: rows per phase (a training step).
  ResultTable(std::FILE* out, const RunOptions& options, std::vector<Output> columns, bool phases,
              bool verbose);

  // `settings`: what the header states besides dtype and cubeMathType,
  // e.g. "mask 111 (dX dW db)".
  void printHeader(const char* title, const char* deviceName, const std::string& settings) const;
  void printRow(const ProblemSpec& spec, const RunResult& result);
  void printSummary() const;

  int exitCode() const;  // see exit_codes.h

 private:
  void printMeasured(const char* name, const char* descriptor, const char* phase, double seconds,
                     double flops, const bool* checked, const double* errors, bool passed,
                     const std::string& message) const;
  void printVerbose(const RunResult& result) const;

  std::FILE* out_;
  RunOptions options_;
  std::vector<Output> columns_;
  bool phases_;
  bool verbose_;
  int passed_ = 0, failed_ = 0, refused_ = 0, notRun_ = 0;
};
