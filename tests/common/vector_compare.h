// Vectors of doubles compared element by element: within a tolerance, and their largest
// difference.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

namespace lsrl::testing_common {

// The sizes agree (else the calling helper stops) and every element is within `tol`;
// failures name `what`[i].
inline void expectNear(const std::vector<double>& got, const std::vector<double>& want, double tol,
                       const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i)
    EXPECT_NEAR(got[i], want[i], tol) << what << "[" << i << "]";
}

// The largest |a[i] − b[i]|; a size mismatch fails.
inline double maxDiff(const std::vector<double>& a, const std::vector<double>& b) {
  EXPECT_EQ(a.size(), b.size());
  double d = 0;
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) d = std::max(d, std::abs(a[i] - b[i]));
  return d;
}

// The largest |a[t][i] − b[t][i]| over rows of equal width; a row count mismatch fails.
inline double maxDiff(const std::vector<std::vector<double>>& a,
                      const std::vector<std::vector<double>>& b) {
  EXPECT_EQ(a.size(), b.size());
  double d = 0;
  for (size_t t = 0; t < a.size() && t < b.size(); ++t)
    for (size_t i = 0; i < a[t].size(); ++i) d = std::max(d, std::abs(a[t][i] - b[t][i]));
  return d;
}

}  // namespace lsrl::testing_common
