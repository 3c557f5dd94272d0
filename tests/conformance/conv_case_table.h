#pragma once
// Shorthands for the case tables.

#include <gtest/gtest.h>

#include "conv_case.h"

namespace conformance {

class ConvBackward : public ::testing::TestWithParam<ConvCase> {};

constexpr aclnnStatus kOk = ACLNN_SUCCESS;
constexpr aclnnStatus kNull = ACLNN_ERR_PARAM_NULLPTR;
constexpr aclnnStatus kInvalid = ACLNN_ERR_PARAM_INVALID;

inline std::vector<bool> mask(bool gradInput, bool gradWeight, bool gradBias) {
  return {gradInput, gradWeight, gradBias};
}

// Sets the dtype of the three inputs and the three outputs.
inline void setDtypes(ConvCall& c, aclDataType inputs, aclDataType outputs) {
  c.gradOutput.dtype = c.input.dtype = c.weight.dtype = inputs;
  c.gradInput.dtype = c.gradWeight.dtype = c.gradBias.dtype = outputs;
}

}  // namespace conformance

#define CONV_CASES(suite, table) \
  INSTANTIATE_TEST_SUITE_P(suite, ConvBackward, ::testing::ValuesIn(table), ConvCaseName())
