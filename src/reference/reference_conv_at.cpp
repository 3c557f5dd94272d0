// Single gradient elements by gathering: for one output element, enumerate
// exactly the forward terms that involve it. For gradInput that means solving
// o * stride - pad + k * dilation = i for o, which is how section 5 states it.

#include <stdexcept>
#include <string>

#include "reference/normal_geometry.h"
#include "reference/reference_conv.h"

namespace aclcpu {
namespace reference {
namespace {

void requireIndex(const char* what, int64_t index, int64_t count) {
  if (index < 0 || index >= count) {
    throw std::invalid_argument("reference convolution: " + std::string(what) + " " +
                                std::to_string(index) + " is outside [0, " + std::to_string(count) +
                                ")");
  }
}

// The output position o with o * stride - pad + k * dilation == i along one
// dim, or -1 when there is none inside y.
int64_t outputPositionFor(const NormalGeometry& g, int dim, int64_t i, int64_t k) {
  const int64_t scaled = i + g.padBefore[dim] - k * g.dilation[dim];
  if (scaled < 0 || scaled % g.stride[dim] != 0) return -1;
  const int64_t o = scaled / g.stride[dim];
  return o < g.ySize[dim] ? o : -1;
}

bool insideX(const NormalGeometry& g, const Spatial& i) {
  for (int dim = 0; dim < kLiftedDims; ++dim) {
    if (i[dim] < 0 || i[dim] >= g.xSize[dim]) return false;
  }
  return true;
}

// d(<y, dy>)/dx at one x element: the transposed convolution of dy with w.
double normalGradXAt(const NormalGeometry& g, const ElementReader& dy, const ElementReader& w,
                     int64_t xIndex) {
  const SplitIndex at = splitIndex(xIndex, g.xChannels, g.xSize);
  const int64_t group = at.second / g.xChannelsPerGroup;
  const int64_t ciLocal = at.second % g.xChannelsPerGroup;
  double sum = 0.0;
  Spatial k, o;
  for (int64_t co = group * g.yChannelsPerGroup; co < (group + 1) * g.yChannelsPerGroup; ++co) {
    for (k[0] = 0; k[0] < g.kernel[0]; ++k[0]) {
      if ((o[0] = outputPositionFor(g, 0, at.position[0], k[0])) < 0) continue;
      for (k[1] = 0; k[1] < g.kernel[1]; ++k[1]) {
        if ((o[1] = outputPositionFor(g, 1, at.position[1], k[1])) < 0) continue;
        for (k[2] = 0; k[2] < g.kernel[2]; ++k[2]) {
          if ((o[2] = outputPositionFor(g, 2, at.position[2], k[2])) < 0) continue;
          sum += dy(g.yOffset(at.first, co, o)) * w(g.weightOffset(co, ciLocal, k));
        }
      }
    }
  }
  return sum;
}

// One element of the forward y = conv(x, w).
double normalForwardAt(const NormalGeometry& g, const ElementReader& x, const ElementReader& w,
                       int64_t yIndex) {
  const SplitIndex at = splitIndex(yIndex, g.yChannels, g.ySize);
  const int64_t firstXChannel = (at.second / g.yChannelsPerGroup) * g.xChannelsPerGroup;
  double sum = 0.0;
  Spatial k, i;
  for (int64_t ciLocal = 0; ciLocal < g.xChannelsPerGroup; ++ciLocal) {
    for (k[0] = 0; k[0] < g.kernel[0]; ++k[0]) {
      for (k[1] = 0; k[1] < g.kernel[1]; ++k[1]) {
        for (k[2] = 0; k[2] < g.kernel[2]; ++k[2]) {
          for (int dim = 0; dim < kLiftedDims; ++dim)
            i[dim] = g.xPosition(dim, at.position[dim], k[dim]);
          if (!insideX(g, i)) continue;
          sum += x(g.xOffset(at.first, firstXChannel + ciLocal, i)) *
                 w(g.weightOffset(at.second, ciLocal, k));
        }
      }
    }
  }
  return sum;
}

// One element of the filter gradient: sum over batch and output positions.
double normalGradWeightAt(const NormalGeometry& g, const ElementReader& x, const ElementReader& dy,
                          int64_t weightIndex) {
  const SplitIndex at = splitIndex(weightIndex, g.xChannelsPerGroup, g.kernel);
  const int64_t co = at.first;
  const int64_t ci = (co / g.yChannelsPerGroup) * g.xChannelsPerGroup + at.second;
  double sum = 0.0;
  Spatial o, i;
  for (int64_t n = 0; n < g.batch; ++n) {
    for (o[0] = 0; o[0] < g.ySize[0]; ++o[0]) {
      for (o[1] = 0; o[1] < g.ySize[1]; ++o[1]) {
        for (o[2] = 0; o[2] < g.ySize[2]; ++o[2]) {
          for (int dim = 0; dim < kLiftedDims; ++dim)
            i[dim] = g.xPosition(dim, o[dim], at.position[dim]);
          if (!insideX(g, i)) continue;
          sum += x(g.xOffset(n, ci, i)) * dy(g.yOffset(n, co, o));
        }
      }
    }
  }
  return sum;
}

ElementReader readerOf(const std::vector<double>& values) {
  return [&values](int64_t index) { return values[static_cast<size_t>(index)]; };
}

void requireOperandSizes(const ConvParams& params, const NormalGeometry& g,
                         const std::vector<double>& gradOutput, const std::vector<double>& input,
                         const std::vector<double>& weight) {
  requireSize("gradOutput", static_cast<int64_t>(gradOutput.size()),
              elementCount(params.gradOutputShape));
  requireSize("input", static_cast<int64_t>(input.size()), elementCount(params.inputShape));
  requireSize("weight", static_cast<int64_t>(weight.size()), g.weightCount());
}

}  // namespace

double gradInputAt(const ConvParams& params, const ElementReader& gradOutput,
                   const ElementReader& input, const ElementReader& weight, int64_t inputIndex) {
  const NormalGeometry g = makeNormalGeometry(params);
  requireIndex("inputIndex", inputIndex, elementCount(params.inputShape));
  (void)input;  // gradInput is linear in gradOutput and weight only
  // Transposed: input plays dy, and its gradient is the forward of gradOutput.
  return params.transposed ? normalForwardAt(g, gradOutput, weight, inputIndex)
                           : normalGradXAt(g, gradOutput, weight, inputIndex);
}

double gradWeightAt(const ConvParams& params, const ElementReader& gradOutput,
                    const ElementReader& input, const ElementReader& weight, int64_t weightIndex) {
  const NormalGeometry g = makeNormalGeometry(params);
  requireIndex("weightIndex", weightIndex, g.weightCount());
  (void)weight;  // gradWeight is linear in gradOutput and input only
  return params.transposed ? normalGradWeightAt(g, gradOutput, input, weightIndex)
                           : normalGradWeightAt(g, input, gradOutput, weightIndex);
}

double gradBiasAt(const ConvParams& params, const ElementReader& gradOutput, int64_t channel) {
  makeNormalGeometry(params);
  const std::vector<int64_t>& shape = params.gradOutputShape;
  requireIndex("gradBias channel", channel, shape[1]);
  const int64_t spatialCount = elementCount(std::vector<int64_t>(shape.begin() + 2, shape.end()));
  double sum = 0.0;
  for (int64_t n = 0; n < shape[0]; ++n) {
    const int64_t plane = (n * shape[1] + channel) * spatialCount;
    for (int64_t s = 0; s < spatialCount; ++s) sum += gradOutput(plane + s);
  }
  return sum;
}

double gradInputAt(const ConvParams& params, const std::vector<double>& gradOutput,
                   const std::vector<double>& input, const std::vector<double>& weight,
                   int64_t inputIndex) {
  requireOperandSizes(params, makeNormalGeometry(params), gradOutput, input, weight);
  return gradInputAt(params, readerOf(gradOutput), readerOf(input), readerOf(weight), inputIndex);
}

double gradWeightAt(const ConvParams& params, const std::vector<double>& gradOutput,
                    const std::vector<double>& input, const std::vector<double>& weight,
                    int64_t weightIndex) {
  requireOperandSizes(params, makeNormalGeometry(params), gradOutput, input, weight);
  return gradWeightAt(params, readerOf(gradOutput), readerOf(input), readerOf(weight), weightIndex);
}

double gradBiasAt(const ConvParams& params, const std::vector<double>& gradOutput,
                  int64_t channel) {
  makeNormalGeometry(params);
  requireSize("gradOutput", static_cast<int64_t>(gradOutput.size()),
              elementCount(params.gradOutputShape));
  return gradBiasAt(params, readerOf(gradOutput), channel);
}

}  // namespace reference
}  // namespace aclcpu
