#pragma once
// Prints the benchmark's result: a header naming the machine and how things
// were timed, one table per printed sweep and thread count with times,
// ratios, % of peak, bandwidth bound and workspace, their geometric means,
// and a table of the kernels each case ran per direction.

#include <map>
#include <vector>

#include "case_result.h"
#include "machine_probe.h"
#include "run_options.h"

namespace peers {

void printReport(const RunOptions& options, const MachineInfo& machine,
                 const std::map<int, SweepResults>& resultsByThreads);

// --list: every case, and which rows it gets.
void printCaseList(const RunOptions& options);

}  // namespace peers
