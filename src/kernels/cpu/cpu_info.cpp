#include "kernels/cpu/cpu_info.h"

#include <cpuid.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <cstring>

namespace aclcpu {
namespace kernels {
namespace {

struct Registers {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
};

Registers cpuid(unsigned leaf, unsigned subleaf) {
  Registers r;
  if (!__get_cpuid_count(leaf, subleaf, &r.eax, &r.ebx, &r.ecx, &r.edx)) r = Registers{};
  return r;
}

uint64_t xgetbv0() {
  unsigned lo = 0, hi = 0;
  __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  return (uint64_t{hi} << 32) | lo;
}

bool bit(unsigned value, int index) { return (value >> index) & 1u; }

// Linux keeps the AMX tile data state disabled until a process asks for it
// (arch_prctl ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA); a refusal means the
// tile instructions would fault, so AMX is then not offered.
bool requestAmxPermission() {
#ifdef SYS_arch_prctl
  constexpr long kArchReqXcompPerm = 0x1023;
  constexpr long kXfeatureXtiledata = 18;
  return syscall(SYS_arch_prctl, kArchReqXcompPerm, kXfeatureXtiledata) == 0;
#else
  return false;
#endif
}

Isa probe() {
  const Registers leaf1 = cpuid(1, 0);
  const bool osxsave = bit(leaf1.ecx, 27);
  if (!osxsave) return Isa::Scalar;
  const uint64_t xcr0 = xgetbv0();
  const bool ymmState = (xcr0 & 0x6) == 0x6;
  const bool zmmState = (xcr0 & 0xE6) == 0xE6;
  const bool tileState = (xcr0 & 0x60000) == 0x60000;
  const Registers leaf7 = cpuid(7, 0);
  const Registers leaf7s1 = cpuid(7, 1);
  const bool avx2 =
      ymmState && bit(leaf1.ecx, 12) /*fma*/ && bit(leaf1.ecx, 29) /*f16c*/ && bit(leaf7.ebx, 5);
  if (!avx2) return Isa::Scalar;
  const bool avx512 = zmmState && bit(leaf7.ebx, 16) /*f*/ && bit(leaf7.ebx, 17) /*dq*/ &&
                      bit(leaf7.ebx, 30) /*bw*/ && bit(leaf7.ebx, 31) /*vl*/;
  if (!avx512) return Isa::Avx2;
  const bool bf16 = bit(leaf7s1.eax, 5);
  if (!bf16) return Isa::Avx512;
  const bool amx = tileState && bit(leaf7.edx, 24) /*amx-tile*/ && bit(leaf7.edx, 22) /*amx-bf16*/;
  if (!amx || !requestAmxPermission()) return Isa::Avx512Bf16;
  return Isa::Amx;
}

bool amdCpu() {
  const Registers leaf0 = cpuid(0, 0);
  // "AuthenticAMD" in ebx, edx, ecx.
  return leaf0.ebx == 0x68747541u && leaf0.edx == 0x69746e65u && leaf0.ecx == 0x444d4163u;
}

// AMD's family and model (cpuid leaf 1, extended fields added as the
// vendor documents).
struct FamilyModel {
  unsigned family = 0, model = 0;
};
FamilyModel familyModel() {
  const Registers leaf1 = cpuid(1, 0);
  const unsigned baseFamily = (leaf1.eax >> 8) & 0xF;
  const unsigned baseModel = (leaf1.eax >> 4) & 0xF;
  FamilyModel fm;
  fm.family = baseFamily == 0xF ? baseFamily + ((leaf1.eax >> 20) & 0xFF) : baseFamily;
  fm.model = baseFamily == 0xF ? (((leaf1.eax >> 16) & 0xF) << 4) | baseModel : baseModel;
  return fm;
}

// Zen 4 (family 19h) splits every zmm operation into two 256-bit halves.
// Zen 5 (family 1Ah) has a full 512-bit datapath on its server and desktop
// parts (measured on an EPYC, family 1Ah model 02h: 261 GFLOP/s per core,
// as an Intel Xeon's two FMA ports); its mobile parts (Strix Point, models
// 20h-2Fh; Krackan Point, 60h-6Fh) are reported to keep a 256-bit one (not
// measured here).
bool amdZmmInHalves() {
  if (!amdCpu()) return false;
  const FamilyModel fm = familyModel();
  if (fm.family < 0x1A) return true;
  if (fm.family > 0x1A) return false;
  return (fm.model >= 0x20 && fm.model <= 0x2F) || (fm.model >= 0x60 && fm.model <= 0x6F);
}

// ACLNN_CPU_ZMM_FMA=halves|full overrides the choice above (for
// measuring one CPU's two schedules; results stay correct either way).
bool zmmHalvesFromEnvironment(bool detected) {
  const char* value = std::getenv("ACLNN_CPU_ZMM_FMA");
  if (!value) return detected;
  if (std::strcmp(value, "halves") == 0) return true;
  if (std::strcmp(value, "full") == 0) return false;
  return detected;
}

Isa fromEnvironment(Isa detected) {
  const char* value = std::getenv("ACLNN_CPU_ISA");
  Isa wanted = detected;
  if (value && parseIsa(value, &wanted) && wanted < detected) return wanted;
  return detected;
}

Isa startupIsa() {
  static const Isa isa = fromEnvironment(detectedIsa());
  return isa;
}

// The forced choices' value while no test has forced one.
constexpr int kNoForce = -1;
std::atomic<int> gForced{kNoForce};
std::atomic<bool> gForcedBf16Dot{false};
std::atomic<bool> gForcedZmmHalves{false};
std::atomic<int> gForcedBroadcast{kNoForce};
std::atomic<int> gForcedSlices{kNoForce};

constexpr const char* kNames[] = {"scalar", "avx2", "avx512", "avx512_bf16", "amx"};

}  // namespace

Isa detectedIsa() {
  static const Isa isa = probe();
  return isa;
}

Isa activeIsa() {
  const int forced = gForced.load(std::memory_order_acquire);
  if (forced != kNoForce) return static_cast<Isa>(forced);
  return startupIsa();
}

const char* isaName(Isa isa) { return kNames[static_cast<int>(isa)]; }

bool parseIsa(const char* name, Isa* isa) {
  if (!name) return false;
  for (int i = 0; i < 5; ++i) {
    if (std::strcmp(name, kNames[i]) == 0) {
      *isa = static_cast<Isa>(i);
      return true;
    }
  }
  return false;
}

bool forceIsaForTesting(Isa isa) {
  if (isa > detectedIsa()) return false;
  gForced.store(static_cast<int>(isa), std::memory_order_release);
  return true;
}

void clearIsaForTesting() {
  gForced.store(kNoForce, std::memory_order_release);
  gForcedBf16Dot.store(false, std::memory_order_release);
  gForcedZmmHalves.store(false, std::memory_order_release);
  gForcedBroadcast.store(kNoForce, std::memory_order_release);
  gForcedSlices.store(kNoForce, std::memory_order_release);
}

bool bf16DotAtFmaRate() {
  static const bool fast = detectedIsa() >= Isa::Avx512Bf16 && amdCpu();
  return fast || gForcedBf16Dot.load(std::memory_order_acquire);
}

bool forceBf16DotForTesting() {
  if (detectedIsa() < Isa::Avx512Bf16) return false;
  gForcedBf16Dot.store(true, std::memory_order_release);
  return true;
}

bool bf16WordsBroadcastFromMemory() {
  static const bool zen4 = amdCpu() && familyModel().family == 0x19;
  const int forced = gForcedBroadcast.load(std::memory_order_acquire);
  return forced == kNoForce ? zen4 : forced == 1;
}

void forceBf16WordBroadcastForTesting(bool fromMemory) {
  gForcedBroadcast.store(fromMemory ? 1 : 0, std::memory_order_release);
}

bool rowTapSlices() {
  static const bool amd = amdCpu();
  const int forced = gForcedSlices.load(std::memory_order_acquire);
  return forced == kNoForce ? amd : forced == 1;
}

void forceRowTapSlicesForTesting(bool slices) {
  gForcedSlices.store(slices ? 1 : 0, std::memory_order_release);
}

bool zmmFmaInHalves() {
  static const bool halves =
      detectedIsa() >= Isa::Avx512 && zmmHalvesFromEnvironment(amdZmmInHalves());
  return halves || gForcedZmmHalves.load(std::memory_order_acquire);
}

bool densePlanesPreferred() {
  static const bool amd = detectedIsa() >= Isa::Avx512 && amdCpu();
  return amd || zmmFmaInHalves();
}

bool forceZmmFmaInHalvesForTesting() {
  if (detectedIsa() < Isa::Avx512) return false;
  gForcedZmmHalves.store(true, std::memory_order_release);
  return true;
}

}  // namespace kernels
}  // namespace aclcpu
