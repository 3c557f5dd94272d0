// Every operator of the tool on its built-in set and on small problems: the
// results pass against the float64 reference (exit 0), a corrupted result is
// caught (ACLNN_CONV_INJECT_ERROR=1: FAIL, exit 1), a training step prints
// one row per phase and one for the step, and --verbose names the kernel
// algorithm of every pass.

#include <gtest/gtest.h>

#include <algorithm>
#include <regex>
#include <string>
#include <vector>

#include "tool_process.h"

namespace {

int lines(const std::string& text) {
  return static_cast<int>(std::count(text.begin(), text.end(), '\n'));
}

std::string summary(int passed) {
  return std::to_string(passed) + " passed, 0 failed, 0 refused, 0 not run";
}

struct BuiltInSet {
  std::vector<std::string> args;
  const char* header;  // first words of the table's header
  int problems;
};

// Every --op (and the training step of each) passes its built-in set.
TEST(ToolOperators, BuiltInSetsPass) {
  const BuiltInSet sets[] = {
      {{}, "aclnnConvolutionBackward on ", 12},
      {{"--op", "forward"}, "aclnnConvolution on ", 8},
      {{"--op", "tbc"}, "aclnnConvTbc on ", 4},
      {{"--op", "dw"}, "aclnnConvDepthwise2d on ", 5},
      {{"--train-step"}, "training step: aclnnConvolution + aclnnConvolutionBackward on ", 12},
  };
  for (const BuiltInSet& set : sets) {
    std::vector<std::string> args = set.args;
    args.insert(args.end(), {"--repeat", "1"});
    const ToolRun run = runTool(toolPath(), args);
    EXPECT_EQ(run.exitCode, 0) << run.out << run.err;
    EXPECT_EQ(run.out.rfind(set.header, 0), 0u) << run.out;
    EXPECT_NE(run.out.find(summary(set.problems)), std::string::npos) << run.out;
    // --list prints the same set.
    std::vector<std::string> list = set.args;
    list.push_back("--list");
    EXPECT_EQ(lines(runTool(toolPath(), list).out), set.problems) << set.header;
  }
}

TEST(ToolOperators, ForwardRowsCheckY) {
  // Normal, transposed, grouped, 1D/3D, 4-value padding, without bias, empty.
  const ToolRun run =
      runTool(toolPath(),
              {"--op", "forward", "n2c8o4h9w7k3s2p1", "n2c8o4h5w5k3s2p1op1t", "n2c8o8g4w17k3",
               "n1c4o4d5h5w5k3p1", "n2c4o4h6w6k3pt1pb0pl2pr1", "n0c4o4h4w4k3", "--repeat", "1"});
  EXPECT_EQ(run.exitCode, 0) << run.out << run.err;
  EXPECT_NE(run.out.find(" err y  result"), std::string::npos) << run.out;
  EXPECT_TRUE(std::regex_search(
      run.out,
      std::regex(
          "n2c8o4h5w5k3s2p1op1t +n2c8o4h5w5k3s2p1top1 +[0-9.]+ +[0-9.]+ +[0-9.]+e-[0-9]+  PASS")))
      << run.out;
  EXPECT_NE(run.out.find(summary(6)), std::string::npos) << run.out;
  for (const char* dtype : {"fp16", "bf16"}) {
    for (const char* math : {"0", "1", "2", "3", "4"}) {
      const ToolRun typed =
          runTool(toolPath(), {"--op", "forward", "n2c8o4h9w7k3s2p1", "n2c8o4h5w5k3s2p1t", "--bias",
                               "off", "--dtype", dtype, "--math", math, "--repeat", "1"});
      EXPECT_EQ(typed.exitCode, 0) << dtype << " " << math << "\n" << typed.out;
    }
  }
}

// The check's self-test: a result corrupted after the run is a FAIL and
// exit code 1, for every operator and both phases of a training step.
TEST(ToolOperators, CorruptedResultsFail) {
  const std::vector<std::string> inject = {"ACLNN_CONV_INJECT_ERROR=1"};
  const std::vector<std::vector<std::string>> cases = {
      {"n2c4o4h6w6k3p1"},
      {"--op", "forward", "n2c4o4h6w6k3p1"},
      {"--op", "forward", "n2c4o4h6w6k3s2t", "--bias", "off"},
      {"--op", "tbc", "n2c4o6l9k3p1"},
      {"--op", "dw", "n2c4o8g4h6w6k3p1"},
  };
  for (std::vector<std::string> args : cases) {
    args.insert(args.end(), {"--repeat", "1"});
    const ToolRun run = runTool(toolPath(), args, inject);
    EXPECT_EQ(run.exitCode, 1) << run.out << run.err;
    EXPECT_TRUE(std::regex_search(run.out, std::regex("[0-9]e[+-][0-9]+  FAIL\n"))) << run.out;
    EXPECT_NE(run.out.find("0 passed, 1 failed"), std::string::npos) << run.out;
    // Without the injection the same command passes: the check, not the
    // problem, failed above.
    EXPECT_EQ(runTool(toolPath(), args).exitCode, 0) << run.out;
  }
  const ToolRun step =
      runTool(toolPath(), {"--train-step", "n2c4o4h6w6k3p1", "--repeat", "1"}, inject);
  EXPECT_EQ(step.exitCode, 1) << step.out;
  EXPECT_TRUE(std::regex_search(step.out, std::regex("forward .*  FAIL\n")));
  EXPECT_TRUE(std::regex_search(step.out, std::regex("backward .*  FAIL\n")));
  EXPECT_TRUE(std::regex_search(step.out, std::regex("step .*  FAIL\n")));
}

TEST(ToolOperators, TrainingStepRowsPerPhase) {
  const ToolRun run = runTool(toolPath(), {"--train-step", "n2c8o8h10w10k3p1", "--repeat", "2"});
  EXPECT_EQ(run.exitCode, 0) << run.out << run.err;
  const std::string number = "[0-9.]+e[+-][0-9]+";
  EXPECT_TRUE(std::regex_search(run.out, std::regex("phase +time ms +GFLOP/s +err y +err dX +"
                                                    "err dW +err db  result\n")))
      << run.out;
  EXPECT_TRUE(std::regex_search(
      run.out, std::regex("n2c8o8h10w10k3p1 +n2c8o8h10w10k3p1 +forward +[0-9.]+ +[0-9.]+ +" +
                          number + " +- +- +-  PASS\n")))
      << run.out;
  EXPECT_TRUE(std::regex_search(run.out, std::regex("\n +backward +[0-9.]+ +[0-9.]+ +- +" + number +
                                                    " +" + number + " +" + number + "  PASS\n")))
      << run.out;
  EXPECT_TRUE(
      std::regex_search(run.out, std::regex("\n +step +[0-9.]+ +[0-9.]+ +- +- +- +-  PASS\n")))
      << run.out;
  EXPECT_NE(run.out.find(summary(1)), std::string::npos) << run.out;
  // The other operators' steps, without bias and with a partial mask.
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"--op", "tbc", "n3c4o6l12k3p1"},
           {"--op", "dw", "n2c4o8g4h9w9k3s2p1"},
           {"--op", "forward", "n2c4o6h7w7k3s2p1t", "--bias", "off", "--mask", "011"},
           {"n2c4o6w12k3", "--dtype", "bf16", "--math", "1"}}) {
    std::vector<std::string> all = args;
    all.insert(all.end(), {"--train-step", "--repeat", "1"});
    const ToolRun other = runTool(toolPath(), all);
    EXPECT_EQ(other.exitCode, 0) << other.out << other.err;
    EXPECT_NE(other.out.find(summary(1)), std::string::npos) << other.out;
  }
}

