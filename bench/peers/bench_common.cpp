#include "bench_common.h"

#include <algorithm>
#include <cmath>
#include <random>

namespace peers {

int64_t elementCount(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

HostProblem makeHostProblem(const ProblemSpec& spec, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  auto fill = [&](const std::vector<int64_t>& shape) {
    std::vector<float> values(static_cast<size_t>(elementCount(shape)));
    for (auto& v : values) v = dist(rng);
    return values;
  };
  HostProblem problem;
  problem.spec = spec;
  problem.gradOutput = fill(spec.gradOutputShape());
  problem.input = fill(spec.inputShape());
  problem.weight = fill(spec.weightShape());
  problem.bias = fill({spec.gradOutputShape()[1]});
  return problem;
}

double relativeDifference(const std::vector<float>& a, const std::vector<float>& b) {
  if (a.size() != b.size()) return INFINITY;
  double diff = 0, scale = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    diff = std::max(diff, std::fabs(static_cast<double>(a[i]) - b[i]));
    scale = std::max(scale, std::fabs(static_cast<double>(b[i])));
  }
  return scale > 0 ? diff / scale : diff;
}

double relativeDifference(const Outputs& a, const Outputs& b) {
  if (a.size() != b.size()) return INFINITY;
  double worst = 0;
  for (size_t i = 0; i < a.size(); ++i) worst = std::max(worst, relativeDifference(a[i], b[i]));
  return worst;
}

}  // namespace peers
