// conv_pass_bench: times each convolution pass of the kernel layer on dense
// fp32 buffers for one problem, per registered algorithm that accepts it, on
// one thread count, next to the one-core FMA peak measured in the same run.
// A measurement, not a test. Usage:
//   conv_pass_bench [--threads N] [--repeat N] [--operands fp32|bf16|fp16|hf32]
//                   [--round-in-pass] [--only SUBSTRING] [--gemm-blocking KC,MC,NC]
//                   N C O G  D H W  KD KH KW  S P DL
// (--gemm-blocking overrides the sgemm kernel's cache blocks, 0 keeping one,
// within the scratch the defaults size: for tuning them;
// --operands rounds the data and offers the entries for that operand kind,
// which run next to the fp32 entries; with --round-in-pass the data stays raw
// fp32 and the passes round it as they read.)
// (S, P, DL apply to every spatial dim; the output extent follows from them.)

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "common/thread_pool.h"
#include "kernels/conv/conv_registry.h"
#include "kernels/convert/convert.h"
#include "kernels/cpu/cpu_info.h"
#include "kernels/gemm/gemm_testing.h"

double probeFmaGflops(double seconds);  // bench/gemm/fma_peak_avx512.cpp

namespace {

using namespace aclcpu::kernels;

double seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

int main(int argc, char** argv) {
  int threads = 1, repeat = 5;
  OperandValues operands = OperandValues::F32;
  Rounding rounding = Rounding::None;
  std::vector<int64_t> v;
  std::string only;  // run only the entries whose name contains it
  // Raw fp32 operands that the passes round as they read (cubeMathType's
  // HF32 on fp32 data), instead of values rounded beforehand.
  bool roundInPass = false;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--threads") && i + 1 < argc) {
      threads = std::atoi(argv[++i]);
    } else if (!std::strcmp(argv[i], "--repeat") && i + 1 < argc) {
      repeat = std::atoi(argv[++i]);
    } else if (!std::strcmp(argv[i], "--only") && i + 1 < argc) {
      only = argv[++i];
    } else if (!std::strcmp(argv[i], "--gemm-blocking") && i + 1 < argc) {
      long long kc = 0, mc = 0, nc = 0;
      if (std::sscanf(argv[++i], "%lld,%lld,%lld", &kc, &mc, &nc) != 3 ||
          !overrideGemmBlockingForTesting(kc, mc, nc)) {
        std::fprintf(stderr, "--gemm-blocking: KC,MC,NC within the default scratch, not %s\n",
                     argv[i]);
        return 2;
      }
    } else if (!std::strcmp(argv[i], "--round-in-pass")) {
      roundInPass = true;
    } else if (!std::strcmp(argv[i], "--operands") && i + 1 < argc) {
      const std::string name = argv[++i];
      const char* names[4] = {"fp32", "bf16", "fp16", "hf32"};
      const Rounding roundings[4] = {Rounding::None, Rounding::BF16, Rounding::F16, Rounding::HF32};
      int k = 0;
      while (k < 4 && name != names[k]) ++k;
      if (k == 4) {
        std::fprintf(stderr, "--operands: fp32, bf16, fp16 or hf32, not %s\n", name.c_str());
        return 2;
      }
      operands = static_cast<OperandValues>(k);
      rounding = roundings[k];
    } else {
      v.push_back(std::atoll(argv[i]));
    }
  }
  if (v.size() != 13) {
    std::fprintf(
        stderr,
        "usage: conv_pass_bench [--threads N] [--repeat N] [--operands fp32|bf16|fp16|hf32] "
        "[--round-in-pass] [--only SUBSTRING] [--gemm-blocking KC,MC,NC] "
        "N C O G D H W KD KH KW S P DL\n");
    return 2;
  }
  aclcpu::setComputeThreadCount(threads);
  ConvShape s;
  s.batch = v[0];
  s.inChannels = v[1];
  s.outChannels = v[2];
  s.groups = v[3];
  for (int d = 0; d < 3; ++d) {
    s.in[d] = v[4 + d];
    s.kernel[d] = v[7 + d];
    const bool unit = s.in[d] == 1 && s.kernel[d] == 1;
    s.stride[d] = unit ? 1 : v[10];
    s.padBefore[d] = unit ? 0 : v[11];
    s.dilation[d] = unit ? 1 : v[12];
    s.out[d] =
        (s.in[d] + 2 * s.padBefore[d] - s.dilation[d] * (s.kernel[d] - 1) - 1) / s.stride[d] + 1;
  }
  const int64_t cig = s.inChannels / s.groups;
  const int64_t xn = s.batch * s.inChannels * s.in[0] * s.in[1] * s.in[2];
  const int64_t yn = s.batch * s.outChannels * s.out[0] * s.out[1] * s.out[2];
  const int64_t wn = s.outChannels * cig * s.kernel[0] * s.kernel[1] * s.kernel[2];
  std::vector<float> x(xn), y(yn), w(wn), out(std::max({xn, yn, wn}));
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> u(-1, 1);
  for (auto* t : {&x, &y, &w})
    for (float& f : *t) f = roundInPass ? u(rng) : roundFloat(u(rng), rounding);
  s.operands = operands;
  if (roundInPass) s.inputRounding = rounding;
  const double macs = static_cast<double>(yn) * cig * s.kernel[0] * s.kernel[1] * s.kernel[2];
  const double peak = probeFmaGflops(0.3) * threads;
  std::printf("isa %s, %d threads, peak %.0f GFLOP/s, %.3f GFLOP per pass\n", isaName(activeIsa()),
              threads, peak, 2 * macs * 1e-9);
  for (int i = 0; i < convAlgorithmCount(); ++i) {
    const ConvAlgorithm& a = convAlgorithmAt(i);
    if (a.minimumIsa > activeIsa() || !a.accepts(s)) continue;
    // Raw inputs go only to the entries that round them (the operator layer
    // rounds copies for the others).
    if (roundInPass && !a.roundsHf32Inputs) continue;
    if (!only.empty() && std::string(a.name).find(only) == std::string::npos) continue;
    std::vector<char> raw(a.scratchBytes(s) + 64);
    void* scratch = raw.data() + (64 - reinterpret_cast<uintptr_t>(raw.data()) % 64) % 64;
    const float* first = a.pass == ConvPass::BackwardData ? y.data() : x.data();
    const float* second = a.pass == ConvPass::BackwardWeight ? y.data() : w.data();
    double best = 1e30;
    for (int r = 0; r < repeat + 1; ++r) {
      const double t0 = seconds();
      a.run(s, first, second, out.data(), scratch);
      const double t = seconds() - t0;
      if (r > 0 && t < best) best = t;
    }
    std::printf("%-40s %9.3f ms %8.1f GFLOP/s %5.1f%% peak  scratch %.1f MB\n", a.name, best * 1e3,
                2 * macs / best * 1e-9, 200 * macs / best * 1e-9 / peak,
                a.scratchBytes(s) / 1048576.0);
  }
  return 0;
}
