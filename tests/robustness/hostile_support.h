#pragma once
// Hostile-input test support shared by the robustness tests of every
// operator: a seeded random source, tensors that are backed by real memory
// only when small, and the damaging values, dtypes and formats.

#include <cstdint>
#include <random>
#include <vector>

#include "acl/acl.h"

namespace hostile {

constexpr int64_t kHuge = int64_t{1} << 62;

class Random {
 public:
  explicit Random(uint32_t seed) : engine_(seed) {}
  int64_t pick(std::initializer_list<int64_t> values) {
    std::uniform_int_distribution<size_t> d(0, values.size() - 1);
    return *(values.begin() + d(engine_));
  }
  int64_t between(int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(engine_);
  }
  bool chance(double p) { return std::bernoulli_distribution(p)(engine_); }

 private:
  std::mt19937 engine_;
};

// A tensor with a real buffer when its extent is small; otherwise no data.
struct HostileTensor {
  std::vector<int64_t> shape;
  std::vector<unsigned char> storage;
  aclTensor* tensor = nullptr;
  bool backed = false;

  HostileTensor(const std::vector<int64_t>& dims, aclDataType dtype, aclFormat format)
      : shape(dims) {
    int64_t count = 1;
    backed = true;
    for (int64_t d : shape) {
      if (d < 0 || d > 64) backed = false;
      if (backed) count *= d;
    }
    backed = backed && count <= 8192;
    if (backed) storage.assign(static_cast<size_t>(count) * 8 + 64, 0x3c);
    tensor = aclCreateTensor(shape.data(), shape.size(), dtype, nullptr, 0, format, shape.data(),
                             shape.size(), backed ? storage.data() : nullptr);
  }
  ~HostileTensor() { aclDestroyTensor(tensor); }
  HostileTensor(const HostileTensor&) = delete;
  HostileTensor& operator=(const HostileTensor&) = delete;
};

inline aclDataType hostileDtype(Random& r) {
  return static_cast<aclDataType>(
      r.pick({ACL_FLOAT16, ACL_BF16, ACL_DOUBLE, ACL_INT32, ACL_INT8, ACL_DT_UNDEFINED}));
}

inline aclFormat hostileFormat(Random& r) {
  return static_cast<aclFormat>(r.pick({ACL_FORMAT_ND, ACL_FORMAT_NHWC, ACL_FORMAT_NCHW,
                                        ACL_FORMAT_NCDHW, ACL_FORMAT_NCL, ACL_FORMAT_UNDEFINED}));
}

inline int64_t hostileValue(Random& r) {
  return r.pick({-kHuge, -2, -1, 0, 1, 5, 1 << 20, kHuge, INT64_MAX});
}

}  // namespace hostile
