#include "command_line.h"

#include <cstdint>
#include <cstring>

#include "number_arg.h"

namespace {

// Operators the tool is meant to drive; only the implemented ones run. A new
// operator is a driver folder next to tools/conv_backward/, `true` here and a
// case in main.cpp; a training step (--train-step: forward, then backward on
// its output) would be one more CommandLine::Action.
struct OpName {
  const char* name;
  bool implemented;
};
constexpr OpName kOps[] = {
    {"backward", true},  // aclnnConvolutionBackward
    {"forward", false},  // aclnnConvolution
    {"tbc", false},      // aclnnConvTbc / aclnnConvTbcBackward
    {"dw", false},       // aclnnConvDepthwise2d
};

bool parseOp(const std::string& value, std::string* op, std::string* error) {
  for (const OpName& candidate : kOps) {
    if (value != candidate.name) continue;
    if (!candidate.implemented) {
      *error =
          "--op " + value + ": not available in this version of the tool (available: backward)";
      return false;
    }
    *op = value;
    return true;
  }
  *error = "--op: expected backward, got '" + value + "'";
  return false;
}

bool parseDtype(const std::string& value, aclDataType* dtype, std::string* error) {
  if (value == "fp32")
    *dtype = ACL_FLOAT;
  else if (value == "fp16")
    *dtype = ACL_FLOAT16;
  else if (value == "bf16")
    *dtype = ACL_BF16;
  else {
    *error = "--dtype: expected fp32, fp16 or bf16, got '" + value + "'";
    return false;
  }
  return true;
}

bool parseMask(const std::string& value, bool mask[3], std::string* error) {
  if (value.size() != 3 || value.find_first_not_of("01") != std::string::npos) {
    *error =
        "--mask: expected three 0/1 digits for gradInput, gradWeight, gradBias (e.g. 110), "
        "got '" +
        value + "'";
    return false;
  }
  for (int m = 0; m < 3; ++m) mask[m] = value[m] == '1';
  return true;
}

bool parseProgress(const std::string& value, ProgressMode* mode, std::string* error) {
  if (value == "auto")
    *mode = ProgressMode::kAuto;
  else if (value == "on")
    *mode = ProgressMode::kOn;
  else if (value == "off")
    *mode = ProgressMode::kOff;
  else {
    *error = "--progress: expected auto, on or off, got '" + value + "'";
    return false;
  }
  return true;
}

bool parseInteger(const std::string& option, const std::string& value, int64_t min, int64_t max,
                  int64_t* result, std::string* error) {
  std::string why;
  if (parseIntegerArg(value, min, max, result, &why)) return true;
  *error = option + ": " + why;
  return false;
}

// Options that take a value.
constexpr const char* kValueOptions[] = {"--op",   "--dtype",   "--math",
                                         "--mask", "--repeat",  "--samples",
                                         "--seed", "--threads", "--progress"};

bool takesValue(const std::string& option) {
  for (const char* name : kValueOptions)
    if (option == name) return true;
  return false;
}

bool applyOption(const std::string& option, const std::string& value, CommandLine* c,
                 std::string* error) {
  int64_t n = 0;
  if (option == "--op") return parseOp(value, &c->op, error);
  if (option == "--dtype") return parseDtype(value, &c->run.dtype, error);
  if (option == "--mask") return parseMask(value, c->run.mask, error);
  if (option == "--progress") return parseProgress(value, &c->progress, error);
  if (option == "--math") {
    // Any int8 goes to the library, which judges it (0..3 are defined).
    if (!parseInteger(option, value, INT8_MIN, INT8_MAX, &n, error)) return false;
    c->run.cubeMathType = static_cast<int8_t>(n);
  } else if (option == "--repeat") {
    if (!parseInteger(option, value, 1, 1000000, &n, error)) return false;
    c->run.repeats = static_cast<int>(n);
  } else if (option == "--samples") {
    if (!parseInteger(option, value, 1, 1000000000, &n, error)) return false;
    c->run.samples = static_cast<int>(n);
  } else if (option == "--seed") {
    if (!parseInteger(option, value, 0, UINT32_MAX, &n, error)) return false;
    c->run.seed = static_cast<uint32_t>(n);
  } else if (option == "--threads") {
    // The library's own range for ACLNN_CPU_THREADS.
    if (!parseInteger(option, value, 1, 4096, &n, error)) return false;
    c->threads = static_cast<int>(n);
  }
  return true;
}

}  // namespace

