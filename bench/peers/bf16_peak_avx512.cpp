// Probe for the benchmark report: one core's AVX512-BF16 VDPBF16PS
// throughput (zmm: 16 lanes x 2 bf16 products, each a multiply and an add,
// into fp32), over many independent accumulator chains. Compiled with
// -mavx512bf16 for this file only; call only when cpuid reports AVX512_BF16.

#include <immintrin.h>

#include <chrono>
#include <cstdint>

namespace peers {

double probeDpbf16Gflops(double seconds) {
  constexpr int kChains = 24;
  __m512 acc[kChains];
  for (int i = 0; i < kChains; ++i) acc[i] = _mm512_set1_ps(static_cast<float>(i));
  // Normal values whose products keep the sums far from overflow and from
  // the subnormals VDPBF16PS flushes.
  const __m512bh a = _mm512_cvtne2ps_pbh(_mm512_set1_ps(1.0f), _mm512_set1_ps(0.5f));
  const __m512bh b = _mm512_cvtne2ps_pbh(_mm512_set1_ps(0x1p-20f), _mm512_set1_ps(0x1p-21f));
  int64_t iterations = 0;
  const auto start = std::chrono::steady_clock::now();
  double elapsed = 0.0;
  do {
    for (int r = 0; r < 100000; ++r) {
#pragma GCC unroll 24
      for (int i = 0; i < kChains; ++i) acc[i] = _mm512_dpbf16_ps(acc[i], a, b);
    }
    iterations += 100000;
    elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  } while (elapsed < seconds);
  __m512 total = acc[0];
  for (int i = 1; i < kChains; ++i) total = _mm512_add_ps(total, acc[i]);
  alignas(64) float lanes[16];
  _mm512_store_ps(lanes, total);
  float sink = 0.0f;
  for (float lane : lanes) sink += lane;
  volatile float keep = sink;
  (void)keep;
  return static_cast<double>(iterations) * kChains * 16 * 2 * 2 / elapsed * 1e-9;
}

}  // namespace peers
