// Exact vectors and matrices written as literals in tests: vec({1, 0}), mat({{1, 2}, {3, 4}}).
#pragma once

#include <initializer_list>
#include <vector>

#include "core/graph/matrix.h"

namespace lsrl::testing_common {

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

}  // namespace lsrl::testing_common
