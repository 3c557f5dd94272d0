// A CANN-style user program for aclnnConvolution (C++11, acl/acl.h +
// aclnnop/aclnn_convolution.h, two-phase call), run against the installed
// library on all-ones data and checked exactly against hand-derived values:
//   2D with bias, padding 1, 2x2 kernel: out = C_in * taps(h) * taps(w) + 1
//   the upstream transposed examples (1D, 2D, 3D, 16 channels, 2-tap kernels):
//     out = 16 * c(d) * c(h) * c(w) with c = [1, 2, 1]
#include <cstdint>
#include <cstdio>
#include <vector>

#include "aclnnop/aclnn_convolution.h"
#include "forward_sample_support.h"

namespace {

using sample::Create;
using sample::DeviceTensor;
using sample::IntArray;
using sample::IntArrayPtr;

int RunConvolution2dWithBias(aclrtStream stream) {
  std::printf("== aclnnConvolution 2D with bias ==\n");
  // input [2, 2, 3, 3], weight [4, 2, 2, 2], pad 1: output [2, 4, 4, 4].
  DeviceTensor input, weight, bias, output;
  if (!Create({2, 2, 3, 3}, ACL_FORMAT_NCHW, 1.0f, &input) ||
      !Create({4, 2, 2, 2}, ACL_FORMAT_NCHW, 1.0f, &weight) ||
      !Create({4}, ACL_FORMAT_ND, 1.0f, &bias) ||
      !Create({2, 4, 4, 4}, ACL_FORMAT_NCHW, sample::kUnwritten, &output))
    return 1;
  IntArrayPtr stride = IntArray({1, 1}), padding = IntArray({1, 1}), dilation = IntArray({1, 1}),
              outputPadding = IntArray({0, 0});
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
  const std::vector<float> taps = sample::TapCounts(3, 2, 1, 4);  // [1, 2, 2, 1]
  return sample::CountMismatches(
      "output", output, sample::Outer(2 * 4, std::vector<float>(1, 1.0f), taps, taps, 2.0f, 1.0f));
}

// The transposed examples: input [1, 16, 2...], weight [16, 16, 2...],
// output [1, 16, 3...], stride 1, no padding, no bias, cubeMathType 0.
int RunTransposed(aclrtStream stream, int dims) {
  std::printf("== aclnnConvolution %dD transposed ==\n", dims);
  const aclFormat format = dims == 1   ? ACL_FORMAT_NCL
                           : dims == 2 ? ACL_FORMAT_NCHW
                                       : ACL_FORMAT_NCDHW;
  std::vector<int64_t> inShape = {1, 16}, wShape = {16, 16}, outShape = {1, 16};
  for (int i = 0; i < dims; ++i) {
    inShape.push_back(2);
    wShape.push_back(2);
    outShape.push_back(3);
  }
  DeviceTensor input, weight, output;
  if (!Create(inShape, format, 1.0f, &input) || !Create(wShape, format, 1.0f, &weight) ||
      !Create(outShape, format, sample::kUnwritten, &output))
    return 1;
  const std::vector<int64_t> ones(dims, 1), zeros(dims, 0);
  IntArrayPtr stride = IntArray(ones), padding = IntArray(zeros), dilation = IntArray(ones),
              outputPadding = IntArray(zeros);
  uint64_t workspaceSize = 0;
  aclOpExecutor* executor = nullptr;
  if (!sample::Succeeded(aclnnConvolutionGetWorkspaceSize(
                             input.tensor.get(), weight.tensor.get(), nullptr, stride.get(),
                             padding.get(), dilation.get(), true, outputPadding.get(), 1,
                             output.tensor.get(), 0, &workspaceSize, &executor),
                         "aclnnConvolutionGetWorkspaceSize(transposed)"))
    return 1;
  if (!sample::RunPhaseTwo(aclnnConvolution, "aclnnConvolution", workspaceSize, executor, stream))
    return 1;
  std::vector<float> c;
  c.push_back(1.0f);
  c.push_back(2.0f);
  c.push_back(1.0f);
  const std::vector<float> one(1, 1.0f);
  return sample::CountMismatches(
      "output", output,
      sample::Outer(16, dims == 3 ? c : one, dims >= 2 ? c : one, c, 16.0f, 0.0f));
}

int RunTransposed1d(aclrtStream stream) { return RunTransposed(stream, 1); }
int RunTransposed2d(aclrtStream stream) { return RunTransposed(stream, 2); }
int RunTransposed3d(aclrtStream stream) { return RunTransposed(stream, 3); }

}  // namespace

int main() {
  int (*const samples[])(aclrtStream) = {RunConvolution2dWithBias, RunTransposed1d, RunTransposed2d,
                                         RunTransposed3d};
  return sample::RunSamples(samples, sizeof(samples) / sizeof(samples[0]));
}
