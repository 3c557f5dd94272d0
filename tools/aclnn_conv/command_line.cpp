#include "command_line.h"

#include <cstdint>
#include <cstring>

#include "number_arg.h"

namespace {

bool parseOp(const std::string& value, OpKind* op, std::string* error) {
  for (OpKind candidate : {OpKind::kBackward, OpKind::kForward, OpKind::kTbc, OpKind::kDepthwise}) {
    if (value == opName(candidate)) {
      *op = candidate;
      return true;
    }
  }
  *error = "--op: expected backward, forward, tbc or dw, got '" + value + "'";
  return false;
}

bool parseOnOff(const std::string& option, const std::string& value, bool* on, std::string* error) {
  if (value == "on")
    *on = true;
  else if (value == "off")
    *on = false;
  else {
    *error = option + ": expected on or off, got '" + value + "'";
    return false;
  }
  return true;
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
constexpr const char* kValueOptions[] = {"--op",      "--dtype",   "--math",    "--mask",
                                         "--bias",    "--repeat",  "--samples", "--seed",
                                         "--threads", "--progress"};

bool takesValue(const std::string& option) {
  for (const char* name : kValueOptions)
    if (option == name) return true;
  return false;
}

bool applyOption(const std::string& option, const std::string& value, CommandLine* c,
                 std::string* error) {
  int64_t n = 0;
  if (option == "--op") return parseOp(value, &c->op, error);
  if (option == "--bias") return parseOnOff(option, value, &c->run.bias, error);
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

// What the options and problems mean together: an option the chosen
// operator has no use for, or a problem it cannot express, is an error
// rather than silently ignored.
bool checkCombination(const CommandLine& c, bool maskGiven, bool biasGiven, std::string* error) {
  const std::string op = opName(c.op);
  const bool backwardOnly = c.op == OpKind::kBackward && !c.trainStep;
  const bool forwardOnly = c.op != OpKind::kBackward && !c.trainStep;
  if (maskGiven && forwardOnly) {
    *error = "--mask: --op " + op +
             " runs a forward operator, which has no outputMask (use --op backward or "
             "--train-step)";
    return false;
  }
  if (biasGiven && backwardOnly) {
    *error =
        "--bias: --op backward has no bias tensor (the mask's third digit asks for gradBias); "
        "--bias is for --op forward, tbc, dw and --train-step";
    return false;
  }
  if (c.op == OpKind::kTbc && !c.run.bias) {
    *error = "--bias off: aclnnConvTbc's bias is mandatory";
    return false;
  }
  if (c.op == OpKind::kTbc && c.trainStep && !(c.run.mask[0] && c.run.mask[1] && c.run.mask[2])) {
    *error =
        "--mask: --train-step --op tbc runs aclnnConvTbcBackward, which has no outputMask "
        "(it always computes all three gradients); give 111 or no --mask";
    return false;
  }
  for (const ProblemSpec& spec : c.problems) {
    std::string why;
    if (!expressible(c.op, spec, &why)) {
      *error = "problem '" + spec.name + "' cannot be run with --op " + op + ": " + why;
      return false;
    }
  }
  return true;
}

}  // namespace

bool parseCommandLine(int argc, char** argv, CommandLine* commandLine, std::string* error) {
  CommandLine c;
  bool helpRequested = false, listRequested = false, maskGiven = false, biasGiven = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "-h" || arg == "--help") {
      helpRequested = true;
    } else if (arg == "--list") {
      listRequested = true;
    } else if (arg == "--verbose" || arg == "-v") {
      c.verbose = true;
    } else if (arg == "--train-step") {
      c.trainStep = true;
    } else if (arg.rfind("--", 0) == 0) {
      // --name value or --name=value
      const size_t equals = arg.find('=');
      const std::string option = arg.substr(0, equals);
      if (!takesValue(option)) {
        // Exact flags were handled above, so a flag here came with "=value".
        const bool flag = option == "--help" || option == "--list" || option == "--verbose" ||
                          option == "--train-step";
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
      if (option == "--mask") maskGiven = true;
      if (option == "--bias") biasGiven = true;
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
  if (!helpRequested && !checkCombination(c, maskGiven, biasGiven, error)) return false;
  if (helpRequested)
    c.action = CommandLine::Action::kHelp;
  else if (listRequested)
    c.action = CommandLine::Action::kList;
  *commandLine = c;
  return true;
}

void printHelp(std::FILE* out) {
  std::fputs(
      "usage: aclnn-conv [--op backward|forward|tbc|dw] [--train-step] [OPTIONS] [PROBLEM...]\n"
      "\n"
      "Runs a convolution operator through the public aclnn API, times phase 2 and\n"
      "checks every output against a float64 reference at sampled positions.\n"
      "Without PROBLEM, runs the operator's built-in set (see --list).\n"
      "aclnn-conv-backward is the same tool (its default, --op backward, is unchanged).\n"
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
      "Operators (--op):\n"
      "  backward  aclnnConvolutionBackward (the default): dX, dW, db per --mask.\n"
      "  forward   aclnnConvolution: y = conv(x, w) + b, transposed with t.\n"
      "  tbc       aclnnConvTbc, time-major 1D: x [T, B, C_in], w [K, C_in, C_out],\n"
      "            y [T_out, B, C_out]; the descriptor's n = B, c = C_in, o = C_out,\n"
      "            w (or l) = T, k = K, p = pad; stride, dilation and groups 1.\n"
      "  dw        aclnnConvDepthwise2d: 2D with g = c (o a multiple of c), symmetric\n"
      "            padding, not transposed.\n"
      "A problem the operator cannot express is a usage error.\n"
      "\n"
      "Options (--name value or --name=value):\n"
      "  --op NAME        operator, see above. Default backward.\n"
      "  --train-step     a training step per problem: the forward operator of --op\n"
      "                   (backward and forward: aclnnConvolution), then the backward of\n"
      "                   the same layer on the same x and w with a given dy\n"
      "                   (aclnnConvolutionBackward; tbc: aclnnConvTbcBackward; dw:\n"
      "                   aclnnConvolutionBackward with groups = C). One row per phase and\n"
      "                   one for the step.\n"
      "  --dtype TYPE     fp32, fp16 or bf16: dtype of every tensor. Default fp32.\n"
      "  --math N         cubeMathType passed to the operator. Default 0.\n"
      "                     0 KEEP_DTYPE                 operands as given\n"
      "                     1 ALLOW_FP32_DOWN_PRECISION  fp32 operands rounded to HF32\n"
      "                     2 USE_FP16                   operands rounded to fp16\n"
      "                     3 USE_HF32                   fp32 operands rounded to HF32\n"
      "                     4 USE_FP32_ADD               as 0 (forward operators only)\n"
      "                   Other values from -128 to 127 go to the operator, which refuses them.\n"
      "  --mask XYZ       outputMask of aclnnConvolutionBackward (--op backward,\n"
      "                   --train-step) as three 0/1 digits in the API's order: gradInput (dX),\n"
      "                   gradWeight (dW), gradBias (db). Default 111. Masked-off outputs\n"
      "                   are not computed and print '-'.\n"
      "  --bias WHEN      on or off: the forward operators (--op forward, tbc, dw,\n"
      "                   --train-step) get a bias b (aclnnConvTbc requires one). Default on.\n"
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
      "                   kernel-layer algorithm of each pass (y, dX, dW).\n"
      "  --list           print the built-in problem set of --op (and --train-step) and exit.\n"
      "  -h, --help       print this help and exit.\n"
      "\n"
      "Output: one row per problem (with --train-step: per phase, then the step):\n"
      "time (ms, best phase 2 + synchronize), GFLOP/s (2 x MACs per pass: y, dX, dW),\n"
      "the largest error per output (|got - ref| / sum|terms|) and PASS, FAIL, REFUSED\n"
      "(with the library's status and message) or NOT RUN (out of memory, runtime failure).\n"
      "\n"
      "Exit status: 0 every problem passed; 1 a check failed; 2 bad usage (nothing\n"
      "run); 3 the library refused a problem; 4 a problem could not run (out of\n"
      "memory, runtime failure). With several outcomes: 1, then 4, then 3.\n",
      out);
}
