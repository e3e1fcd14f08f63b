// The paper's programs run end to end (uncompiled DAG): the exact executor gives the
// construction's answers, and float64 agrees with it on the same inputs.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "core/executor/executor.h"
#include "core/numbers/exact_field.h"
#include "core/programs/program_registry.h"
#include "core/programs/prompts.h"

namespace lsrl {
namespace {

std::vector<int> lastTokens(const ExactSequence& out, int L) {
  std::vector<int> v;
  for (size_t t = out.size() - static_cast<size_t>(L); t < out.size(); ++t) {
    v.push_back(static_cast<int>(out[t][0].toRational().get_num().get_si()));
  }
  return v;
}

class Tok2tokRun : public ::testing::TestWithParam<std::string> {};

TEST_P(Tok2tokRun, AnswersTheQueryExactlyAndFloat64Agrees) {
  const int L = 2;
  const Graph g = buildProgram("tok2tok", {{"L", std::to_string(L)}, {"conditional", GetParam()}});
  auto plan = Plan::make(g);
  ExactExecutor ex(plan);
  FloatExecutor fx(plan);
  for (uint64_t seed : {1u, 2u}) {
    const Tok2tokCase c = randomDictionary(4, L, 5, seed);
    const ExactSequence input = tok2tokInput(c.dictionary, c.query, L, 5);
    const ExactSequence out = ex.run(input);
    ASSERT_EQ(out.size(), input.size());
    for (const ExactVector& o : out) ASSERT_TRUE(o[0].isRational());
    EXPECT_EQ(lastTokens(out, L), tok2tokExpected(c.dictionary, c.query, L, 5)) << "seed " << seed;

    FloatSequence ftokens;
    for (const ExactVector& t : input) ftokens.push_back({t[0].toDouble()});
    const FloatSequence fout = fx.run(ftokens);
    for (size_t t = out.size() - L; t < out.size(); ++t) {
      EXPECT_NEAR(fout[t][0], out[t][0].toDouble(), 1e-6) << "step " << t;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Conditionals, Tok2tokRun,
                         ::testing::Values("direct", "optimized", "multiplicative"));

TEST(Vec2vecRun, LastOutputIsTheCellCentreValue) {
  const int n = 2, m = 1, N = 4;
  const Graph g = buildProgram("vec2vec", {{"n", "2"}, {"m", "1"}});
  ExactExecutor ex(g);
  const ExactTargetFunction f = [](const ExactVector& x) {
    return ExactVector{x[0] * Exact(3) - x[1] + Exact::rational(1, 7)};
  };
  const ExactVector query = {Exact::rational(3, 10), Exact::rational(9, 10)};
  const ExactSequence input = vec2vecInput(query, m, vec2vecPromptTokens(n, m, N, f));
  const ExactSequence out = ex.run(input);
  EXPECT_EQ(out.back(), vec2vecExpected(query, N, f));
}

// tok2tok lives in Q(√3) (its modulo counters rotate by 2π/L and 2π/2L): exact signs
// there refine interval enclosures, which must be safe with the plan shared by threads.
TEST(Tok2tokRun, ExactBatchIsThreadIndependent) {
  const int L = 3;
  const Graph g = buildProgram("tok2tok", {{"L", std::to_string(L)}});
  auto plan = Plan::make(g);
  EXPECT_EQ(plan->field().conductor(), 12);
  std::vector<ExactSequence> seqs;
  std::vector<std::vector<int>> answers;
  for (uint64_t seed = 1; seed <= 8; ++seed) {
    const Tok2tokCase c = randomDictionary(3, L, 4, seed);
    seqs.push_back(tok2tokInput(c.dictionary, c.query, L, 4));
    answers.push_back(tok2tokExpected(c.dictionary, c.query, L, 4));
  }
  BatchOptions one;
  one.threads = 1;
  BatchOptions many;
  many.threads = 4;
  const auto a = runBatch(plan, seqs, one);
  const auto b = runBatch(plan, seqs, many);
  EXPECT_EQ(a, b);
  for (size_t i = 0; i < seqs.size(); ++i) EXPECT_EQ(lastTokens(b[i], L), answers[i]) << i;
}

}  // namespace
}  // namespace lsrl
