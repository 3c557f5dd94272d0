#include "problem_sets.h"

#include <string>

namespace {

struct Entry {
  const char* name;
  const char* spec;
};

template <size_t N>
std::vector<ProblemSpec> parsed(const Entry (&table)[N]) {
  std::vector<ProblemSpec> problems;
  for (const Entry& entry : table) {
    ProblemSpec spec;
    std::string error;
    parseProblem(entry.spec, &spec, &error);
    spec.name = entry.name;
    problems.push_back(spec);
  }
  return problems;
}

const Entry kForward[] = {
    {"resnet50 res2 3x3", "n4c64o64h56w56k3p1"},
    {"resnet50 res2 1x1", "n4c256o64h56w56k1"},
    {"resnet50 res3 3x3/2", "n4c128o128h56w56k3s2p1"},
    {"resnext grouped 3x3 g32", "n4c256o256g32h28w28k3p1"},
    {"1D audio k5", "n4c64o128l2048k5p2"},
    {"3D video 3x3x3", "n2c32o32d8h28w28k3p1"},
    {"transposed 4x4/2", "n4c128o64h28w28k4s2p1t"},
    {"transposed 3D 2x2x2/2", "n2c32o16d8h14w14k2s2t"},
};

// aclnnConvTbc: n batch B, c C_in, o C_out, l time T, k K, p pad.
const Entry kTbc[] = {
    {"fconv encoder k3", "n16c256o512l128k3p1"},
    {"fconv decoder k5", "n8c512o512l256k5p2"},
    {"tbc 1x1 projection", "n32c128o256l64k1"},
    {"tbc k4 no padding", "n8c64o64l100k4"},
};

const Entry kDepthwise[] = {
    {"mobilenet dw 3x3", "n4c128o128g128h56w56k3p1"},
    {"mobilenet dw 3x3/2", "n4c256o256g256h28w28k3s2p1"},
    {"efficientnet dw 5x5", "n4c96o96g96h28w28k5p2"},
    {"dw multiplier 2", "n4c32o64g32h56w56k3p1"},
    {"dw dilated 3x3 d2", "n2c64o64g64h32w32k3p2dl2"},
};

}  // namespace

std::vector<ProblemSpec> builtInProblems(OpKind op, bool trainStep) {
  switch (op) {
    case OpKind::kTbc:
      return parsed(kTbc);
    case OpKind::kDepthwise:
      return parsed(kDepthwise);
    case OpKind::kForward:
      return parsed(kForward);
    case OpKind::kBackward:
      break;
  }
  // The backward set is the main job's: realistic layers of every kind, so
  // a training step of aclnnConvolution runs it too.
  (void)trainStep;
  return defaultProblems();
}
