#pragma once
// --op backward: aclnnConvolutionBackward on every problem of the command
// line (or the built-in set). Returns the tool's exit code.

#include "command_line.h"

int runBackward(const CommandLine& commandLine);
