// The exact executor: agreement with float64 where float64 is accurate, exact signs
// where it is not, and algebraic constants that return exactly.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>

#include "core/executor/executor.h"
#include "core/graph/builder.h"
#include "core/numbers/exact_field.h"
#include "core/util/error.h"
#include "executor/run_helpers.h"

namespace lsrl {
namespace {

using testing_run::mat;
using testing_run::vec;

// Linear, ReLU, LinState (diagonal and not), Concat, Multi and Slice together.
Graph mixedProgram() {
  Graph g;
  Var x = Input(g, 2);
  Var s = LinState(x, mat({{Exact::rational(1, 2), Exact::rational(-1, 4)}, {0, 1}}),
                   mat({{1, 0}, {1, 1}}), vec({1, 0}), vec({0, Exact::rational(1, 8)}));
  Var d = LinState(x[0], mat({{Exact::rational(3, 4)}}), mat({{2}}), vec({-1}));
  Var h =
      ReLU(Linear(Concat({s, x, d}), mat({{1, -1, 0, 2, 1}, {0, 1, -3, 0, 0}, {1, 0, 0, 0, -1}}),
                  vec({Exact::rational(1, 3), 0, -1})));
  Var p = Multi(Concat({h.slice(0, 2), s}));
  g.setOutput(Concat({p, h[2], d}).id());
  return g;
}

TEST(RunExact, AgreesWithFloat64OnAMixedProgram) {
  const Graph g = mixedProgram();
  auto plan = Plan::make(g);
  std::mt19937_64 rng(7);
  FloatSequence ftokens;
  for (int t = 0; t < 40; ++t) {
    // Dyadic tokens: exactly representable, so both modes see the same inputs.
    const auto a = static_cast<double>(static_cast<int>(rng() % 33) - 16) / 8.0;
    const auto b = static_cast<double>(static_cast<int>(rng() % 17) - 8) / 4.0;
    ftokens.push_back({a, b});
  }
  FloatExecutor fx(plan);
  ExactExecutor ex(plan);
  const FloatSequence fout = fx.run(ftokens);
  const ExactSequence eout = ex.run(exactTokens(ftokens));
  ASSERT_EQ(fout.size(), eout.size());
  int positive = 0;
  for (size_t t = 0; t < fout.size(); ++t) {
    ASSERT_EQ(fout[t].size(), eout[t].size());
    for (size_t i = 0; i < fout[t].size(); ++i) {
      const double e = eout[t][i].toDouble();
      EXPECT_NEAR(fout[t][i], e, 1e-9 * (1 + std::abs(e))) << "step " << t << " component " << i;
      positive += e > 0;
    }
  }
  EXPECT_GT(positive, 10);  // the ReLUs are not all off
}

// b = sqrt(3)/2 − 866025403/10⁹ ≈ 7.8e-10: ReLU(b) keeps it, ReLU(−b) is 0, exactly.
TEST(RunExact, ReLUIsDecidedByTheExactSign) {
  const Exact half = Exact::parse("sqrt(3)/2");
  const Exact dec = Exact::parse("866025403/1000000000");
  Graph g;
  Var x = Input(g, 1);
  Var a = Linear(x, mat({{1}}), vec({half}));
  Var b = Linear(a, mat({{1}}), vec({-dec}));
  Var pos = ReLU(b);
  Var neg = ReLU(Linear(b, mat({{-1}}), vec({0})));
  g.setOutput(Concat({pos, neg}).id());
  ExactExecutor ex(g);
  const ExactVector out = ex.step({Exact(0)});
  EXPECT_EQ(out[0], Exact::parse("sqrt(3)/2 - 866025403/1000000000"));
  EXPECT_EQ(out[0].sign(), 1);
  EXPECT_TRUE(out[1].isZero());
  EXPECT_EQ(ex.plan().field().conductor() % 12, 0);
}

// sqrt(3)/2 and the decimal 0.8660254037844386 are the same double, but not the same
// number: float64 cancels them to 0, the exact path keeps the positive difference.
TEST(RunExact, ReLUWhereFloat64CancelsToZero) {
  Graph g;
  Var x = Input(g, 1);
  Var a = Linear(x, mat({{1}}), vec({Exact::parse("sqrt(3)/2")}));
  Var b = Linear(a, mat({{1}}), vec({Exact::parse("-0.8660254037844386")}));
  g.setOutput(ReLU(b).id());
  auto plan = Plan::make(g);
  FloatExecutor fx(plan);
  EXPECT_EQ(fx.step({0.0})[0], 0.0);
  ExactExecutor ex(plan);
  const Exact v = ex.step({Exact(0)})[0];
  EXPECT_EQ(v.sign(), 1);
  EXPECT_EQ(v, Exact::parse("sqrt(3)/2 - 0.8660254037844386"));
  EXPECT_LT(v.toDouble(), 1e-16);
}

TEST(RunExact, RotationByTwoPiOverFiveReturnsExactlyAfterFiveSteps) {
  const Exact c = Exact::cosPi(2, 5);
  const Exact s = Exact::sinPi(2, 5);
  Graph g;
  Var x = Input(g, 1);
  Var r = LinState(x, mat({{c, -s}, {s, c}}), ExactMatrix(2, 1), vec({1, 0}));
  g.setOutput(r.id());
  auto plan = Plan::make(g);
  ExactExecutor ex(plan);
  const ExactSequence out = ex.run(ExactSequence(10, vec({0})));
  EXPECT_EQ(out[0], vec({c, s}));
  for (int t = 0; t < 10; ++t) {
    const bool home = t == 4 || t == 9;
    EXPECT_EQ(out[static_cast<size_t>(t)] == vec({1, 0}), home) << "step " << t;
  }
  // float64 comes back only approximately.
  FloatExecutor fx(plan);
  const FloatSequence fout = fx.run(FloatSequence(5, {0.0}));
  EXPECT_NEAR(fout[4][0], 1.0, 1e-14);
  EXPECT_NEAR(fout[4][1], 0.0, 1e-14);
}

TEST(RunExact, TokensAreLiftedIntoTheProgramsField) {
  // A rational program (field Q) fed sqrt(2): only with a larger field.
  Graph g;
  Var x = Input(g, 1);
  g.setOutput(ReLU(Linear(x, mat({{2}}), vec({0}))).id());
  ExactExecutor rational(g);
  EXPECT_EQ(rational.plan().field().conductor(), 4);
  try {
    rational.run({{Exact(1)}, {Exact::sqrt(2)}});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("token 1, feature 0"), std::string::npos) << msg;
    EXPECT_NE(msg.find("extraConductor = 8"), std::string::npos) << msg;
  }
  // A rational value that happens to live in a larger field is fine.
  EXPECT_EQ(rational.step({Exact::sqrt(3) * Exact::sqrt(3)}), vec({6}));

  PlanOptions o;
  o.extraConductor = 8;
  ExactExecutor wide(g, o);
  EXPECT_EQ(wide.step({Exact::sqrt(2)}), vec({Exact::sqrt(8)}));
  EXPECT_EQ(wide.step({-Exact::sqrt(2)}), vec({0}));
}

TEST(RunExact, OutputsLiveInThePlansField) {
  Graph g;
  Var x = Input(g, 1);
  g.setOutput(Linear(x, mat({{Exact::sqrt(3)}}), vec({0})).id());
  ExactExecutor ex(g);
  const Exact y = ex.step({Exact::sqrt(3)})[0];
  EXPECT_EQ(y, Exact(3));
  EXPECT_EQ(y.conductor(), ex.plan().field().conductor());
}

}  // namespace
}  // namespace lsrl
