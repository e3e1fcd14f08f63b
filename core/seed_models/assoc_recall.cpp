#include "core/seed_models/assoc_recall.h"

#include <algorithm>
#include <string>
#include <utility>

#include "core/seed_models/model_helpers.h"
#include "core/util/error.h"

namespace lsrl::seed_models {

namespace {

// The first `count` entries of a seeded shuffle of 0..n−1 (partial Fisher–Yates).
std::vector<int> drawDistinct(Rng& rng, int n, int count) {
  std::vector<int> ids(sz(n));
  for (int i = 0; i < n; ++i) ids[sz(i)] = i;
  for (int i = 0; i < count; ++i) std::swap(ids[sz(i)], ids[sz(i + nextBelow(rng, n - i))]);
  ids.resize(sz(count));
  return ids;
}

}  // namespace

void checkAssocRecallParams(const AssocRecallParams& p) {
  const auto fail = [](const std::string& what) { throw Error("associative recall: " + what); };
  if (p.keys < 1 || p.values < 1)
    fail("needs at least one key and one value id, got " + std::to_string(p.keys) + " keys and " +
         std::to_string(p.values) + " values");
  if (p.pairs < 1 || p.pairs > p.keys)
    fail("pairs must be between 1 and the " + std::to_string(p.keys) +
         " key ids (keys are distinct), got " + std::to_string(p.pairs));
  if (p.queries < 0) fail("queries must be at least 0, got " + std::to_string(p.queries));
  const double entries = static_cast<double>(p.length()) * p.width();
  if (entries > 1e6)
    fail("a sample of " + std::to_string(p.length()) + " tokens of width " +
         std::to_string(p.width()) + " is over 10^6 entries");
}

AssocRecallSample assocRecallSample(const AssocRecallParams& p, uint64_t seed) {
  checkAssocRecallParams(p);
  Rng rng(seed);
  const std::vector<int> keys = drawDistinct(rng, p.keys, p.pairs);
  std::vector<int> values(sz(p.pairs));
  for (int& v : values) v = nextBelow(rng, p.values);
  AssocRecallSample s;
  const auto row = [&](int key, int value) {
    Vector r(sz(p.width()), 0.0);
    r[sz(key)] = 1;
    if (value >= 0) r[sz(p.keys + value)] = 1;
    return r;
  };
  for (int i = 0; i < p.pairs; ++i) {
    s.rows.push_back(row(keys[sz(i)], values[sz(i)]));
    s.targets.push_back(-1);
    s.ages.push_back(-1);
  }
  // Distinct stored pairs while they last, then a fresh shuffle of them again.
  std::vector<int> order;
  for (int q = 0; q < p.queries; ++q) {
    if (order.empty()) {
      order = drawDistinct(rng, p.pairs, p.pairs);
      std::reverse(order.begin(), order.end());  // pop from the back in drawn order
    }
    const int pair = order.back();
    order.pop_back();
    s.ages.push_back(static_cast<int>(s.rows.size()) - pair);  // pair i was written at token i
    s.rows.push_back(row(keys[sz(pair)], -1));
    s.targets.push_back(values[sz(pair)]);
  }
  return s;
}

}  // namespace lsrl::seed_models
