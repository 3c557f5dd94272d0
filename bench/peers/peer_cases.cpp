#include "peer_cases.h"

#include <set>
#include <string>

namespace peers {
namespace {

// Issue #6, "Why": the layers every target is measured on.
const struct {
  const char* name;
  const char* descriptor;
} kIssueLayers[] = {
    {"RN50 3x3 64ch 56x56", "n8c64o64h56w56k3p1"},
    {"RN50 1x1 256->64 56x56", "n8c256o64h56w56k1"},
    {"RN50 3x3/2 128ch 56x56", "n8c128o128h56w56k3s2p1"},
    {"RN50 1x1/2 256->512 56x56", "n8c256o512h56w56k1s2"},
    {"RN50 3x3 256ch 14x14", "n8c256o256h14w14k3p1"},
    {"RN50 3x3 512ch 7x7", "n8c512o512h7w7k3p1"},
    {"RN50 stem 7x7/2 3->64", "n8c3o64h224w224k7s2p3"},
    {"MNv2 dw 3x3 144ch 56x56", "n32c144o144g144h56w56k3p1"},
    {"ResNeXt g32 3x3 256ch 28", "n16c256o256g32h28w28k3p1"},
    {"dilated 3x3 d2 256ch 28", "n8c256o256h28w28k3p2dl2"},
    {"1D k3 512ch L4000", "n4c512o512w4000k3p1"},
    {"1D k10 s5 512ch L4000", "n4c512o512w4000k10s5"},
    {"wav2vec stem k10 s5", "n4c1o512w32000k10s5"},
    {"3D 3x3x3 64ch 16x56x56", "n1c64o64d16h56w56k3p1"},
    {"transposed 4x4/2 256->128", "n16c256o128h16w16k4s2p1t"},
};

// Issue #9's measured table, then one of each other kind; a fraction of the
// full set's time, so that a run of every direction and precision stays short.
const char* const kLowPrecisionCases[] = {
    "n8c64o64h56w56k3p1",     "n8c256o256h14w14k3p1",     "n8c256o256h28w28k3p2dl2",
    "n4c512o512w4000k3p1",    "n1c64o64d16h56w56k3p1",    "n32c144o144g144h56w56k3p1",
    "n8c256o64h56w56k1",      "n8c128o128g128h56w56k3p1", "n8c256o256g32h28w28k3p1",
    "n8c128o64h28w28k4s2p1t",
};

}  // namespace

std::vector<size_t> lowPrecisionCases(const std::vector<ProblemSpec>& cases) {
  std::vector<size_t> indices;
  for (const char* descriptor : kLowPrecisionCases) {
    ProblemSpec spec;
    std::string error;
    if (!parseProblem(descriptor, &spec, &error)) continue;  // the table is fixed
    for (size_t i = 0; i < cases.size(); ++i)
      if (cases[i].compact() == spec.compact()) {
        indices.push_back(i);
        break;
      }
  }
  return indices;
}

std::vector<ProblemSpec> benchmarkCases() {
  std::vector<ProblemSpec> cases;
  std::set<std::string> seen;
  for (const auto& layer : kIssueLayers) {
    ProblemSpec spec;
    std::string error;
    if (!parseProblem(layer.descriptor, &spec, &error)) continue;  // the table is fixed
    spec.name = layer.name;
    if (seen.insert(spec.compact()).second) cases.push_back(spec);
  }
  for (const ProblemSpec& spec : defaultProblems())
    if (seen.insert(spec.compact()).second) cases.push_back(spec);
  return cases;
}

void nameLikeBuiltInCase(ProblemSpec* spec) {
  for (const ProblemSpec& known : benchmarkCases())
    if (known.compact() == spec->compact()) spec->name = known.name;
}

}  // namespace peers
