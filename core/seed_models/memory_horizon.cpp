#include "core/seed_models/memory_horizon.h"

#include <algorithm>
#include <numeric>
#include <string>

#include "core/seed_models/model_helpers.h"
#include "core/util/error.h"

namespace lsrl::seed_models {

namespace {

void checkParams(const MemoryHorizonParams& p) {
  auto bad = [](const std::string& what) { throw Error("memory horizon task: " + what); };
  if (p.length < 0) bad("length " + std::to_string(p.length) + " is negative");
  if (p.resets < 0) bad("resets " + std::to_string(p.resets) + " is negative");
  if (p.maxNumber < 0) bad("max_number " + std::to_string(p.maxNumber) + " is negative");
  if (p.modulus < 1) bad("modulus " + std::to_string(p.modulus) + " is not positive");
  if (p.length > 0 && p.resets >= p.length)
    bad("resets " + std::to_string(p.resets) + " do not fit a sequence of length " +
        std::to_string(p.length) + " (at most length − 1)");
}

}  // namespace

int memoryHorizonTarget(const std::vector<int>& numbers, int modulus) {
  if (modulus < 1)
    throw Error("memory horizon target: modulus " + std::to_string(modulus) + " is not positive");
  long long res = 0;
  bool add = true;
  size_t i = 0, j = numbers.size();
  while (i + 1 < j) {  // i < j − 1 with j one past the last: pairs (i, j − 1)
    const long long p = static_cast<long long>(numbers[i]) * numbers[j - 1];
    res = add ? res + p : res - p;
    add = !add;
    ++i;
    --j;
  }
  if (i + 1 == j) res = add ? res + numbers[i] : res - numbers[i];
  return static_cast<int>(((res % modulus) + modulus) % modulus);  // Python's %
}

std::vector<int> memoryHorizonTargets(const std::vector<int>& tokens,
                                      const MemoryHorizonParams& p) {
  std::vector<int> targets(tokens.size());
  std::vector<int> since;
  for (size_t n = 0; n < tokens.size(); ++n) {
    if (tokens[n] == p.resetToken())
      since.clear();
    else
      since.push_back(tokens[n]);
    targets[n] = memoryHorizonTarget(since, p.modulus);
  }
  return targets;
}

MemoryHorizonSample memoryHorizonSample(const MemoryHorizonParams& p, uint64_t seed) {
  checkParams(p);
  Rng rng(seed);
  MemoryHorizonSample s;
  s.tokens.resize(static_cast<size_t>(p.length));
  for (int& t : s.tokens)
    t = static_cast<int>(uniformBelow(rng, static_cast<size_t>(p.maxNumber) + 1));
  // Distinct reset positions: a partial Fisher–Yates shuffle of 1..length−1.
  std::vector<int> positions(p.length > 0 ? static_cast<size_t>(p.length - 1) : 0);
  std::iota(positions.begin(), positions.end(), 1);
  for (size_t r = 0; r < static_cast<size_t>(p.resets) && r < positions.size(); ++r) {
    std::swap(positions[r], positions[r + uniformBelow(rng, positions.size() - r)]);
    s.tokens[static_cast<size_t>(positions[r])] = p.resetToken();
  }
  s.targets = memoryHorizonTargets(s.tokens, p);
  return s;
}

std::vector<MemoryHorizonSample> memoryHorizonDataset(const MemoryHorizonParams& p, int count,
                                                      uint64_t seed) {
  if (count < 0)
    throw Error("memory horizon task: sample count " + std::to_string(count) + " is negative");
  std::vector<MemoryHorizonSample> out;
  out.reserve(static_cast<size_t>(count));
  for (int i = 0; i < count; ++i)
    out.push_back(memoryHorizonSample(p, seed + static_cast<uint64_t>(i)));
  return out;
}

std::vector<double> sumSinceReset(const std::vector<int>& tokens, const MemoryHorizonParams& p) {
  std::vector<double> out(tokens.size());
  double sum = 0;
  for (size_t n = 0; n < tokens.size(); ++n) {
    sum = tokens[n] == p.resetToken() ? 0 : sum + tokens[n];
    out[n] = sum;
  }
  return out;
}

std::vector<int> tickTokens(const MemoryHorizonParams& p) {
  checkParams(p);
  return std::vector<int>(static_cast<size_t>(p.length), std::min(1, p.maxNumber));
}

Sequence oneHot(const std::vector<int>& tokens, int vocabulary) {
  Sequence out(tokens.size(), Vector(static_cast<size_t>(std::max(vocabulary, 0)), 0.0));
  for (size_t n = 0; n < tokens.size(); ++n) {
    if (tokens[n] < 0 || tokens[n] >= vocabulary)
      throw Error("one-hot: token " + std::to_string(n) + " has id " + std::to_string(tokens[n]) +
                  ", expected 0.." + std::to_string(vocabulary - 1));
    out[n][static_cast<size_t>(tokens[n])] = 1;
  }
  return out;
}

}  // namespace lsrl::seed_models
