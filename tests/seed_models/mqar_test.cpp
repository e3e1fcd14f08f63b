// The recall-with-interference generator (core/seed_models/mqar.h): every sample replayed
// event by event (each query asks a key written before it and its target is that key's
// latest value, at the age the sample says), the interference actually happening,
// determinism, the config keys and the refused parameters.
#include "core/seed_models/mqar.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>

#include "common/expect_error.h"

namespace lsrl::seed_models {
namespace {

using testing_common::expectError;

struct Replay {
  int writes = 0, queries = 0, distractors = 0;
  int rewrites = 0;            // writes of a key written before
  int changedValues = 0;       // of those, writes that changed the key's value
  std::vector<int> firstKeys;  // keys of the writes, in order
};

// Walks the tokens as events and checks each against the generator's contract.
Replay replay(const MqarParams& p, const MqarSample& s) {
  Replay r;
  const size_t T = s.tokens.size();
  EXPECT_EQ(T, static_cast<size_t>(p.length));
  EXPECT_EQ(s.targets.size(), T);
  EXPECT_EQ(s.ages.size(), T);
  std::vector<int> latest(static_cast<size_t>(p.keys), -1), valueAt(static_cast<size_t>(p.keys));
  const auto noTarget = [&](size_t i) {
    EXPECT_EQ(s.targets[i], -1) << i;
    EXPECT_EQ(s.ages[i], -1) << i;
  };
  for (size_t i = 0; i < T;) {
    const int tok = s.tokens[i];
    EXPECT_GE(tok, 0);
    EXPECT_LT(tok, p.vocabulary());
    if (i == 0) {
      EXPECT_LT(tok, p.keys) << "a sample starts with a write";
    }
    if (tok < p.keys) {  // write [key, value]
      EXPECT_LT(i + 1, T);
      const int value = s.tokens[i + 1];
      EXPECT_GE(value, p.keys) << i;
      EXPECT_LT(value, p.keys + p.values) << i;
      const size_t key = static_cast<size_t>(tok);
      if (latest[key] >= 0) {
        ++r.rewrites;
        r.changedValues += latest[key] != value;
      }
      latest[key] = value;
      valueAt[key] = static_cast<int>(i + 1);
      r.firstKeys.push_back(tok);
      ++r.writes;
      noTarget(i);
      noTarget(i + 1);
      i += 2;
    } else if (tok == p.queryToken()) {  // query [QUERY, key]
      EXPECT_LT(i + 1, T);
      const int key = s.tokens[i + 1];
      EXPECT_GE(key, 0);
      EXPECT_LT(key, p.keys);
      const size_t k = static_cast<size_t>(key);
      EXPECT_GE(latest[k], 0) << "query at " << i << " asks key " << key << " never written";
      EXPECT_EQ(s.targets[i + 1], latest[k]) << "the latest value, as its token id";
      EXPECT_EQ(s.ages[i + 1], static_cast<int>(i + 1) - valueAt[k] - 1);
      EXPECT_GE(s.ages[i + 1], 1);
      noTarget(i);
      ++r.queries;
      i += 2;
    } else {  // a distractor
      EXPECT_GT(tok, p.queryToken()) << "a value token outside a write at " << i;
      noTarget(i);
      ++r.distractors;
      i += 1;
    }
  }
  EXPECT_EQ(r.writes, p.writes);
  EXPECT_EQ(r.queries, p.queries);
  EXPECT_EQ(r.distractors, p.distractors());
  return r;
}

TEST(Mqar, EveryQueryAsksAWrittenKeyForItsLatestValue) {
  const MqarParams p;  // the defaults: 8 keys, 8 values, 16 writes, 8 queries, 4 noise, 64
  EXPECT_EQ(p.vocabulary(), 21);
  EXPECT_EQ(p.distractors(), 16);
  int rewrites = 0, changed = 0, oldestAge = 0;
  for (uint64_t seed = 0; seed < 200; ++seed) {
    SCOPED_TRACE(seed);
    const MqarSample s = mqarSample(p, seed);
    const Replay r = replay(p, s);
    // The first `keys` writes store every key once.
    const std::set<int> first(r.firstKeys.begin(), r.firstKeys.begin() + p.keys);
    EXPECT_EQ(first.size(), static_cast<size_t>(p.keys));
    rewrites += r.rewrites;
    changed += r.changedValues;
    for (const int age : s.ages) oldestAge = std::max(oldestAge, age);
  }
  // 8 of the 16 writes of each sample reassign a key, always to another value.
  EXPECT_EQ(rewrites, 200 * 8);
  EXPECT_EQ(changed, rewrites);
  EXPECT_GT(oldestAge, 16);
}

TEST(Mqar, OtherSizesNoNoiseAndFewerWritesThanKeys) {
  const std::vector<MqarParams> sizes = {
      {4, 3, 10, 6, 0, 32},  // no distractors, no noise tokens
      {16, 5, 6, 9, 2, 64},  // fewer writes than keys: 6 distinct keys
      {2, 1, 5, 3, 1, 20},   // one value: rewrites keep it
      {3, 4, 1, 0, 3, 2}};   // a single write
  for (const MqarParams& p : sizes) {
    SCOPED_TRACE(p.keys * 1000 + p.writes);
    for (uint64_t seed = 0; seed < 50; ++seed) {
      const Replay r = replay(p, mqarSample(p, seed));
      const std::set<int> keys(r.firstKeys.begin(), r.firstKeys.end());
      if (p.writes <= p.keys) {
        EXPECT_EQ(keys.size(), static_cast<size_t>(p.writes));
      }
    }
  }
}

TEST(Mqar, DeterministicPerSeedAndVaries) {
  const MqarParams p;
  const MqarSample a = mqarSample(p, 11), b = mqarSample(p, 11), c = mqarSample(p, 12);
  EXPECT_EQ(a.tokens, b.tokens);
  EXPECT_EQ(a.targets, b.targets);
  EXPECT_EQ(a.ages, b.ages);
  EXPECT_NE(a.tokens, c.tokens);
  // Pinned: the same sample on every platform (the Rng is splitmix64, no std
  // distributions).
  const MqarSample small = mqarSample({2, 2, 3, 2, 1, 12}, 1);
  // write 0→3, two distractors, two queries of 0, write 1→2, write 0→2 (the rewrite)
  EXPECT_EQ(small.tokens, (std::vector<int>{0, 3, 5, 5, 4, 0, 4, 0, 1, 2, 0, 2}));
  EXPECT_EQ(small.targets, (std::vector<int>{-1, -1, -1, -1, -1, 3, -1, 3, -1, -1, -1, -1}));
  EXPECT_EQ(small.ages, (std::vector<int>{-1, -1, -1, -1, -1, 3, -1, 5, -1, -1, -1, -1}));
}

TEST(Mqar, ConfigKeysAndDefaults) {
  EXPECT_EQ(mqarParams(nlohmann::json::object()).length, 64);
  const MqarParams p = mqarParams({{"mqar_keys", 5},
                                   {"mqar_values", 6},
                                   {"mqar_writes", 7},
                                   {"mqar_queries", 2},
                                   {"mqar_noise", 0},
                                   {"mqar_length", 18},
                                   {"d_in", 12}});
  EXPECT_EQ(p.keys, 5);
  EXPECT_EQ(p.values, 6);
  EXPECT_EQ(p.writes, 7);
  EXPECT_EQ(p.queries, 2);
  EXPECT_EQ(p.noise, 0);
  EXPECT_EQ(p.length, 18);
  expectError(
      [] {
        mqarParams({{"mqar_keys", "eight"}});
      },
      "lattice config", "\"mqar_keys\": expected an integer in 0..1000000");
}

TEST(Mqar, BadParametersAndWidthsAreRefused) {
  expectError([] { mqarSample({0, 8, 16, 8, 4, 64}, 0); }, "mqar: ", "mqar_keys must be in 1..");
  expectError([] { mqarSample({8, 8, 0, 8, 4, 64}, 0); }, "mqar: ", "mqar_writes must be in 1..");
  expectError(
      [] {
        mqarSample({8, 8, 16, 8, 4, 40}, 0);
      },
      "mqar: ", "16 writes and 8 queries take 48 tokens, more than mqar_length 40");
  expectError(
      [] {
        mqarSample({8, 8, 16, 8, 0, 64}, 0);
      },
      "mqar: 16 tokens", "mqar_noise is 0 (set mqar_length to 48 or mqar_noise to at least 1)");
  expectError([] { mqarSample({8, 8, 100, 8, 1000, 10000}, 0); }, "mqar: ", "over 10^7 entries");
  const MqarParams p;
  EXPECT_NO_THROW(checkMqarWidths(p, 21, 16));
  expectError([&] { checkMqarWidths(p, 20, 21); }, "mqar: d_in 20", "the vocabulary of 21 tokens");
  expectError([&] { checkMqarWidths(p, 21, 15); }, "mqar: d_out 15", "the 16 key and value");
}

}  // namespace
}  // namespace lsrl::seed_models
