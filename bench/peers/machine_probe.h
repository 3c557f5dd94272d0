#pragma once
// What the benchmark measures about the machine before the cases: the CPU
// model and the ISA flags that matter, the AVX-512 FMA peak (the probe of
// bench/gemm, compiled in) and the copy bandwidth that bounds memory-bound
// layers. Run before any compute library starts its threads.

#include <map>
#include <string>
#include <vector>

namespace peers {

struct MachineInfo {
  std::string cpuModel;  // /proc/cpuinfo "model name"
  std::string flags;     // e.g. "avx2 avx512f -avx512_bf16 -amx_tile" ('-': absent)
  bool avx512 = false;
  double fmaCoreGflops = 0;                  // one core; 0 without AVX-512
  std::map<int, double> fmaThreadsGflops;    // the probe on T threads at once, T > 1
  std::map<int, double> copyBytesPerSecond;  // memcpy, bytes read + written, T threads
};

// Probes for every thread count in `threads`.
MachineInfo probeMachine(const std::vector<int>& threads);

}  // namespace peers
