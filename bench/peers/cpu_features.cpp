#include "cpu_features.h"

#include <cpuid.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>

namespace peers {
namespace {

// From the kernel's arch/x86/include/uapi/asm/prctl.h (not in every libc's headers).
constexpr int kArchGetXcompPerm = 0x1022;
constexpr int kArchReqXcompPerm = 0x1023;
constexpr unsigned long kXfeatureXtiledata = 18;

uint64_t readXcr0() {
  uint32_t low = 0, high = 0;
  asm volatile("xgetbv" : "=a"(low), "=d"(high) : "c"(0));
  return (static_cast<uint64_t>(high) << 32) | low;
}

bool bit(uint32_t word, int n) { return (word >> n) & 1u; }

}  // namespace

CpuFeatures detectCpuFeatures() {
  CpuFeatures f;
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx) || !bit(ecx, 27)) return f;  // OSXSAVE
  const uint64_t xcr0 = readXcr0();
  // XCR0: SSE, AVX, opmask, ZMM_Hi256, Hi16_ZMM (bits 1, 2, 5-7); XTILECFG, XTILEDATA (17, 18).
  const bool zmmState = (xcr0 & 0xe6) == 0xe6;
  const bool tileState = ((xcr0 >> 17) & 3) == 3;
  if (__get_cpuid_max(0, nullptr) < 7) return f;
  __cpuid_count(7, 0, eax, ebx, ecx, edx);
  f.avx512f = zmmState && bit(ebx, 16);
  f.amxBf16 = tileState && bit(edx, 24) && bit(edx, 22);  // AMX-TILE, AMX-BF16
  __cpuid_count(7, 1, eax, ebx, ecx, edx);
  f.avx512Bf16 = f.avx512f && bit(eax, 5);
  return f;
}

bool requestAmxTilePermission(std::string* why) {
  if (syscall(SYS_arch_prctl, kArchReqXcompPerm, kXfeatureXtiledata) != 0) {
    *why = std::string("arch_prctl(ARCH_REQ_XCOMP_PERM) refused: ") + std::strerror(errno);
    return false;
  }
  unsigned long granted = 0;
  if (syscall(SYS_arch_prctl, kArchGetXcompPerm, &granted) != 0 ||
      !((granted >> kXfeatureXtiledata) & 1)) {
    *why = "arch_prctl(ARCH_GET_XCOMP_PERM) does not list the tile data state";
    return false;
  }
  return true;
}

}  // namespace peers
