#include "kernels/conv/plane_window.h"

namespace aclcpu {
namespace kernels {

PlaneWindow forwardWindow(const ConvShape& s) {
  PlaneWindow g;
  g.srcH = s.in[1];
  g.srcW = s.in[2];
  g.dstH = s.out[1];
  g.dstW = s.out[2];
  g.rowStride = s.stride[1];
  g.colStride = s.stride[2];
  g.dilH = s.dilation[1];
  g.dilW = s.dilation[2];
  g.padH = s.padBefore[1];
  g.padW = s.padBefore[2];
  g.kh = s.kernel[1];
  g.kw = s.kernel[2];
  return g;
}

PlaneWindow dataGradientWindow(const ConvShape& s) {
  PlaneWindow g = forwardWindow(s);
  g.srcH = s.out[1];
  g.srcW = s.out[2];
  g.dstH = s.in[1];
  g.dstW = s.in[2];
  g.rowStride = 1;
  g.colStride = 1;
  g.padH = (s.kernel[1] - 1) * s.dilation[1] - s.padBefore[1];
  g.padW = (s.kernel[2] - 1) * s.dilation[2] - s.padBefore[2];
  return g;
}

}  // namespace kernels
}  // namespace aclcpu
