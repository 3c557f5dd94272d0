#include "conv_problem.h"

namespace fuzz {

ConvProblem consistentProblem(FuzzBytes& in, int64_t maxExtent) {
  ConvProblem p;
  p.spatialDims = static_cast<int>(in.range(1, 3));
  p.groups = static_cast<int>(in.range(1, 3));
  p.transposed = in.byte() % 4 == 0;
  const int64_t batch = in.range(1, 2), inPerGroup = in.range(1, 3), outPerGroup = in.range(1, 3);
  // Normal orientation: x [N, G*cig, in], w [G*cog, cig, k], y [N, G*cog, out].
  std::vector<int64_t> x = {batch, p.groups * inPerGroup}, y = {batch, p.groups * outPerGroup};
  std::vector<int64_t> w = {p.groups * outPerGroup, inPerGroup};
  for (int s = 0; s < p.spatialDims; ++s) {
    int64_t k = in.range(1, 3), stride = in.range(1, 3), pad = in.range(0, 2),
            dilation = in.range(1, 2), extent = in.range(1, maxExtent);
    const int64_t span = dilation * (k - 1) + 1;
    if (extent + 2 * pad < span) pad = (span - extent + 1) / 2;  // the kernel must fit
    x.push_back(extent);
    y.push_back((extent + 2 * pad - span) / stride + 1);
    w.push_back(k);
    p.stride.push_back(stride);
    p.padding.push_back(pad);
    p.dilation.push_back(dilation);
    p.outputPadding.push_back(0);
  }
  p.weight = w;
  // Transposed: the API's input is the normal y, its gradOutput the normal x.
  p.input = p.transposed ? y : x;
  p.gradOutput = p.transposed ? x : y;
  p.gradBias = {p.gradOutput[1]};
  p.biasSizes = p.gradBias;
  return p;
}

}  // namespace fuzz
