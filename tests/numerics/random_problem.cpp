#include "numerics/random_problem.h"

#include <algorithm>
#include <cmath>

namespace numerics {
namespace {

int64_t uniform(Rng& rng, int64_t lo, int64_t hi) {
  return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
}

bool chance(Rng& rng, double p) { return std::uniform_real_distribution<double>(0, 1)(rng) < p; }

DType randomDtype(Rng& rng) { return static_cast<DType>(uniform(rng, 0, 2)); }

}  // namespace

ConvCase randomConvCase(Rng& rng, const RandomCaseOptions& options) {
  ConvCase c;
  const int64_t dimsRoll = uniform(rng, 0, 99);
  const int d = dimsRoll < 30 ? 1 : dimsRoll < 75 ? 2 : 3;
  c.transposed = chance(rng, 0.4);

  const int64_t scale = options.medium ? (d == 3 ? 4 : 8) : 1;
  int64_t xPerGroup = 1, yPerGroup = 1;
  switch (uniform(rng, 0, 3)) {
    case 0:
    case 1:  // ungrouped
      c.groups = 1;
      xPerGroup = uniform(rng, 1, 4 * scale);
      yPerGroup = uniform(rng, 1, 4 * scale);
      break;
    case 2:  // grouped
      c.groups = static_cast<int>(uniform(rng, 2, 3));
      xPerGroup = uniform(rng, 1, 3 * scale);
      yPerGroup = uniform(rng, 1, 3 * scale);
      break;
    default:  // depthwise (groups == x channels) with a channel multiplier
      c.groups = static_cast<int>(uniform(rng, 2, 4 * scale));
      xPerGroup = 1;
      yPerGroup = uniform(rng, 1, 3);
      break;
  }
  const int64_t batch = uniform(rng, 1, d == 3 ? 2 : 3);
  const int64_t extraExtent = options.medium ? (d == 1 ? 60 : d == 2 ? 14 : 5) : (d == 3 ? 3 : 6);

  std::vector<int64_t> kernel(d), xSpatial(d);
  const bool fourValuePadding = d == 2 && chance(rng, 0.5);
  c.padding.assign(fourValuePadding ? 4 : d, 0);
  for (auto& p : c.padding) p = uniform(rng, 0, 2);
  c.stride.resize(d);
  c.dilation.resize(d);
  for (int s = 0; s < d; ++s) {
    kernel[s] = uniform(rng, 1, d == 3 ? 2 : 3);
    c.stride[s] = uniform(rng, 1, d == 3 ? 3 : 4);
    c.dilation[s] = uniform(rng, 1, d == 3 ? 2 : 3);
    const int64_t before = fourValuePadding ? c.padding[2 * s] : c.padding[s];
    const int64_t after = fourValuePadding ? c.padding[2 * s + 1] : c.padding[s];
    const int64_t span = c.dilation[s] * (kernel[s] - 1) + 1;
    const int64_t smallest = std::max<int64_t>(1, span - before - after);
    xSpatial[s] = smallest + uniform(rng, 0, extraExtent);
  }
  const int64_t xChannels = c.groups * xPerGroup;
  const int64_t yChannels = c.groups * yPerGroup;
  c.weightShape = {yChannels, xPerGroup};
  c.weightShape.insert(c.weightShape.end(), kernel.begin(), kernel.end());
  completeShapes(&c, batch, xChannels, yChannels, kernel, xSpatial);

  c.mask = {(options.maskBits & 1) != 0, (options.maskBits & 2) != 0, (options.maskBits & 4) != 0};
  c.cubeMathType = options.randomCubeMath ? static_cast<int8_t>(uniform(rng, 0, 3)) : 0;
  if (options.randomDtypes) {
    if (chance(rng, 0.5)) {
      c.gradOutputType = c.inputType = c.weightType = randomDtype(rng);
    } else {
      c.gradOutputType = randomDtype(rng);
      c.inputType = randomDtype(rng);
      c.weightType = randomDtype(rng);
    }
    c.gradInputType = randomDtype(rng);
    c.gradWeightType = randomDtype(rng);
    c.gradBiasType = randomDtype(rng);
    // Section 3 step 12 rejects this combination; keep the sweep on success paths.
    const bool reducedOperands = c.cubeMathType == 2 || promotedType(c.gradOutputType, c.inputType,
                                                                     c.weightType) != DType::F32;
    if (d == 3 && c.groups > 1 && c.mask[1] && c.gradWeightType == DType::F32 && reducedOperands)
      c.gradWeightType = chance(rng, 0.5) ? DType::F16 : DType::BF16;
  }
  return c;
}

double randomValue(DType dtype, Rng& rng) {
  if (chance(rng, 1.0 / 16)) return 0.0;
  const double sign = chance(rng, 0.5) ? -1.0 : 1.0;
  const int exponent = static_cast<int>(uniform(rng, -4, 0));
  switch (dtype) {
    case DType::F16:
      return sign * std::ldexp(1024 + uniform(rng, 0, 1023), exponent - 10);
    case DType::BF16:
      return sign * std::ldexp(128 + uniform(rng, 0, 127), exponent - 7);
    default: {
      int64_t mantissa = uniform(rng, 0, (1 << 23) - 1);
      const int64_t roll = uniform(rng, 0, 7);
      if (roll == 0) mantissa = (mantissa & ~int64_t{0xFFF}) | 0x800;    // HF32 tie
      if (roll == 1) mantissa = (mantissa & ~int64_t{0x1FFF}) | 0x1000;  // fp16 tie
      return sign * std::ldexp((1 << 23) + mantissa, exponent - 23);
    }
  }
}

void fillRandom(HostTensor* tensor, Rng& rng) {
  for (int64_t i = 0; i < tensor->count(); ++i) tensor->set(i, randomValue(tensor->dtype(), rng));
}

}  // namespace numerics
