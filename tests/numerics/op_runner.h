#pragma once
// Drives the operators only through the public API, like a CANN program:
// device buffers from aclrtMalloc, aclrtMemcpy both ways, aclCreateTensor
// with the host tensor's strides and offset, phase 1, a workspace from
// aclrtMalloc, phase 2, aclrtSynchronizeStream. Every ACL object is owned by
// an RAII holder, so an early failure leaks nothing.

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "aclnnop/aclnn_convolution.h"
#include "aclnnop/aclnn_convolution_backward.h"
#include "numerics/host_tensor.h"

namespace numerics {

// The attributes of one aclnnConvolutionBackward call.
struct ConvAttrs {
  std::vector<int64_t> biasSizes;  // empty -> nullptr is passed
  std::vector<int64_t> stride, padding, dilation, outputPadding;
  bool transposed = false;
  int groups = 1;
  std::array<bool, 3> mask = {true, true, true};
  int8_t cubeMathType = 0;
};

struct RunOptions {
  int computeThreads = 0;  // > 0: aclcpu::setComputeThreadCount before phase 1
  bool rank3AsNcl = true;  // format of rank-3 tensors: NCL, else ND
};

struct OpOutcome {
  aclnnStatus phase1 = -1;
  aclnnStatus phase2 = -1;
  aclError synchronize = -1;
  uint64_t workspaceSize = 0;
  std::string message;          // aclGetRecentErrMsg after a failure
  bool inputsModified = false;  // an input's device storage changed during the run
  bool succeeded() const {
    return phase1 == 0 && phase2 == 0 && synchronize == 0 && !inputsModified;
  }
  std::string describe() const;
};

// Outputs are uploaded too (their sentinel bytes included) and downloaded
// after the run, so the caller sees exactly what the operator wrote. A null
// output pointer passes nullptr to the API.
OpOutcome runConvolutionBackward(const ConvAttrs& attrs, const HostTensor& gradOutput,
                                 const HostTensor& input, const HostTensor& weight,
                                 HostTensor* gradInput, HostTensor* gradWeight,
                                 HostTensor* gradBias, const RunOptions& options = {});

OpOutcome runConvTbcBackward(const HostTensor& self, const HostTensor& input,
                             const HostTensor& weight, const HostTensor& bias, int64_t pad,
                             int8_t cubeMathType, HostTensor* gradInput, HostTensor* gradWeight,
                             HostTensor* gradBias, const RunOptions& options = {});

// The attributes of one aclnnConvolution call, and the format of each tensor
// (3-D tensors may be NCDHW or NDHWC; the host tensors hold the view in that
// format's dim order).
struct ForwardConvAttrs {
  std::vector<int64_t> stride, padding, dilation, outputPadding;
  bool transposed = false;
  int64_t groups = 1;
  int8_t cubeMathType = 0;
  aclFormat inputFormat = ACL_FORMAT_NCHW;
  aclFormat weightFormat = ACL_FORMAT_NCHW;
  aclFormat outputFormat = ACL_FORMAT_NCHW;
};

// The forward operators, run like the backward ones above. A null bias
// passes nullptr.
OpOutcome runConvolution(const ForwardConvAttrs& attrs, const HostTensor& input,
                         const HostTensor& weight, const HostTensor* bias, HostTensor* output,
                         const RunOptions& options = {});

struct DepthwiseAttrs {
  std::vector<int64_t> kernelSize, stride, padding, dilation;
  int8_t cubeMathType = 0;
};
OpOutcome runConvDepthwise2d(const DepthwiseAttrs& attrs, const HostTensor& self,
                             const HostTensor& weight, const HostTensor* bias, HostTensor* out,
                             const RunOptions& options = {});

// self/weight/output use ND or NCL per options.rank3AsNcl; the bias ND.
OpOutcome runConvTbc(const HostTensor& self, const HostTensor& weight, const HostTensor& bias,
                     int64_t pad, int8_t cubeMathType, HostTensor* output,
                     const RunOptions& options = {});

}  // namespace numerics
