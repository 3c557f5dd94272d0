#pragma once
// What the spec says happens to values on the way in and out of the kernels
// (convolution-backward.md section 6, decision 7), plus the deterministic
// test data both operators share.

#include <cstdint>
#include <initializer_list>
#include <vector>

#include "acl/acl.h"

namespace conformance {

// Grid: multiples of 0.5 in [-2, 2], exact in every dtype and in fp32 sums,
// so results are predicted bit-exactly. Fine: grid plus 2^-14 on non-zero
// values, a perturbation that HF32 and fp16 operand rounding remove.
enum class DataPattern { Grid, Fine };

std::vector<double> patternValues(int64_t count, int seed, DataPattern pattern);

// A byte whose repetition is a finite value in fp32, fp16 and bf16.
constexpr uint8_t kSentinelByte = 0x7B;

enum class OperandRounding { None, Hf32, Fp16 };

struct OperandModel {
  aclDataType dtype;  // the dtype the dX kernel result is rounded to
  OperandRounding rounding;
};

// Promotion of the three input dtypes (section 6.1) and the cubeMathType
// table of section 6.2.
OperandModel operandModel(aclDataType gradOutput, aclDataType input, aclDataType weight,
                          int8_t cubeMathType);

std::vector<double> roundOperands(std::vector<double> values, OperandRounding rounding);

// Rounds every value through `chain`, in order.
std::vector<double> roundThrough(std::vector<double> values,
                                 std::initializer_list<aclDataType> chain);

// Per-element tolerance: 0 for Grid data, magnitude * 2^-18 for Fine data.
std::vector<double> tolerancesFor(const std::vector<double>& magnitude, DataPattern pattern);

}  // namespace conformance
