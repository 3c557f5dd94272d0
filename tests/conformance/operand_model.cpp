#include "operand_model.h"

#include <cmath>

#include "float_formats.h"
#include "test_tensor.h"

namespace conformance {

std::vector<double> patternValues(int64_t count, int seed, DataPattern pattern) {
  std::vector<double> values(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i) {
    const double grid = static_cast<double>((i * 7 + seed * 5) % 9 - 4) * 0.5;
    const double fine = grid == 0.0 ? 0.0 : std::ldexp(static_cast<double>(i % 3 - 1), -14);
    values[i] = grid + (pattern == DataPattern::Fine ? fine : 0.0);
  }
  return values;
}

namespace {
aclDataType promote(aclDataType a, aclDataType b) { return a == b ? a : ACL_FLOAT; }
}  // namespace

OperandModel operandModel(aclDataType gradOutput, aclDataType input, aclDataType weight,
                          int8_t cubeMathType) {
  const aclDataType promoted = promote(promote(gradOutput, input), weight);
  if (cubeMathType == 2) return {ACL_FLOAT16, OperandRounding::Fp16};
  if (promoted == ACL_FLOAT && (cubeMathType == 1 || cubeMathType == 3)) {
    return {ACL_FLOAT, OperandRounding::Hf32};
  }
  return {promoted, OperandRounding::None};
}

std::vector<double> roundOperands(std::vector<double> values, OperandRounding rounding) {
  for (double& value : values) {
    if (rounding == OperandRounding::Fp16) value = roundToHalf(static_cast<float>(value));
    if (rounding == OperandRounding::Hf32) value = roundToHf32(static_cast<float>(value));
  }
  return values;
}

std::vector<double> roundThrough(std::vector<double> values,
                                 std::initializer_list<aclDataType> chain) {
  for (double& value : values) {
    for (aclDataType dtype : chain) value = roundToDtype(value, dtype);
  }
  return values;
}

std::vector<double> tolerancesFor(const std::vector<double>& magnitude, DataPattern pattern) {
  std::vector<double> tolerance(magnitude.size(), 0.0);
  if (pattern == DataPattern::Fine) {
    for (size_t i = 0; i < tolerance.size(); ++i) tolerance[i] = std::ldexp(magnitude[i], -18);
  }
  return tolerance;
}

}  // namespace conformance
