// (a) A seeded sweep of small problems through the public API against the
// float64 reference, with the error bounds of conv_oracle.h. Every operand
// and output is a random view (contiguous, offset + padded rows, permuted
// dims, gapped); out-of-view storage must keep its sentinel bytes and
// masked-off outputs must stay byte-identical.
//
// A failing case is reproducible from its index: the rng is seeded per case.

#include <gtest/gtest.h>

#include <iostream>
#include <map>
#include <memory>
#include <sstream>

#include "numerics/conv_oracle.h"
#include "numerics/op_runner.h"
#include "numerics/random_problem.h"

namespace numerics {
namespace {

constexpr int kCases = 4000;
constexpr int kMediumCases = 240;
constexpr uint64_t kSeed = 0x5EEDC0DE2024ull;

struct Coverage {
  std::map<std::string, int> counts;
  void add(const std::string& key) { ++counts[key]; }
  int operator[](const std::string& key) const {
    auto it = counts.find(key);
    return it == counts.end() ? 0 : it->second;
  }
};

void tally(const ConvCase& c, Coverage* cov) {
  const int d = c.spatialDims();
  cov->add(std::to_string(d) + "d");
  if (c.transposed) cov->add("transposed");
  const Shape& x = c.transposed ? c.gradOutputShape : c.inputShape;
  if (c.groups > 1 && x[1] == c.groups) {
    cov->add("depthwise");
    if (c.weightShape[0] > c.groups) cov->add("depthwise multiplier");
  } else if (c.groups > 1) {
    cov->add("grouped");
  }
  for (int s = 0; s < d; ++s) {
    if (c.stride[s] > c.weightShape[2 + s]) cov->add("stride > kernel");
    if (c.stride[s] < c.weightShape[2 + s]) cov->add("kernel > stride");
    if (c.dilation[s] > 1) cov->add("dilation");
    if (c.transposed && c.outputPadding[s] > 0) cov->add("output padding");
  }
  if (c.padding.size() == 4) cov->add("4-value padding");
  cov->add("mask " + std::to_string(c.mask[0]) + std::to_string(c.mask[1]) +
           std::to_string(c.mask[2]));
  cov->add("cube " + std::to_string(int(c.cubeMathType)));
  const bool mixed = !(c.gradOutputType == c.inputType && c.inputType == c.weightType);
  cov->add(mixed ? "mixed inputs" : std::string("uniform ") + dtypeName(c.inputType));
  for (DType t : {c.gradInputType, c.gradWeightType, c.gradBiasType})
    cov->add(std::string("output ") + dtypeName(t));
}

struct CaseTensors {
  std::unique_ptr<HostTensor> gradOutput, input, weight, gradInput, gradWeight, gradBias;
};

std::unique_ptr<HostTensor> randomView(DType dtype, const Shape& shape, Rng& rng, Coverage* cov,
                                       bool isInput = false) {
  const LayoutKind kind = isInput ? randomInputLayoutKind(rng) : randomLayoutKind(rng);
  cov->add(std::string("layout ") + layoutKindName(kind));
  return std::make_unique<HostTensor>(dtype, makeLayout(shape, kind, rng));
}

Rng caseRng(uint64_t seed, int index) {
  return Rng(seed + static_cast<uint64_t>(index) * 0x9E3779B97F4A7C15ull);
}

RandomCaseOptions caseOptions(int index, bool medium) {
  RandomCaseOptions options;
  options.maskBits = index % 8;  // every mask, equally often
  options.medium = medium;
  return options;
}

// Runs case `index`; returns "" or what went wrong.
std::string runCase(uint64_t seed, int index, bool medium, Coverage* cov) {
  Rng rng = caseRng(seed, index);
  const ConvCase c = randomConvCase(rng, caseOptions(index, medium));
  tally(c, cov);

  CaseTensors t;
  t.gradOutput = randomView(c.gradOutputType, c.gradOutputShape, rng, cov, true);
  t.input = randomView(c.inputType, c.inputShape, rng, cov, true);
  t.weight = randomView(c.weightType, c.weightShape, rng, cov, true);
  fillRandom(t.gradOutput.get(), rng);
  fillRandom(t.input.get(), rng);
  fillRandom(t.weight.get(), rng);
  // A masked-off output is passed as a real (validated, untouched) tensor
  // half of the time, else as nullptr.
  if (c.mask[0] || rng() % 2) t.gradInput = randomView(c.gradInputType, c.inputShape, rng, cov);
  if (c.mask[1] || rng() % 2) t.gradWeight = randomView(c.gradWeightType, c.weightShape, rng, cov);
  if (c.mask[2] || rng() % 2) t.gradBias = randomView(c.gradBiasType, c.biasShape(), rng, cov);
  RunOptions run;
  run.rank3AsNcl = rng() % 2;

  const std::vector<uint8_t> untouched[3] = {
      t.gradInput ? t.gradInput->storage() : std::vector<uint8_t>{},
      t.gradWeight ? t.gradWeight->storage() : std::vector<uint8_t>{},
      t.gradBias ? t.gradBias->storage() : std::vector<uint8_t>{}};

  const OpOutcome outcome =
      runConvolutionBackward(c.attrs(), *t.gradOutput, *t.input, *t.weight, t.gradInput.get(),
                             t.gradWeight.get(), t.gradBias.get(), run);
  std::ostringstream problems;
  if (!outcome.succeeded()) {
    problems << "\n  run failed: " << outcome.describe();
    return problems.str();
  }
  const ConvExpectation e =
      expectConvolutionBackward(c, t.gradOutput->dense(), t.input->dense(), t.weight->dense());
  const char* names[3] = {"gradInput", "gradWeight", "gradBias"};
  HostTensor* outputs[3] = {t.gradInput.get(), t.gradWeight.get(), t.gradBias.get()};
  const ElementBounds* expected[3] = {&e.gradInput, &e.gradWeight, &e.gradBias};
  for (int k = 0; k < 3; ++k) {
    if (!outputs[k]) continue;
    std::string issue;
    if (c.mask[k]) {
      issue = compareOutput(names[k], *outputs[k], *expected[k]);
      const std::string damage = outputs[k]->outOfViewDamage();
      if (!damage.empty()) issue += std::string("\n  ") + names[k] + ": " + damage;
    } else {
      issue = outputs[k]->changedSince(untouched[k]);
      if (!issue.empty()) issue = std::string(names[k]) + " (masked off): " + issue;
    }
    if (!issue.empty()) problems << "\n  " << issue;
  }
  return problems.str();
}

// Runs cases [0, count); returns the number that failed (the first few are
// reported with their index and description).
int runCases(uint64_t seed, int count, bool medium, Coverage* cov) {
  int failures = 0;
  for (int index = 0; index < count; ++index) {
    const std::string issue = runCase(seed, index, medium, cov);
    if (issue.empty()) continue;
    if (++failures <= 15) {
      Rng rng = caseRng(seed, index);
      ADD_FAILURE() << "case " << index << ": "
                    << randomConvCase(rng, caseOptions(index, medium)).describe() << issue;
    }
  }
  return failures;
}

TEST(RandomSweep, MatchesFloat64ReferenceWithinBounds) {
  Coverage cov;
  const int failures = runCases(kSeed, kCases, false, &cov);
  EXPECT_EQ(failures, 0) << "of " << kCases << " cases";

  std::ostringstream summary;
  for (const auto& [key, count] : cov.counts) summary << key << "=" << count << " ";
  RecordProperty("coverage", summary.str());
  std::cout << "[ coverage ] " << summary.str() << "\n";

  // The generator must keep reaching every feature the sweep claims.
  for (const char* key : {"1d",
                          "2d",
                          "3d",
                          "transposed",
                          "depthwise",
                          "depthwise multiplier",
                          "grouped",
                          "stride > kernel",
                          "kernel > stride",
                          "dilation",
                          "output padding",
                          "4-value padding",
                          "cube 0",
                          "cube 1",
                          "cube 2",
                          "cube 3",
                          "mixed inputs",
                          "uniform f32",
                          "uniform f16",
                          "uniform bf16",
                          "output f32",
                          "output f16",
                          "output bf16",
                          "layout contig",
                          "layout padded",
                          "layout permuted",
                          "layout gapped",
                          "layout broadcast"})
    EXPECT_GE(cov[key], 20) << key;
  for (int m = 0; m < 8; ++m)
    EXPECT_EQ(cov["mask " + std::to_string(m & 1) + std::to_string((m >> 1) & 1) +
                  std::to_string((m >> 2) & 1)],
              kCases / 8);
}

// Fewer, bigger problems (tens of channels, longer reductions) for the
// engine's blocked and multi-threaded paths, same checks.
TEST(RandomSweep, MediumProblemsMatchFloat64Reference) {
  Coverage cov;
  const int failures = runCases(kSeed ^ 0x3D1Dull, kMediumCases, true, &cov);
  EXPECT_EQ(failures, 0) << "of " << kMediumCases << " cases";
}

}  // namespace
}  // namespace numerics
