// The programs' answers on many seeded inputs: tok2tok on 100 random dictionaries
// (K = 1..20 entries) and vec2vec on random smooth functions and queries away from the
// cell walls, in every conditional variant, exactly and in float64.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "core/executor/executor.h"
#include "core/programs/prompts.h"
#include "core/programs/tok2tok.h"
#include "core/programs/vec2vec.h"
#include "programs/program_test_util.h"

namespace lsrl {
namespace {

using namespace testing_programs;

class Tok2tokSeeded : public ::testing::TestWithParam<Conditional> {};

TEST_P(Tok2tokSeeded, HundredDictionaries) {
  const int L = 3;
  const int V = 10;
  Tok2tokParams p;
  p.L = L;
  p.conditional = GetParam();
  auto plan = Plan::make(buildTok2tok(p));
  std::vector<ExactSequence> inputs;
  std::vector<std::vector<int>> answers;
  for (int i = 0; i < 100; ++i) {
    const int K = 1 + i % 20;
    const Tok2tokCase c = randomDictionary(K, L, V, 5000 + static_cast<uint64_t>(i));
    inputs.push_back(tok2tokInput(c.dictionary, c.query, L, V));
    answers.push_back(tok2tokExpected(c.dictionary, c.query, L, V));
  }
  const std::vector<ExactSequence> out = runBatch(plan, inputs);
  std::vector<FloatSequence> finputs;
  for (const ExactSequence& in : inputs) finputs.push_back(toFloat(in));
  const std::vector<FloatSequence> fout = runBatch(plan, finputs);
  ASSERT_EQ(out.size(), inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    const size_t T = inputs[i].size();
    ASSERT_EQ(out[i].size(), T);
    for (int k = 0; k < L; ++k) {
      const size_t t = T - static_cast<size_t>(L) + static_cast<size_t>(k);
      EXPECT_EQ(out[i][t], ExactVector{Exact(answers[i][static_cast<size_t>(k)])})
          << "dictionary " << i << " (K = " << 1 + i % 20 << "), output " << k;
      EXPECT_NEAR(fout[i][t][0], answers[i][static_cast<size_t>(k)], 1e-6)
          << "float64, dictionary " << i << ", output " << k;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(AllVariants, Tok2tokSeeded, ::testing::ValuesIn(allConditionals()),
                         [](const auto& info) { return std::string(conditionalName(info.param)); });

TEST(Tok2tokSeededShapes, OtherLengthsAndVocabularies) {
  struct Shape {
    int L, V, K;
  };
  for (const Shape s : {Shape{1, 7, 5}, Shape{2, 4, 12}, Shape{4, 3, 9}, Shape{5, 20, 6}}) {
    Tok2tokParams p;
    p.L = s.L;
    ExactExecutor ex(buildTok2tok(p));
    for (uint64_t seed = 0; seed < 3; ++seed) {
      const Tok2tokCase c = randomDictionary(s.K, s.L, s.V, seed);
      const ExactSequence out = ex.run(tok2tokInput(c.dictionary, c.query, s.L, s.V));
      const std::vector<int> answer = tok2tokExpected(c.dictionary, c.query, s.L);
      for (int k = 0; k < s.L; ++k) {
        EXPECT_EQ(out[out.size() - static_cast<size_t>(s.L - k)],
                  ExactVector{Exact(answer[static_cast<size_t>(k)])})
            << "L = " << s.L << ", seed " << seed;
      }
    }
  }
}

class Vec2vecSeeded : public ::testing::TestWithParam<Conditional> {};

TEST_P(Vec2vecSeeded, QueriesAwayFromTheWalls) {
  struct Shape {
    int n, m, N;
  };
  for (const Shape s : {Shape{1, 1, 16}, Shape{2, 1, 6}, Shape{2, 2, 5}, Shape{3, 1, 3}}) {
    Vec2vecParams p;
    p.n = s.n;
    p.m = s.m;
    p.conditional = GetParam();
    auto plan = Plan::make(buildVec2vec(p));
    for (uint64_t seed = 0; seed < 3; ++seed) {
      const TargetFunction f = smoothTestFunction(s.n, s.m, seed);
      const ExactSequence prompt = vec2vecPromptTokens(s.n, s.m, s.N, f);
      std::mt19937_64 rng(seed + 77);
      std::vector<ExactSequence> inputs;
      std::vector<std::vector<double>> queries;
      for (int q = 0; q < 8; ++q) {
        queries.push_back(randomValidQuery(s.n, s.N, Exact(1000), rng));
        ExactVector x;
        for (double v : queries.back()) x.emplace_back(v);
        inputs.push_back(vec2vecInput(x, s.m, prompt));
      }
      const std::vector<ExactSequence> out = runBatch(plan, inputs);
      std::vector<FloatSequence> finputs;
      for (const ExactSequence& in : inputs) finputs.push_back(toFloat(in));
      const std::vector<FloatSequence> fout = runBatch(plan, finputs);
      for (size_t q = 0; q < inputs.size(); ++q) {
        const std::vector<double> want = vec2vecExpected(queries[q], s.N, f);
        ASSERT_EQ(want.size(), static_cast<size_t>(s.m));
        for (int k = 0; k < s.m; ++k) {
          // Exactly f at the cell centre (the prompt holds f's doubles exactly).
          EXPECT_EQ(out[q].back()[static_cast<size_t>(k)], Exact(want[static_cast<size_t>(k)]))
              << "n=" << s.n << " seed " << seed << " query " << q;
          EXPECT_NEAR(fout[q].back()[static_cast<size_t>(k)], want[static_cast<size_t>(k)], 1e-9)
              << "float64, n=" << s.n << " seed " << seed << " query " << q;
        }
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(AllVariants, Vec2vecSeeded, ::testing::ValuesIn(allConditionals()),
                         [](const auto& info) { return std::string(conditionalName(info.param)); });

}  // namespace
}  // namespace lsrl
