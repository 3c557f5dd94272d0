// (e) outputMask: an output that is not requested is never written, and a
// requested one is written only inside its view. Every output lives in a
// bigger buffer filled with a sentinel byte (offset, padded and gapped
// strides, permuted dims), for all 8 masks, normal and transposed, with the
// masked-off outputs passed as real tensors or as nullptr.

#include <gtest/gtest.h>

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

void checkMask(bool transposed, int maskBits, bool nullWhenMasked, LayoutKind kind) {
  const ConvCase c = fixedProblem(transposed, maskBits);
  SCOPED_TRACE(c.describe() + (nullWhenMasked ? " (masked outputs null)" : "") + " layout " +
               layoutKindName(kind));
  Rng rng(1000 + maskBits);
  HostTensor gradOutput(c.gradOutputType, makeLayout(c.gradOutputShape, kind, rng));
  HostTensor input(c.inputType, makeLayout(c.inputShape, kind, rng));
  HostTensor weight(c.weightType, makeLayout(c.weightShape, kind, rng));
  fillRandom(&gradOutput, rng);
  fillRandom(&input, rng);
  fillRandom(&weight, rng);

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

// gradBias has the same bits whatever else the call requests. With
// gradWeight, a depthwise layer's weight pass sums gradOutput as it reads it
// instead of a pass of its own (kernels::backwardWeightSumsDy, on AVX-512
// machines); the sums must still be of gradOutput's own values (not of
// HF32-rounded operands), read in place or through a permuted view, and a
// transposed layer's (whose gradOutput is the pass's x) must not change.
TEST(OutputMask, GradBiasBitsDoNotDependOnTheOtherOutputs) {
  struct Numerics {
    DType type;
    int cubeMathType;
  };
  const Numerics numerics[] = {{DType::F32, 0}, {DType::F32, 1}, {DType::BF16, 0}, {DType::F16, 0}};
  for (const Numerics& n : numerics) {
    for (LayoutKind kind : {LayoutKind::Contiguous, LayoutKind::Permuted}) {
      for (bool transposed : {false, true}) {
        // Depthwise 3x3 over 12 channels (a run of 8 and one of 4), 3
        // images of 5 x 7 (planes that start at different lanes).
        ConvCase c;
        c.transposed = transposed;
        c.groups = 12;
        c.stride = {1, 1};
        c.dilation = {1, 1};
        c.padding = {1, 1};
        c.weightShape = {12, 1, 3, 3};
        completeShapes(&c, 3, 12, 12, {3, 3}, {5, 7});
        c.cubeMathType = n.cubeMathType;
        c.gradOutputType = c.inputType = c.weightType = n.type;
        c.gradInputType = c.gradWeightType = c.gradBiasType = n.type;
        SCOPED_TRACE(c.describe() + " layout " + layoutKindName(kind));
        Rng rng(77);
        HostTensor gradOutput(c.gradOutputType, makeLayout(c.gradOutputShape, kind, rng));
        HostTensor input(c.inputType, makeLayout(c.inputShape, kind, rng));
        HostTensor weight(c.weightType, makeLayout(c.weightShape, kind, rng));
        fillRandom(&gradOutput, rng);
        fillRandom(&input, rng);
        fillRandom(&weight, rng);
        std::vector<uint8_t> biasAlone;
        for (int maskBits : {4, 6, 7, 5}) {
          c.mask = {(maskBits & 1) != 0, (maskBits & 2) != 0, (maskBits & 4) != 0};
          HostTensor gradInput(c.gradInputType, makeLayout(c.inputShape, kind, rng));
          HostTensor gradWeight(c.gradWeightType, makeLayout(c.weightShape, kind, rng));
          HostTensor gradBias(c.gradBiasType,
                              makeLayout(c.biasShape(), LayoutKind::Contiguous, rng));
          const OpOutcome outcome = runConvolutionBackward(c.attrs(), gradOutput, input, weight,
                                                           &gradInput, &gradWeight, &gradBias);
          ASSERT_TRUE(outcome.succeeded()) << outcome.describe();
          if (maskBits == 4) {
            biasAlone = gradBias.storage();
            const ConvExpectation e =
                expectConvolutionBackward(c, gradOutput.dense(), input.dense(), weight.dense());
            EXPECT_EQ(compareOutput("gradBias", gradBias, e.gradBias), "");
          } else {
            EXPECT_TRUE(gradBias.storage() == biasAlone) << "mask " << maskBits;
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace numerics
