// (c) The all-ones examples of convolution-backward.md 1.1 and
// conv-tbc-backward.md 2, hand-computed, exact equality (every value is a
// small integer, exact in fp32 whatever the summation order).

#include <gtest/gtest.h>

#include "numerics/op_runner.h"

namespace numerics {
namespace {

HostTensor ones(const Shape& shape) {
  HostTensor t(DType::F32, contiguousLayout(shape));
  for (int64_t i = 0; i < t.count(); ++i) t.set(i, 1.0);
  return t;
}

HostTensor output(const Shape& shape) { return HostTensor(DType::F32, contiguousLayout(shape)); }

// Every element equals `value`; reports the first mismatch only.
void expectAll(const HostTensor& t, double value, const char* name) {
  for (int64_t i = 0; i < t.count(); ++i) {
    if (t.get(i) != value) {
      ADD_FAILURE() << name << "[" << i << "] = " << t.get(i) << ", expected " << value;
      return;
    }
  }
}

struct Example {
  Shape gradOutput, input, weight;
  std::vector<int64_t> stride, padding;
  int8_t cubeMathType;
  double gradInput, gradWeight, gradBias;
};

void runExample(const Example& e) {
  const size_t d = e.input.size() - 2;
  ConvAttrs attrs;
  attrs.biasSizes = {e.gradOutput[1]};
  attrs.stride = e.stride;
  attrs.padding = e.padding;
  attrs.dilation.assign(d, 1);
  attrs.outputPadding.assign(d, 0);
  attrs.cubeMathType = e.cubeMathType;
  HostTensor gradInput = output(e.input), gradWeight = output(e.weight),
             gradBias = output({e.gradOutput[1]});
  const OpOutcome outcome = runConvolutionBackward(
      attrs, ones(e.gradOutput), ones(e.input), ones(e.weight), &gradInput, &gradWeight, &gradBias);
  ASSERT_TRUE(outcome.succeeded()) << outcome.describe();
  expectAll(gradInput, e.gradInput, "gradInput");
  expectAll(gradWeight, e.gradWeight, "gradWeight");
  expectAll(gradBias, e.gradBias, "gradBias");
}

TEST(HandCases, DocSample) {
  runExample({{2, 2, 7, 7}, {2, 2, 7, 7}, {2, 2, 1, 1}, {1, 1}, {0, 0}, 1, 2, 98, 98});
}

TEST(HandCases, Example1d) {
  runExample({{4, 2, 3}, {4, 2, 9}, {2, 2, 3}, {3}, {0}, 0, 2, 12, 12});
}

TEST(HandCases, Example3d) {
  runExample(
      {{2, 2, 7, 7, 7}, {2, 2, 7, 7, 7}, {2, 2, 1, 1, 1}, {1, 1, 1}, {0, 0, 0}, 1, 2, 686, 686});
}

// 2d.cpp ([4,320,80,80] / [4,30,80,80] / [320,30,3,3], pad 1, HF32) at batch 1.
// gradInput[h, w] = 320 * taps(h) * taps(w), taps = 3 inside, 2 on the border
// (2880 inside); gradWeight[tap] = N * rows(tap) * cols(tap) with 80 rows for
// the centre row of taps and 79 for the others; gradBias = N * 80 * 80.
TEST(HandCases, Example2dReducedBatch) {
  const int64_t n = 1, size = 80;
  const Shape gradOutputShape = {n, 320, size, size}, inputShape = {n, 30, size, size},
              weightShape = {320, 30, 3, 3};
  ConvAttrs attrs;
  attrs.biasSizes = {320};
  attrs.stride = {1, 1};
  attrs.padding = {1, 1};
  attrs.dilation = {1, 1};
  attrs.outputPadding = {0, 0};
  attrs.cubeMathType = 1;
  HostTensor gradInput = output(inputShape), gradWeight = output(weightShape),
             gradBias = output({320});
  const OpOutcome outcome =
      runConvolutionBackward(attrs, ones(gradOutputShape), ones(inputShape), ones(weightShape),
                             &gradInput, &gradWeight, &gradBias);
  ASSERT_TRUE(outcome.succeeded()) << outcome.describe();

  auto taps = [&](int64_t i) { return 3 - (i == 0) - (i == size - 1); };
  int64_t bad = 0;
  for (int64_t i = 0; i < gradInput.count(); ++i) {
    const int64_t h = i / size % size, w = i % size;
    if (gradInput.get(i) != 320.0 * taps(h) * taps(w) && ++bad <= 3)
      ADD_FAILURE() << "gradInput[" << i << "] (h " << h << ", w " << w
                    << ") = " << gradInput.get(i) << ", expected " << 320 * taps(h) * taps(w);
  }
  EXPECT_EQ(bad, 0);
  EXPECT_EQ(gradInput.get((29 * size + 40) * size + 40), 2880.0);

  auto span = [&](int64_t tap) { return tap == 1 ? size : size - 1; };
  bad = 0;
  for (int64_t i = 0; i < gradWeight.count(); ++i) {
    const int64_t kh = i / 3 % 3, kw = i % 3;
    const double expected = static_cast<double>(n * span(kh) * span(kw));
    if (gradWeight.get(i) != expected && ++bad <= 3)
      ADD_FAILURE() << "gradWeight[" << i << "] = " << gradWeight.get(i) << ", expected "
                    << expected;
  }
  EXPECT_EQ(bad, 0);
  EXPECT_EQ(gradWeight.get(4), n * 6400.0);  // centre
  EXPECT_EQ(gradWeight.get(1), n * 6320.0);  // edge
  EXPECT_EQ(gradWeight.get(0), n * 6241.0);  // corner
  expectAll(gradBias, n * 6400.0, "gradBias");
}

TEST(HandCases, ConvTbcDocSample) {
  HostTensor gradInput = output({5, 1, 2}), gradWeight = output({1, 2, 2}), gradBias = output({2});
  const OpOutcome outcome =
      runConvTbcBackward(ones({5, 1, 2}), ones({5, 1, 2}), ones({1, 2, 2}), ones({2}), 0, 1,
                         &gradInput, &gradWeight, &gradBias, RunOptions{0, false});
  ASSERT_TRUE(outcome.succeeded()) << outcome.describe();
  expectAll(gradInput, 2, "gradInput");
  expectAll(gradWeight, 5, "gradWeight");
  expectAll(gradBias, 5, "gradBias");
}

}  // namespace
}  // namespace numerics
