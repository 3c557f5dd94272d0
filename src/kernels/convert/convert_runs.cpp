// Picks the vector run loops for the active ISA.

#include "kernels/convert/convert_runs.h"

#include "kernels/cpu/cpu_info.h"

namespace aclcpu {
namespace kernels {
namespace detail {
namespace {

bool plainCopy(ElementType type, Rounding rounding) {
  return type == ElementType::F32 && rounding == Rounding::None;
}

}  // namespace

GatherRunFn vectorGatherRun(ElementType type, Rounding rounding) {
  if (plainCopy(type, rounding)) return nullptr;
  const Isa isa = activeIsa();
  if (isa >= Isa::Avx512) return gatherRunAvx512(type, rounding);
  if (isa >= Isa::Avx2) return gatherRunAvx2(type, rounding);
  return nullptr;
}

ScatterRunFn vectorScatterRun(ElementType type, Rounding rounding) {
  if (plainCopy(type, rounding)) return nullptr;
  const Isa isa = activeIsa();
  if (isa >= Isa::Avx512) return scatterRunAvx512(type, rounding);
  if (isa >= Isa::Avx2) return scatterRunAvx2(type, rounding);
  return nullptr;
}

LaneSumRunFn vectorLaneSumRun() {
  const Isa isa = activeIsa();
  if (isa >= Isa::Avx512) return laneSumRunAvx512;
  if (isa >= Isa::Avx2) return laneSumRunAvx2;
  return nullptr;
}

}  // namespace detail
}  // namespace kernels
}  // namespace aclcpu
