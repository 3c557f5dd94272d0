#include "conv_oracle.h"

#include <cmath>

namespace conformance {
namespace {

// Shapes lifted to [N, C, D, H, W] by inserting unit spatial dims in front.
struct Lifted5d {
  int64_t n, c, d, h, w;
  int64_t index(int64_t in, int64_t ic, int64_t id, int64_t ih, int64_t iw) const {
    return (((in * c + ic) * d + id) * h + ih) * w + iw;
  }
};

Lifted5d lift(const std::vector<int64_t>& shape) {
  int64_t spatial[3] = {1, 1, 1};
  const size_t dims = shape.size() - 2;
  for (size_t i = 0; i < dims; ++i) spatial[3 - dims + i] = shape[2 + i];
  return {shape[0], shape[1], spatial[0], spatial[1], spatial[2]};
}

std::vector<int64_t> liftParam(const std::vector<int64_t>& values, int64_t fill) {
  std::vector<int64_t> lifted(3, fill);
  for (size_t i = 0; i < values.size(); ++i) lifted[3 - values.size() + i] = values[i];
  return lifted;
}

void accumulate(OracleResult& result, int64_t index, double term) {
  result.value[index] += term;
  result.magnitude[index] += std::fabs(term);
}

OracleResult zeros(size_t count) {
  return {std::vector<double>(count), std::vector<double>(count)};
}

}  // namespace

ConvGradients convBackwardOracle(const HostTensor& gradOutput, const HostTensor& input,
                                 const HostTensor& weight, const ConvGeometry& geometry) {
  // Normal orientation: dy = conv(x, weight).
  const HostTensor& x = geometry.transposed ? gradOutput : input;
  const HostTensor& dy = geometry.transposed ? input : gradOutput;
  const Lifted5d xs = lift(x.shape), ys = lift(dy.shape), ws = lift(weight.shape);
  const std::vector<int64_t> stride = liftParam(geometry.stride, 1);
  const std::vector<int64_t> padLo = liftParam(geometry.padLo, 0);
  const std::vector<int64_t> dilation = liftParam(geometry.dilation, 1);

  OracleResult gradX = zeros(x.values.size());     // d loss / d x
  OracleResult forward = zeros(dy.values.size());  // conv(x, weight), dy-shaped
  OracleResult gradW = zeros(weight.values.size());
  const int64_t outPerGroup = ws.n / geometry.groups;
  const int64_t inPerGroup = ws.c;

  for (int64_t n = 0; n < ys.n; ++n)
    for (int64_t co = 0; co < ws.n; ++co) {
      const int64_t group = co / outPerGroup;
      for (int64_t od = 0; od < ys.d; ++od)
        for (int64_t oh = 0; oh < ys.h; ++oh)
          for (int64_t ow = 0; ow < ys.w; ++ow) {
            const int64_t dyIndex = ys.index(n, co, od, oh, ow);
            const double dyValue = dy.values[dyIndex];
            for (int64_t local = 0; local < inPerGroup; ++local) {
              const int64_t ci = group * inPerGroup + local;
              for (int64_t kd = 0; kd < ws.d; ++kd)
                for (int64_t kh = 0; kh < ws.h; ++kh)
                  for (int64_t kw = 0; kw < ws.w; ++kw) {
                    const int64_t id = od * stride[0] - padLo[0] + kd * dilation[0];
                    const int64_t ih = oh * stride[1] - padLo[1] + kh * dilation[1];
                    const int64_t iw = ow * stride[2] - padLo[2] + kw * dilation[2];
                    if (id < 0 || id >= xs.d || ih < 0 || ih >= xs.h || iw < 0 || iw >= xs.w)
                      continue;  // implicit zero padding
                    const int64_t xIndex = xs.index(n, ci, id, ih, iw);
                    const int64_t wIndex = ws.index(co, local, kd, kh, kw);
                    const double xValue = x.values[xIndex];
                    const double wValue = weight.values[wIndex];
                    accumulate(forward, dyIndex, xValue * wValue);
                    accumulate(gradX, xIndex, dyValue * wValue);
                    accumulate(gradW, wIndex, xValue * dyValue);
                  }
            }
          }
    }

  ConvGradients result;
  result.gradInput = geometry.transposed ? forward : gradX;
  result.gradWeight = gradW;
  const Lifted5d gs = lift(gradOutput.shape);
  result.gradBias = zeros(static_cast<size_t>(gs.c));
  for (int64_t n = 0; n < gs.n; ++n)
    for (int64_t c = 0; c < gs.c; ++c)
      for (int64_t s = 0; s < gs.d * gs.h * gs.w; ++s)
        accumulate(result.gradBias, c, gradOutput.values[(n * gs.c + c) * gs.d * gs.h * gs.w + s]);
  return result;
}

}  // namespace conformance
