#pragma once
// What the benchmark measures about the machine before the cases: the CPU
// model and the ISA flags that matter, the AVX-512 FMA peak (the probe of
// bench/gemm, compiled in), on request the bf16 peaks (AVX512-BF16
// VDPBF16PS and AMX TDPBF16PS, probes of this directory) and the copy
// bandwidth that bounds memory-bound layers. Run before any compute library
// starts its threads.

#include <map>
#include <string>
#include <vector>

namespace peers {

// One instruction's measured throughput: one core, and the probe run on T
// threads at once for every T > 1 asked for. 0 / empty where not measured.
struct Peak {
  double coreGflops = 0;
  std::map<int, double> threadsGflops;
};

struct MachineInfo {
  std::string cpuModel;  // /proc/cpuinfo "model name"
  std::string flags;     // e.g. "avx2 avx512f -avx512_bf16 -amx_tile" ('-': absent)
  bool avx512 = false;
  double fmaCoreGflops = 0;                  // one core; 0 without AVX-512
  std::map<int, double> fmaThreadsGflops;    // the probe on T threads at once, T > 1
  std::map<int, double> copyBytesPerSecond;  // memcpy, bytes read + written, T threads
  // Only with probeBf16 (cpuid decides what runs; see cpu_features.h).
  bool bf16Probed = false;
  bool avx512Bf16 = false, amxBf16 = false;  // what cpuid and XCR0 report
  std::string amxPermission;                 // "granted", or why tiles cannot be used
  Peak dpbf16;                               // VDPBF16PS zmm, bf16 products into fp32
  Peak amx;                                  // TDPBF16PS, bf16 products into fp32
};

// Probes for every thread count in `threads`; the bf16 peaks only when
// `probeBf16` (the low-precision rows need them).
MachineInfo probeMachine(const std::vector<int>& threads, bool probeBf16);

// The peak the low-precision rows are measured against, for T threads
// (T x the one-core peak): AMX bf16 where the CPU has it and the kernel grants
// the tiles, else AVX512-BF16, else the fp32 FMA peak. *name says which.
double lowPrecisionPeakGflops(const MachineInfo& m, int threads, std::string* name);

}  // namespace peers
