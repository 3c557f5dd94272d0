#include "machine_probe.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <fstream>
#include <memory>
#include <set>
#include <sstream>
#include <thread>

#include "cpu_features.h"

// bench/gemm/fma_peak_avx512.cpp, compiled into this program with AVX-512
// enabled for that file only; call only after the cpuid check below.
double probeFmaGflops(double seconds);

namespace peers {

// bf16_peak_avx512.cpp and amx_peak.cpp, each compiled with its ISA's flags
// for that file only; call only after the cpuid checks (and for AMX the
// permission request) below.
double probeDpbf16Gflops(double seconds);
double probeAmxBf16Gflops(double seconds);

namespace {

constexpr double kProbeSeconds = 0.3;
constexpr int kProbeAttempts = 3;
constexpr size_t kCopyBytes = size_t{256} << 20;
constexpr int kCopyRepeats = 5;

void readCpuInfo(MachineInfo* info) {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  std::set<std::string> present;
  while (std::getline(cpuinfo, line)) {
    const size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string key = line.substr(0, colon);
    key.erase(key.find_last_not_of(" \t") + 1);
    const std::string value = colon + 2 <= line.size() ? line.substr(colon + 2) : "";
    if (key == "model name" && info->cpuModel.empty()) info->cpuModel = value;
    if (key == "flags" && present.empty()) {
      std::istringstream words(value);
      for (std::string w; words >> w;) present.insert(w);
    }
  }
  for (const char* flag :
       {"avx2", "avx512f", "avx512_bf16", "avx512_fp16", "amx_tile", "amx_bf16"}) {
    if (!info->flags.empty()) info->flags += ' ';
    info->flags += (present.count(flag) ? "" : "-") + std::string(flag);
  }
}

// A probe on `threads` threads at once: the sum of their throughputs, best
// of a few tries (on a shared machine a try can lose its core).
double probeGflops(double (*probe)(double), int threads) {
  double best = 0;
  for (int attempt = 0; attempt < kProbeAttempts; ++attempt) {
    std::vector<double> each(static_cast<size_t>(threads), 0.0);
    std::vector<std::thread> workers;
    for (int t = 0; t < threads; ++t)
      workers.emplace_back(
          [&each, t, probe] { each[static_cast<size_t>(t)] = probe(kProbeSeconds); });
    for (auto& w : workers) w.join();
    double sum = 0;
    for (double g : each) sum += g;
    best = std::max(best, sum);
  }
  return best;
}

// memcpy of a 256 MB buffer, cut into one slice per thread; best of a few.
double copyBytesPerSecond(int threads, char* from, char* to) {
  double best = 1e30;
  for (int r = 0; r < kCopyRepeats; ++r) {
    const auto start = std::chrono::steady_clock::now();
    std::vector<std::thread> workers;
    for (int t = 0; t < threads; ++t) {
      const size_t begin = kCopyBytes * t / threads, end = kCopyBytes * (t + 1) / threads;
      workers.emplace_back([=] { std::memcpy(to + begin, from + begin, end - begin); });
    }
    for (auto& w : workers) w.join();
    best = std::min(
        best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  return 2.0 * static_cast<double>(kCopyBytes) / best;
}

Peak measurePeak(double (*probe)(double), const std::vector<int>& threads) {
  Peak peak;
  peak.coreGflops = probeGflops(probe, 1);
  for (int t : threads)
    if (t > 1 && !peak.threadsGflops.count(t)) peak.threadsGflops[t] = probeGflops(probe, t);
  return peak;
}

void probeBf16Peaks(const std::vector<int>& threads, MachineInfo* info) {
  const CpuFeatures features = detectCpuFeatures();
  info->bf16Probed = true;
  info->avx512Bf16 = features.avx512Bf16;
  info->amxBf16 = features.amxBf16;
  if (features.avx512Bf16) info->dpbf16 = measurePeak(probeDpbf16Gflops, threads);
  if (!features.amxBf16) {
    info->amxPermission = "no AMX-BF16 (cpuid / XCR0)";
    return;
  }
  std::string why;
  if (!requestAmxTilePermission(&why)) {
    info->amxPermission = why;
    return;
  }
  info->amxPermission = "granted";
  info->amx = measurePeak(probeAmxBf16Gflops, threads);
}

}  // namespace

double lowPrecisionPeakGflops(const MachineInfo& m, int threads, std::string* name) {
  if (m.amx.coreGflops > 0) {
    *name = "AMX bf16";
    return threads * m.amx.coreGflops;
  }
  if (m.dpbf16.coreGflops > 0) {
    *name = "AVX512-BF16";
    return threads * m.dpbf16.coreGflops;
  }
  *name = "FMA fp32";
  return threads * m.fmaCoreGflops;
}

MachineInfo probeMachine(const std::vector<int>& threads, bool probeBf16) {
  MachineInfo info;
  readCpuInfo(&info);
  __builtin_cpu_init();
  info.avx512 = __builtin_cpu_supports("avx512f");
  if (info.avx512) {
    const Peak fma = measurePeak(probeFmaGflops, threads);
    info.fmaCoreGflops = fma.coreGflops;
    info.fmaThreadsGflops = fma.threadsGflops;
  }
  if (probeBf16) probeBf16Peaks(threads, &info);
  std::unique_ptr<char[]> from(new char[kCopyBytes]), to(new char[kCopyBytes]);
  // Touch every page first: the copy should measure bandwidth, not page faults.
  std::memset(from.get(), 1, kCopyBytes);
  std::memset(to.get(), 0, kCopyBytes);
  for (int t : threads)
    if (!info.copyBytesPerSecond.count(t))
      info.copyBytesPerSecond[t] = copyBytesPerSecond(t, from.get(), to.get());
  return info;
}

}  // namespace peers
