#pragma once
// Shared support of the convolution kernel tests: float64 reference loops
// written straight from the formula in kernel_types.h, a guarded scratch
// buffer, seeded random operands and NaN-poisoned outputs. One copy for
// conv_passes_test.cpp (the public passes) and conv_algorithm_test.cpp (every
// registry entry).

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "common/thread_pool.h"
#include "kernels/cpu/cpu_info.h"
#include "kernels/kernel_types.h"

namespace aclcpu {
namespace kernels {
namespace conv_test {

inline std::string describe(const ConvShape& s) {
  std::ostringstream out;
  out << "mb" << s.batch << " ic" << s.inChannels << " oc" << s.outChannels << " g" << s.groups;
  const char* names[3] = {"d", "h", "w"};
  for (int d = 0; d < 3; ++d) {
    out << " " << names[d] << ":i" << s.in[d] << "o" << s.out[d] << "k" << s.kernel[d] << "s"
        << s.stride[d] << "dl" << s.dilation[d] << "p" << s.padBefore[d];
  }
  const char* operands[4] = {"", " bf16", " fp16", " hf32"};
  out << operands[static_cast<int>(s.operands)];
  return out.str();
}

inline int64_t volume(const int64_t v[3]) { return v[0] * v[1] * v[2]; }
inline int64_t xCount(const ConvShape& s) { return s.batch * s.inChannels * volume(s.in); }
inline int64_t yCount(const ConvShape& s) { return s.batch * s.outChannels * volume(s.out); }
inline int64_t wCount(const ConvShape& s) {
  return s.outChannels * (s.inChannels / s.groups) * volume(s.kernel);
}

// Visits every (n, co, ci, o, k) term of the convolution sum whose input index
// lies inside x: fn(xIndex, wIndex, yIndex).
template <typename Fn>
void forEachTerm(const ConvShape& s, Fn&& fn) {
  const int64_t cig = s.inChannels / s.groups, cog = s.outChannels / s.groups;
  for (int64_t n = 0; n < s.batch; ++n)
    for (int64_t co = 0; co < s.outChannels; ++co)
      for (int64_t cl = 0; cl < cig; ++cl) {
        const int64_t ci = (co / cog) * cig + cl;
        for (int64_t o0 = 0; o0 < s.out[0]; ++o0)
          for (int64_t o1 = 0; o1 < s.out[1]; ++o1)
            for (int64_t o2 = 0; o2 < s.out[2]; ++o2)
              for (int64_t k0 = 0; k0 < s.kernel[0]; ++k0)
                for (int64_t k1 = 0; k1 < s.kernel[1]; ++k1)
                  for (int64_t k2 = 0; k2 < s.kernel[2]; ++k2) {
                    const int64_t i0 = o0 * s.stride[0] - s.padBefore[0] + k0 * s.dilation[0];
                    const int64_t i1 = o1 * s.stride[1] - s.padBefore[1] + k1 * s.dilation[1];
                    const int64_t i2 = o2 * s.stride[2] - s.padBefore[2] + k2 * s.dilation[2];
                    if (i0 < 0 || i0 >= s.in[0] || i1 < 0 || i1 >= s.in[1] || i2 < 0 ||
                        i2 >= s.in[2])
                      continue;
                    const int64_t x =
                        (((n * s.inChannels + ci) * s.in[0] + i0) * s.in[1] + i1) * s.in[2] + i2;
                    const int64_t w =
                        (((co * cig + cl) * s.kernel[0] + k0) * s.kernel[1] + k1) * s.kernel[2] +
                        k2;
                    const int64_t y =
                        (((n * s.outChannels + co) * s.out[0] + o0) * s.out[1] + o1) * s.out[2] +
                        o2;
                    fn(x, w, y);
                  }
      }
}

// Restores the default thread count and ISA whatever a test does. While it
// lives, the AVX512-BF16 kernels count as fast on any CPU with the
// instructions (forceBf16DotForTesting) and the dense plane kernels as
// preferred on any AVX-512 CPU (forceZmmFmaInHalvesForTesting), so that they
// are tested on CPUs where the registry does not choose them.
struct Restore {
  Restore() {
    forceBf16DotForTesting();
    forceZmmFmaInHalvesForTesting();
  }
  ~Restore() {
    setComputeThreadCount(0);
    clearIsaForTesting();
  }
  Restore(const Restore&) = delete;
  Restore& operator=(const Restore&) = delete;
};

struct Reference {
  std::vector<double> value;
  std::vector<double> magnitude;  // sum of |products|, for the tolerance
};

inline Reference referenceForward(const ConvShape& s, const std::vector<float>& x,
                                  const std::vector<float>& w) {
  Reference r{std::vector<double>(yCount(s)), std::vector<double>(yCount(s))};
  forEachTerm(s, [&](int64_t xi, int64_t wi, int64_t yi) {
    const double p = static_cast<double>(x[xi]) * w[wi];
    r.value[yi] += p;
    r.magnitude[yi] += std::fabs(p);
  });
  return r;
}

inline Reference referenceBackwardData(const ConvShape& s, const std::vector<float>& dy,
                                       const std::vector<float>& w) {
  Reference r{std::vector<double>(xCount(s)), std::vector<double>(xCount(s))};
  forEachTerm(s, [&](int64_t xi, int64_t wi, int64_t yi) {
    const double p = static_cast<double>(dy[yi]) * w[wi];
    r.value[xi] += p;
    r.magnitude[xi] += std::fabs(p);
  });
  return r;
}

inline Reference referenceBackwardWeight(const ConvShape& s, const std::vector<float>& x,
                                         const std::vector<float>& dy) {
  Reference r{std::vector<double>(wCount(s)), std::vector<double>(wCount(s))};
  forEachTerm(s, [&](int64_t xi, int64_t wi, int64_t yi) {
    const double p = static_cast<double>(x[xi]) * dy[yi];
    r.value[wi] += p;
    r.magnitude[wi] += std::fabs(p);
  });
  return r;
}

// Scratch of exactly the size the pass asked for, 64-byte aligned, with guard
// bytes before and after it that must survive. The body starts filled with
// `fill` (0xff makes every float a NaN, so a pass that reads scratch it never
// wrote shows up in its results).
class Scratch {
 public:
  explicit Scratch(uint64_t bytes, unsigned char fill = kGuardByte) : bytes_(bytes) {
    const uint64_t total = kFront + (bytes + kGuard + 63) / 64 * 64;
    base_.reset(static_cast<unsigned char*>(std::aligned_alloc(64, total)));
    std::memset(base_.get(), kGuardByte, total);
    std::memset(base_.get() + kFront, fill, bytes);
  }
  void* get() { return base_.get() + kFront; }
  uint64_t bytes() const { return bytes_; }
  // Fills the scratch with the guard byte again: a run that reads what it
  // did not write then meets junk, not an earlier run's values.
  void repoison() { std::memset(base_.get() + kFront, kGuardByte, bytes_); }
  // The guard after the scratch.
  bool guardIntact() const {
    for (uint64_t i = 0; i < kGuard; ++i)
      if (base_.get()[kFront + bytes_ + i] != kGuardByte) return false;
    return true;
  }
  // The guards before and after the scratch.
  bool guardsIntact() const {
    for (uint64_t i = 0; i < kFront; ++i)
      if (base_.get()[i] != kGuardByte) return false;
    return guardIntact();
  }

