// A table of hostile command lines: each must give its exit code and a message
// that names what was wrong (never a crash, never silent acceptance).
//   2: usage errors, on stderr, with nothing run (stdout empty);
//   3: the library refused the problem: its status and message in the row;
//   4: out of memory; 0: problems the library takes, including empty ones.

#include <gtest/gtest.h>

#include <ostream>
#include <regex>
#include <string>
#include <vector>

#include "tool_process.h"

namespace {

enum class Stream { kOut, kErr };

struct HostileCase {
  std::vector<std::string> args;
  int exitCode;
  Stream stream;
  const char* pattern;  // ECMAScript regex searched in that stream
};

std::ostream& operator<<(std::ostream& os, const HostileCase& c) {
  os << "aclnn-conv";
  for (const auto& a : c.args) os << " '" << a << "'";
  return os;
}

// Tiny problems only: every case runs in well under a second.
const HostileCase kCases[] = {
    // Numbers are parsed strictly and range-checked.
    {{"--threads", "abc"},
     2,
     Stream::kErr,
     "--threads: expected an integer from 1 to 4096, got 'abc'"},
    {{"--threads", "0"}, 2, Stream::kErr, "--threads: expected an integer from 1 to 4096, got '0'"},
    {{"--threads", "4097"}, 2, Stream::kErr, "--threads: .* got '4097'"},
    {{"--threads", "1.5"}, 2, Stream::kErr, "--threads: .* got '1.5'"},
    {{"--threads", " 2"}, 2, Stream::kErr, "--threads: .* got ' 2'"},
    {{"--threads", "+2"}, 2, Stream::kErr, "--threads: .* got '\\+2'"},
    {{"--threads", "0x10"}, 2, Stream::kErr, "--threads: .* got '0x10'"},
    {{"--repeat", "0"},
     2,
     Stream::kErr,
     "--repeat: expected an integer from 1 to 1000000, got '0'"},
    {{"--repeat", "-3"}, 2, Stream::kErr, "--repeat: .* got '-3'"},
    {{"--repeat", "99999999999999999999"},
     2,
     Stream::kErr,
     "--repeat: .* got '99999999999999999999'"},
    {{"--samples", "0"},
     2,
     Stream::kErr,
     "--samples: expected an integer from 1 to 1000000000, got '0'"},
    {{"--seed", "-1"},
     2,
     Stream::kErr,
     "--seed: expected an integer from 0 to 4294967295, got '-1'"},
    {{"--seed", "4294967296"}, 2, Stream::kErr, "--seed: .* got '4294967296'"},
    {{"--math", "abc"}, 2, Stream::kErr, "--math: expected an integer from -128 to 127, got 'abc'"},
    {{"--math", "128"}, 2, Stream::kErr, "--math: .* got '128'"},
    {{"--math", "1e0"}, 2, Stream::kErr, "--math: .* got '1e0'"},
    // Enumerated values name the valid ones.
    {{"--mask", "11"},
     2,
     Stream::kErr,
     "--mask: expected three 0/1 digits for gradInput, gradWeight, gradBias .* got '11'"},
    {{"--mask", "1111"}, 2, Stream::kErr, "--mask: .* got '1111'"},
    {{"--mask", "112"}, 2, Stream::kErr, "--mask: .* got '112'"},
    {{"--dtype", "fp64"}, 2, Stream::kErr, "--dtype: expected fp32, fp16 or bf16, got 'fp64'"},
    {{"--dtype", "FP32"}, 2, Stream::kErr, "--dtype: .* got 'FP32'"},
    {{"--op", "bogus"},
     2,
     Stream::kErr,
     "--op: expected backward, forward, tbc or dw, got 'bogus'"},
    {{"--op", "Forward"}, 2, Stream::kErr, "--op: expected backward, .* got 'Forward'"},
    {{"--op", "forward", "--bias", "maybe"},
     2,
     Stream::kErr,
     "--bias: expected on or off, got 'maybe'"},
    {{"--train-step=1"}, 2, Stream::kErr, "option '--train-step' takes no value"},
    // Options the chosen operator has no use for.
    {{"--op", "forward", "--mask", "110"},
     2,
     Stream::kErr,
     "--mask: --op forward runs a forward operator, which has no outputMask"},
    {{"--op", "dw", "--mask", "111"}, 2, Stream::kErr, "--mask: --op dw runs a forward operator"},
    {{"--bias", "off"}, 2, Stream::kErr, "--bias: --op backward has no bias tensor"},
    {{"--op", "tbc", "--bias", "off"},
     2,
     Stream::kErr,
     "--bias off: aclnnConvTbc's bias is mandatory"},
    {{"--op", "tbc", "--train-step", "--mask", "110"},
     2,
     Stream::kErr,
     "--mask: --train-step --op tbc runs aclnnConvTbcBackward, which has no outputMask"},
    // Problems the operator cannot express.
    {{"--op", "tbc", "n1c4o4h4w4k3"},
     2,
     Stream::kErr,
     "problem 'n1c4o4h4w4k3' cannot be run with --op tbc: aclnnConvTbc computes 1D .* but it is "
     "not 1D"},
    {{"--op", "tbc", "n1c4o4w8k3s2"}, 2, Stream::kErr, "--op tbc: .* stride \\(s\\) other than 1"},
    {{"--op", "tbc", "n1c4o4w8k3dl2"},
     2,
     Stream::kErr,
     "--op tbc: .* dilation \\(dl\\) other than 1"},
    {{"--op", "tbc", "n1c4o4g2w8k3"}, 2, Stream::kErr, "--op tbc: .* groups \\(g\\) other than 1"},
    {{"--op", "tbc", "n1c4o4w8k3t"}, 2, Stream::kErr, "--op tbc: .* it is transposed \\(t\\)"},
    {{"--op", "tbc", "--train-step", "n1c4o4w8k3op1"},
     2,
     Stream::kErr,
     "--op tbc: .* output padding \\(op\\)"},
    {{"--op", "dw", "n1c4o4h8w8k3"},
     2,
     Stream::kErr,
     "problem 'n1c4o4h8w8k3' cannot be run with --op dw: aclnnConvDepthwise2d computes 2D "
     "depthwise .* but its groups g1 differ from its input channels c4"},
    {{"--op", "dw", "n1c4o4g4w8k3"}, 2, Stream::kErr, "--op dw: .* it is not 2D"},
    {{"--op", "dw", "n1c4o4g4d2h8w8k3"}, 2, Stream::kErr, "--op dw: .* it is not 2D"},
    {{"--op", "dw", "n1c4o4g4h8w8k3t"}, 2, Stream::kErr, "--op dw: .* it is transposed"},
    {{"--op", "dw", "--train-step", "n1c4o4g4h8w8k3pt1pb0pl1pr0"},
     2,
     Stream::kErr,
     "--op dw: .* 4-value padding"},
    // The forward operators' own refusals reach the table.
    {{"--op", "forward", "n1c1o1h4w4k3s0"},
     3,
     Stream::kOut,
     "REFUSED status 161002: aclnnConvolutionGetWorkspaceSize.*stride"},
    {{"--op", "tbc", "n2c4o4l1k3p1"},
     3,
     Stream::kOut,
     "REFUSED status 161002: aclnnConvTbcGetWorkspaceSize.*kernel size \\(3\\)"},
    {{"--op", "dw", "n1c4o6g4h8w8k3"},
     3,
     Stream::kOut,
     "REFUSED status 161002: aclnnConvDepthwise2dGetWorkspaceSize.*multiple of the channels"},
    {{"--train-step", "n1c1o1w4", "--math", "4"},
     3,
     Stream::kOut,
     "REFUSED status 161002: aclnnConvolutionBackwardGetWorkspaceSize.*cubeMathType"},
    {{"--op", "forward", "n1c1o1w4", "--math", "4"}, 0, Stream::kOut, "1 passed, 0 failed"},
    {{"--progress", "sometimes"},
     2,
     Stream::kErr,
     "--progress: expected auto, on or off, got 'sometimes'"},
    // Unknown options and missing values are named.
    {{"--bogus"}, 2, Stream::kErr, "unknown option '--bogus'"},
    {{"-x"}, 2, Stream::kErr, "unknown option '-x'"},
    {{"--bogus=1"}, 2, Stream::kErr, "unknown option '--bogus'"},
    {{"--help=1"}, 2, Stream::kErr, "option '--help' takes no value"},
    {{"--verbose=yes"}, 2, Stream::kErr, "option '--verbose' takes no value"},
    {{"--threads"}, 2, Stream::kErr, "option '--threads' needs a value"},
    {{"n1c1o1w4", "--threads", "--repeat", "3"},
     2,
     Stream::kErr,
     "option '--threads' needs a value"},
    {{"--threads="}, 2, Stream::kErr, "option '--threads' needs a value, got an empty one"},
    {{""}, 2, Stream::kErr, "an empty argument is not a problem descriptor"},
    // Descriptor syntax.
    {{"x"}, 2, Stream::kErr, "cannot read problem 'x': unknown key at 'x'"},
    {{"n1c1o1"}, 2, Stream::kErr, "give w \\(1D\\), h and w \\(2D\\) or d, h and w \\(3D\\)"},
    {{"n1c1o1d4w4"}, 2, Stream::kErr, "give w \\(1D\\), h and w"},
    {{"n1c1o1w4k"}, 2, Stream::kErr, "key 'k' needs a number"},
    {{"n1n2c1w4"}, 2, Stream::kErr, "key 'n' is given twice"},
    {{"n1w4l4"}, 2, Stream::kErr, "key 'l' is given twice"},
    {{"n1c1o1w4kh3"}, 2, Stream::kErr, "key 'kh' names a dim the problem does not have"},
    {{"n1c1o1w4pt1"}, 2, Stream::kErr, "pt/pb/pl/pr need a 2D problem"},
    {{"n1c1o1h4w4p1pt1"}, 2, Stream::kErr, "either as p/pd/ph/pw or as pt/pb/pl/pr, not both"},
    {{"n99999999999999999999c1o1w4"},
     2,
     Stream::kErr,
     "the number of key 'n' \\(99999999999999999999\\) does not fit in 64 bits"},
    {{"n1c1o1w4t2"}, 2, Stream::kErr, "key 't' takes no number, 0 or 1, got 2"},
    {{"n1c1o1h4w4k3g3000000000"},
     2,
     Stream::kErr,
     "g must fit the API's int \\(at most 2147483647\\)"},
    {{"n1c1o1w9223372036854775807p1"},
     2,
     Stream::kErr,
     "the gradOutput extent of dim w overflows 64-bit arithmetic"},
    // The library refuses: its status and message are printed.
    {{"n1c1o1h4w4k3s0"},
     3,
     Stream::kOut,
     "REFUSED status 161002: .*stride\\[0\\]: expected >= 1, got 0"},
    {{"n1c1o1h4w4k3dl0"},
     3,
     Stream::kOut,
     "REFUSED status 161002: .*dilation\\[0\\]: expected >= 1, got 0"},
    {{"n1c1o1h4w4k3g0"}, 3, Stream::kOut, "REFUSED status 161002: .*groups: expected >= 1, got 0"},
    {{"n1c3o2g2h4w4k3"}, 3, Stream::kOut, "REFUSED status 161002: .*groups"},
    {{"n1c1o1h2w2k3"},
     3,
     Stream::kOut,
     "REFUSED status 161002: .*gradOutput: expected a non-empty tensor"},
    {{"n1c1o1w4", "--math", "4"}, 3, Stream::kOut, "REFUSED status 161002: .*cubeMathType"},
    {{"n1c1o1w4", "--math", "-1"}, 3, Stream::kOut, "REFUSED status 161002: .*cubeMathType"},
    {{"n1c1o1h4w4k3op1"},
     3,
     Stream::kOut,
     "n1c1o1h4w4k3op1 +REFUSED status 161002: .*outputPadding\\[0\\]: expected 0 when transposed "
     "is false, got 1"},
    {{"n4611686018427387904c4o4h4w4k3"},
     3,
     Stream::kOut,
     "REFUSED status 161002: .*fit in 64 bits"},
    {{"n1c1o1h0w4k1"}, 3, Stream::kOut, "REFUSED status 161002: "},
    {{"n1c1o1w4", "n1c1o1w4s0"}, 3, Stream::kOut, "1 passed, 0 failed, 1 refused, 0 not run"},
    // Out of memory is an outcome, not an abort.
    {{"n100000c1000o1000h1000w1000k1"},
     4,
     Stream::kOut,
     "NOT RUN, out of memory: aclrtMalloc of [0-9.]+ GiB for gradOutput "
     "\\[100000,1000,1000,1000\\] failed"},
    // Several outcomes: the most serious decides (not run before refused).
    {{"n1c1o1w4s0", "n100000c1000o1000h1000w1000k1", "n1c1o1w4"},
     4,
     Stream::kOut,
     "1 passed, 0 failed, 1 refused, 1 not run"},
    // What the library takes is accepted: empty tensors, every mask.
    {{"n0c1o1h4w4k3"},
     0,
     Stream::kOut,
     "n0c1o1h4w4k3 +[0-9.]+ +- +[0-9.e+-]+ +[0-9.e+-]+ +[0-9.e+-]+ +PASS"},
    {{"n0c2o2h4w4k3t"}, 0, Stream::kOut, "n0c2o2h4w4k3t .* PASS"},
    {{"n2c0o3h4w4k3"}, 0, Stream::kOut, "n2c0o3h4w4k3 .* PASS"},
    {{"n1c1o1h4w4k3", "--mask", "010"}, 0, Stream::kOut, " - +[0-9.]+e[+-][0-9]+ +- +PASS"},
    {{"n1c1o1h4w4k3", "--mask", "000"}, 0, Stream::kOut, " - +- +- +- +PASS"},
    {{"n1c1o1h4w4k3", "--math=3", "--dtype=bf16"},
     0,
     Stream::kOut,
     "tolerance 8e-03 for bf16, cubeMathType 3"},
    {{"n1c1o1h4w4k3", "-v"}, 0, Stream::kOut, "algorithms: "},
    // fp16 results below fp16's normal range (single products here) are
    // rounded to its subnormal grid; that is within the check's tolerance.
    {{"n1c16o16g16h8w8k3s2p1", "--dtype", "fp16", "--seed", "2", "--mask", "100", "--samples",
      "100000"},
     0,
     Stream::kOut,
     "1 passed, 0 failed"},
};

class HostileArguments : public testing::TestWithParam<HostileCase> {};

TEST_P(HostileArguments, ExitCodeAndMessage) {
  const HostileCase& c = GetParam();
  const ToolRun run = runTool(toolPath(), c.args);
  EXPECT_EQ(run.exitCode, c.exitCode) << "stdout:\n" << run.out << "stderr:\n" << run.err;
  const std::string& text = c.stream == Stream::kOut ? run.out : run.err;
  EXPECT_TRUE(std::regex_search(text, std::regex(c.pattern)))
      << "expected /" << c.pattern << "/ in " << (c.stream == Stream::kOut ? "stdout" : "stderr")
      << ":\n"
      << text;
  if (c.exitCode == 2) {
    EXPECT_EQ(run.out, "") << "a usage error must not run anything";
    EXPECT_NE(run.err.find("aclnn-conv --help"), std::string::npos) << run.err;
  }
}

INSTANTIATE_TEST_SUITE_P(Table, HostileArguments, testing::ValuesIn(kCases));

}  // namespace
