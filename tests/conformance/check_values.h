#pragma once
// Element-wise comparison that reports the first few mismatches.

#include <string>
#include <vector>

namespace conformance {

// Exact when `tolerance` is empty, otherwise |got - expected| <= tolerance[i].
void expectValues(const std::string& what, const std::vector<double>& got,
                  const std::vector<double>& expected, const std::vector<double>& tolerance = {});

}  // namespace conformance
