// The associative-recall generator (core/seed_models/assoc_recall.h) and Lattice's use of it.
#include "core/seed_models/assoc_recall.h"

#include <gtest/gtest.h>

#include <set>

#include "common/expect_error.h"
#include "core/seed_models/lattice.h"

namespace lsrl::seed_models {
namespace {

using testing_common::expectError;

int hotIndex(const Vector& row, int from, int to) {
  int found = -1;
  for (int i = from; i < to; ++i) {
    const double x = row[static_cast<size_t>(i)];
    EXPECT_TRUE(x == 0 || x == 1) << x;
    if (x == 1) {
      EXPECT_EQ(found, -1) << "two hot entries";
      found = i - from;
    }
  }
  return found;
}

TEST(AssocRecall, WritesThenQueriesOfStoredKeys) {
  const AssocRecallParams p{10, 6, 5, 4};
  for (uint64_t seed = 0; seed < 30; ++seed) {
    const AssocRecallSample s = assocRecallSample(p, seed);
    ASSERT_EQ(s.rows.size(), 9u);
    ASSERT_EQ(s.targets.size(), 9u);
    std::vector<int> stored(static_cast<size_t>(p.keys), -1);
    std::set<int> queried;
    for (size_t t = 0; t < s.rows.size(); ++t) {
      ASSERT_EQ(s.rows[t].size(), 16u);
      const int key = hotIndex(s.rows[t], 0, p.keys);
      const int value = hotIndex(s.rows[t], p.keys, p.width());
      ASSERT_GE(key, 0);
      if (t < 5) {  // a write of a fresh key, no target
        EXPECT_EQ(s.targets[t], -1);
        ASSERT_GE(value, 0);
        EXPECT_EQ(stored[static_cast<size_t>(key)], -1) << "keys of a sample are distinct";
        stored[static_cast<size_t>(key)] = value;
      } else {  // a query: no value, the stored one as target
        EXPECT_EQ(value, -1);
        EXPECT_EQ(s.targets[t], stored[static_cast<size_t>(key)]);
        EXPECT_TRUE(queried.insert(key).second) << "queries ask distinct pairs while they last";
      }
    }
  }
}

TEST(AssocRecall, DeterministicPerSeedAndVaries) {
  const AssocRecallParams p{16, 8, 6, 6};
  EXPECT_EQ(assocRecallSample(p, 3).rows, assocRecallSample(p, 3).rows);
  EXPECT_EQ(assocRecallSample(p, 3).targets, assocRecallSample(p, 3).targets);
  EXPECT_NE(assocRecallSample(p, 3).rows, assocRecallSample(p, 4).rows);
}

TEST(AssocRecall, MoreQueriesThanPairsRepeatPairs) {
  const AssocRecallSample s = assocRecallSample({4, 3, 2, 5}, 1);
  EXPECT_EQ(s.rows.size(), 7u);
  for (size_t t = 2; t < 7; ++t) EXPECT_GE(s.targets[t], 0);
}

TEST(AssocRecall, BadParametersAreRefused) {
  expectError(
      [] {
        assocRecallSample({0, 3, 1, 1}, 0);
      },
      "associative recall", "at least one key and one value");
  expectError(
      [] {
        assocRecallSample({4, 3, 5, 1}, 0);
      },
      "associative recall", "pairs must be between 1 and the 4");
  expectError(
      [] {
        assocRecallSample({4, 3, 2, -1}, 0);
      },
      "associative recall", "queries must be at least 0");
  expectError(
      [] {
        assocRecallSample({1000, 1000, 1000, 1000}, 0);
      },
      "associative recall", "over 10^6 entries");
}

TEST(AssocRecall, LatticeOffersItWhenItsChannelsFit) {
  LatticeConfig c;
  c.dIn = 20;
  c.d = 8;
  c.m = 4;
  c.recallPairs = 6;
  const LatticeModel model(c);
  ASSERT_TRUE(model.recallParams());
  EXPECT_EQ(model.recallParams()->keys, 12);
  EXPECT_EQ(model.recallParams()->values, 8);
  EXPECT_EQ(model.tasks().back(), "assoc_recall");
  EXPECT_EQ(model.taskInput("assoc_recall", 2), assocRecallSample(*model.recallParams(), 2).rows);
  EXPECT_EQ(LatticeConfig::fromJson(c.toJson()).recallPairs, 6);

  const LatticeModel small{LatticeConfig{}};  // d_in 3 = d: no key channels
  EXPECT_FALSE(small.recallParams());
  EXPECT_EQ(small.tasks().back(), "recall");
  expectError([&] { small.taskInput("assoc_recall", 0); }, "assoc_recall",
              "recall_pairs = 4 key channels");
  expectError(
      [] {
        LatticeConfig::fromJson({{"recall_pairs", 0}});
      },
      "recall_pairs", "between 1 and 1000000");
}

}  // namespace
}  // namespace lsrl::seed_models
