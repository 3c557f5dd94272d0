#include "check_values.h"

#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

namespace conformance {

void expectValues(const std::string& what, const std::vector<double>& got,
                  const std::vector<double>& expected, const std::vector<double>& tolerance) {
  ASSERT_EQ(got.size(), expected.size()) << what;
  size_t mismatches = 0;
  std::ostringstream report;
  report.precision(10);
  for (size_t i = 0; i < got.size(); ++i) {
    const double allowed = tolerance.empty() ? 0.0 : tolerance[i];
    const bool same = got[i] == expected[i] || std::fabs(got[i] - expected[i]) <= allowed ||
                      (std::isnan(got[i]) && std::isnan(expected[i]));
    if (same) continue;
    if (mismatches < 5) {
      report << "\n  [" << i << "] got " << got[i] << ", expected " << expected[i] << " (tolerance "
             << allowed << ")";
    }
    ++mismatches;
  }
  EXPECT_EQ(mismatches, 0u) << what << ": " << mismatches << " of " << got.size()
                            << " elements differ" << report.str();
}

}  // namespace conformance
