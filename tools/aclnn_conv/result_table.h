#pragma once
// The tool's table: a header, one row per problem (masked-off outputs as '-',
// refusals with the library's status and message), optional verbose detail,
// and a summary with the exit code it implies.

#include <cstdio>

#include "api_runner.h"
#include "problem_spec.h"

class ResultTable {
 public:
  ResultTable(std::FILE* out, const RunOptions& options, bool verbose);

  void printHeader(const char* operatorName, const char* deviceName) const;
  void printRow(const ProblemSpec& spec, const RunResult& result);
  void printSummary() const;

  int exitCode() const;  // see exit_codes.h

 private:
  std::FILE* out_;
  RunOptions options_;
  bool verbose_;
  int passed_ = 0, failed_ = 0, refused_ = 0, notRun_ = 0;
};
