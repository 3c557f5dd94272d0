#pragma once
// One convolution-backward problem as the command-line tool names it: a
// compact one-line descriptor in the spirit of benchdnn, e.g.
//   n8c64o64h56w56k3p1          ResNet-50 3x3 layer, stride 1
//   n1c32o32h112w112k3p1g32     depthwise
//   n4c64o32h28w28k4s2p1t       transposed (input 64 ch 28x28 -> 32 ch 56x56)
// Keys (a number follows each, except t):
//   n batch, c input channels, o output channels (for a transposed
//   convolution c/o are the channels of its input/output), groups g;
//   spatial size d, h, w (w alone: 1D; h and w: 2D; d, h and w: 3D), l = w;
//   k kernel, s stride, p padding, dl dilation for every spatial dim, or per
//   dim: kd kh kw, sd sh sw, pd ph pw, dld dlh dlw;
//   pt pb pl pr: 2D 4-value padding [top, bottom, left, right];
//   t transposed, op output padding (transposed only).

#include <cstdint>
#include <string>
#include <vector>

struct ProblemSpec {
  std::string name;  // label for the table
  int64_t batch = 1, inChannels = 1, outChannels = 1, groups = 1;
  int spatialDims = 2;
  int64_t size[3] = {1, 1, 1};  // d, h, w (only the trailing spatialDims are used)
  int64_t kernel[3] = {1, 1, 1};
  int64_t stride[3] = {1, 1, 1};
  int64_t pad[3] = {0, 0, 0};
  int64_t dilation[3] = {1, 1, 1};
  int64_t outputPadding[3] = {0, 0, 0};
  bool fourValuePadding = false;
  int64_t pad4[4] = {0, 0, 0, 0};  // top, bottom, left, right
  bool transposed = false;

  // Tensor shapes as aclnnConvolutionBackward receives them. Values the
  // operator refuses still give a shape: a dim with stride < 1 gets extent 1,
  // groups < 1 count as 1 in the weight's channel dim, a negative inferred
  // extent becomes 0 (phase 1 then says what is wrong).
  std::vector<int64_t> inputShape() const;
  std::vector<int64_t> weightShape() const;
  std::vector<int64_t> gradOutputShape() const;
  std::vector<int64_t> strideArray() const;
  std::vector<int64_t> paddingArray() const;  // d values, or 4 in 2D
  std::vector<int64_t> dilationArray() const;
  std::vector<int64_t> outputPaddingArray() const;

  // Multiply-accumulates of one of dX or dW (the forward's count).
  double macs() const;
  std::string compact() const;
};

// Parses the compact form; on error returns false and sets *error.
// Only the syntax is judged here (known keys, each given once, numbers that fit
// 64 bits, a spatial size, shapes whose inference does not overflow): values
// the operator refuses (stride 0, groups that do not divide the channels, ...)
// are accepted, so that the tool can show the library's own status and message.
bool parseProblem(const std::string& text, ProblemSpec* spec, std::string* error);

// The built-in default set run by the tool without arguments.
std::vector<ProblemSpec> defaultProblems();
