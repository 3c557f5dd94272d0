// (h) The empty-tensor rows of convolution-backward.md section 7 that
// succeed, with project decision 4: gradWeight is zero (its reduction is
// empty), gradBias is the true sum of gradOutput (zero only when that sum is
// empty), gradInput is left untouched. Outputs are strided views in
// sentinel-filled buffers; gradOutput holds integers so sums are exact.

#include <gtest/gtest.h>

#include "numerics/op_runner.h"

namespace numerics {
namespace {

struct EmptyCase {
  const char* name;
  Shape input, weight, gradOutput;
  bool transposed;
  int groups;
  std::array<bool, 3> mask;
  int64_t biasChannels;  // biasSizes[0] and gradBias's length
};

std::vector<double> channelSums(const HostTensor& gradOutput) {
  const Shape& s = gradOutput.shape();
  std::vector<double> sums(s[1], 0.0);
  const int64_t spatial = s[0] == 0 || s[1] == 0 ? 0 : gradOutput.count() / (s[0] * s[1]);
  for (int64_t i = 0; i < gradOutput.count(); ++i) sums[i / spatial % s[1]] += gradOutput.get(i);
  return sums;
}

void checkEmptyCase(const EmptyCase& e) {
  SCOPED_TRACE(e.name);
  Rng rng(42);
  const size_t d = e.input.size() - 2;
  HostTensor gradOutput(DType::F32, makeLayout(e.gradOutput, LayoutKind::Permuted, rng));
  for (int64_t i = 0; i < gradOutput.count(); ++i)
    gradOutput.set(i, static_cast<double>(rng() % 7) - 3.0);
  HostTensor input(DType::F32, contiguousLayout(e.input));
  HostTensor weight(DType::F32, contiguousLayout(e.weight));
  HostTensor gradInput(DType::F32, makeLayout(e.input, LayoutKind::Gapped, rng));
  HostTensor gradWeight(DType::BF16, makeLayout(e.weight, LayoutKind::Gapped, rng));
  HostTensor gradBias(DType::F16, makeLayout({e.biasChannels}, LayoutKind::Gapped, rng));
  const std::vector<uint8_t> gradInputBefore = gradInput.storage();

  ConvAttrs attrs;
  attrs.biasSizes = {e.biasChannels};
  attrs.stride.assign(d, 1);
  attrs.padding.assign(d, 0);
  attrs.dilation.assign(d, 1);
  attrs.outputPadding.assign(d, 0);
  attrs.transposed = e.transposed;
  attrs.groups = e.groups;
  attrs.mask = e.mask;
  const OpOutcome outcome =
      runConvolutionBackward(attrs, gradOutput, input, weight, &gradInput, &gradWeight, &gradBias);
  ASSERT_TRUE(outcome.succeeded()) << outcome.describe();

  EXPECT_EQ(gradInput.changedSince(gradInputBefore), "") << "gradInput is empty: untouched";
  if (e.mask[1]) {
    for (int64_t i = 0; i < gradWeight.count(); ++i)
      EXPECT_EQ(gradWeight.get(i), 0.0) << "gradWeight[" << i << "]";
    EXPECT_EQ(gradWeight.outOfViewDamage(), "");
  }
  if (e.mask[2]) {
    const std::vector<double> sums = channelSums(gradOutput);
    for (int64_t c = 0; c < e.biasChannels; ++c)
      EXPECT_EQ(gradBias.get(c), sums[c]) << "gradBias[" << c << "]";
    EXPECT_EQ(gradBias.outOfViewDamage(), "");
  }
}

TEST(EmptyTensors, SucceedingRowsOfSection7) {
  const EmptyCase cases[] = {
      {"N = 0, not transposed",
       {0, 2, 5, 5},
       {3, 2, 3, 3},
       {0, 3, 3, 3},
       false,
       1,
       {true, true, true},
       3},
      {"N = 0, not transposed, 1D",
       {0, 4, 7},
       {6, 2, 3},
       {0, 6, 5},
       false,
       2,
       {true, true, true},
       6},
      {"C_in = 0 (input C and weight C both 0), gradOutput non-empty",
       {2, 0, 5, 5},
       {3, 0, 3, 3},
       {2, 3, 3, 3},
       false,
       1,
       {true, true, true},
       3},
      {"C_in = 0, 3D",
       {2, 0, 3, 4, 4},
       {2, 0, 1, 2, 2},
       {2, 2, 3, 3, 3},
       false,
       1,
       {true, true, true},
       2},
      {"C_out = 0, input non-empty, gradInput not requested",
       {2, 2, 5, 5},
       {0, 2, 3, 3},
       {2, 0, 3, 3},
       false,
       1,
       {false, true, true},
       0},
      {"transposed, N = 0, weight[0] == input C",
       {0, 3, 4, 4},
       {3, 2, 3, 3},
       {0, 2, 6, 6},
       true,
       1,
       {true, true, true},
       2},
      {"transposed, N = 0, grouped",
       {0, 4, 4},
       {4, 3, 2},
       {0, 6, 5},
       true,
       2,
       {true, true, true},
       6},
  };
  for (const auto& e : cases) checkEmptyCase(e);
}

}  // namespace
}  // namespace numerics
