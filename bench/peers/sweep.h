#pragma once
// A sweep is one (direction, precision) pair measured over a set of cases:
// the rows of one table per thread count. Besides the sweeps asked for, the
// benchmark measures a few of ours only, as baselines of the low-precision
// rows (our fp32 cubeMathType 0 time next to every low-precision row, our
// bf16 time next to every fp16 row).

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "acl/acl.h"

namespace peers {

enum class Direction { Forward, Backward };

// fp32: fp32 tensors, cubeMathType 0; bf16 / fp16: tensors of that dtype,
// cubeMathType 0; hf32: fp32 tensors, cubeMathType 1 (ALLOW_FP32_DOWN_PRECISION).
enum class Precision { Fp32, Bf16, Fp16, Hf32 };

const char* directionName(Direction d);  // "forward", "backward"
const char* precisionName(Precision p);  // "fp32", "bf16", "fp16", "hf32"
bool parsePrecision(const std::string& text, Precision* p);

// How our API receives a precision's tensors.
aclDataType tensorType(Precision p);
int8_t cubeMathType(Precision p);
size_t elementBytes(Precision p);  // of the tensors, for traffic bounds and workspace ratios
bool isLowPrecision(Precision p);
// oneDNN 2.6 and PyTorch 1.13 run fp32 and bf16 convolutions on a CPU; fp16 and
// HF32 have no CPU peer.
bool hasPeers(Precision p);

struct Sweep {
  Direction direction = Direction::Backward;
  Precision precision = Precision::Fp32;
  bool printed = true;        // asked for; else only a baseline of ours for other rows
  bool peers = true;          // oneDNN and PyTorch measured too
  std::vector<size_t> cases;  // indices into RunOptions::problems

  std::string title() const;  // "backward bf16"
  bool hasCase(size_t index) const;
};

// The sweeps for the directions and precisions asked for: every printed
// sweep, then the baselines its rows need that no printed sweep provides.
// fp32 sweeps run `allCases`, low-precision ones `lowPrecisionCases`.
std::vector<Sweep> planSweeps(const std::vector<Direction>& directions,
                              const std::vector<Precision>& precisions,
                              const std::vector<size_t>& allCases,
                              const std::vector<size_t>& lowPrecisionCases);

// The index of the sweep of `direction` and `precision` in `sweeps` that has
// `caseIndex`, or -1.
int findSweep(const std::vector<Sweep>& sweeps, Direction direction, Precision precision,
              size_t caseIndex);

}  // namespace peers
