// Small builders shared by the executor tests.
#pragma once

#include <initializer_list>
#include <vector>

#include "common/matrix_literals.h"
#include "core/executor/executor.h"
#include "core/graph/graph.h"

namespace lsrl::testing_run {

using testing_common::mat;
using testing_common::vec;

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
