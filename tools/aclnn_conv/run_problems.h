#pragma once
// Runs every problem of the command line (or the operator's built-in set)
// through the operator(s) it names and prints the table. Returns the tool's
// exit code.

#include "command_line.h"

int runProblems(const CommandLine& commandLine);
