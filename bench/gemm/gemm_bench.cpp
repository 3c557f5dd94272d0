// Stand-alone sgemm throughput: GFLOP/s (2*M*N*K per call) for square and
// convolution-like shapes on 1 and 2 threads. Usage:
//   gemm_bench [seconds-per-case] [--only LABEL] [--gemm-blocking KC,MC,NC]
// (--gemm-blocking overrides the kernel's cache blocks, 0 keeping one, within
// the scratch the defaults size: for tuning them.)

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <memory>
#include <vector>

#include "common/thread_pool.h"
#include "kernels/gemm/gemm.h"
#include "kernels/gemm/gemm_testing.h"

double probeFmaGflops(double seconds);  // fma_peak_avx512.cpp
double probeClockGhz(double seconds);

namespace {

using aclcpu::kernels::MatrixView;

// The layouts the convolution passes use: forward reads row-major A and B,
// backward-data a transposed A (weights^T), backward-weight a transposed B
// (columns^T).
struct Shape {
  const char* label;
  int64_t M, N, K;
  bool transposeA = false;
  bool transposeB = false;
};

struct AlignedFree {
  void operator()(void* p) const { std::free(p); }
};

std::unique_ptr<float, AlignedFree> allocFloats(uint64_t count) {
  const uint64_t bytes = (count * sizeof(float) + 63) / 64 * 64;
  return std::unique_ptr<float, AlignedFree>(static_cast<float*>(std::aligned_alloc(64, bytes)));
}

double processCpuSeconds() {
  timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

struct Rate {
  double wall;  // GFLOP per wall-clock second
  double cpu;   // GFLOP per CPU second of the whole process (robust on a busy machine)
};

Rate measureOnce(const Shape& s, double seconds) {
  auto a = allocFloats(s.M * s.K);
  auto b = allocFloats(s.K * s.N);
  auto c = allocFloats(s.M * s.N);
  for (int64_t i = 0; i < s.M * s.K; ++i) a.get()[i] = static_cast<float>(i % 7) - 3.0f;
  for (int64_t i = 0; i < s.K * s.N; ++i) b.get()[i] = static_cast<float>(i % 5) - 2.0f;
  const uint64_t scratchBytes = aclcpu::kernels::gemmScratchBytes();
  std::unique_ptr<void, AlignedFree> scratch(std::aligned_alloc(64, (scratchBytes + 63) / 64 * 64));
  const MatrixView av = s.transposeA ? MatrixView{a.get(), 1, s.M} : MatrixView{a.get(), s.K, 1};
  const MatrixView bv = s.transposeB ? MatrixView{b.get(), 1, s.K} : MatrixView{b.get(), s.N, 1};
  auto once = [&] {
    aclcpu::kernels::sgemm(s.M, s.N, s.K, av, bv, c.get(), s.N, false, scratch.get());
  };
  once();  // warm caches and the pool
  using Clock = std::chrono::steady_clock;
  int64_t calls = 0;
  const double cpuStart = processCpuSeconds();
  const auto start = Clock::now();
  double elapsed = 0.0;
  do {
    once();
    ++calls;
    elapsed = std::chrono::duration<double>(Clock::now() - start).count();
  } while (elapsed < seconds);
  const double cpu = processCpuSeconds() - cpuStart;
  const double gflop = 2.0 * s.M * s.N * s.K * calls * 1e-9;
  return {gflop / elapsed, gflop / cpu};
}

// Best of a few rounds: other processes on a shared machine only slow us down.
Rate measure(const Shape& s, double seconds) {
  Rate best{0.0, 0.0};
  for (int round = 0; round < 3; ++round) {
    const Rate r = measureOnce(s, seconds / 3);
    if (r.wall > best.wall) best.wall = r.wall;
    if (r.cpu > best.cpu) best.cpu = r.cpu;
  }
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  double seconds = 0.5;
  const char* only = nullptr;  // run only the shapes with this label
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--only") && i + 1 < argc) {
      only = argv[++i];
    } else if (!std::strcmp(argv[i], "--gemm-blocking") && i + 1 < argc) {
      long long kc = 0, mc = 0, nc = 0;
      if (std::sscanf(argv[++i], "%lld,%lld,%lld", &kc, &mc, &nc) != 3 ||
          !aclcpu::kernels::overrideGemmBlockingForTesting(kc, mc, nc)) {
        std::fprintf(stderr, "--gemm-blocking: KC,MC,NC within the default scratch, not %s\n",
                     argv[i]);
        return 2;
      }
    } else {
      seconds = std::atof(argv[i]);
    }
  }
  const std::vector<Shape> shapes = {
      {"square", 256, 256, 256},
      {"square", 384, 384, 384},
      {"square", 512, 512, 512},
      {"square", 768, 768, 768},
      {"square", 1024, 1024, 1024},
      {"fwd", 64, 3136, 576},
      {"fwd-1x1", 64, 3136, 256},
      {"bwd-data", 576, 3136, 64, true, false},
      {"bwd-wgt", 64, 576, 3136, false, true},
      {"conv-nn", 576, 3136, 64},
      {"conv-nn", 64, 576, 3136},
  };
  std::printf("kernel: %s\n", aclcpu::kernels::gemmKernelName());
  if (__builtin_cpu_supports("avx512f")) {
    const double ghz = probeClockGhz(0.3);
    const double gflops = probeFmaGflops(0.3);
    std::printf(
        "core clock ~%.2f GHz; one-core AVX-512 FMA peak measured %.1f GFLOP/s "
        "(%.1f FLOP/cycle)\n",
        ghz, gflops, gflops / ghz);
  }
  std::printf("GFLOP/s: per wall-clock second, and per CPU-second of one thread (1T cpu)\n");
  std::printf("%-8s %6s %6s %6s %10s %10s %10s\n", "shape", "M", "N", "K", "1T", "1T cpu", "2T");
  for (const Shape& s : shapes) {
    if (only && std::strcmp(only, s.label) != 0) continue;
    Rate result[2];
    for (int threads = 1; threads <= 2; ++threads) {
      aclcpu::setComputeThreadCount(threads);
      result[threads - 1] = measure(s, seconds);
    }
    std::printf("%-8s %6lld %6lld %6lld %10.1f %10.1f %10.1f\n", s.label,
                static_cast<long long>(s.M), static_cast<long long>(s.N),
                static_cast<long long>(s.K), result[0].wall, result[0].cpu, result[1].wall);
  }
  aclcpu::setComputeThreadCount(0);
  return 0;
}
