// (e) outputMask: an output that is not requested is never written, and a
// requested one is written only inside its view. Every output lives in a
// bigger buffer filled with a sentinel byte (offset, padded and gapped
// strides, permuted dims), for all 8 masks, normal and transposed, with the
// masked-off outputs passed as real tensors or as nullptr.

#include <gtest/gtest.h>

#include <cstring>
#include <memory>

#include "numerics/conv_oracle.h"
#include "numerics/op_runner.h"
#include "numerics/random_problem.h"

namespace numerics {
namespace {

// 2D, groups 2, stride (2, 1), dilation (1, 2), 4-value padding, mixed
// dtypes: a problem where every gradient has many distinct values.
ConvCase fixedProblem(bool transposed, int maskBits) {
  ConvCase c;
  c.transposed = transposed;
  c.groups = 2;
  c.stride = {2, 1};
  c.dilation = {1, 2};
  c.padding = {1, 0, 2, 1};
  c.weightShape = {6, 2, 3, 2};  // normal orientation: Cout 6, Cin/G 2
  completeShapes(&c, 2, 4, 6, {3, 2}, {7, 6});
  c.mask = {(maskBits & 1) != 0, (maskBits & 2) != 0, (maskBits & 4) != 0};
  c.cubeMathType = 1;
  c.gradOutputType = DType::F32;
  c.inputType = DType::BF16;
  c.weightType = DType::F16;
  c.gradInputType = DType::F16;
  c.gradWeightType = DType::F32;
  c.gradBiasType = DType::BF16;
  return c;
}

std::unique_ptr<HostTensor> stridedOutput(DType dtype, const Shape& shape, LayoutKind kind,
                                          Rng& rng) {
  return std::make_unique<HostTensor>(dtype, makeLayout(shape, kind, rng));
}

// The three inputs of `c` in `kind` layouts, with random values.
struct RandomInputs {
  RandomInputs(const ConvCase& c, LayoutKind kind, Rng& rng)
      : gradOutput(c.gradOutputType, makeLayout(c.gradOutputShape, kind, rng)),
        input(c.inputType, makeLayout(c.inputShape, kind, rng)),
        weight(c.weightType, makeLayout(c.weightShape, kind, rng)) {
    fillRandom(&gradOutput, rng);
    fillRandom(&input, rng);
    fillRandom(&weight, rng);
  }
  HostTensor gradOutput, input, weight;
};

void checkMask(bool transposed, int maskBits, bool nullWhenMasked, LayoutKind kind) {
  const ConvCase c = fixedProblem(transposed, maskBits);
  SCOPED_TRACE(c.describe() + (nullWhenMasked ? " (masked outputs null)" : "") + " layout " +
               layoutKindName(kind));
  Rng rng(1000 + maskBits);
  RandomInputs in(c, kind, rng);
  const HostTensor &gradOutput = in.gradOutput, &input = in.input, &weight = in.weight;

  std::unique_ptr<HostTensor> outputs[3];
  const Shape shapes[3] = {c.inputShape, c.weightShape, c.biasShape()};
  const DType types[3] = {c.gradInputType, c.gradWeightType, c.gradBiasType};
  for (int k = 0; k < 3; ++k)
    if (c.mask[k] || !nullWhenMasked) outputs[k] = stridedOutput(types[k], shapes[k], kind, rng);
  std::vector<uint8_t> before[3];
  for (int k = 0; k < 3; ++k)
    if (outputs[k]) before[k] = outputs[k]->storage();

  const OpOutcome outcome = runConvolutionBackward(
      c.attrs(), gradOutput, input, weight, outputs[0].get(), outputs[1].get(), outputs[2].get());
  ASSERT_TRUE(outcome.succeeded()) << outcome.describe();

  const ConvExpectation e =
      expectConvolutionBackward(c, gradOutput.dense(), input.dense(), weight.dense());
  const ElementBounds* expected[3] = {&e.gradInput, &e.gradWeight, &e.gradBias};
  const char* names[3] = {"gradInput", "gradWeight", "gradBias"};
  for (int k = 0; k < 3; ++k) {
    if (!outputs[k]) continue;
    if (c.mask[k]) {
      EXPECT_EQ(outputs[k]->outOfViewDamage(), "") << names[k];
      EXPECT_EQ(compareOutput(names[k], *outputs[k], *expected[k]), "");
    } else {
      EXPECT_EQ(outputs[k]->changedSince(before[k]), "") << names[k] << " is masked off";
    }
  }
}

TEST(OutputMask, NothingWrittenOutsideRequestedViews) {
  for (bool transposed : {false, true})
    for (int mask = 0; mask < 8; ++mask)
      for (bool nullWhenMasked : {false, true})
        for (LayoutKind kind : {LayoutKind::OffsetPadded, LayoutKind::Permuted, LayoutKind::Gapped})
          checkMask(transposed, mask, nullWhenMasked, kind);
}

bool sameBits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

// Each output has the same bits whatever else the call requests. A
// depthwise layer's weight pass sums gradBias as it reads gradOutput
// (kernels::backwardWeightSumsDy, on AVX-512 machines) when gradWeight is
// requested too; the sums must be channelSums' of gradOutput's own values
// (not of HF32-rounded operands), read in place or through a permuted view,
// and a transposed layer's (whose gradOutput is the passes' x) unchanged.
// 12 channels (a run of 8 channels and one of 4) and 20.
TEST(OutputMask, EachOutputsBitsDoNotDependOnTheOtherOutputs) {
  struct Numerics {
    DType type;
    int cubeMathType;
  };
  const Numerics numerics[] = {{DType::F32, 0}, {DType::F32, 1}, {DType::BF16, 0}, {DType::F16, 0}};
  for (const Numerics& n : numerics) {
    for (LayoutKind kind : {LayoutKind::Contiguous, LayoutKind::Permuted}) {
      for (bool transposed : {false, true}) {
        for (int64_t channels : {12, 20}) {
          // Depthwise 3x3, 3 images of 5 x 7 (planes that start at
          // different lanes of the sums).
          ConvCase c;
          c.transposed = transposed;
          c.groups = channels;
          c.stride = {1, 1};
          c.dilation = {1, 1};
          c.padding = {1, 1};
          c.weightShape = {channels, 1, 3, 3};
          completeShapes(&c, 3, channels, channels, {3, 3}, {5, 7});
          c.cubeMathType = n.cubeMathType;
          c.gradOutputType = c.inputType = c.weightType = n.type;
          c.gradInputType = c.gradWeightType = c.gradBiasType = n.type;
          SCOPED_TRACE(c.describe() + " layout " + layoutKindName(kind));
          Rng rng(77);
          RandomInputs in(c, kind, rng);
          const HostTensor &gradOutput = in.gradOutput, &input = in.input, &weight = in.weight;
          // Each output's bits when it is the only one requested.
          std::vector<double> alone[3];
          for (int maskBits : {1, 2, 4, 3, 6, 7, 5}) {
            c.mask = {(maskBits & 1) != 0, (maskBits & 2) != 0, (maskBits & 4) != 0};
            HostTensor gradInput(c.gradInputType, makeLayout(c.inputShape, kind, rng));
            HostTensor gradWeight(c.gradWeightType, makeLayout(c.weightShape, kind, rng));
            HostTensor gradBias(c.gradBiasType,
                                makeLayout(c.biasShape(), LayoutKind::Contiguous, rng));
            const OpOutcome outcome = runConvolutionBackward(c.attrs(), gradOutput, input, weight,
                                                             &gradInput, &gradWeight, &gradBias);
            ASSERT_TRUE(outcome.succeeded()) << outcome.describe();
            const HostTensor* got[3] = {&gradInput, &gradWeight, &gradBias};
            for (int k = 0; k < 3; ++k) {
              if (!c.mask[k]) continue;
              if (maskBits == 1 << k) {
                alone[k] = got[k]->dense();
              } else {
                EXPECT_TRUE(sameBits(got[k]->dense(), alone[k]))
                    << "output " << k << ", mask " << maskBits;
              }
            }
            if (maskBits == 7) {
              const ConvExpectation e =
                  expectConvolutionBackward(c, gradOutput.dense(), input.dense(), weight.dense());
              EXPECT_EQ(compareOutput("gradInput", gradInput, e.gradInput), "");
              EXPECT_EQ(compareOutput("gradWeight", gradWeight, e.gradWeight), "");
              EXPECT_EQ(compareOutput("gradBias", gradBias, e.gradBias), "");
            }
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace numerics
