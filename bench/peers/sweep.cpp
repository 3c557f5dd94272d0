#include "sweep.h"

#include <algorithm>

namespace peers {

const char* directionName(Direction d) { return d == Direction::Forward ? "forward" : "backward"; }

const char* precisionName(Precision p) {
  switch (p) {
    case Precision::Fp32:
      return "fp32";
    case Precision::Bf16:
      return "bf16";
    case Precision::Fp16:
      return "fp16";
    case Precision::Hf32:
      return "hf32";
  }
  return "?";
}

bool parsePrecision(const std::string& text, Precision* p) {
  for (Precision candidate : {Precision::Fp32, Precision::Bf16, Precision::Fp16, Precision::Hf32}) {
    if (text == precisionName(candidate)) {
      *p = candidate;
      return true;
    }
  }
  return false;
}

aclDataType tensorType(Precision p) {
  return p == Precision::Bf16 ? ACL_BF16 : p == Precision::Fp16 ? ACL_FLOAT16 : ACL_FLOAT;
}

int8_t cubeMathType(Precision p) { return p == Precision::Hf32 ? 1 : 0; }

size_t elementBytes(Precision p) { return tensorType(p) == ACL_FLOAT ? 4 : 2; }

bool isLowPrecision(Precision p) { return p != Precision::Fp32; }

bool hasPeers(Precision p) { return p == Precision::Fp32 || p == Precision::Bf16; }

std::string Sweep::title() const {
  return std::string(directionName(direction)) + " " + precisionName(precision);
}

bool Sweep::hasCase(size_t index) const {
  return std::find(cases.begin(), cases.end(), index) != cases.end();
}

std::vector<Sweep> planSweeps(const std::vector<Direction>& directions,
                              const std::vector<Precision>& precisions,
                              const std::vector<size_t>& allCases,
                              const std::vector<size_t>& lowPrecisionCases) {
  auto asked = [&](Precision p) {
    return std::find(precisions.begin(), precisions.end(), p) != precisions.end();
  };
  std::vector<Sweep> sweeps;
  auto add = [&sweeps](Direction d, Precision p, bool printed, const std::vector<size_t>& cases) {
    sweeps.emplace_back();
    Sweep& s = sweeps.back();
    s.direction = d;
    s.precision = p;
    s.printed = printed;
    s.peers = printed && hasPeers(p);
    for (size_t c : cases) s.cases.push_back(c);
  };
  for (Direction d : directions) {
    for (Precision p : precisions)
      add(d, p, true, isLowPrecision(p) ? lowPrecisionCases : allCases);
    // Baselines of ours only, on the low-precision cases.
    const bool anyLow = std::any_of(precisions.begin(), precisions.end(), isLowPrecision);
    for (Precision base : {Precision::Fp32, Precision::Bf16}) {
      const bool needed = base == Precision::Fp32 ? anyLow : asked(Precision::Fp16);
      if (needed && !asked(base)) add(d, base, false, lowPrecisionCases);
    }
  }
  return sweeps;
}

int findSweep(const std::vector<Sweep>& sweeps, Direction direction, Precision precision,
              size_t caseIndex) {
  for (size_t i = 0; i < sweeps.size(); ++i) {
    const Sweep& s = sweeps[i];
    if (s.direction == direction && s.precision == precision && s.hasCase(caseIndex))
      return static_cast<int>(i);
  }
  return -1;
}

}  // namespace peers
