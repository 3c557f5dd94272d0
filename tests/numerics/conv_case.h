#pragma once
// One aclnnConvolutionBackward problem as the numerics tests state it, and
// what follows from it: the API attributes, the reference's parameters and
// the longest sum behind each gradient (for the error bounds).

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "numerics/float_bits.h"
#include "numerics/host_tensor.h"
#include "numerics/op_runner.h"
#include "reference/reference_conv.h"

namespace numerics {

struct ConvCase {
  bool transposed = false;
  int groups = 1;
  Shape inputShape, weightShape, gradOutputShape;
  std::vector<int64_t> stride, padding, dilation, outputPadding;  // padding: d values or 4 (2D)
  std::array<bool, 3> mask = {true, true, true};
  int8_t cubeMathType = 0;
  DType gradOutputType = DType::F32, inputType = DType::F32, weightType = DType::F32;
  DType gradInputType = DType::F32, gradWeightType = DType::F32, gradBiasType = DType::F32;

  int spatialDims() const { return static_cast<int>(inputShape.size()) - 2; }
  int64_t biasChannels() const { return gradOutputShape[1]; }
  Shape biasShape() const { return {biasChannels()}; }

  ConvAttrs attrs() const;
  aclcpu::reference::ConvParams referenceParams() const;

  // Number of products summed into one element of each gradient.
  int64_t gradInputTerms() const;
  int64_t gradWeightTerms() const;
  int64_t gradBiasTerms() const;

  // One line that names the problem (benchdnn style), for failure messages.
  std::string describe() const;
};

// Builds the spatial sizes of a valid problem from the normal-orientation
// (x, y) view: given x's extents, y's follow from the forward relation, and
// a transposed case gets the outputPadding that makes its shape formula
// produce those x extents.
void completeShapes(ConvCase* c, int64_t batch, int64_t xChannels, int64_t yChannels,
                    const std::vector<int64_t>& kernel, const std::vector<int64_t>& xSpatial);

DType promotedType(DType a, DType b, DType c);

}  // namespace numerics
