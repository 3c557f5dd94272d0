// aclnn-conv-backward: runs aclnnConvolutionBackward through the public API
// on a built-in set of problems (or one given on the command line), checks
// every result against the float64 reference and prints a table.

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "api_runner.h"
#include "problem_spec.h"

namespace {

void usage() {
  std::printf(
      "usage: aclnn-conv-backward [PROBLEM] [--dtype fp32|fp16|bf16] [--math 0..3]\n"
      "                           [--mask 111] [--repeat N] [--samples N] [--threads N]\n"
      "Without PROBLEM, runs the built-in set. PROBLEM is a compact descriptor, e.g.\n"
      "  n8c64o64h56w56k3p1   (batch 8, 64->64 channels, 56x56, 3x3 kernel, pad 1)\n"
      "keys: n c o g | d h w (l) | k s p dl (or per dim kd kh kw, sd.., pd.., dld..)\n"
      "      pt pb pl pr (2D 4-value padding) | t (transposed) op (output padding)\n"
      "--threads sets ACLNN_CPU_THREADS (default: all cores).\n");
}

bool parseDtype(const char* text, aclDataType* dtype) {
  if (!std::strcmp(text, "fp32"))
    *dtype = ACL_FLOAT;
  else if (!std::strcmp(text, "fp16"))
    *dtype = ACL_FLOAT16;
  else if (!std::strcmp(text, "bf16"))
    *dtype = ACL_BF16;
  else
    return false;
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  RunOptions options;
  std::vector<ProblemSpec> problems;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const bool hasValue = i + 1 < argc;
    if (arg == "-h" || arg == "--help") {
      usage();
      return 0;
    } else if (arg == "--dtype" && hasValue) {
      if (!parseDtype(argv[++i], &options.dtype)) {
        std::fprintf(stderr, "unknown dtype '%s'\n", argv[i]);
        return 2;
      }
    } else if (arg == "--math" && hasValue) {
      options.cubeMathType = static_cast<int8_t>(std::atoi(argv[++i]));
    } else if (arg == "--mask" && hasValue) {
      const std::string mask = argv[++i];
      if (mask.size() != 3 || mask.find_first_not_of("01") != std::string::npos) {
        std::fprintf(stderr, "--mask takes three 0/1 digits, e.g. 110\n");
        return 2;
      }
      for (int m = 0; m < 3; ++m) options.mask[m] = mask[m] == '1';
    } else if (arg == "--repeat" && hasValue) {
      options.repeats = std::atoi(argv[++i]);
    } else if (arg == "--samples" && hasValue) {
      options.samples = std::atoi(argv[++i]);
    } else if (arg == "--threads" && hasValue) {
      setenv("ACLNN_CPU_THREADS", argv[++i], 1);
    } else if (!arg.empty() && arg[0] != '-') {
      ProblemSpec spec;
      std::string error;
      if (!parseProblem(arg, &spec, &error)) {
        std::fprintf(stderr, "cannot read problem '%s': %s\n", arg.c_str(), error.c_str());
        return 2;
      }
      problems.push_back(spec);
    } else {
      usage();
      return 2;
    }
  }
  if (problems.empty()) problems = defaultProblems();

  if (aclInit(nullptr) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS) {
    std::fprintf(stderr, "runtime initialisation failed: %s\n", aclGetRecentErrMsg());
    return 1;
  }
  aclrtStream stream = nullptr;
  aclrtCreateStream(&stream);

  std::printf("aclnnConvolutionBackward on %s, dtype %s, cubeMathType %d, mask %d%d%d\n",
              aclrtGetSocName(), dtypeName(options.dtype), options.cubeMathType, options.mask[0],
              options.mask[1], options.mask[2]);
  std::printf("%-26s %-34s %10s %9s %9s %9s %9s  %s\n", "problem", "descriptor", "time ms",
              "GFLOP/s", "err dX", "err dW", "err db", "result");
  int failures = 0;
  double tolerance = 0;
  for (const auto& spec : problems) {
    const RunResult r = runProblem(spec, options, stream);
    if (!r.ok) {
      std::printf("%-26s %-34s  ERROR %s\n", spec.name.c_str(), spec.compact().c_str(),
                  r.error.c_str());
      ++failures;
      continue;
    }
    const int passes = options.mask[0] + options.mask[1];
    const double gflops = 2.0 * spec.macs() * passes / r.seconds * 1e-9;
    std::printf("%-26s %-34s %10.2f %9.1f %9.2e %9.2e %9.2e  %s\n", spec.name.c_str(),
                spec.compact().c_str(), r.seconds * 1e3, gflops, r.maxError[0], r.maxError[1],
                r.maxError[2], r.pass ? "PASS" : "FAIL");
    tolerance = r.tolerance;
    if (!r.pass) ++failures;
    std::fflush(stdout);
  }
  std::printf(
      "err = max |got - ref| / sum|terms| over sampled positions (float64 reference);"
      " tolerance %.0e\n",
      tolerance);
  std::printf("%d passed, %d failed\n", static_cast<int>(problems.size()) - failures, failures);

  aclrtDestroyStream(stream);
  aclrtResetDevice(0);
  aclFinalize();
  return failures == 0 ? 0 : 1;
}
