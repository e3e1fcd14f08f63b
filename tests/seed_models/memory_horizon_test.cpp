// The Memory Horizon task (core/seed_models/memory_horizon.h, docs/spec/seed-models.md §2.9): the
// spec's worked targets, targets that restart at resets, and the seeded generator.
#include "core/seed_models/memory_horizon.h"

#include <gtest/gtest.h>

#include "common/expect_error.h"

namespace lsrl::seed_models {
namespace {

using testing_common::expectError;

TEST(MemoryHorizon, SpecExamples) {
  EXPECT_EQ(memoryHorizonTarget({3, 1, 4, 1, 5}, 50), 18);
  EXPECT_EQ(memoryHorizonTarget({1, 2, 3, 4, 5, 6, 7}, 50), 6);
  EXPECT_EQ(memoryHorizonTarget({4, 0, 2, 1}, 50), 4);
  EXPECT_EQ(memoryHorizonTarget({1, 5, 5, 1}, 50), 26);  // −24 mod 50
  EXPECT_EQ(memoryHorizonTarget({}, 50), 0);
  EXPECT_EQ(memoryHorizonTarget({7}, 5), 2);
  EXPECT_EQ(memoryHorizonTarget({2, 3}, 50), 6);
  // A leftover middle element takes the next sign: 1·3 − 2 = 1.
  EXPECT_EQ(memoryHorizonTarget({1, 2, 3}, 50), 1);
  expectError([] { memoryHorizonTarget({1}, 0); }, "memory horizon", "modulus 0");
}

TEST(MemoryHorizon, TargetsRestartAtResets) {
  const MemoryHorizonParams p;  // reset token 5
  const std::vector<int> tokens = {3, 1, 4, 5, 1, 5, 5, 2};
  // [3] → 3, [3,1] → 3, [3,1,4] → 12 − 1 = 11, reset → 0, [1] → 1, reset, reset, [2] → 2.
  const std::vector<int> want = {3, 3, 11, 0, 1, 0, 0, 2};
  EXPECT_EQ(memoryHorizonTargets(tokens, p), want);
}

TEST(MemoryHorizon, GeneratorIsSeededWithTheRequestedShape) {
  MemoryHorizonParams p;
  p.length = 200;
  p.resets = 5;
  const MemoryHorizonSample a = memoryHorizonSample(p, 11), b = memoryHorizonSample(p, 11);
  EXPECT_EQ(a.tokens, b.tokens);
  EXPECT_EQ(a.targets, b.targets);
  EXPECT_NE(a.tokens, memoryHorizonSample(p, 12).tokens);
  ASSERT_EQ(a.tokens.size(), 200u);
  ASSERT_EQ(a.targets.size(), 200u);
  int resets = 0;
  for (const int t : a.tokens) {
    EXPECT_GE(t, 0);
    EXPECT_LE(t, 5);
    resets += t == p.resetToken();
  }
  EXPECT_EQ(resets, 5);
  EXPECT_NE(a.tokens[0], p.resetToken());
  EXPECT_EQ(a.targets, memoryHorizonTargets(a.tokens, p));
  for (const int t : a.targets) {
    EXPECT_GE(t, 0);
    EXPECT_LT(t, 50);
  }
  const std::vector<MemoryHorizonSample> set = memoryHorizonDataset(p, 3, 11);
  ASSERT_EQ(set.size(), 3u);
  EXPECT_EQ(set[0].tokens, a.tokens);
  EXPECT_EQ(set[1].tokens, memoryHorizonSample(p, 12).tokens);
}

TEST(MemoryHorizon, EdgeCasesAndErrors) {
  MemoryHorizonParams p;
  p.length = 0;
  EXPECT_TRUE(memoryHorizonSample(p, 0).tokens.empty());
  p.length = 4;
  p.resets = 3;  // every position but the first
  const MemoryHorizonSample s = memoryHorizonSample(p, 0);
  EXPECT_EQ(s.tokens[1], 5);
  EXPECT_EQ(s.tokens[3], 5);
  p.resets = 4;
  expectError([&] { memoryHorizonSample(p, 0); }, "memory horizon task", "resets 4 do not fit");
  p.resets = -1;
  expectError([&] { memoryHorizonSample(p, 0); }, "memory horizon task", "resets -1 is negative");
  p = MemoryHorizonParams{};
  p.modulus = 0;
  expectError([&] { memoryHorizonSample(p, 0); }, "memory horizon task", "modulus 0");
  expectError([] { memoryHorizonDataset({}, -2, 0); }, "memory horizon task", "count -2");
}

TEST(MemoryHorizon, ToysAndOneHot) {
  const MemoryHorizonParams p;
  EXPECT_EQ(sumSinceReset({2, 3, 5, 1, 4, 5, 2}, p), (std::vector<double>{2, 5, 0, 1, 5, 0, 2}));
  EXPECT_EQ(tickTokens(p), std::vector<int>(64, 1));
  const Sequence x = oneHot({0, 5}, 6);
  EXPECT_EQ(x[0], (Vector{1, 0, 0, 0, 0, 0}));
  EXPECT_EQ(x[1], (Vector{0, 0, 0, 0, 0, 1}));
  expectError([] { oneHot({6}, 6); }, "one-hot", "token 0 has id 6, expected 0..5");
}

}  // namespace
}  // namespace lsrl::seed_models
