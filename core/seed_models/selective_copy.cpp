#include "core/seed_models/selective_copy.h"

#include <algorithm>
#include <numeric>
#include <string>

#include "core/seed_models/model_helpers.h"
#include "core/util/error.h"

namespace lsrl::seed_models {

namespace {

constexpr long long kMaxTokens = 1000000;

}  // namespace

void checkSelectiveCopyParams(const SelectiveCopyParams& p) {
  auto bad = [](const std::string& what) { throw Error("selective copying task: " + what); };
  if (p.vocabulary < 3 || p.vocabulary > kMaxTokens)
    bad("vocabulary " + std::to_string(p.vocabulary) +
        " is out of range 3..1000000 (noise, marker and at least one data token)");
  if (p.length < 0) bad("length " + std::to_string(p.length) + " is negative");
  if (p.dataTokens < 0) bad("data_tokens " + std::to_string(p.dataTokens) + " is negative");
  if (p.dataTokens > p.length)
    bad("data_tokens " + std::to_string(p.dataTokens) + " do not fit length " +
        std::to_string(p.length));
  if (static_cast<long long>(p.length) + p.dataTokens > kMaxTokens)
    bad("a sample of " + std::to_string(static_cast<long long>(p.length) + p.dataTokens) +
        " tokens is more than 1000000");
}

SelectiveCopySample selectiveCopySample(const SelectiveCopyParams& p, uint64_t seed) {
  checkSelectiveCopyParams(p);
  Rng rng(seed);
  const size_t n = static_cast<size_t>(p.dataTokens), length = static_cast<size_t>(p.length);
  // Distinct positions: a partial Fisher–Yates shuffle of 0..length−1.
  std::vector<int> all(length);
  std::iota(all.begin(), all.end(), 0);
  for (size_t r = 0; r < n; ++r) std::swap(all[r], all[r + uniformBelow(rng, length - r)]);
  SelectiveCopySample s;
  s.positions.assign(all.begin(), all.begin() + static_cast<ptrdiff_t>(n));
  std::sort(s.positions.begin(), s.positions.end());
  s.tokens.assign(length, p.noiseToken());
  s.targets.assign(length, -1);
  for (const int pos : s.positions) {
    const int datum = 1 + static_cast<int>(uniformBelow(rng, static_cast<size_t>(p.dataValues())));
    s.tokens[static_cast<size_t>(pos)] = datum;
    s.targets.push_back(datum);  // asked for by the marker at length + k
  }
  s.tokens.resize(length + n, p.markerToken());
  return s;
}

std::vector<int> holdTokens(const SelectiveCopyParams& p, uint64_t seed) {
  std::vector<int> tokens = selectiveCopySample(p, seed).tokens;
  tokens.resize(static_cast<size_t>(p.length));
  return tokens;
}

std::vector<int> holdTargets(const std::vector<int>& tokens, const SelectiveCopyParams& p) {
  std::vector<int> out(tokens.size());
  int last = -1;
  for (size_t t = 0; t < tokens.size(); ++t) {
    if (tokens[t] >= 1 && tokens[t] <= p.dataValues()) last = tokens[t];
    out[t] = last;
  }
  return out;
}

}  // namespace lsrl::seed_models
