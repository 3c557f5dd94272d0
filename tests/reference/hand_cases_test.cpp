// Tiny convolutions whose gradients were worked out by hand (the derivation
// is in each comment), with distinct values so that a wrong index shows.

#include <gtest/gtest.h>

#include <stdexcept>

#include "conv_test_support.h"

namespace aclcpu {
namespace reference {
namespace {

using testing::filled;
using testing::makeParams;
using Values = std::vector<double>;

TEST(HandCases, Stride2LeavesTrailingRowAndColumnUntouched) {
  // 5x5 input, 2x2 kernel, stride 2: windows cover rows/cols 0..3 only.
  // gradInput[i][j] = go[i/2][j/2] * w[i%2][j%2] for i, j < 4, else 0.
  const ConvParams p = makeParams({1, 1, 5, 5}, {1, 1, 2, 2}, {1, 1, 2, 2}, {2, 2}, {0, 0}, {1, 1});
  const Values gradOutput{1, 2, 3, 4};
  const Values weight{1, 10, 100, 1000};
  Values input(25);
  for (int i = 0; i < 25; ++i) input[i] = i;  // x[h][w] = 5h + w
  const Gradients g = convolutionBackward(p, gradOutput, input, weight);
  const Values expectedInput{1,   10,   2,   20,   0,  //
                             100, 1000, 200, 2000, 0,  //
                             3,   30,   4,   40,   0,  //
                             300, 3000, 400, 4000, 0,  //
                             0,   0,    0,   0,    0};
  EXPECT_EQ(g.gradInput, expectedInput);
  // dW[a][b] = sum_o go[o] * x[2*oh+a][2*ow+b] = 10*(5a+b) + 10*sum(go*oh) + 2*sum(go*ow)
  //          = 10*(5a+b) + 70 + 12.
  EXPECT_EQ(g.gradWeight, (Values{82, 92, 132, 142}));
  EXPECT_EQ(g.gradBias, (Values{10}));
  // Forward: y[oh][ow] = sum_k x[2oh+kh][2ow+kw] w[k] = x00 + 10 x01 + 100 x10 + 1000 x11.
  EXPECT_EQ(convolutionForward(p, input, weight),
            (Values{0 + 10 + 500 + 6000, 2 + 30 + 700 + 8000, 10 + 110 + 1500 + 16000,
                    12 + 130 + 1700 + 18000}));
}

TEST(HandCases, Dilation2) {
  // L=5, k=2, dilation 2: y[o] = x[o] w0 + x[o+2] w1, o = 0..2.
  const ConvParams p = makeParams({1, 1, 5}, {1, 1, 2}, {1, 1, 3}, {1}, {0}, {2});
  const Values gradOutput{1, 2, 3}, weight{1, 10}, input{1, 2, 3, 4, 5};
  const Gradients g = convolutionBackward(p, gradOutput, input, weight);
  // dX[i] = go[i] w0 + go[i-2] w1.
  EXPECT_EQ(g.gradInput, (Values{1, 2, 3 + 10, 20, 30}));
  // dW0 = 1*1 + 2*2 + 3*3, dW1 = 3*1 + 4*2 + 5*3.
  EXPECT_EQ(g.gradWeight, (Values{14, 26}));
  EXPECT_EQ(g.gradBias, (Values{6}));
  EXPECT_EQ(convolutionForward(p, input, weight), (Values{31, 42, 53}));
}

TEST(HandCases, TwoGroupsKeepTheirChannelsApart) {
  // Cin 4, Cout 4, groups 2, 1x1 kernel, L=3. w[co][cl] = 10 co + cl + 1.
  // Channels 0,1 only see outputs 0,1; channels 2,3 only outputs 2,3.
  const ConvParams p = makeParams({1, 4, 3}, {4, 2, 1}, {1, 4, 3}, {1}, {0}, {1}, 2);
  const Values weight{1, 2, 11, 12, 21, 22, 31, 32};
  {
    const Gradients g =
        convolutionBackward(p, filled(p.gradOutputShape, 1), filled(p.inputShape, 1), weight);
    // dX[ci] = w[first co][cl] + w[second co][cl].
    EXPECT_EQ(g.gradInput, (Values{12, 12, 12, 14, 14, 14, 52, 52, 52, 54, 54, 54}));
  }
  // x[ci][l] = ci + 1, go[co][l] = co + 1: dW[co][cl] = 3 (g*2+cl+1)(co+1).
  Values input, gradOutput;
  for (int c = 0; c < 4; ++c) {
    for (int l = 0; l < 3; ++l) {
      input.push_back(c + 1);
      gradOutput.push_back(c + 1);
    }
  }
  const Gradients g = convolutionBackward(p, gradOutput, input, weight);
  EXPECT_EQ(g.gradWeight, (Values{3, 6, 6, 12, 27, 36, 36, 48}));
  EXPECT_EQ(g.gradBias, (Values{3, 6, 9, 12}));
}

TEST(HandCases, DepthwiseWithChannelMultiplier) {
  // Cin 2, groups 2, Cout 4 (two filters per channel), k=2, L=3 -> out 2.
  // w[co] = {co+1, 10(co+1)}; go all ones; x[c] = {1,2,3} * (c+1).
  const ConvParams p = makeParams({1, 2, 3}, {4, 1, 2}, {1, 4, 2}, {1}, {0}, {1}, 2);
  const Values weight{1, 10, 2, 20, 3, 30, 4, 40};
  const Values input{1, 2, 3, 2, 4, 6};
  const Gradients g = convolutionBackward(p, filled(p.gradOutputShape, 1), input, weight);
  // dX[c][i]: i=0 gets w0 of both filters, i=1 both taps, i=2 w1.
  // channel 0: filters 0,1 -> {3, 33, 30}; channel 1: filters 2,3 -> {7, 77, 70}.
  EXPECT_EQ(g.gradInput, (Values{3, 33, 30, 7, 77, 70}));
  // dW[co][k] = x[c][k] + x[c][k+1]: channel 0 {3, 5}, channel 1 {6, 10}.
  EXPECT_EQ(g.gradWeight, (Values{3, 5, 3, 5, 6, 10, 6, 10}));
  EXPECT_EQ(g.gradBias, (Values{2, 2, 2, 2}));
}

TEST(HandCases, Transposed1d) {
  // x_t = {1, 2}, w = {1, 2, 3}, stride 2: y_t has (2-1)*2 + 3 = 5 elements,
  // y_t[2i+k] += x[i] w[k] = {1, 2, 3+2, 4, 6}.
  const ConvParams p = makeParams({1, 1, 2}, {1, 1, 3}, {1, 1, 5}, {2}, {0}, {1}, 1, true);
  const Values input{1, 2}, weight{1, 2, 3};
  EXPECT_EQ(convolutionForward(p, input, weight), (Values{1, 2, 5, 4, 6}));
  const Values gradOutput{1, 10, 100, 1000, 10000};
  const Gradients g = convolutionBackward(p, gradOutput, input, weight);
  // dX[i] = sum_k g[2i+k] w[k]: {1 + 20 + 300, 100 + 2000 + 30000}.
  EXPECT_EQ(g.gradInput, (Values{321, 32100}));
  // dW[k] = sum_i x[i] g[2i+k]: {1 + 200, 10 + 2000, 100 + 20000}.
  EXPECT_EQ(g.gradWeight, (Values{201, 2010, 20100}));
  EXPECT_EQ(g.gradBias, (Values{11111}));
}

TEST(HandCases, Transposed1dWithPadding) {
  // Pad 1 crops one element from each end: out (2-1)*2 - 2 + 3 = 3, and
  // y_t[2i+k-1] += x[i] w[k]: {2, 3+2, 4}.
  const ConvParams p = makeParams({1, 1, 2}, {1, 1, 3}, {1, 1, 3}, {2}, {1}, {1}, 1, true);
  const Values input{1, 2}, weight{1, 2, 3};
  EXPECT_EQ(convolutionForward(p, input, weight), (Values{2, 5, 4}));
  const Values gradOutput{1, 10, 100};
  const Gradients g = convolutionBackward(p, gradOutput, input, weight);
  // dX[0] = g[0] w1 + g[1] w2 = 32; dX[1] = g[1] w0 + g[2] w1 = 210.
  EXPECT_EQ(g.gradInput, (Values{32, 210}));
  // dW[k] = sum_i x[i] g[2i+k-1]: k0: 2 g1 = 20; k1: g0 + 2 g2 = 201; k2: g1 = 10.
  EXPECT_EQ(g.gradWeight, (Values{20, 201, 10}));
  EXPECT_EQ(g.gradBias, (Values{111}));
}

TEST(HandCases, FourValuePaddingTopBottomLeftRight) {
  // 2x2 input, 2x2 kernel, padding [top 1, bottom 0, left 0, right 1]:
  // out 2x2, y[oh][ow] = sum_k x[oh-1+kh][ow+kw] w[kh][kw].
  ConvParams p = makeParams({1, 1, 2, 2}, {1, 1, 2, 2}, {1, 1, 2, 2}, {1, 1}, {0, 0}, {1, 1});
  p.padBefore = {1, 0};  // top, left
  p.padAfter = {0, 1};   // bottom, right
  const Values input{1, 2, 3, 4}, weight{1, 10, 100, 1000};
  EXPECT_EQ(convolutionForward(p, input, weight), (Values{2100, 200, 4321, 402}));
  const Gradients g = convolutionBackward(p, filled(p.gradOutputShape, 1), input, weight);
  // Row 0 is read by kernel rows {0, 1}, row 1 by {1}; col 0 by kernel cols
  // {0}, col 1 by {0, 1}.
  EXPECT_EQ(g.gradInput, (Values{101, 1111, 100, 1100}));
  // Kernel row 0 reads input row 0 only, row 1 rows 0 and 1; kernel col 0
  // reads cols 0 and 1, col 1 col 1 only.
  EXPECT_EQ(g.gradWeight, (Values{3, 2, 10, 6}));
}

TEST(HandCases, GradOutputLargerThanInferredReadsZeros) {
  // L=3, k=2: the inferred out is 2, a third output position only reaches
  // x[2] (tap 0) and the implicit zero x[3].
  const ConvParams p = makeParams({1, 1, 3}, {1, 1, 2}, {1, 1, 3}, {1}, {0}, {1});
  const Values gradOutput{1, 10, 100}, weight{1, 2}, input{1, 2, 3};
  const Gradients g = convolutionBackward(p, gradOutput, input, weight);
  EXPECT_EQ(g.gradInput, (Values{1, 10 + 2, 100 + 20}));
  EXPECT_EQ(g.gradWeight, (Values{1 + 20 + 300, 2 + 30}));
  EXPECT_EQ(convolutionForward(p, input, weight), (Values{5, 8, 3}));
}

TEST(HandCases, InconsistentParamsAreRejected) {
  const ConvParams good = makeParams({1, 4, 3}, {4, 2, 1}, {1, 4, 3}, {1}, {0}, {1}, 2);
  const Values go(12, 1.0), in(12, 1.0), w(8, 1.0);
  EXPECT_NO_THROW(convolutionBackward(good, go, in, w));

  ConvParams p = good;
  p.groups = 3;  // 4 % 3 != 0
  EXPECT_THROW(convolutionBackward(p, go, in, w), std::invalid_argument);
  p = good;
  p.inputShape = {1, 6, 3};  // channels != weight[1] * groups
  EXPECT_THROW(convolutionBackward(p, go, Values(18, 1.0), w), std::invalid_argument);
  p = good;
  p.gradOutputShape = {2, 4, 3};  // batch mismatch
  EXPECT_THROW(convolutionBackward(p, Values(24, 1.0), in, w), std::invalid_argument);
  p = good;
  p.stride = {0};
  EXPECT_THROW(convolutionBackward(p, go, in, w), std::invalid_argument);
  p = good;
  p.dilation = {1, 1};  // wrong length
  EXPECT_THROW(convolutionForward(p, in, w), std::invalid_argument);
  EXPECT_THROW(convolutionBackward(good, go, in, Values(7, 1.0)), std::invalid_argument);
  EXPECT_THROW(gradInputAt(good, go, in, w, 12), std::invalid_argument);
  EXPECT_THROW(gradWeightAt(good, go, in, w, -1), std::invalid_argument);
  EXPECT_THROW(gradBiasAt(good, go, 4), std::invalid_argument);
  EXPECT_THROW(elementCount({int64_t{1} << 40, int64_t{1} << 40}), std::invalid_argument);
}

}  // namespace
}  // namespace reference
}  // namespace aclcpu
