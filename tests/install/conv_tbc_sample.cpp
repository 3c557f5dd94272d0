// A CANN-style user program for aclnnConvTbc (time-major 1D convolution),
// run against the installed library on all-ones data and checked exactly:
// the upstream doc example, self [2,2,3], weight [3,3,4], bias [4], pad 1:
// output [2,2,4] == 7 (two valid taps x C_in 3, plus the bias 1).
#include <cstdint>
#include <cstdio>
#include <vector>

#include "aclnnop/aclnn_convolution.h"
#include "forward_sample_support.h"

namespace {

int RunConvTbcDocExample(aclrtStream stream) {
  std::printf("== aclnnConvTbc doc example ==\n");
  sample::DeviceTensor self, weight, bias, output;
  if (!sample::Create({2, 2, 3}, ACL_FORMAT_NCL, 1.0f, &self) ||
      !sample::Create({3, 3, 4}, ACL_FORMAT_NCL, 1.0f, &weight) ||
      !sample::Create({4}, ACL_FORMAT_ND, 1.0f, &bias) ||
      !sample::Create({2, 2, 4}, ACL_FORMAT_NCL, sample::kUnwritten, &output))
    return 1;
  const int64_t pad = 1;
  uint64_t workspaceSize = 0;
  aclOpExecutor* executor = nullptr;
  if (!sample::Succeeded(
          aclnnConvTbcGetWorkspaceSize(self.tensor.get(), weight.tensor.get(), bias.tensor.get(),
                                       pad, output.tensor.get(), 1, &workspaceSize, &executor),
          "aclnnConvTbcGetWorkspaceSize"))
    return 1;
  if (!sample::RunPhaseTwo(aclnnConvTbc, "aclnnConvTbc", workspaceSize, executor, stream)) return 1;
  return sample::CountMismatches("output", output, std::vector<float>(16, 7.0f));
}

}  // namespace

int main() {
  int (*const samples[])(aclrtStream) = {RunConvTbcDocExample};
  return sample::RunSamples(samples, 1);
}
