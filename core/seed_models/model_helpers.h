// Small helpers the seed models' sources share, defined once here so that a unity build can
// put those sources in one translation unit.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/seed_models/model_common.h"

namespace lsrl::seed_models {

// A count or index (int, int64_t) as a size_t.
inline size_t sz(int64_t n) { return static_cast<size_t>(n); }

// The rows of `rows` one after another (row-major [T][d]).
inline std::vector<double> flatten(const Sequence& rows) {
  std::vector<double> out;
  for (const Vector& r : rows) out.insert(out.end(), r.begin(), r.end());
  return out;
}

// x += delta, row by row (a residual connection).
inline void addInto(Sequence& x, const Sequence& delta) {
  for (size_t t = 0; t < x.size(); ++t)
    for (size_t i = 0; i < x[t].size(); ++i) x[t][i] += delta[t][i];
}

inline bool endsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Integer in [0, n) from the portable Rng: next() modulo n.
inline int nextBelow(Rng& rng, int n) {
  return static_cast<int>(rng.next() % static_cast<uint64_t>(n));
}

// Uniform integer in [0, n) from the portable Rng (floor of a uniform double).
inline size_t uniformBelow(Rng& rng, size_t n) {
  return std::min(n - 1, static_cast<size_t>(rng.uniform() * static_cast<double>(n)));
}

}  // namespace lsrl::seed_models
