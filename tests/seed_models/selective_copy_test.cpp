// The selective-copying generator and the hold toy's streams (core/seed_models/selective_copy.h).
#include "core/seed_models/selective_copy.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "common/expect_error.h"

namespace lsrl::seed_models {
namespace {

using testing_common::expectError;

TEST(SelectiveCopy, SampleHasTheTaskShape) {
  const SelectiveCopyParams p;  // vocabulary 16, length 64, 4 data tokens
  EXPECT_EQ(p.total(), 68);
  for (uint64_t seed = 0; seed < 20; ++seed) {
    const SelectiveCopySample s = selectiveCopySample(p, seed);
    ASSERT_EQ(s.tokens.size(), 68u);
    ASSERT_EQ(s.targets.size(), 68u);
    ASSERT_EQ(s.positions.size(), 4u);
    EXPECT_TRUE(std::is_sorted(s.positions.begin(), s.positions.end()));
    EXPECT_EQ(std::adjacent_find(s.positions.begin(), s.positions.end()), s.positions.end());
    int data = 0;
    for (int t = 0; t < 64; ++t) {
      const int token = s.tokens[static_cast<size_t>(t)];
      EXPECT_EQ(s.targets[static_cast<size_t>(t)], -1);
      if (token == p.noiseToken()) continue;
      ASSERT_GE(token, 1);
      ASSERT_LE(token, 14);
      EXPECT_EQ(t, s.positions[static_cast<size_t>(data)]);
      ++data;
    }
    EXPECT_EQ(data, 4);
    for (size_t k = 0; k < 4; ++k) {
      EXPECT_EQ(s.tokens[64 + k], p.markerToken());
      EXPECT_EQ(s.targets[64 + k], s.tokens[static_cast<size_t>(s.positions[k])]);  // in order
    }
  }
}

TEST(SelectiveCopy, DeterministicPerSeed) {
  const SelectiveCopyParams p{16, 256, 16};
  EXPECT_EQ(selectiveCopySample(p, 3).tokens, selectiveCopySample(p, 3).tokens);
  EXPECT_NE(selectiveCopySample(p, 3).tokens, selectiveCopySample(p, 4).tokens);
  // Pinned: the portable Rng gives these on every platform.
  const SelectiveCopySample s = selectiveCopySample(SelectiveCopyParams{}, 0);
  EXPECT_EQ(s.positions, (std::vector<int>{3, 28, 56, 62}));
  EXPECT_EQ(std::vector<int>(s.targets.begin() + 64, s.targets.end()),
            (std::vector<int>{2, 5, 3, 11}));
  // Every position may hold a datum: all of them do when data tokens = length.
  const SelectiveCopySample full = selectiveCopySample(SelectiveCopyParams{3, 5, 5}, 1);
  EXPECT_EQ(full.positions, (std::vector<int>{0, 1, 2, 3, 4}));
  EXPECT_EQ(full.tokens, (std::vector<int>{1, 1, 1, 1, 1, 2, 2, 2, 2, 2}));
}

TEST(SelectiveCopy, EmptyAndEdgeSizes) {
  EXPECT_TRUE(selectiveCopySample(SelectiveCopyParams{16, 0, 0}, 1).tokens.empty());
  const SelectiveCopySample noData = selectiveCopySample(SelectiveCopyParams{16, 8, 0}, 1);
  EXPECT_EQ(noData.tokens, std::vector<int>(8, 0));
}

TEST(SelectiveCopy, HoldStreamAndTargets) {
  const SelectiveCopyParams p;
  const std::vector<int> tokens = holdTokens(p, 9);
  const SelectiveCopySample s = selectiveCopySample(p, 9);
  ASSERT_EQ(tokens.size(), 64u);
  EXPECT_TRUE(std::equal(tokens.begin(), tokens.end(), s.tokens.begin()));
  const std::vector<int> targets = holdTargets(tokens, p);
  for (size_t t = 0; t < tokens.size(); ++t) {
    int last = -1;
    for (size_t j = 0; j <= t; ++j)
      if (tokens[j] != 0) last = tokens[j];
    EXPECT_EQ(targets[t], last) << t;
  }
  EXPECT_EQ(holdTargets({0, 3, 0, 15, 5, 0}, p),
            (std::vector<int>{-1, 3, 3, 3, 5, 5}));  // 15: marker
}

TEST(SelectiveCopy, BadParametersAreNamed) {
  auto sample = [](SelectiveCopyParams p) { return [p] { selectiveCopySample(p, 0); }; };
  expectError(sample({2, 8, 1}), "selective copying task", "vocabulary 2 is out of range 3..");
  expectError(sample({16, -1, 0}), "selective copying task", "length -1 is negative");
  expectError(sample({16, 8, -2}), "selective copying task", "data_tokens -2 is negative");
  expectError(sample({16, 8, 9}), "selective copying task", "data_tokens 9 do not fit length 8");
  expectError(sample({16, 1000000, 10}), "selective copying task", "more than 1000000");
}

}  // namespace
}  // namespace lsrl::seed_models
