// (d) Rounding through the operator, exact output bits. The problems are 1D
// with one position and a 1-tap kernel, so every output element is a single
// product (or a chosen short sum) and the rounding rules of
// convolution-backward.md 6.2 / project decision 7 show up bit for bit:
//   cubeMathType 0: fp32 operands unchanged; 1 and 3: HF32 (11 mantissa bits,
//   ties away from zero); 2: fp16 (nearest even, overflow to inf, subnormals).
//   dX is rounded to the operand dtype, dW stays fp32, gradBias sums the
//   ORIGINAL gradOutput; then each is cast (nearest even) to its output dtype.

#include <gtest/gtest.h>

#include <cmath>
#include <iomanip>
#include <sstream>

#include "numerics/op_runner.h"

namespace numerics {
namespace {

struct Outputs {
  std::vector<uint32_t> gradInput, gradWeight, gradBias;
};

struct Dtypes {
  DType operands = DType::F32;
  DType gradInput = DType::F32, gradWeight = DType::F32, gradBias = DType::F32;
};

HostTensor filledTensor(DType dtype, const Shape& shape, const std::vector<double>& values) {
  HostTensor t(dtype, contiguousLayout(shape));
  t.setDense(values);
  return t;
}

std::vector<uint32_t> bitsOf(const HostTensor& t) {
  std::vector<uint32_t> bits;
  for (int64_t i = 0; i < t.count(); ++i) bits.push_back(t.bitsAt(i));
  return bits;
}

ConvAttrs pointwise1d(int64_t biasChannels, int8_t cubeMathType, std::array<bool, 3> mask) {
  ConvAttrs a;
  a.biasSizes = {biasChannels};
  a.stride = {1};
  a.padding = {0};
  a.dilation = {1};
  a.outputPadding = {0};
  a.mask = mask;
  a.cubeMathType = cubeMathType;
  return a;
}

// A 1D problem with one batch and kernel 1, given densely.
struct Small1d {
  Shape gradOutputShape, inputShape, weightShape;
  std::vector<double> gradOutput, input, weight;
};

Outputs runSmall(const Small1d& p, int8_t cubeMathType, const Dtypes& types,
                 std::array<bool, 3> mask, DType gradOutputType, DType inputType,
                 DType weightType) {
  const HostTensor gradOutput = filledTensor(gradOutputType, p.gradOutputShape, p.gradOutput);
  const HostTensor input = filledTensor(inputType, p.inputShape, p.input);
  const HostTensor weight = filledTensor(weightType, p.weightShape, p.weight);
  HostTensor gradInput(types.gradInput, contiguousLayout(p.inputShape));
  HostTensor gradWeight(types.gradWeight, contiguousLayout(p.weightShape));
  HostTensor gradBias(types.gradBias, contiguousLayout({p.gradOutputShape[1]}));
  const OpOutcome outcome =
      runConvolutionBackward(pointwise1d(p.gradOutputShape[1], cubeMathType, mask), gradOutput,
                             input, weight, mask[0] ? &gradInput : nullptr,
                             mask[1] ? &gradWeight : nullptr, mask[2] ? &gradBias : nullptr);
  EXPECT_TRUE(outcome.succeeded()) << outcome.describe();
  Outputs out;
  if (mask[0]) out.gradInput = bitsOf(gradInput);
  if (mask[1]) out.gradWeight = bitsOf(gradWeight);
  if (mask[2]) out.gradBias = bitsOf(gradBias);
  return out;
}

Outputs runSmall(const Small1d& p, int8_t cubeMathType, const Dtypes& types,
                 std::array<bool, 3> mask) {
  return runSmall(p, cubeMathType, types, mask, types.operands, types.operands, types.operands);
}

// Cin = m channels, Cout = 1, gradOutput = g:
//   gradInput[c] = g * w[c] and gradWeight[c] = x[c] * g; with g = 1 both
//   expose the operand rounding of `values` and the result roundings after it.
Outputs throughInputAndWeight(const std::vector<double>& values, int8_t cubeMathType,
                              const Dtypes& types, double g = 1.0) {
  const int64_t m = static_cast<int64_t>(values.size());
  return runSmall({{1, 1, 1}, {1, m, 1}, {1, m, 1}, {g}, values, values}, cubeMathType, types,
                  {true, true, false});
}

// Cin = 1, Cout = m, input = weight = 1, gradOutput = values:
//   gradWeight[c] = 1 * dy[c] (operand rounding), gradBias[c] = dy[c] (none).
Outputs throughGradOutput(const std::vector<double>& values, int8_t cubeMathType,
                          const Dtypes& types) {
  const int64_t m = static_cast<int64_t>(values.size());
  return runSmall({{1, m, 1}, {1, 1, 1}, {m, 1, 1}, values, {1.0}, std::vector<double>(m, 1.0)},
                  cubeMathType, types, {false, true, true});
}

bool isNanBits(uint32_t bits, DType t) {
  if (t == DType::F32) return (bits & 0x7F800000u) == 0x7F800000u && (bits & 0x7FFFFFu);
  if (t == DType::F16) return (bits & 0x7C00u) == 0x7C00u && (bits & 0x3FFu);
  return (bits & 0x7F80u) == 0x7F80u && (bits & 0x7Fu);
}

bool isZeroBits(uint32_t bits, DType t) {
  return (bits & (t == DType::F32 ? 0x7FFFFFFFu : 0x7FFFu)) == 0;
}

std::string hex(uint32_t v) {
  std::ostringstream out;
  out << "0x" << std::hex << std::uppercase << v;
  return out.str();
}

void expectBits(const std::vector<uint32_t>& got, const std::vector<uint32_t>& want, DType t,
                const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i) {
    if (isZeroBits(want[i], t)) {
      // The sign of a zero result is not specified: an fp32 accumulator that
      // starts at +0 turns a lone -0 product into +0.
      EXPECT_TRUE(isZeroBits(got[i], t))
          << what << " element " << i << ": got " << hex(got[i]) << ", expected a zero";
    } else if (isNanBits(want[i], t)) {
      EXPECT_TRUE(isNanBits(got[i], t))
          << what << " element " << i << ": got " << hex(got[i]) << ", expected a NaN";
    } else {
      EXPECT_EQ(hex(got[i]), hex(want[i])) << what << " element " << i;
    }
  }
}

double fromBits(uint32_t bits) { return floatFromBits(bits); }

// fp32 operand bits and the operand each cubeMathType must use.
struct OperandRow {
  uint32_t bits, keep, hf32, fp16;
  const char* why;
};

const OperandRow kOperandRows[] = {
    {0x3F800800, 0x3F800800, 0x3F801000, 0x3F800000, "1+2^-12: HF32 tie, kept lsb even"},
    {0xBF800800, 0xBF800800, 0xBF801000, 0xBF800000, "-(1+2^-12): ties away from zero"},
    {0x3F801800, 0x3F801800, 0x3F802000, 0x3F802000, "1+2^-11+2^-12: HF32 tie, kept lsb odd"},
    {0x3F8007FF, 0x3F8007FF, 0x3F800000, 0x3F800000, "just below the HF32 tie"},
    {0x3F801000, 0x3F801000, 0x3F801000, 0x3F800000, "1+2^-11: fp16 tie, kept lsb even"},
    {0x3F803000, 0x3F803000, 0x3F803000, 0x3F804000, "1+3*2^-11: fp16 tie, kept lsb odd"},
    {0x3F801001, 0x3F801001, 0x3F801000, 0x3F802000, "just above the fp16 tie"},
    {0x477FF000, 0x477FF000, 0x477FF000, 0x7F800000, "65520: fp16 overflow tie -> inf"},
    {0x477FEF00, 0x477FEF00, 0x477FF000, 0x477FE000, "65519: below the fp16 overflow tie"},
    {0x33C00000, 0x33C00000, 0x33C00000, 0x34000000, "3*2^-25: fp16 subnormal tie, odd"},
    {0x33000000, 0x33000000, 0x33000000, 0x00000000, "2^-25: fp16 tie between 0 and 2^-24"},
    {0xB3000000, 0xB3000000, 0xB3000000, 0x80000000, "-2^-25 -> -0"},
    {0x387FE000, 0x387FE000, 0x387FE000, 0x38800000, "(2^11-1)*2^-25: subnormal -> 2^-14"},
    {0x7F7FF800, 0x7F7FF800, 0x7F800000, 0x7F800000, "top binade: HF32 carry to inf"},
    {0x00000800, 0x00000800, 0x00001000, 0x00000000, "fp32 subnormal on an HF32 tie"},
    {0x80000FFF, 0x80000FFF, 0x80001000, 0x80000000, "negative fp32 subnormal"},
    {0x7F800000, 0x7F800000, 0x7F800000, 0x7F800000, "inf"},
    {0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, "-inf"},
    {0x7FC00000, 0x7FC00000, 0x7FC00000, 0x7FC00000, "NaN"},
};

uint32_t expectedFor(const OperandRow& row, int cube) {
  return cube == 0 ? row.keep : cube == 2 ? row.fp16 : row.hf32;
}

TEST(Rounding, Fp32OperandsPerCubeMathType) {
  std::vector<double> values;
  for (const auto& row : kOperandRows) values.push_back(fromBits(row.bits));
  for (int cube = 0; cube <= 3; ++cube) {
    SCOPED_TRACE("cubeMathType " + std::to_string(cube));
    std::vector<uint32_t> want;
    for (const auto& row : kOperandRows) want.push_back(expectedFor(row, cube));
    const Outputs a = throughInputAndWeight(values, static_cast<int8_t>(cube), {});
    expectBits(a.gradInput, want, DType::F32, "gradInput = w * 1");
    expectBits(a.gradWeight, want, DType::F32, "gradWeight = x * 1");
    const Outputs b = throughGradOutput(values, static_cast<int8_t>(cube), {});
    expectBits(b.gradWeight, want, DType::F32, "gradWeight = 1 * dy");
    std::vector<uint32_t> original;
    for (const auto& row : kOperandRows) original.push_back(row.bits);
    expectBits(b.gradBias, original, DType::F32, "gradBias = dy, never operand-rounded");
  }
}

// Products and sums of HF32-exact operands whose exact fp32 result has its
// low 12 bits at 0x800 (an HF32 tie) or sits on an fp16 tie: results are
// never operand-rounded; only dX is rounded to the operand dtype (fp16 for
// cubeMathType 2), dW stays fp32.
TEST(Rounding, ProductsAndSumsOnTiesAreNotOperandRounded) {
  const double a = 1 + 0x1p-6;  // exact in HF32 and fp16
  for (int cube = 0; cube <= 3; ++cube) {
    SCOPED_TRACE("cubeMathType " + std::to_string(cube));
    const auto c = static_cast<int8_t>(cube);
    const bool fp16DataGrad = cube == 2;
    // (1+2^-6)^2 = 1 + 2^-5 + 2^-12 = 0x3F840800.
    const Outputs product = throughInputAndWeight({a}, c, {}, a);
    expectBits(product.gradWeight, {0x3F840800}, DType::F32, "dW product on an HF32 tie");
    expectBits(product.gradInput, {fp16DataGrad ? 0x3F840000u : 0x3F840800u}, DType::F32,
               "dX product on an HF32 tie");
    for (const auto& [t, exact] : {std::pair<double, uint32_t>{0x1p-12, 0x3F800800},
                                   std::pair<double, uint32_t>{0x1p-11, 0x3F801000}}) {
      // gradInput = 1*1 + 1*t (sum over two output channels).
      const Outputs dataSum = runSmall({{1, 2, 1}, {1, 1, 1}, {2, 1, 1}, {1, 1}, {1}, {1, t}}, c,
                                       {}, {true, false, false});
      expectBits(dataSum.gradInput, {fp16DataGrad ? 0x3F800000u : exact}, DType::F32,
                 "dX sum 1 + t");
      // gradWeight = 1*1 + t*1 (sum over two positions).
      const Outputs weightSum = runSmall({{1, 1, 2}, {1, 1, 2}, {1, 1, 1}, {1, 1}, {1, t}, {1}}, c,
                                         {}, {false, true, false});
      expectBits(weightSum.gradWeight, {exact}, DType::F32, "dW sum 1 + t stays fp32");
    }
  }
}

// fp16 operands: products of subnormals are exact in fp32; dX is then
// rounded to fp16 (underflow to 0, overflow to inf) but dW is not.
TEST(Rounding, Fp16OperandsRoundDataGradOnly) {
  for (int cube = 0; cube <= 3; ++cube) {
    SCOPED_TRACE("cubeMathType " + std::to_string(cube));
    const auto c = static_cast<int8_t>(cube);
    Dtypes f16;
    f16.operands = DType::F16;
    // 2^-24 * 3*2^-24 = 3*2^-48 (fp32 0x28400000), below fp16's smallest subnormal.
    const Outputs tiny = throughInputAndWeight({0x1p-24}, c, f16, 3 * 0x1p-24);
    expectBits(tiny.gradInput, {0x00000000}, DType::F32, "dX underflows in fp16");
    expectBits(tiny.gradWeight, {0x28400000}, DType::F32, "dW stays fp32");
    // 256 * 256 = 65536: fp16 overflow.
    const Outputs big = throughInputAndWeight({256}, c, f16, 256);
    expectBits(big.gradInput, {0x7F800000}, DType::F32, "dX overflows in fp16");
    expectBits(big.gradWeight, {0x47800000}, DType::F32, "dW stays fp32");
    Dtypes f16Out = f16;
    f16Out.gradWeight = DType::F16;
    expectBits(throughInputAndWeight({256}, c, f16Out, 256).gradWeight, {0x7C00}, DType::F16,
               "dW cast to an fp16 output overflows");
  }
}

// bf16 operands: dX rounded to bf16 (or fp16 with cubeMathType 2, where
// 2^20 overflows fp16), dW stays fp32.
TEST(Rounding, Bf16Operands) {
  Dtypes bf16;
  bf16.operands = DType::BF16;
  const double a = 1 + 0x1p-7;  // (1+2^-7)^2 = 1 + 2^-6 + 2^-14 = 0x3F820200
  for (int cube = 0; cube <= 3; ++cube) {
    SCOPED_TRACE("cubeMathType " + std::to_string(cube));
    const auto c = static_cast<int8_t>(cube);
    const Outputs product = throughInputAndWeight({a}, c, bf16, a);
    expectBits(product.gradInput, {0x3F820000}, DType::F32, "dX rounded to bf16 (or fp16)");
    expectBits(product.gradWeight, {0x3F820200}, DType::F32, "dW stays fp32");
    const Outputs big = throughInputAndWeight({0x1p20}, c, bf16);
    const uint32_t want = cube == 2 ? 0x7F800000 : 0x49800000;
    expectBits(big.gradInput, {want}, DType::F32, "2^20: fp16 overflow only for cube 2");
    expectBits(big.gradWeight, {want}, DType::F32, "2^20: fp16 overflow only for cube 2");
  }
}

// Mixed dtypes promote to fp32: dX is not rounded to fp16 even though one
// operand is fp16; HF32 applies with cubeMathType 1 and 3.
TEST(Rounding, MixedDtypesPromoteToFp32) {
  const Small1d p{{1, 1, 1}, {1, 1, 1}, {1, 1, 1}, {1 + 0x1p-10}, {1 + 0x1p-12}, {1 + 0x1p-11}};
  for (int cube = 0; cube <= 3; ++cube) {
    SCOPED_TRACE("cubeMathType " + std::to_string(cube));
    const auto c = static_cast<int8_t>(cube);
    const Outputs out = runSmall(p, c, {}, {true, true, false}, DType::F16, DType::F32, DType::F32);
    // dX = (1+2^-10)(1+2^-11) = 1 + 2^-10 + 2^-11 + 2^-21, exact in fp32 (HF32 operands
    // are exact here); cube 2 rounds w to fp16: 1+2^-11 is a tie -> 1, dX = 1+2^-10.
    const uint32_t dataWant = cube == 2 ? 0x3F802000u : 0x3F803004u;
    expectBits(out.gradInput, {dataWant}, DType::F32, "dX of fp16 x fp32");
    // dW = (1+2^-10) * x with x = 1+2^-12: kept (cube 0), HF32 -> 1+2^-11 (1, 3),
    // fp16 -> 1 (2).
    const uint32_t weightWant = cube == 0 ? 0x3F802802u : cube == 2 ? 0x3F802000u : 0x3F803004u;
    expectBits(out.gradWeight, {weightWant}, DType::F32, "dW of fp16 x fp32");
  }
}

// Output casts, nearest even, on chosen fp32 results (cubeMathType 0 and
// fp32 operands, so the result is the value itself).
struct CastRow {
  uint32_t value;
  uint16_t expected;
  const char* why;
};

const CastRow kFp16Casts[] = {
    {0x3F801000, 0x3C00, "1+2^-11: tie, even"},
    {0x3F803000, 0x3C02, "1+3*2^-11: tie, odd -> up"},
    {0x3F801008, 0x3C01, "just above the tie"},
    {0x477FF000, 0x7C00, "65520 -> inf"},
    {0x477FEF00, 0x7BFF, "65519 -> 65504"},
    {0x47C35000, 0x7C00, "1e5 -> inf"},
    {0x33C00000, 0x0002, "3*2^-25: subnormal tie, odd -> up"},
    {0x33000000, 0x0000, "2^-25: tie -> 0"},
    {0xB3000000, 0x8000, "-2^-25 -> -0"},
    {0x33800000, 0x0001, "2^-24"},
    {0x387FE000, 0x0400, "(2^11-1)*2^-25 -> smallest normal"},
    {0x80000000, 0x8000, "-0"},
    {0x7FC00000, 0x7E00, "NaN"},
};

const CastRow kBf16Casts[] = {
    {0x3F808000, 0x3F80, "tie, even"},
    {0x3F818000, 0x3F82, "tie, odd -> up"},
    {0x3F808001, 0x3F81, "just above the tie"},
    {0xBF808000, 0xBF80, "negative tie"},
    {0x7F7F8000, 0x7F80, "tie above the largest finite -> inf"},
    {0x7F7F7FFF, 0x7F7F, "largest finite"},
    {0x00018000, 0x0002, "fp32 subnormal tie, odd -> up"},
    {0x00008000, 0x0000, "fp32 subnormal tie -> 0"},
    {0x7FC00000, 0x7FC0, "NaN"},
};

template <size_t N>
void checkCasts(const CastRow (&rows)[N], DType target) {
  std::vector<double> values;
  std::vector<uint32_t> want;
  for (const auto& row : rows) {
    values.push_back(fromBits(row.value));
    want.push_back(row.expected);
  }
  Dtypes types;
  types.gradInput = types.gradWeight = types.gradBias = target;
  const Outputs a = throughInputAndWeight(values, 0, types);
  expectBits(a.gradInput, want, target, std::string("gradInput cast to ") + dtypeName(target));
  expectBits(a.gradWeight, want, target, std::string("gradWeight cast to ") + dtypeName(target));
  const Outputs b = throughGradOutput(values, 0, types);
  expectBits(b.gradBias, want, target, std::string("gradBias cast to ") + dtypeName(target));
}

TEST(Rounding, OutputCastToFp16) { checkCasts(kFp16Casts, DType::F16); }
TEST(Rounding, OutputCastToBf16) { checkCasts(kBf16Casts, DType::BF16); }

}  // namespace
}  // namespace numerics
