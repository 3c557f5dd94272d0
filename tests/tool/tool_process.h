#pragma once
// Runs the aclnn-conv binary as a child process with the given arguments and
// collects its exit code, stdout and stderr.

#include <string>
#include <vector>

struct ToolRun {
  int exitCode = -1;  // 128 + signal when killed by one
  std::string out;
  std::string err;
};

// `environment`: extra NAME=VALUE settings for the child only.
ToolRun runTool(const std::string& program, const std::vector<std::string>& args,
                const std::vector<std::string>& environment = {});

// The tool under test and its former name (a symlink to it).
inline std::string toolPath() { return ACLNN_CONV_PATH; }
inline std::string toolAliasPath() { return ACLNN_CONV_ALIAS_PATH; }
