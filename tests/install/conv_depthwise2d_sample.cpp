// A CANN-style user program for aclnnConvDepthwise2d, run against the
// installed library on all-ones data and checked exactly:
//   the upstream doc example: self [2,2,2,2], weight [2,1,1,1], bias 1 -> out == 2
//   channel multiplier 2, 3x3 kernel, padding 1: out = taps(h) * taps(w) + 1
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

int RunDepthwise(aclrtStream stream, const char* title, const std::vector<int64_t>& selfShape,
                 const std::vector<int64_t>& weightShape, const std::vector<int64_t>& outShape,
                 int64_t pad, const std::vector<float>& expected) {
  std::printf("== aclnnConvDepthwise2d %s ==\n", title);
  DeviceTensor self, weight, bias, out;
  if (!Create(selfShape, ACL_FORMAT_NCHW, 1.0f, &self) ||
      !Create(weightShape, ACL_FORMAT_NCHW, 1.0f, &weight) ||
      !Create(std::vector<int64_t>(1, weightShape[0]), ACL_FORMAT_ND, 1.0f, &bias) ||
      !Create(outShape, ACL_FORMAT_NCHW, sample::kUnwritten, &out))
    return 1;
  std::vector<int64_t> kernel;
  kernel.push_back(weightShape[2]);
  kernel.push_back(weightShape[3]);
  IntArrayPtr kernelSize = IntArray(kernel), stride = IntArray({1, 1}),
              padding = IntArray({pad, pad}), dilation = IntArray({1, 1});
  uint64_t workspaceSize = 0;
  aclOpExecutor* executor = nullptr;
  if (!sample::Succeeded(aclnnConvDepthwise2dGetWorkspaceSize(
                             self.tensor.get(), weight.tensor.get(), kernelSize.get(),
                             bias.tensor.get(), stride.get(), padding.get(), dilation.get(),
                             out.tensor.get(), 1, &workspaceSize, &executor),
                         "aclnnConvDepthwise2dGetWorkspaceSize"))
    return 1;
  if (!sample::RunPhaseTwo(aclnnConvDepthwise2d, "aclnnConvDepthwise2d", workspaceSize, executor,
                           stream))
    return 1;
  return sample::CountMismatches("out", out, expected);
}

int RunDocExample(aclrtStream stream) {
  return RunDepthwise(stream, "doc example", {2, 2, 2, 2}, {2, 1, 1, 1}, {2, 2, 2, 2}, 0,
                      std::vector<float>(16, 2.0f));
}

int RunMultiplier(aclrtStream stream) {
  const std::vector<float> taps = sample::TapCounts(4, 3, 1, 4);  // [2, 3, 3, 2]
  return RunDepthwise(stream, "multiplier 2, 3x3, padding 1", {1, 2, 4, 4}, {4, 1, 3, 3},
                      {1, 4, 4, 4}, 1,
                      sample::Outer(4, std::vector<float>(1, 1.0f), taps, taps, 1.0f, 1.0f));
}

}  // namespace

int main() {
  int (*const samples[])(aclrtStream) = {RunDocExample, RunMultiplier};
  return sample::RunSamples(samples, sizeof(samples) / sizeof(samples[0]));
}