 private:
  static constexpr unsigned char kGuardByte = 0xcd;
  static constexpr uint64_t kFront = 64;
  static constexpr uint64_t kGuard = 256;
  struct Free {
    void operator()(unsigned char* p) const { std::free(p); }
  };
  uint64_t bytes_;
  std::unique_ptr<unsigned char, Free> base_;
};

inline std::vector<float> randomValues(int64_t count, std::mt19937& rng) {
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> v(static_cast<size_t>(count));
  for (float& e : v) e = dist(rng);
  return v;
}

// Outputs start as NaN so anything the pass fails to overwrite shows up.
inline std::vector<float> poisoned(int64_t count) {
  return std::vector<float>(static_cast<size_t>(count), std::numeric_limits<float>::quiet_NaN());
}

// |got - expected| <= relative * sum|products| + absolute for every element.
inline ::testing::AssertionResult closeTo(const Reference& ref, const std::vector<float>& got,
                                          const char* pass, double relative = 1e-5,
                                          double absolute = 0.0) {
  for (size_t i = 0; i < got.size(); ++i) {
    const double tolerance = relative * ref.magnitude[i] + absolute;
    const double error = std::fabs(static_cast<double>(got[i]) - ref.value[i]);
    if (!(error <= tolerance)) {
      return ::testing::AssertionFailure()
             << pass << " element " << i << ": got " << got[i] << " expected " << ref.value[i]
             << " (sum |products| " << ref.magnitude[i] << ")";
    }
  }
  return ::testing::AssertionSuccess();
}

}  // namespace conv_test
}  // namespace kernels
}  // namespace aclcpu
