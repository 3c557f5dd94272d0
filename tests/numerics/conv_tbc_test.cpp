// (g) aclnnConvTbcBackward against float64 loops written here from
// conv-tbc-backward.md section 1:
//   gradInput[t, b, ci]  = sum_k sum_co self[t + pad - k, b, co] * w[k, ci, co]
//   gradWeight[k, ci, co] = sum_b sum_to x[to + k - pad, b, ci] * self[to, b, co]
//   gradBias[co]          = sum_to sum_b self[to, b, co]
// on random problems (pad 0..3, every tensor a random view, mixed dtypes,
// every cubeMathType), plus the empty path, where gradBias is the true sum of
// self (project decision) and the other gradients are zero or empty.
//
// Tolerances: those of conv_oracle.h, with the roundings of section 4.2:
// gradInput passes through the operand dtype, then input's dtype, then its
// own; gradWeight through weight's dtype, then its own; gradBias through
// self's dtype, then its own.

#include <gtest/gtest.h>

#include <cmath>
#include <memory>

#include "numerics/conv_oracle.h"
#include "numerics/op_runner.h"
#include "numerics/random_problem.h"

namespace numerics {
namespace {

constexpr int kProblems = 120;

struct TbcProblem {
  int64_t time, batch, inChannels, outChannels, kernel, pad;
  int64_t outTime() const { return time + 2 * pad - kernel + 1; }
  Shape selfShape() const { return {outTime(), batch, outChannels}; }
  Shape inputShape() const { return {time, batch, inChannels}; }
  Shape weightShape() const { return {kernel, inChannels, outChannels}; }
};

struct TbcGradients {
  std::vector<double> gradInput, gradWeight, gradBias;
};

// Dense row-major [T, B, C] / [K, Cin, Cout] operands.
TbcGradients tbcBackward(const TbcProblem& p, const std::vector<double>& self,
                         const std::vector<double>& x, const std::vector<double>& w) {
  const int64_t T = p.time, B = p.batch, Ci = p.inChannels, Co = p.outChannels, K = p.kernel;
  const int64_t To = p.outTime();
  auto selfAt = [&](int64_t t, int64_t b, int64_t c) { return self[(t * B + b) * Co + c]; };
  auto xAt = [&](int64_t t, int64_t b, int64_t c) { return x[(t * B + b) * Ci + c]; };
  auto wAt = [&](int64_t k, int64_t ci, int64_t co) { return w[(k * Ci + ci) * Co + co]; };
  TbcGradients g;
  g.gradInput.assign(T * B * Ci, 0.0);
  g.gradWeight.assign(K * Ci * Co, 0.0);
  g.gradBias.assign(Co, 0.0);
  for (int64_t t = 0; t < T; ++t)
    for (int64_t b = 0; b < B; ++b)
      for (int64_t ci = 0; ci < Ci; ++ci) {
        double sum = 0.0;
        for (int64_t k = 0; k < K; ++k) {
          const int64_t to = t + p.pad - k;
          if (to < 0 || to >= To) continue;
          for (int64_t co = 0; co < Co; ++co) sum += selfAt(to, b, co) * wAt(k, ci, co);
        }
        g.gradInput[(t * B + b) * Ci + ci] = sum;
      }
  for (int64_t k = 0; k < K; ++k)
    for (int64_t ci = 0; ci < Ci; ++ci)
      for (int64_t co = 0; co < Co; ++co) {
        double sum = 0.0;
        for (int64_t b = 0; b < B; ++b)
          for (int64_t to = 0; to < To; ++to) {
            const int64_t t = to + k - p.pad;
            if (t >= 0 && t < T) sum += xAt(t, b, ci) * selfAt(to, b, co);
          }
        g.gradWeight[(k * Ci + ci) * Co + co] = sum;
      }
  for (int64_t to = 0; to < To; ++to)
    for (int64_t b = 0; b < B; ++b)
      for (int64_t co = 0; co < Co; ++co) g.gradBias[co] += selfAt(to, b, co);
  return g;
}

std::vector<double> absolute(std::vector<double> v) {
  for (double& x : v) x = std::fabs(x);
  return v;
}

ElementBounds withBounds(const std::vector<double>& value, const std::vector<double>& absSum,
                         int64_t terms, std::initializer_list<DType> roundings) {
  ElementBounds b{value, std::vector<double>(value.size())};
  for (size_t i = 0; i < value.size(); ++i) {
    double e = accumulationBound(terms, absSum[i]);
    for (DType t : roundings) e = afterRounding(t, value[i], e);
    b.tolerance[i] = e;
  }
  return b;
}

DType randomDtype(Rng& rng) { return static_cast<DType>(rng() % 3); }

std::unique_ptr<HostTensor> randomView(DType dtype, const Shape& shape, Rng& rng) {
  return std::make_unique<HostTensor>(dtype, makeLayout(shape, randomLayoutKind(rng), rng));
}

TEST(ConvTbc, RandomProblemsMatchFloat64Loops) {
  for (int index = 0; index < kProblems; ++index) {
    Rng rng(0x7BCull * 7919 + index);
    auto pick = [&](int64_t lo, int64_t hi) {
      return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
    };
    TbcProblem p{pick(1, 8), pick(1, 3), pick(1, 4), pick(1, 4), pick(1, 4), pick(0, 3)};
    if (p.outTime() < 1) p.time += 1 - p.outTime();
    const DType selfType = randomDtype(rng), inputType = randomDtype(rng),
                weightType = randomDtype(rng), biasType = randomDtype(rng);
    const DType gradInputType = randomDtype(rng), gradWeightType = randomDtype(rng),
                gradBiasType = randomDtype(rng);
    const auto cube = static_cast<int8_t>(pick(0, 3));
    SCOPED_TRACE("problem " + std::to_string(index) + ": T" + std::to_string(p.time) + " B" +
                 std::to_string(p.batch) + " Cin" + std::to_string(p.inChannels) + " Cout" +
                 std::to_string(p.outChannels) + " K" + std::to_string(p.kernel) + " pad" +
                 std::to_string(p.pad) + " cube" + std::to_string(cube) + " self/input/weight " +
                 dtypeName(selfType) + "/" + dtypeName(inputType) + "/" + dtypeName(weightType) +
                 " outputs " + dtypeName(gradInputType) + "/" + dtypeName(gradWeightType) + "/" +
                 dtypeName(gradBiasType));

    auto self = randomView(selfType, p.selfShape(), rng);
    auto input = randomView(inputType, p.inputShape(), rng);
    auto weight = randomView(weightType, p.weightShape(), rng);
    auto bias = randomView(biasType, {p.outChannels}, rng);
    fillRandom(self.get(), rng);
    fillRandom(input.get(), rng);
    fillRandom(weight.get(), rng);
    fillRandom(bias.get(), rng);
    auto gradInput = randomView(gradInputType, p.inputShape(), rng);
    auto gradWeight = randomView(gradWeightType, p.weightShape(), rng);
    auto gradBias = randomView(gradBiasType, {p.outChannels}, rng);
    RunOptions options;
    options.rank3AsNcl = rng() % 2;

    const OpOutcome outcome =
        runConvTbcBackward(*self, *input, *weight, *bias, p.pad, cube, gradInput.get(),
                           gradWeight.get(), gradBias.get(), options);
    ASSERT_TRUE(outcome.succeeded()) << outcome.describe();

    const auto rounding = operandRoundingOf(selfType, inputType, weightType, cube);
    const auto dy = roundOperands(self->dense(), rounding);
    const auto x = roundOperands(input->dense(), rounding);
    const auto w = roundOperands(weight->dense(), rounding);
    const TbcGradients exact = tbcBackward(p, dy, x, w);
    const TbcGradients magnitude = tbcBackward(p, absolute(dy), absolute(x), absolute(w));
    const auto original = self->dense();
    const TbcGradients bias0 = tbcBackward(p, original, x, w);
    const TbcGradients biasMagnitude = tbcBackward(p, absolute(original), x, w);

    const DType dataGrad = dataGradDtypeOf(selfType, inputType, weightType, cube);
    EXPECT_EQ(
        compareOutput("gradInput", *gradInput,
                      withBounds(exact.gradInput, magnitude.gradInput, p.kernel * p.outChannels,
                                 {dataGrad, inputType, gradInputType})),
        "");
    EXPECT_EQ(compareOutput("gradWeight", *gradWeight,
                            withBounds(exact.gradWeight, magnitude.gradWeight,
                                       p.batch * p.outTime(), {weightType, gradWeightType})),
              "");
    EXPECT_EQ(compareOutput("gradBias", *gradBias,
                            withBounds(bias0.gradBias, biasMagnitude.gradBias,
                                       p.batch * p.outTime(), {selfType, gradBiasType})),
              "");
    EXPECT_EQ(gradInput->outOfViewDamage(), "");
    EXPECT_EQ(gradWeight->outOfViewDamage(), "");
    EXPECT_EQ(gradBias->outOfViewDamage(), "");
  }
}

// Section 4.2: gradInput is produced in input's dtype and gradWeight in
// weight's before the cast to the caller's outputs (all fp32 here). One
// element each (T = B = C = K = 1), so gradInput = self * w and
// gradWeight = x * self exactly before those roundings.
TEST(ConvTbc, IntermediateDtypesOfInputAndWeight) {
  auto one = [](DType t, double v) {
    HostTensor h(t, contiguousLayout({1, 1, 1}));
    h.set(0, v);
    return h;
  };
  HostTensor bias(DType::F32, contiguousLayout({1}));
  struct Row {
    double self;
    DType inputType, weightType;
    uint32_t gradInput, gradWeight;
  };
  const Row rows[] = {
      // 1+2^-11 through an fp16 input: tie to even -> 1; weight fp32 keeps it.
      {1 + 0x1p-11, DType::F16, DType::F32, 0x3F800000, 0x3F801000},
      // 1+2^-8 through a bf16 weight: tie to even -> 1; input fp32 keeps it.
      {1 + 0x1p-8, DType::F32, DType::BF16, 0x3F808000, 0x3F800000},
  };
  for (const Row& r : rows) {
    HostTensor gradInput(DType::F32, contiguousLayout({1, 1, 1}));
    HostTensor gradWeight(DType::F32, contiguousLayout({1, 1, 1}));
    HostTensor gradBias(DType::F32, contiguousLayout({1}));
    const OpOutcome outcome =
        runConvTbcBackward(one(DType::F32, r.self), one(r.inputType, 1.0), one(r.weightType, 1.0),
                           bias, 0, 0, &gradInput, &gradWeight, &gradBias);
    ASSERT_TRUE(outcome.succeeded()) << outcome.describe();
    EXPECT_EQ(gradInput.bitsAt(0), r.gradInput) << "self " << r.self;
    EXPECT_EQ(gradWeight.bitsAt(0), r.gradWeight) << "self " << r.self;
    EXPECT_EQ(gradBias.get(0), r.self) << "gradBias is self's sum, fp32 throughout";
  }
}

// Empty path (section 4.1 with the project decision): integer-valued self so
// every sum is exact.
void checkEmpty(const TbcProblem& p) {
  SCOPED_TRACE("T" + std::to_string(p.time) + " B" + std::to_string(p.batch) + " Cin" +
               std::to_string(p.inChannels) + " Cout" + std::to_string(p.outChannels) + " K" +
               std::to_string(p.kernel) + " pad" + std::to_string(p.pad));
  Rng rng(p.time * 100 + p.kernel * 10 + p.inChannels);
  HostTensor self(DType::F32, makeLayout(p.selfShape(), LayoutKind::Permuted, rng));
  for (int64_t i = 0; i < self.count(); ++i) self.set(i, static_cast<double>(rng() % 9) - 4.0);
  HostTensor input(DType::F32, contiguousLayout(p.inputShape()));
  HostTensor weight(DType::F32, contiguousLayout(p.weightShape()));
  HostTensor bias(DType::F32, contiguousLayout({p.outChannels}));
  HostTensor gradInput(DType::F32, makeLayout(p.inputShape(), LayoutKind::Gapped, rng));
  HostTensor gradWeight(DType::F16, makeLayout(p.weightShape(), LayoutKind::Gapped, rng));
  HostTensor gradBias(DType::F32, makeLayout({p.outChannels}, LayoutKind::Gapped, rng));
  const OpOutcome outcome =
      runConvTbcBackward(self, input, weight, bias, p.pad, 0, &gradInput, &gradWeight, &gradBias);
  ASSERT_TRUE(outcome.succeeded()) << outcome.describe();
  const TbcGradients truth =
      tbcBackward(p, self.dense(), input.dense(), weight.dense());  // zeros but gradBias
  for (int64_t i = 0; i < gradInput.count(); ++i) EXPECT_EQ(gradInput.get(i), 0.0) << i;
  for (int64_t i = 0; i < gradWeight.count(); ++i) EXPECT_EQ(gradWeight.get(i), 0.0) << i;
  for (int64_t c = 0; c < p.outChannels; ++c)
    EXPECT_EQ(gradBias.get(c), truth.gradBias[c]) << "gradBias[" << c << "] (the sum of self)";
  EXPECT_EQ(gradInput.outOfViewDamage(), "");
  EXPECT_EQ(gradWeight.outOfViewDamage(), "");
  EXPECT_EQ(gradBias.outOfViewDamage(), "");
}

TEST(ConvTbc, EmptyPathGivesTrueBiasSums) {
  checkEmpty({5, 1, 2, 2, 0, 0});  // empty weight (K = 0): self [6, 1, 2]
  checkEmpty({0, 1, 2, 2, 1, 1});  // empty input (T = 0): self [2, 1, 2]
  checkEmpty({0, 1, 2, 2, 0, 0});  // both empty: self [1, 1, 2]
  checkEmpty({4, 3, 0, 3, 2, 1});  // C_in = 0: self [5, 3, 3]
  checkEmpty({6, 2, 3, 4, 0, 2});  // K = 0 with padding: self [11, 2, 4]
}

}  // namespace
}  // namespace numerics
