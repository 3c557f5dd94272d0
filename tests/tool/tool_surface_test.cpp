// The tool's surface: --help and --list, the former name, every option of
// --help documented in docs/tool.md, and the progress line.

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include "tool_process.h"

namespace {

std::string readFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(ToolSurface, HelpDocumentsOptionsValuesAndDefaults) {
  const ToolRun run = runTool(toolPath(), {"--help"});
  EXPECT_EQ(run.exitCode, 0);
  EXPECT_EQ(run.err, "");
  for (const char* needle :
       {"usage: aclnn-conv", "--op NAME", "--dtype TYPE", "fp32, fp16 or bf16", "Default fp32",
        "0 KEEP_DTYPE", "1 ALLOW_FP32_DOWN_PRECISION", "2 USE_FP16", "3 USE_HF32",
        "gradInput (dX),", "gradWeight (dW), gradBias (db). Default 111", "Default 3.",
        "Default 256.", "--threads N", "Default: ACLNN_CPU_THREADS", "on or off. Default auto.",
        "Exit status: 0"}) {
    EXPECT_NE(run.out.find(needle), std::string::npos) << "--help lacks '" << needle << "'";
  }
}

TEST(ToolSurface, EveryHelpOptionIsInTheToolReference) {
  const std::string help = runTool(toolPath(), {"--help"}).out;
  const std::string reference = readFile(std::string(ACLNN_CPU_SOURCE_DIR) + "/docs/tool.md");
  ASSERT_FALSE(reference.empty()) << "docs/tool.md is missing";
  std::set<std::string> options;
  const std::regex option("--[a-z][a-z-]*");
  for (std::sregex_iterator it(help.begin(), help.end(), option), end; it != end; ++it)
    options.insert(it->str());
  EXPECT_GE(options.size(), 11u);
  for (const std::string& name : options)
    EXPECT_NE(reference.find("`" + name), std::string::npos)
        << "docs/tool.md does not document " << name;
}

TEST(ToolSurface, ListPrintsTheBuiltInSet) {
  const ToolRun run = runTool(toolPath(), {"--list"});
  EXPECT_EQ(run.exitCode, 0);
  EXPECT_NE(run.out.find("resnet50 conv1 7x7/2       n4c3o64h224w224k7s2p3"), std::string::npos)
      << run.out;
  EXPECT_EQ(std::count(run.out.begin(), run.out.end(), '\n'), 12);
}

TEST(ToolSurface, FormerNameRunsTheSameTool) {
  const ToolRun run = runTool(toolAliasPath(), {"n1c1o1h4w4k3", "--repeat", "1"});
  EXPECT_EQ(run.exitCode, 0) << run.out << run.err;
  EXPECT_NE(run.out.find("1 passed, 0 failed, 0 refused, 0 not run"), std::string::npos) << run.out;
}

// A problem that runs for more than a second shows the line on request, and
// erases it before the row is printed. The repetitions grow until the run
// takes 1.5 s on this machine, so the check does not depend on its speed.
TEST(ToolSurface, ProgressLineForLongProblems) {
  ToolRun run;
  double seconds = 0;
  for (int repeats = 1000; repeats <= 1000 * 4 * 4; repeats *= 4) {
    const auto start = std::chrono::steady_clock::now();
    run = runTool(toolPath(), {"n1c32o32h64w64k3p1", "--repeat", std::to_string(repeats),
                               "--threads", "1", "--progress", "on", "--mask", "100"});
    seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    ASSERT_EQ(run.exitCode, 0) << run.out << run.err;
    if (seconds >= 1.5) break;
  }
  ASSERT_GE(seconds, 1.5) << "could not make the problem run long enough";
  EXPECT_TRUE(std::regex_search(
      run.err, std::regex("\\r\\x1b\\[Kproblem 1/1 n1c32o32h64w64k3p1: running, [0-9]+/[0-9]+ "
                          "repetitions, [0-9.]+ s")))
      << run.err;
  ASSERT_GE(run.err.size(), 4u);
  EXPECT_EQ(run.err.substr(run.err.size() - 4), "\r\x1b[K") << "the line must be erased";
  // Off (and auto, which is off without a terminal) writes nothing.
  const ToolRun quiet = runTool(toolPath(), {"n1c1o1h4w4k3", "--repeat", "1"});
  EXPECT_EQ(quiet.err, "");
}

}  // namespace
