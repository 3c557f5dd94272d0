// A CANN-style training step: aclnnConvolution forward, then
// aclnnConvolutionBackward of the same layer on the same input and weight
// tensors (loss = sum of the output, so gradOutput is all ones). All-ones
// data; input [2, 2, 4, 4], weight [3, 2, 3, 3], bias 1, padding 1:
//   forward:    y          = C_in * c(h) * c(w) + 1,  c = [2, 3, 3, 2]
//   gradInput:  C_out * c(h) * c(w)                   (taps covering each input)
//   gradWeight: N * r(kh) * r(kw),  r = [3, 4, 3]     (outputs reached by each tap)
//   gradBias:   N * H_out * W_out = 32
#include <cstdint>
#include <cstdio>
#include <vector>

#include "aclnnop/aclnn_convolution.h"
#include "aclnnop/aclnn_convolution_backward.h"
#include "forward_sample_support.h"

namespace {

using sample::Create;
using sample::DeviceTensor;
using sample::IntArray;
using sample::IntArrayPtr;

int RunTrainingStep(aclrtStream stream) {
  std::printf("== training step: aclnnConvolution then aclnnConvolutionBackward ==\n");
  DeviceTensor input, weight, bias, output, gradOutput, gradInput, gradWeight, gradBias;
  if (!Create({2, 2, 4, 4}, ACL_FORMAT_NCHW, 1.0f, &input) ||
      !Create({3, 2, 3, 3}, ACL_FORMAT_NCHW, 1.0f, &weight) ||
      !Create({3}, ACL_FORMAT_ND, 1.0f, &bias) ||
      !Create({2, 3, 4, 4}, ACL_FORMAT_NCHW, sample::kUnwritten, &output) ||
      !Create({2, 3, 4, 4}, ACL_FORMAT_NCHW, 1.0f, &gradOutput) ||
      !Create({2, 2, 4, 4}, ACL_FORMAT_NCHW, sample::kUnwritten, &gradInput) ||
      !Create({3, 2, 3, 3}, ACL_FORMAT_NCHW, sample::kUnwritten, &gradWeight) ||
      !Create({3}, ACL_FORMAT_ND, sample::kUnwritten, &gradBias))
    return 1;
  IntArrayPtr stride = IntArray({1, 1}), padding = IntArray({1, 1}), dilation = IntArray({1, 1}),
              outputPadding = IntArray({0, 0}), biasSizes = IntArray({3});
  const bool maskValues[3] = {true, true, true};
  sample::BoolArrayPtr mask(aclCreateBoolArray(maskValues, 3), aclDestroyBoolArray);

  uint64_t workspaceSize = 0;
  aclOpExecutor* executor = nullptr;
  if (!sample::Succeeded(
          aclnnConvolutionGetWorkspaceSize(input.tensor.get(), weight.tensor.get(),
                                           bias.tensor.get(), stride.get(), padding.get(),
                                           dilation.get(), false, outputPadding.get(), 1,
                                           output.tensor.get(), 0, &workspaceSize, &executor),
          "aclnnConvolutionGetWorkspaceSize"))
    return 1;
  if (!sample::RunPhaseTwo(aclnnConvolution, "aclnnConvolution", workspaceSize, executor, stream))
    return 1;

  if (!sample::Succeeded(
          aclnnConvolutionBackwardGetWorkspaceSize(
              gradOutput.tensor.get(), input.tensor.get(), weight.tensor.get(), biasSizes.get(),
              stride.get(), padding.get(), dilation.get(), false, outputPadding.get(), 1,
              mask.get(), 0, gradInput.tensor.get(), gradWeight.tensor.get(), gradBias.tensor.get(),
              &workspaceSize, &executor),
          "aclnnConvolutionBackwardGetWorkspaceSize"))
    return 1;
  if (!sample::RunPhaseTwo(aclnnConvolutionBackward, "aclnnConvolutionBackward", workspaceSize,
                           executor, stream))
    return 1;

  const std::vector<float> one(1, 1.0f);
  const std::vector<float> covering = sample::TapCounts(4, 3, 1, 4);  // [2, 3, 3, 2]
  std::vector<float> reached;                                         // [3, 4, 3]
  reached.push_back(3.0f);
  reached.push_back(4.0f);
  reached.push_back(3.0f);
  int failures = 0;
  failures += sample::CountMismatches("output", output,
                                      sample::Outer(6, one, covering, covering, 2.0f, 1.0f));
  failures += sample::CountMismatches("gradInput", gradInput,
                                      sample::Outer(4, one, covering, covering, 3.0f, 0.0f));
  failures += sample::CountMismatches("gradWeight", gradWeight,
                                      sample::Outer(6, one, reached, reached, 2.0f, 0.0f));
  failures += sample::CountMismatches("gradBias", gradBias, std::vector<float>(3, 32.0f));
  return failures;
}

}  // namespace

int main() {
  int (*const samples[])(aclrtStream) = {RunTrainingStep};
  return sample::RunSamples(samples, 1);
}
