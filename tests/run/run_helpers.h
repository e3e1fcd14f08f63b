// Small builders shared by the executor tests.
#pragma once

#include <initializer_list>
#include <vector>

#include "core/graph/graph.h"
#include "core/run/executor.h"

namespace lsrl::testing_run {

inline ExactVector vec(std::initializer_list<Exact> v) { return ExactVector(v); }

inline ExactMatrix mat(std::initializer_list<std::initializer_list<Exact>> rows) {
  std::vector<ExactVector> dense;
  int cols = 0;
  for (const auto& r : rows) {
    dense.emplace_back(r);
    cols = static_cast<int>(r.size());
  }
  return ExactMatrix::fromDense(dense, cols);
}

// One-feature tokens from a list of numbers.
inline FloatSequence scalarTokens(std::initializer_list<double> xs) {
  FloatSequence out;
  for (double x : xs) out.push_back({x});
  return out;
}

inline std::vector<double> toDoubles(const ExactVector& v) {
  std::vector<double> out;
  for (const Exact& x : v) out.push_back(x.toDouble());
  return out;
}

}  // namespace lsrl::testing_run
