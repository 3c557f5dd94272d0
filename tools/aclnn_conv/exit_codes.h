#pragma once
// The tool's exit codes (documented in --help and docs/tool.md). When the
// problems of one run end differently, the most serious outcome decides, in
// this order: a failed check, a problem that could not run, a refusal.

namespace exitcode {

constexpr int kPassed = 0;       // every problem ran and every check passed
constexpr int kCheckFailed = 1;  // a result differs from the float64 reference
constexpr int kUsage = 2;        // bad command line (nothing was run)
constexpr int kRefused = 3;      // the library refused a problem in phase 1
constexpr int kCannotRun = 4;    // out of memory, or the runtime failed

}  // namespace exitcode
