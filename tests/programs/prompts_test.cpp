// Prompt builders, query checks, expected answers and seeded test data.
#include "core/programs/prompts.h"

#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <set>

#include "common/error_of.h"
#include "core/util/error.h"
#include "programs/program_test_util.h"

namespace lsrl {
namespace {

using testing_common::errorOf;
using testing_programs::referenceCases;

TEST(Random, RawOutputIsPortable) {
  // std::mt19937_64 is fully specified: the 10000th output of the default seed is
  // 9981545732273789042 (C++ standard, [rand.predef]).
  std::mt19937_64 rng;
  for (int i = 0; i < 9999; ++i) rng();
  EXPECT_EQ(rng(), 9981545732273789042ULL);
  std::mt19937_64 a(7);
  std::mt19937_64 b(7);
  for (int i = 0; i < 100; ++i) {
    const double u = uniform01(a);
    EXPECT_GE(u, 0.0);
    EXPECT_LT(u, 1.0);
    EXPECT_EQ(u, static_cast<double>(b() >> 11) / 9007199254740992.0);
  }
}

TEST(Random, UniformIntCoversTheRangeOnly) {
  std::mt19937_64 rng(1);
  std::set<int> seen;
  for (int i = 0; i < 2000; ++i) {
    const int v = uniformInt(rng, -2, 3);
    EXPECT_GE(v, -2);
    EXPECT_LE(v, 3);
    seen.insert(v);
  }
  EXPECT_EQ(seen.size(), 6u);
  EXPECT_EQ(uniformInt(rng, 5, 5), 5);
  EXPECT_THROW(uniformInt(rng, 3, 2), Error);
}

TEST(Vec2vecPrompt, CellsInLexicographicOrder) {
  const ExactTargetFunction f = [](const ExactVector& c) {
    return ExactVector{c[0] + Exact(10) * c[1], c[0] * c[1]};
  };
  const ExactSequence prompt = vec2vecPromptTokens(2, 2, 3, f);
  ASSERT_EQ(prompt.size(), 9u);
  for (size_t cell = 0; cell < prompt.size(); ++cell) {
    const int i = static_cast<int>(cell) / 3;  // first index varies slowest
    const int j = static_cast<int>(cell) % 3;
    const ExactVector& t = prompt[cell];
    ASSERT_EQ(t.size(), 5u);
    EXPECT_EQ(t[0], Exact::rational(1, 3));
    EXPECT_EQ(t[1], Exact::rational(i, 3));
    EXPECT_EQ(t[2], Exact::rational(j, 3));
    const Exact cx = Exact::rational(2 * i + 1, 6);
    const Exact cy = Exact::rational(2 * j + 1, 6);
    EXPECT_EQ(t[3], cx + Exact(10) * cy);
    EXPECT_EQ(t[4], cx * cy);
  }
  EXPECT_EQ(vec2vecCellIndex(5, 2, 3), (std::vector<int>{1, 2}));
  EXPECT_EQ(vec2vecCellCount(3, 4), 64);
  EXPECT_THROW(vec2vecCellCount(30, 10), Error);
}

TEST(Vec2vecPrompt, QueryTokenAndInput) {
  const ExactVector x = {Exact::rational(1, 10), Exact::rational(3, 10)};
  EXPECT_EQ(vec2vecQueryToken(x, 1),
            (ExactVector{Exact::rational(1, 10), Exact::rational(3, 10), Exact(0), Exact(0)}));
  const ExactTargetFunction f = [](const ExactVector& c) { return ExactVector{c[0]}; };
  const ExactSequence input = vec2vecInput(x, 2, 1, 2, f);
  ASSERT_EQ(input.size(), 5u);
  EXPECT_EQ(input[0], vec2vecQueryToken(x, 1));
  EXPECT_EQ(input[4], (ExactVector{Exact::rational(1, 2), Exact::rational(1, 2),
                                   Exact::rational(1, 2), Exact::rational(3, 4)}));
  EXPECT_THROW(vec2vecInput(ExactVector{Exact(1)}, 2, 1, 2, f), Error);  // wrong n
  // f returning the wrong number of values
  EXPECT_THROW(vec2vecPromptTokens(2, 2, 2, f), Error);
  EXPECT_THROW(vec2vecPromptFromGrid(2, 1, 2, {{Exact(1)}}), Error);
}

TEST(Vec2vecPrompt, DoubleValuesAreConvertedExactly) {
  const TargetFunction f = [](const std::vector<double>& c) {
    return std::vector<double>{0.1 + c[0]};
  };
  const ExactSequence prompt = vec2vecPromptTokens(1, 1, 2, f);
  ASSERT_EQ(prompt.size(), 2u);
  EXPECT_EQ(prompt[0][2], Exact(0.1 + 0.25));
  EXPECT_EQ(prompt[1][0], Exact::rational(1, 2));  // 1/N stays exact
  EXPECT_EQ(prompt[1][1], Exact::rational(1, 2));
}

TEST(Vec2vecPrompt, MatchesTheReferenceTokens) {
  const nlohmann::json doc = referenceCases();
  const TargetFunction f = [](const std::vector<double>& c) {
    return std::vector<double>{std::sin(3 * c[0]) + c[1] * c[1]};
  };
  int checked = 0;
  for (const auto& c : doc["cases"]) {
    if (c["program"] != "vec2vec") continue;
    const int n = c["n"];
    const int m = c["m"];
    const int N = c["N"];
    const std::vector<double> query = c["query"].get<std::vector<double>>();
    const ExactSequence input = vec2vecInput(query, n, m, N, f);
    const auto& tokens = c["tokens"];
    ASSERT_EQ(input.size(), tokens.size());
    for (size_t t = 0; t < input.size(); ++t) {
      ASSERT_EQ(input[t].size(), tokens[t].size());
      for (size_t k = 0; k < input[t].size(); ++k) {
        EXPECT_NEAR(input[t][k].toDouble(), tokens[t][k].get<double>(), 1e-12)
            << "token " << t << " feature " << k;
      }
    }
    // The reference's last output is f at the centre of the query's cell.
    const double last = c["outputs"].back()[0];
    EXPECT_NEAR(vec2vecExpected(query, N, f)[0], last, 1e-9);
    ++checked;
  }
  EXPECT_EQ(checked, 6);
}

TEST(Vec2vecPrompt, QueryCellIsHalfOpen) {
  // Cells are (ℓ, ℓ + 1/N]: a query on a wall belongs to the cell below it.
  EXPECT_EQ(vec2vecQueryCell({Exact::rational(1, 4)}, 4), std::vector<int>{0});
  EXPECT_EQ(vec2vecQueryCell({Exact::rational(1, 4) + Exact::rational(1, 1000000)}, 4),
            std::vector<int>{1});
  EXPECT_EQ(vec2vecQueryCell({Exact(1)}, 4), std::vector<int>{3});
  EXPECT_EQ(vec2vecQueryCell({Exact::rational(1, 1000)}, 4), std::vector<int>{0});
  EXPECT_EQ(vec2vecQueryCell({Exact::sqrt(2) / Exact(2), Exact::rational(3, 5)}, 5),
            (std::vector<int>{3, 2}));
  EXPECT_THROW(vec2vecQueryCell({Exact(0)}, 4), Error);
  EXPECT_THROW(vec2vecQueryCell({Exact::rational(11, 10)}, 4), Error);
  const ExactTargetFunction f = [](const ExactVector& c) { return ExactVector{c[0] + c[1]}; };
  EXPECT_EQ(vec2vecExpected({Exact::rational(1, 10), Exact::rational(9, 10)}, 2, f),
            ExactVector{Exact(1)});  // centres 1/4 and 3/4
}

TEST(Vec2vecPrompt, QueryValidity) {
  const Exact mu(1000);
  const int N = 4;
  auto valid = [&](std::vector<double> x) { return queryIsValid(x, N, mu); };
  EXPECT_TRUE(valid({0.1, 0.3}));
  EXPECT_TRUE(valid({0.6, 0.9}));
  EXPECT_TRUE(valid({1.0}));      // the domain's end is no interior wall
  EXPECT_FALSE(valid({0.0005}));  // not above 1/μ
  EXPECT_FALSE(queryIsValid(ExactVector{Exact::rational(1, 1000)}, N, mu));  // open at 1/μ
  EXPECT_TRUE(valid({0.0011}));
  EXPECT_FALSE(valid({0.25}));    // on a wall
  EXPECT_FALSE(valid({0.2505}));  // within 1/μ above it
  EXPECT_FALSE(valid({0.2495}));  // within 1/μ below it
  EXPECT_TRUE(queryIsValid(ExactVector{Exact::rational(251, 1000)}, N, mu));  // exactly 1/μ away
  EXPECT_TRUE(queryIsValid(ExactVector{Exact::rational(249, 1000)}, N, mu));
  EXPECT_FALSE(valid({0.3, 1.2}));
  EXPECT_FALSE(valid({0.3, -0.2}));
  EXPECT_FALSE(valid({0.3, std::nan("")}));
  EXPECT_FALSE(valid({}));
  std::mt19937_64 rng(3);
  for (int i = 0; i < 200; ++i) EXPECT_TRUE(valid(randomValidQuery(2, N, mu, rng)));
  EXPECT_THROW(randomValidQuery(1, 2000, mu, rng), Error);  // cells narrower than 1/μ
}

TEST(Vec2vecPrompt, SmoothTestFunctionsAreSeeded) {
  const TargetFunction a = smoothTestFunction(2, 3, 42);
  const TargetFunction b = smoothTestFunction(2, 3, 42);
  const TargetFunction c = smoothTestFunction(2, 3, 43);
  const std::vector<double> x = {0.2, 0.7};
  EXPECT_EQ(a(x), b(x));
  EXPECT_NE(a(x), c(x));
  ASSERT_EQ(a(x).size(), 3u);
  for (double v : a(x)) {
    EXPECT_GE(v, -3.0);
    EXPECT_LE(v, 3.0);
  }
  // Smooth: nearby points give nearby values (the weights are 1-Lipschitz in x).
  const std::vector<double> y = {0.2 + 1e-6, 0.7};
  for (size_t k = 0; k < 3; ++k) EXPECT_NEAR(a(x)[k], a(y)[k], 1e-4);
  EXPECT_THROW(a({0.1}), Error);
  EXPECT_THROW(smoothTestFunction(2, 1, 1, 0), Error);
}

TEST(Tok2tokPrompt, InputLayoutAndAnswer) {
  const Dictionary dict = {{{3, 1, 9}, {9, 9, 9}}, {{4, 2, 6}, {9, 2, 5}}};
  const std::vector<int> q = {4, 2, 6};
  const ExactSequence input = tok2tokInput(dict, q, 3, 10);
  const std::vector<int> expected = {4, 2, 6, 3, 1, 9, 9, 9, 9, 4, 2, 6, 9, 2, 5};
  ASSERT_EQ(input.size(), expected.size());
  for (size_t i = 0; i < input.size(); ++i) EXPECT_EQ(input[i], ExactVector{Exact(expected[i])});
  EXPECT_EQ(tok2tokExpected(dict, q, 3), (std::vector<int>{9, 2, 5}));
}

TEST(Tok2tokPrompt, MatchesTheReferenceTokens) {
  const nlohmann::json doc = referenceCases();
  int checked = 0;
  for (const auto& c : doc["cases"]) {
    if (c["program"] != "tok2tok") continue;
    const int L = c["L"];
    Dictionary dict;
    for (const auto& e : c["dictionary"]) {
      dict.push_back({e[0].get<std::vector<int>>(), e[1].get<std::vector<int>>()});
    }
    const std::vector<int> q = c["query"].get<std::vector<int>>();
    const ExactSequence input = tok2tokInput(dict, q, L);
    ASSERT_EQ(input.size(), c["tokens"].size());
    for (size_t i = 0; i < input.size(); ++i) {
      EXPECT_EQ(input[i][0].toDouble(), c["tokens"][i][0].get<double>());
    }
    const std::vector<int> answer = tok2tokExpected(dict, q, L);
    const auto& outputs = c["outputs"];
    for (int i = 0; i < L; ++i) {
      EXPECT_EQ(outputs[outputs.size() - static_cast<size_t>(L) + static_cast<size_t>(i)][0]
                    .get<double>(),
                answer[static_cast<size_t>(i)]);
    }
    ++checked;
  }
  EXPECT_EQ(checked, 2);
}

TEST(Tok2tokPrompt, ValidationErrors) {
  const std::vector<int> q = {1, 2};
  std::string msg = errorOf([&] {
    validateDictionary({{{1, 2}, {3, 4}}, {{1, 2}, {5, 6}}}, q, 2);
  });
  EXPECT_NE(msg.find("unique"), std::string::npos) << msg;
  EXPECT_NE(msg.find("entry 1"), std::string::npos) << msg;
  msg = errorOf([&] { validateDictionary({{{1, 2}, {3}}}, q, 2); });
  EXPECT_NE(msg.find("value of entry 0"), std::string::npos) << msg;
  EXPECT_NE(msg.find("expected L = 2"), std::string::npos) << msg;
  msg = errorOf([&] { validateDictionary({{{1, 3}, {3, 4}}}, q, 2); });
  EXPECT_NE(msg.find("not among"), std::string::npos) << msg;
  msg = errorOf([&] { validateDictionary({{{1, 2}, {3, 14}}}, q, 2, 10); });
  EXPECT_NE(msg.find("0..9"), std::string::npos) << msg;
  EXPECT_THROW(validateDictionary({{{1, 2}, {3, -1}}}, q, 2), Error);
  EXPECT_THROW(validateDictionary({}, q, 2), Error);
  EXPECT_THROW(validateDictionary({{{1, 2}, {3, 4}}}, {1, 2, 3}, 2), Error);
  EXPECT_NO_THROW(validateDictionary({{{1, 2}, {3, 4}}}, q, 2, 5));
  EXPECT_THROW(tok2tokInput({{{1, 2}, {3, 4}}}, {2, 1}, 2), Error);
}

TEST(Tok2tokPrompt, RandomDictionaries) {
  for (int K = 1; K <= 20; ++K) {
    const Tok2tokCase c = randomDictionary(K, 3, 10, 1000 + static_cast<uint64_t>(K));
    ASSERT_EQ(c.dictionary.size(), static_cast<size_t>(K));
    EXPECT_NO_THROW(validateDictionary(c.dictionary, c.query, 3, 10));
    const Tok2tokCase again = randomDictionary(K, 3, 10, 1000 + static_cast<uint64_t>(K));
    EXPECT_EQ(c.dictionary, again.dictionary);
    EXPECT_EQ(c.query, again.query);
  }
  EXPECT_NE(randomDictionary(5, 3, 10, 1).dictionary, randomDictionary(5, 3, 10, 2).dictionary);
  // Every possible key once.
  const Tok2tokCase full = randomDictionary(8, 3, 2, 5);
  EXPECT_NO_THROW(validateDictionary(full.dictionary, full.query, 3, 2));
  EXPECT_THROW(randomDictionary(9, 3, 2, 5), Error);
  EXPECT_THROW(randomDictionary(0, 3, 2, 5), Error);
}

}  // namespace
}  // namespace lsrl
