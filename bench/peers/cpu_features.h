#pragma once
// What the CPU and the kernel let this process run, asked of cpuid and XCR0
// directly (not /proc/cpuinfo): the probes compiled with -mavx512bf16 or
// -mamx-* may only be called when these say so.

#include <string>

namespace peers {

struct CpuFeatures {
  bool avx512f = false;     // AVX512F, with the OS saving the ZMM state
  bool avx512Bf16 = false;  // AVX512_BF16 (VDPBF16PS), with avx512f
  bool amxBf16 = false;     // AMX-TILE and AMX-BF16, with the OS supporting the tile state
};

CpuFeatures detectCpuFeatures();

// Linux keeps the AMX tile data state off until a process asks for it
// (arch_prctl ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA); a tile instruction
// before that kills the process with SIGILL. Asks once; returns whether tiles
// may be used, and says why not in *why.
bool requestAmxTilePermission(std::string* why);

}  // namespace peers
