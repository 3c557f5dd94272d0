#pragma once
// The columns of the benchmark's tables: which columns a sweep's table has
// (times, ratios, % of peak, bandwidth bound, workspace, differences) and how
// each cell is computed from one row's results.

#include <functional>
#include <string>
#include <vector>

#include "case_result.h"
#include "problem_spec.h"
#include "sweep.h"

namespace peers {

// Everything a cell may need about one row.
struct Row {
  const ProblemSpec& problem;
  const CaseResult& r;
  const CaseResult* fp32;  // our fp32 cubeMathType 0 result of the same case and direction
  const CaseResult* bf16;  // our bf16 result (fp16 rows)
  double peakFlops;        // what %pk divides by
  double bandwidth;        // copy bandwidth at this thread count
  const Sweep& sweep;
  bool markdown;
};

// One column: a text cell, or a ratio numerator / denominator (then also
// summarised by a geometric mean below the table).
struct Column {
  std::string header;
  std::function<std::string(const Row&)> text;
  std::function<double(const Row&)> numerator, denominator;
};

// The columns of one sweep's table. fp32 backward keeps the original layout;
// low-precision sweeps add our fp32 (and for fp16 our bf16) times and their
// ratios; fp16 and HF32 have no peer columns.
std::vector<Column> columnsOf(const Sweep& sweep);

std::string format(const char* pattern, double value);
std::string ratioText(double numerator, double denominator);

}  // namespace peers