// --verbose names the pass each operator runs: the forward pass, or for a
// transposed convolution the backward-data pass of the normal one.
TEST(ToolOperators, VerboseNamesTheAlgorithmOfEveryPass) {
  struct Expect {
    std::vector<std::string> args;
    const char* pattern;
  };
  const Expect cases[] = {
      {{"--op", "forward", "n2c16o16h8w8k3p1"},
       "\n    algorithms: y f32_[a-z0-9_]*fwd[a-z0-9_]*;\n"},
      {{"--op", "forward", "n2c16o16h8w8k3p1t"},
       "\n    algorithms: y f32_[a-z0-9_]*bwdd[a-z0-9_]*;\n"},
      {{"--op", "tbc", "n2c16o16l8k3p1"},
       "self \\[8,2,16\\], weight \\[3,16,16\\], bias \\[16\\], "
       "output \\[8,2,16\\], workspace [0-9]+ bytes\n    "
       "algorithms: y f32_[a-z0-9_]*fwd[a-z0-9_]*;\n"},
      {{"--op", "dw", "n2c16o16g16h8w8k3p1"}, "\n    algorithms: y f32_[a-z0-9_]*fwd[a-z0-9_]*;\n"},
      {{"--train-step", "n2c16o16h8w8k3p1"},
       "\n    forward aclnnConvolution: input \\[2,16,8,8\\], weight \\[16,16,3,3\\], bias "
       "\\[16\\], "
       "output \\[2,16,8,8\\], workspace [0-9]+ bytes\n    forward algorithms: y "
       "f32_[a-z0-9_]*fwd[a-z0-9_]*;\n    backward aclnnConvolutionBackward: gradOutput "
       "\\[2,16,8,8\\], input \\[2,16,8,8\\], weight \\[16,16,3,3\\], workspace [0-9]+ bytes\n    "
       "backward algorithms: dX f32_[a-z0-9_]*bwdd[a-z0-9_]*; dW f32_[a-z0-9_]*bwdw[a-z0-9_]*;\n"},
  };
  for (const Expect& c : cases) {
    std::vector<std::string> args = c.args;
    args.insert(args.end(), {"--verbose", "--repeat", "1"});
    const ToolRun run = runTool(toolPath(), args);
    EXPECT_EQ(run.exitCode, 0) << run.out << run.err;
    EXPECT_TRUE(std::regex_search(run.out, std::regex(c.pattern)))
        << "expected /" << c.pattern << "/ in\n"
        << run.out;
  }
}

}  // namespace