bool parseCommandLine(int argc, char** argv, CommandLine* commandLine, std::string* error) {
  CommandLine c;
  bool helpRequested = false, listRequested = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "-h" || arg == "--help") {
      helpRequested = true;
    } else if (arg == "--list") {
      listRequested = true;
    } else if (arg == "--verbose" || arg == "-v") {
      c.verbose = true;
    } else if (arg.rfind("--", 0) == 0) {
      // --name value or --name=value
      const size_t equals = arg.find('=');
      const std::string option = arg.substr(0, equals);
      if (!takesValue(option)) {
        // Exact flags were handled above, so a flag here came with "=value".
        const bool flag = option == "--help" || option == "--list" || option == "--verbose";
        *error =
            flag ? "option '" + option + "' takes no value" : "unknown option '" + option + "'";
        return false;
      }
      std::string value;
      if (equals != std::string::npos) {
        value = arg.substr(equals + 1);
      } else if (i + 1 < argc && std::strncmp(argv[i + 1], "--", 2) != 0) {
        value = argv[++i];
      } else {
        *error = "option '" + option + "' needs a value";
        return false;
      }
      if (value.empty()) {
        *error = "option '" + option + "' needs a value, got an empty one";
        return false;
      }
      if (!applyOption(option, value, &c, error)) return false;
    } else if (arg.empty()) {
      *error = "an empty argument is not a problem descriptor";
      return false;
    } else if (arg[0] == '-') {
      *error = "unknown option '" + arg + "'";
      return false;
    } else {
      ProblemSpec spec;
      std::string why;
      if (!parseProblem(arg, &spec, &why)) {
        *error = "cannot read problem '" + arg + "': " + why;
        return false;
      }
      c.problems.push_back(spec);
    }
  }
  if (helpRequested)
    c.action = CommandLine::Action::kHelp;
  else if (listRequested)
    c.action = CommandLine::Action::kList;
  *commandLine = c;
  return true;
}

void printHelp(std::FILE* out) {
  std::fputs(
      "usage: aclnn-conv [--op backward] [OPTIONS] [PROBLEM...]\n"
      "\n"
      "Runs a convolution operator through the public aclnn API, times phase 2 and\n"
      "checks every requested output against a float64 reference at sampled positions.\n"
      "Without PROBLEM, runs the built-in set (see --list). aclnn-conv-backward is the\n"
      "same tool.\n"
      "\n"
      "PROBLEM is a compact descriptor, e.g. n8c64o64h56w56k3p1 (batch 8, 64 -> 64\n"
      "channels, 56x56, 3x3 kernel, padding 1). Keys, each followed by a number:\n"
      "  n c o g        batch, input channels, output channels, groups (defaults 1;\n"
      "                 for t: the channels of the transposed convolution's input, output)\n"
      "  w (or l)       1D size;  h w: 2D;  d h w: 3D (w is required)\n"
      "  k s p dl       kernel, stride, padding, dilation for every spatial dim\n"
      "                 (defaults 1, 1, 0, 1); per dim: kd kh kw, sd sh sw, pd ph pw,\n"
      "                 dld dlh dlw\n"
      "  pt pb pl pr    2D padding as [top, bottom, left, right] (instead of p)\n"
      "  t              transposed (no number, or t0 / t1)\n"
      "  op             output padding (only meaningful with t)\n"
      "Each key at most once. Values the operator refuses (stride 0, groups that do\n"
      "not divide the channels, ...) are passed to it, and its status and message are\n"
      "printed. Empty tensors (e.g. n0) are valid problems.\n"
      "\n"
      "Options (--name value or --name=value):\n"
      "  --op NAME        operator: backward (aclnnConvolutionBackward). Default backward.\n"
      "  --dtype TYPE     fp32, fp16 or bf16: dtype of every tensor. Default fp32.\n"
      "  --math N         cubeMathType passed to the operator. Default 0.\n"
      "                     0 KEEP_DTYPE                 operands as given\n"
      "                     1 ALLOW_FP32_DOWN_PRECISION  fp32 operands rounded to HF32\n"
      "                     2 USE_FP16                   operands rounded to fp16\n"
      "                     3 USE_HF32                   fp32 operands rounded to HF32\n"
      "                   Other values from -128 to 127 go to the operator, which refuses them.\n"
      "  --mask XYZ       outputMask as three 0/1 digits in the API's order: gradInput (dX),\n"
      "                   gradWeight (dW), gradBias (db). Default 111. Masked-off outputs\n"
      "                   are not computed and print '-'.\n"
      "  --repeat N       phase-2 runs per problem, 1 to 1000000; the best time is shown.\n"
      "                   Default 3.\n"
      "  --samples N      checked positions per output, 1 to 1000000000 (all positions\n"
      "                   when an output has fewer). Default 256.\n"
      "  --seed N         seed of the random operands, 0 to 4294967295. Default 1.\n"
      "  --threads N      compute threads, 1 to 4096 (sets ACLNN_CPU_THREADS).\n"
      "                   Default: ACLNN_CPU_THREADS if set, else every core.\n"
      "  --progress WHEN  progress line on stderr for problems longer than a second:\n"
      "                   auto (when stderr is a terminal), on or off. Default auto.\n"
      "  -v, --verbose    after each problem, its shapes, workspace size and the\n"
      "                   kernel-layer algorithm of each requested pass.\n"
      "  --list           print the built-in problem set and exit.\n"
      "  -h, --help       print this help and exit.\n"
      "\n"
      "Output: one row per problem: time (ms, best phase 2 + synchronize), GFLOP/s\n"
      "(2 x MACs per requested dX/dW pass), the largest error per output\n"
      "(|got - ref| / sum|terms|) and PASS, FAIL, REFUSED (with the library's status\n"
      "and message) or NOT RUN (out of memory, runtime failure).\n"
      "\n"
      "Exit status: 0 every problem passed; 1 a check failed; 2 bad usage (nothing\n"
      "run); 3 the library refused a problem; 4 a problem could not run (out of\n"
      "memory, runtime failure). With several outcomes: 1, then 4, then 3.\n",
      out);
}
