// The precision pass (core/precision/fit_constants.h): the fitted program computes exactly
// what the program as built computes on the declared domain, with constants that are
// powers of two no larger than before, and it leaves alone what it cannot prove.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <random>

#include "core/executor/executor.h"
#include "core/graph/sugar.h"
#include "core/numbers/exact_field.h"
#include "core/precision/fit_constants.h"
#include "core/programs/conditional.h"
#include "core/programs/program_registry.h"
#include "core/programs/prompts.h"

namespace lsrl {
namespace {

ExactSequence run(const Graph& g, const ExactSequence& tokens) {
  ExactExecutor ex(g);
  return ex.run(tokens);
}

bool isPowerOfTwo(const Exact& v) {
  if (!v.isRational() || v.sign() <= 0) return false;
  const mpq_class q = v.toRational();
  auto pow2 = [](const mpz_class& z) { return z > 0 && mpz_popcount(z.get_mpz_t()) == 1; };
  return pow2(q.get_num()) && pow2(q.get_den());
}

class FitTok2tok : public ::testing::TestWithParam<Conditional> {};

TEST_P(FitTok2tok, GivesTheSameOutputsAtEveryStepWithSmallPowersOfTwo) {
  const std::string variant(conditionalName(GetParam()));
  const Graph built = buildProgram("tok2tok", {{"L", "3"}, {"conditional", variant}});
  const InputDomain domain{Exact(0), Exact(9), mpq_class(1), 160};
  const ConstantFit fit = fitConstants(built, domain, Precision::Fp32);
  EXPECT_TRUE(fit.assumptions.empty());
  EXPECT_TRUE(fit.kept.empty());
  ASSERT_FALSE(fit.changes.empty());
  for (const ConstantChange& c : fit.changes) {
    EXPECT_TRUE(isPowerOfTwo(c.to)) << c.label << " " << c.param << " = " << c.to.toString();
    EXPECT_LT(c.to, c.from) << c.label;
    ASSERT_TRUE(c.least);
    EXPECT_GE(c.to, *c.least) << c.label;
    EXPECT_LE(c.to, Exact(4096)) << c.label;
  }
  EXPECT_EQ(fit.graph.nodeCount(), built.nodeCount());
  for (uint64_t seed = 0; seed < 6; ++seed) {
    // Up to 26 entries: T = 3·(2K + 1) ≤ 159.
    const Tok2tokCase c = randomDictionary(static_cast<int>(1 + seed * 5), 3, 10, seed);
    const ExactSequence tokens = tok2tokInput(c.dictionary, c.query, 3, 10);
    EXPECT_EQ(run(fit.graph, tokens), run(built, tokens)) << variant << " seed " << seed;
  }
}

INSTANTIATE_TEST_SUITE_P(Variants, FitTok2tok, ::testing::ValuesIn(allConditionals()),
                         [](const auto& info) { return std::string(conditionalName(info.param)); });

TEST(FitConstants, Vec2vecStepsOnContinuousQueriesOnlyGetSteeper) {
  const Graph built = buildProgram("vec2vec", {{"conditional", "direct"}});
  const ConstantFit fit =
      fitConstants(built, {Exact(-3), Exact(3), std::nullopt, 100}, Precision::Float64);
  EXPECT_FALSE(fit.assumptions.empty());  // the bumps on the stored query
  bool lambdaFitted = false;
  for (const ConstantChange& c : fit.changes) {
    if (c.param == "scale" && !c.least) {
      EXPECT_EQ(c.to, Exact(1024)) << c.label;
    }
    if (c.param == "large_constant") {
      lambdaFitted = true;
      EXPECT_EQ(c.to, Exact(8)) << c.label;  // values in [-3, 3]: twice 3, rounded up
    }
  }
  EXPECT_TRUE(lambdaFitted);
  // Where every step of the program as built saturates (queries 1/1000 from the walls),
  // the outputs are the same.
  std::mt19937_64 rng(5);
  for (uint64_t seed = 0; seed < 4; ++seed) {
    const std::vector<double> x = randomValidQuery(2, 8, Exact(1000), rng);
    const ExactSequence tokens = vec2vecInput(x, 2, 1, 8, smoothTestFunction(2, 1, seed));
    EXPECT_EQ(run(fit.graph, tokens), run(built, tokens)) << "seed " << seed;
  }
}

TEST(FitConstants, LeavesAloneWhatItCannotProve) {
  Graph g;
  const Var x = Input(g, 1);
  // μ = 1 is below the 2 that a step between tokens needs: the program is not exact as
  // built, and the pass does not make it so behind the user's back.
  const Var rough = f_larger(x, Exact::rational(5, 2), Exact(1));
  // An f_step whose matrix was edited after it was built.
  const Var edited = f_larger(x, Exact::rational(7, 2));
  const Var both = Concat({rough, edited});
  g.setOutput(both.id());
  const Group& editedGroup = g.groups().back();  // the f_step inside f_larger
  g.mutableNode(editedGroup.nodes.front()).A = ExactMatrix::identity(1, Exact(999));
  const ConstantFit fit = fitConstants(g, {Exact(0), Exact(9), mpq_class(1), 10}, Precision::Fp32);
  EXPECT_TRUE(fit.changes.empty());
  ASSERT_EQ(fit.kept.size(), 2u);
  EXPECT_NE(fit.kept[0].find("is below the 2 its contract needs"), std::string::npos)
      << fit.kept[0];
  EXPECT_NE(fit.kept[1].find("holds other values than f_larger builds"), std::string::npos)
      << fit.kept[1];
  // Exact weights keep every constant.
  const Graph t = buildProgram("tok2tok", {{"L", "3"}});
  EXPECT_TRUE(
      fitConstants(t, {Exact(0), Exact(9), mpq_class(1), 20}, Precision::Exact).changes.empty());
}

TEST(FitConstants, RecordsTheDomainAndEveryChange) {
  const Graph t = buildProgram("tok2tok", {{"L", "3"}, {"conditional", "optimized"}});
  const InputDomain domain{Exact(0), Exact(9), mpq_class(1), 160};
  const ConstantFit fit = fitConstants(t, domain, Precision::Fp32);
  const nlohmann::json j = constantFitJson(fit, domain, Precision::Fp32);
  EXPECT_EQ(j["precision"], "fp32");
  EXPECT_EQ(j["domain"]["horizon"], 160);
  EXPECT_EQ(j["domain"]["grid"], "1");
  EXPECT_EQ(j["exact_on"], "inputs in [0, 9] (whole numbers), t ≤ 160");
  ASSERT_EQ(j["changes"].size(), fit.changes.size());
  bool gate = false;
  for (const auto& c : j["changes"]) {
    gate = gate || c["group"].get<std::string>().starts_with("gate ReLU(-lambda·test + value)");
  }
  EXPECT_TRUE(gate) << "the optimized form's gates, written with primitives, are fitted too";
}

}  // namespace
}  // namespace lsrl
