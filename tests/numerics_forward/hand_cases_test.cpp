// Hand-derived forward results on all-ones data (the upstream examples of
// convolution-forward.md section 1.4 and a few more layouts), and exact cases
// for decision 8: the bias joins the fp32 sum before the single rounding to
// the compute dtype, it is rounded to fp16 first only when that dtype is
// fp16, HF32 never touches it, and the result is rounded to the compute dtype
// before the cast to the output's dtype.

#include <gtest/gtest.h>

#include <cmath>

#include "numerics_forward/forward_case.h"

namespace numerics {
namespace {

HostTensor filled(DType dtype, const Shape& shape, double value) {
  HostTensor t(dtype, contiguousLayout(shape));
  t.setDense(std::vector<double>(static_cast<size_t>(elementCount(shape)), value));
  return t;
}

HostTensor valued(DType dtype, const Shape& shape, const std::vector<double>& values) {
  HostTensor t(dtype, contiguousLayout(shape));
  t.setDense(values);
  return t;
}

ForwardConvAttrs attrsFor(int d, bool transposed, aclFormat format) {
  ForwardConvAttrs a;
  a.stride.assign(d, 1);
  a.padding.assign(d, 0);
  a.dilation.assign(d, 1);
  a.outputPadding.assign(d, 0);
  a.transposed = transposed;
  a.inputFormat = a.weightFormat = a.outputFormat = format;
  return a;
}

aclFormat formatFor(int d) {
  return d == 1 ? ACL_FORMAT_NCL : d == 2 ? ACL_FORMAT_NCHW : ACL_FORMAT_NCDHW;
}

void expectAll(const HostTensor& got, const std::vector<double>& expected) {
  ASSERT_EQ(got.count(), static_cast<int64_t>(expected.size()));
  for (int64_t i = 0; i < got.count(); ++i) EXPECT_EQ(got.get(i), expected[i]) << "element " << i;
}

// c(o) per dim, multiplied over the dims: [1, 2, 1] x ... for the 2-tap examples.
std::vector<double> outerProduct(int64_t outer, const std::vector<std::vector<double>>& dims,
                                 double scale, double offset) {
  std::vector<double> values = {1.0};
  for (const auto& dim : dims) {
    std::vector<double> next;
    for (double v : values)
      for (double f : dim) next.push_back(v * f);
    values = next;
  }
  std::vector<double> out;
  for (int64_t n = 0; n < outer; ++n)
    for (double v : values) out.push_back(scale * v + offset);
  return out;
}

TEST(ForwardHandCases, Conv2dDocExampleIsTwo) {
  const auto input = filled(DType::F32, {2, 2, 2, 2}, 1),
             weight = filled(DType::F32, {1, 2, 1, 1}, 1);
  HostTensor output(DType::F32, contiguousLayout({2, 1, 2, 2}));
  ForwardConvAttrs a = attrsFor(2, false, ACL_FORMAT_NCHW);
  a.cubeMathType = 1;
  const OpOutcome o = runConvolution(a, input, weight, nullptr, &output);
  ASSERT_TRUE(o.succeeded()) << o.describe();
  expectAll(output, std::vector<double>(8, 2.0));
}

TEST(ForwardHandCases, Conv3dDocExampleIsTwo) {
  const auto input = filled(DType::F32, {2, 2, 2, 2, 2}, 1),
             weight = filled(DType::F32, {1, 2, 1, 1, 1}, 1);
  HostTensor output(DType::F32, contiguousLayout({2, 1, 2, 2, 2}));
  ForwardConvAttrs a = attrsFor(3, false, ACL_FORMAT_NCDHW);
  a.cubeMathType = 1;
  const OpOutcome o = runConvolution(a, input, weight, nullptr, &output);
  ASSERT_TRUE(o.succeeded()) << o.describe();
  expectAll(output, std::vector<double>(16, 2.0));
}

// The transposed examples: 16 channels, 2-tap kernels: 16 * prod c(o), c = [1, 2, 1].
TEST(ForwardHandCases, TransposedExamples1d2d3d) {
  for (int d = 1; d <= 3; ++d) {
    Shape in = {1, 16}, w = {16, 16}, out = {1, 16};
    std::vector<std::vector<double>> dims;
    for (int i = 0; i < d; ++i) {
      in.push_back(2);
      w.push_back(2);
      out.push_back(3);
      dims.push_back({1, 2, 1});
    }
    const auto input = filled(DType::F32, in, 1), weight = filled(DType::F32, w, 1);
    HostTensor output(DType::F32, contiguousLayout(out));
    const OpOutcome o =
        runConvolution(attrsFor(d, true, formatFor(d)), input, weight, nullptr, &output);
    ASSERT_TRUE(o.succeeded()) << d << "D: " << o.describe();
    expectAll(output, outerProduct(16, dims, 16, 0));
  }
}

TEST(ForwardHandCases, DepthwiseDocExampleIsTwo) {
  const auto self = filled(DType::F32, {2, 2, 2, 2}, 1),
             weight = filled(DType::F32, {2, 1, 1, 1}, 1), bias = filled(DType::F32, {2}, 1);
  HostTensor out(DType::F32, contiguousLayout({2, 2, 2, 2}));
  DepthwiseAttrs a{{1, 1}, {1, 1}, {0, 0}, {1, 1}, 1};
  const OpOutcome o = runConvDepthwise2d(a, self, weight, &bias, &out);
  ASSERT_TRUE(o.succeeded()) << o.describe();
  expectAll(out, std::vector<double>(16, 2.0));
}

// Multiplier 2: output channel co reads input channel co / 2 only; distinct
// input channel values show which one.
TEST(ForwardHandCases, DepthwiseMultiplierReadsItsOwnChannel) {
  const auto self = valued(DType::F32, {1, 2, 1, 1}, {3, 5});
  const auto weight = valued(DType::F32, {4, 1, 1, 1}, {1, 2, 1, 2});
  HostTensor out(DType::F32, contiguousLayout({1, 4, 1, 1}));
  DepthwiseAttrs a{{1, 1}, {1, 1}, {0, 0}, {1, 1}, 0};
  const OpOutcome o = runConvDepthwise2d(a, self, weight, nullptr, &out);
  ASSERT_TRUE(o.succeeded()) << o.describe();
  expectAll(out, {3, 6, 5, 10});
}

TEST(ForwardHandCases, ConvTbcDocExampleIsSeven) {
  const auto self = filled(DType::F32, {2, 2, 3}, 1), weight = filled(DType::F32, {3, 3, 4}, 1),
             bias = filled(DType::F32, {4}, 1);
  HostTensor output(DType::F32, contiguousLayout({2, 2, 4}));
  const OpOutcome o = runConvTbc(self, weight, bias, 1, 1, &output);
  ASSERT_TRUE(o.succeeded()) << o.describe();
  expectAll(output, std::vector<double>(16, 7.0));
}

// 1D [left, right] = [2, 0]: out[o] counts taps o - 2 + k in [0, 4): [1, 2, 3, 3].
TEST(ForwardHandCases, Conv1dLeftRightPadding) {
  const auto input = filled(DType::F32, {1, 1, 4}, 1), weight = filled(DType::F32, {1, 1, 3}, 1);
  HostTensor output(DType::F32, contiguousLayout({1, 1, 4}));
  ForwardConvAttrs a = attrsFor(1, false, ACL_FORMAT_NCL);
  a.padding = {2, 0};
  const OpOutcome o = runConvolution(a, input, weight, nullptr, &output);
  ASSERT_TRUE(o.succeeded()) << o.describe();
  expectAll(output, {1, 2, 3, 3});
}

// NDHWC input/output with an NCDHW weight: input [1, 2, 2, 2, 3] (C = 3),
// weight [2, 3, 1, 1, 1], output [1, 2, 2, 2, 2]; channel c of the input
// holds c + 1, so every output is 1 + 2 + 3 = 6, times weight (1 or 2).
TEST(ForwardHandCases, Conv3dChannelsLast) {
  std::vector<double> in;
  for (int s = 0; s < 8; ++s)
    for (int c = 0; c < 3; ++c) in.push_back(c + 1);
  const auto input = valued(DType::F32, {1, 2, 2, 2, 3}, in);
  const auto weight = valued(DType::F32, {2, 3, 1, 1, 1}, {1, 1, 1, 2, 2, 2});
  HostTensor output(DType::F32, contiguousLayout({1, 2, 2, 2, 2}));
  ForwardConvAttrs a = attrsFor(3, false, ACL_FORMAT_NDHWC);
  a.weightFormat = ACL_FORMAT_NCDHW;
  const OpOutcome o = runConvolution(a, input, weight, nullptr, &output);
  ASSERT_TRUE(o.succeeded()) << o.describe();
  std::vector<double> expected;
  for (int s = 0; s < 8; ++s) {
    expected.push_back(6);
    expected.push_back(12);
  }
  expectAll(output, expected);
}

// --- decision 8, exact bits -------------------------------------------------

constexpr double kU12 = 0x1p-12;

// A 1x1 convolution summing `values` (one per input channel, weights 1) plus
// `bias`; returns the single output element.
double oneByOne(DType inputType, DType biasType, DType outputType, int8_t cubeMathType,
                const std::vector<double>& values, double bias, bool transposed = false) {
  const int64_t c = static_cast<int64_t>(values.size());
  const auto input = valued(inputType, {1, c, 1, 1}, values);
  const auto weight = filled(inputType, transposed ? Shape{c, 1, 1, 1} : Shape{1, c, 1, 1}, 1);
  const auto b = filled(biasType, {1}, bias);
  HostTensor output(outputType, contiguousLayout({1, 1, 1, 1}));
  ForwardConvAttrs a = attrsFor(2, transposed, ACL_FORMAT_NCHW);
  a.cubeMathType = cubeMathType;
  const OpOutcome o = runConvolution(a, input, weight, &b, &output);
  EXPECT_TRUE(o.succeeded()) << o.describe();
  return output.get(0);
}

// sum = 1 + 2^-12, bias = 2^-11: before rounding 1 + 3 * 2^-12 rounds up to
// 1 + 2^-10; rounding the sum first would give 1 + 2^-11, a tie, then 1.
TEST(ForwardBiasRounding, BiasJoinsTheSumBeforeTheFp16Rounding) {
  for (bool transposed : {false, true}) {
    EXPECT_EQ(oneByOne(DType::F16, DType::F16, DType::F16, 0, {1, kU12}, 0x1p-11, transposed),
              1 + 0x1p-10)
        << "transposed " << transposed;
  }
}

// c = fp16: an fp32 bias 2^-11 + 2^-23 is rounded to fp16 (2^-11) first, so
// 1 + 2^-11 is a tie and stays 1; the exact bias would round up.
TEST(ForwardBiasRounding, Fp32BiasIsRoundedToFp16WhenComputingInFp16) {
  EXPECT_EQ(oneByOne(DType::F16, DType::F32, DType::F32, 0, {1}, 0x1p-11 + 0x1p-23), 1.0);
  // cubeMathType 2 computes fp32 operands in fp16: the same rule.
  EXPECT_EQ(oneByOne(DType::F32, DType::F32, DType::F32, 2, {1}, 0x1p-11 + 0x1p-23), 1.0);
}

// c = bf16: the fp32 bias enters exactly: 1 + 2^-8 + 2^-20 rounds up to
// 1 + 2^-7 (a bias rounded to bf16 first would leave a tie and give 1).
TEST(ForwardBiasRounding, Fp32BiasEntersExactlyWhenComputingInBf16) {
  EXPECT_EQ(oneByOne(DType::BF16, DType::F32, DType::F32, 0, {1}, 0x1p-8 + 0x1p-20), 1 + 0x1p-7);
}

// HF32 (cubeMathType 1 or 3) rounds operands, never the bias: 1 + (1 + 2^-20).
TEST(ForwardBiasRounding, Hf32LeavesTheBiasAlone) {
  for (int8_t cmt : {int8_t{1}, int8_t{3}})
    EXPECT_EQ(oneByOne(DType::F32, DType::F32, DType::F32, cmt, {1}, 1 + 0x1p-20), 2 + 0x1p-20);
  // ... while the operands are rounded: 1 + 2^-20 as an input becomes 1.
  EXPECT_EQ(oneByOne(DType::F32, DType::F32, DType::F32, 1, {1 + 0x1p-20}, 0), 1.0);
  EXPECT_EQ(oneByOne(DType::F32, DType::F32, DType::F32, 0, {1 + 0x1p-20}, 0), 1 + 0x1p-20);
}

// The result is rounded to c (fp16) before the cast to bf16: 1 + 2^-8 + 2^-12
// becomes 1 + 2^-8 in fp16, a bf16 tie, so 1; a direct cast would give 1 + 2^-7.
TEST(ForwardBiasRounding, ResultRoundsToTheComputeDtypeBeforeTheOutputCast) {
  EXPECT_EQ(oneByOne(DType::F16, DType::F16, DType::BF16, 0, {1, 0x1p-8, kU12}, 0), 1.0);
  EXPECT_EQ(oneByOne(DType::F32, DType::F32, DType::BF16, 0, {1, 0x1p-8, kU12}, 0), 1 + 0x1p-7);
}

// Depthwise (one dtype for all) and ConvTbc (free bias dtype) follow the same rule.
TEST(ForwardBiasRounding, DepthwiseAndConvTbcAddTheBiasBeforeRounding) {
  {
    const auto self = valued(DType::F16, {1, 1, 1, 2}, {1, kU12});
    const auto weight = filled(DType::F16, {1, 1, 1, 2}, 1);
    const auto bias = filled(DType::F16, {1}, 0x1p-11);
    HostTensor out(DType::F16, contiguousLayout({1, 1, 1, 1}));
    DepthwiseAttrs a{{1, 2}, {1, 1}, {0, 0}, {1, 1}, 0};
    const OpOutcome o = runConvDepthwise2d(a, self, weight, &bias, &out);
    ASSERT_TRUE(o.succeeded()) << o.describe();
    EXPECT_EQ(out.get(0), 1 + 0x1p-10);
  }
  {
    const auto self = valued(DType::F16, {1, 1, 2}, {1, kU12});
    const auto weight = filled(DType::F16, {1, 2, 1}, 1);
    const auto bias = filled(DType::F32, {1}, 0x1p-11);
    HostTensor output(DType::F16, contiguousLayout({1, 1, 1}));
    const OpOutcome o = runConvTbc(self, weight, bias, 0, 0, &output);
    ASSERT_TRUE(o.succeeded()) << o.describe();
    EXPECT_EQ(output.get(0), 1 + 0x1p-10);
  }
}

// Decision 9: ConvTbc with T = 0 (or C_in = 0) and a non-empty output is the
// bias broadcast, by decision 8 with an empty sum (fp16-rounded for cmt 2).
TEST(ForwardEmpty, ConvTbcEmptyReductionIsTheBias) {
  const auto bias = valued(DType::F32, {3}, {1 + 0x1p-20, -2, 0.5});
  for (const Shape& selfShape : {Shape{0, 2, 2}, Shape{3, 2, 0}}) {
    const bool noTime = selfShape[0] == 0;
    const auto self = filled(DType::F32, selfShape, 1);
    const auto weight = filled(DType::F32, {noTime ? 2 : 4, selfShape[2], 3}, 1);
    const int64_t pad = 1;
    const int64_t tOut = selfShape[0] + 2 * pad - weight.shape()[0] + 1;
    for (int8_t cmt : {int8_t{0}, int8_t{2}}) {
      HostTensor output(DType::F32, contiguousLayout({tOut, 2, 3}));
      const OpOutcome o = runConvTbc(self, weight, bias, pad, cmt, &output);
      ASSERT_TRUE(o.succeeded()) << o.describe();
      const double first = cmt == 2 ? 1.0 : 1 + 0x1p-20;
      for (int64_t i = 0; i < output.count(); ++i)
        EXPECT_EQ(output.get(i), (std::vector<double>{first, -2, 0.5})[i % 3]) << i;
    }
  }
}

}  // namespace
}  // namespace numerics
