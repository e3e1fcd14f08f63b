// The executor's semantics of each primitive (docs/spec/language.md §1) on small hand-built graphs,
// in float64 and exactly, plus ForEach reset semantics and input errors.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "core/executor/executor.h"
#include "core/graph/builder.h"
#include "core/util/error.h"
#include "executor/run_helpers.h"

namespace lsrl {
namespace {

using testing_run::mat;
using testing_run::scalarTokens;
using testing_run::vec;

// Runs `g` on one token in both modes and checks both against `expected`.
void expectBoth(const Graph& g, const ExactVector& token, const ExactVector& expected) {
  auto plan = Plan::make(g);
  FloatExecutor fx(plan);
  std::vector<double> ftoken;
  for (const Exact& x : token) ftoken.push_back(x.toDouble());
  const std::vector<double> fout = fx.step(ftoken);
  ASSERT_EQ(fout.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_DOUBLE_EQ(fout[i], expected[i].toDouble()) << "float component " << i;
  }
  ExactExecutor ex(plan);
  EXPECT_EQ(ex.step(token), expected);
}

TEST(RunPrimitives, LinearGeneralSparseRows) {
  Graph g;
  Var x = Input(g, 2);
  Var y = Linear(x, mat({{1, 2}, {0, -1}, {3, 0}}), vec({1, 0, -2}));
  g.setOutput(y.id());
  expectBoth(g, vec({2, 3}), vec({9, -3, 4}));
  EXPECT_EQ(Plan(g).stats().csrInstructions, 1);
}

TEST(RunPrimitives, LinearOneEntryPerRowIsAGather) {
  Graph g;
  Var x = Input(g, 2);
  Var y = Linear(x, mat({{0, 5}, {-1, 0}, {0, 0}}), vec({0, 1, 2}));
  g.setOutput(y.id());
  expectBoth(g, vec({2, 3}), vec({15, -1, 2}));
  EXPECT_EQ(Plan(g).stats().gatherInstructions, 1);
}

TEST(RunPrimitives, LinearScaledIdentityIsAffine) {
  Graph g;
  Var x = Input(g, 2);
  Var y = Linear(x, ExactMatrix::identity(2, Exact::rational(3, 2)), vec({1, -1}));
  g.setOutput(y.id());
  expectBoth(g, vec({2, 3}), vec({4, Exact::rational(7, 2)}));
  EXPECT_EQ(Plan(g).stats().affineInstructions, 1);
}

TEST(RunPrimitives, SelectionLinearIsAViewWithoutWork) {
  Graph g;
  Var x = Input(g, 2);
  Var y = Linear(x, mat({{0, 1}, {1, 0}, {0, 1}}), vec({0, 0, 0}));
  g.setOutput(y.id());
  expectBoth(g, vec({2, 3}), vec({3, 2, 3}));
  const Plan plan(g);
  EXPECT_EQ(plan.stats().instructions, 0);
  EXPECT_EQ(plan.stats().views, 1);
}

TEST(RunPrimitives, ReLUContiguousAndGathered) {
  Graph g;
  Var x = Input(g, 3);
  Var r = ReLU(x);
  g.setOutput(r.id());
  expectBoth(g, vec({Exact::rational(-3, 2), 0, 2}), vec({0, 0, 2}));

  Graph h;
  Var a = Input(h, 3);
  Var c = Concat({a.slice(2, 3), a.slice(0, 1)});
  Var rr = ReLU(c);
  h.setOutput(rr.id());
  expectBoth(h, vec({-1, 5, 2}), vec({2, 0}));
  expectBoth(h, vec({4, 5, -2}), vec({0, 4}));
}

TEST(RunPrimitives, ReLUOfMinusZeroAndTinyValues) {
  Graph g;
  Var x = Input(g, 3);
  g.setOutput(ReLU(x).id());
  FloatExecutor ex(g);
  const auto out = ex.step({-0.0, 1e-300, -1e-300});
  EXPECT_EQ(out[0], 0.0);
  EXPECT_FALSE(std::signbit(out[0]));
  EXPECT_EQ(out[1], 1e-300);
  EXPECT_EQ(out[2], 0.0);
}

TEST(RunPrimitives, LinStateValueIsTheStateAfterTheUpdate) {
  // s_t = s_{t-1}/2 + x_t + 1, s_0 = 2.
  Graph g;
  Var x = Input(g, 1);
  Var s = LinState(x, mat({{Exact::rational(1, 2)}}), mat({{1}}), vec({2}), vec({1}));
  g.setOutput(s.id());
  FloatExecutor fx(g);
  const FloatSequence out = fx.run(scalarTokens({1, 1, 0}));
  ASSERT_EQ(out.size(), 3u);
  EXPECT_DOUBLE_EQ(out[0][0], 3.0);  // 2/2 + 1 + 1: already updated at step 0
  EXPECT_DOUBLE_EQ(out[1][0], 3.5);
  EXPECT_DOUBLE_EQ(out[2][0], 2.75);

  ExactExecutor ex(g);
  const ExactSequence eout = ex.run({{1}, {1}, {0}});
  EXPECT_EQ(eout[0][0], Exact(3));
  EXPECT_EQ(eout[1][0], Exact::rational(7, 2));
  EXPECT_EQ(eout[2][0], Exact::rational(11, 4));
}

TEST(RunPrimitives, LinStateWithNonDiagonalStateMatrix) {
  // A swaps the two components, so the update must read the OLD state throughout.
  Graph g;
  Var x = Input(g, 1);
  Var s = LinState(x, mat({{0, 1}, {1, 0}}), mat({{1}, {0}}), vec({1, 2}), vec({0, 1}));
  g.setOutput(s.id());
  const FloatSequence expected = {{7, 2}, {2, 8}, {9, 3}};
  FloatExecutor fx(g);
  EXPECT_EQ(fx.run(scalarTokens({5, 0, 1})), expected);
  ExactExecutor ex(g);
  const ExactSequence eout = ex.run({{5}, {0}, {1}});
  ASSERT_EQ(eout.size(), 3u);
  for (size_t t = 0; t < 3; ++t) EXPECT_EQ(testing_run::toDoubles(eout[t]), expected[t]);
}

TEST(RunPrimitives, LinStateWithDiagonalStateMatrixUpdatesInPlace) {
  Graph g;
  Var x = Input(g, 1);
  Var s = LinState(x, mat({{2, 0}, {0, -1}}), mat({{1}, {1}}), vec({1, 1}));
  g.setOutput(s.id());
  FloatExecutor fx(g);
  EXPECT_EQ(fx.run(scalarTokens({1, 1, 0})), (FloatSequence{{3, 0}, {7, 1}, {14, -1}}));
  ExactExecutor ex(g);
  EXPECT_EQ(ex.run({{1}, {1}, {0}}), (ExactSequence{{3, 0}, {7, 1}, {14, -1}}));
}

TEST(RunPrimitives, LinStateWithoutInputDependenceStillCounts) {
  // B = 0: the state moves with time only (a token counter).
  Graph g;
  Var x = Input(g, 1);
  Var s = LinState(x, mat({{1}}), ExactMatrix(1, 1), vec({-1}), vec({1}));
  g.setOutput(s.id());
  FloatExecutor fx(g);
  EXPECT_EQ(fx.run(scalarTokens({9, 9, 9})), (FloatSequence{{0}, {1}, {2}}));
}

TEST(RunPrimitives, ConcatWithRepeatedInputs) {
  Graph g;
  Var x = Input(g, 2);
  Var y = Linear(x, mat({{1, 1}}), vec({0}));
  Var c = Concat({x, y, x});
  g.setOutput(c.id());
  expectBoth(g, vec({2, 3}), vec({2, 3, 5, 2, 3}));

  // A Linear reading the repeated positions.
  Var z = Linear(c, mat({{1, 0, 1, 1, -1}}), vec({0}));
  g.setOutput(z.id());
  expectBoth(g, vec({2, 3}), vec({6}));  // 2 + 5 + 2 - 3
}

TEST(RunPrimitives, MultiContiguousAndGathered) {
  Graph g;
  Var x = Input(g, 4);
  g.setOutput(Multi(x).id());
  expectBoth(g, vec({1, 2, 3, 4}), vec({3, 8}));

  Graph h;
  Var a = Input(h, 4);
  Var c = Concat({a.slice(1, 2), a.slice(0, 1), a.slice(3, 4), a.slice(2, 3)});
  h.setOutput(Multi(c).id());
  expectBoth(h, vec({1, 2, 3, Exact::rational(-1, 2)}), vec({-1, 3}));
}

TEST(RunPrimitives, SlicesAreViews) {
  Graph g;
  Var x = Input(g, 4);
  Var s = LinState(x, ExactMatrix::identity(4), ExactMatrix::identity(4), vec({0, 0, 0, 0}));
  Var a = s.slice(1, 4).slice(1, 2);  // s[2]
  Var b = x[0];
  g.setOutput(Concat({a, b, s.slice(1, 3)}).id());
  FloatExecutor fx(g);
  EXPECT_EQ(fx.step({1, 2, 3, 4}), (std::vector<double>{3, 1, 2, 3}));
  EXPECT_EQ(fx.step({1, 2, 3, 4}), (std::vector<double>{6, 1, 4, 6}));
  // Only the LinState does work per token.
  EXPECT_EQ(fx.plan().stats().instructions, 1);
}

TEST(RunPrimitives, IdentityProgramReturnsTheToken) {
  Graph g;
  Var x = Input(g, 3);
  g.setOutput(x.id());
  FloatExecutor fx(g);
  EXPECT_EQ(fx.step({1, -2, 3.5}), (std::vector<double>{1, -2, 3.5}));
}

TEST(RunPrimitives, TokenIndependentNodesAreFoldedOnce) {
  Graph g;
  Var x = Input(g, 1);
  Var c = Linear(x, ExactMatrix(2, 1), vec({1, -2}));  // f_constant-like: ignores x
  Var r = ReLU(c);
  Var p = Multi(Concat({r, c}));  // [1·1, 0·(−2)]
  g.setOutput(Concat({x, r, p}).id());
  auto plan = Plan::make(g);
  EXPECT_EQ(plan->stats().folded, 3);
  EXPECT_EQ(plan->stats().instructions, 0);
  FloatExecutor fx(plan);
  EXPECT_EQ(fx.step({5}), (std::vector<double>{5, 1, 0, 1, 0}));
  ExactExecutor ex(plan);
  EXPECT_EQ(ex.step({Exact(5)}), vec({5, 1, 0, 1, 0}));
  // The folded values are also what value() reports after a reset.
  ex.reset();
  EXPECT_EQ(ex.value(r.id()), vec({1, 0}));
}

TEST(RunPrimitives, NodesThatDoNotReachTheOutputAreNotRun) {
  Graph g;
  Var x = Input(g, 1);
  Var dead = ReLU(x);
  Var live = Linear(x, mat({{2}}), vec({0}));
  g.setOutput(live.id());
  const Plan plan(g);
  EXPECT_FALSE(plan.isProgramNode(dead.id()));
  EXPECT_TRUE(plan.isProgramNode(live.id()));
  EXPECT_EQ(plan.order(), g.topologicalOrder());
  EXPECT_THROW(plan.width(dead.id()), Error);
}

TEST(RunPrimitives, OutputIndependentOfTheInputStillChecksTokens) {
  Graph g;
  Var x = Input(g, 2);
  Var c = Linear(x, ExactMatrix(1, 2), vec({7}));
  g.setOutput(c.id());
  FloatExecutor fx(g);
  EXPECT_EQ(fx.step({1, 2}), (std::vector<double>{7}));
  EXPECT_THROW(fx.step({1}), Error);
}

// ---------------------------------------------------------------- ForEach semantics

Graph accumulatorGraph() {
  Graph g;
  Var x = Input(g, 1);
  Var s = LinState(x, mat({{1}}), mat({{1}}), vec({10}));
  Var r = ReLU(Linear(s, mat({{-1}}), vec({12})));
  g.setOutput(Concat({s, r}).id());
  return g;
}

TEST(RunForEach, EveryRunStartsFromReset) {
  const Graph g = accumulatorGraph();
  FloatExecutor fx(g);
  const FloatSequence tokens = scalarTokens({1, 2, -4, 0.5});
  const FloatSequence first = fx.run(tokens);
  EXPECT_EQ(fx.steps(), 4);
  const FloatSequence second = fx.run(tokens);
  EXPECT_EQ(first, second);
  EXPECT_EQ(first, (FloatSequence{{11, 1}, {13, 0}, {9, 3}, {9.5, 2.5}}));

  // step() continues until reset().
  fx.reset();
  EXPECT_EQ(fx.steps(), 0);
  EXPECT_EQ(fx.value(g.node(g.output()).inputs[0]), (std::vector<double>{10}));
  EXPECT_EQ(fx.step({1}), first[0]);
  EXPECT_EQ(fx.step({2}), first[1]);
  EXPECT_EQ(fx.steps(), 2);
  fx.reset();
  EXPECT_EQ(fx.step({1}), first[0]);
}

TEST(RunForEach, ExactRunsAreIndependentToo) {
  const Graph g = accumulatorGraph();
  ExactExecutor ex(g);
  const ExactSequence tokens = {{1}, {2}, {-4}, {Exact::rational(1, 2)}};
  const ExactSequence first = ex.run(tokens);
  EXPECT_EQ(first, ex.run(tokens));
  EXPECT_EQ(first[3], vec({Exact::rational(19, 2), Exact::rational(5, 2)}));
}

TEST(RunForEach, EmptySequenceGivesNoOutputs) {
  FloatExecutor fx(accumulatorGraph());
  EXPECT_TRUE(fx.run({}).empty());
}

// -------------------------------------------------------------------------- errors

TEST(RunErrors, TokenWidthMismatchNamesTokenAndWidths) {
  const Graph g = accumulatorGraph();
  FloatExecutor fx(g);
  try {
    fx.run({{0}, {1}, {2}, {3, 4}});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "token 3 has width 2, the program's Input expects 1");
  }
  ExactExecutor ex(g);
  try {
    ex.run({{0}, {}});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "token 1 has width 0, the program's Input expects 1");
  }
}

TEST(RunErrors, NonFiniteInputsNameTokenAndFeature) {
  Graph g;
  Var x = Input(g, 2);
  g.setOutput(ReLU(x).id());
  FloatExecutor fx(g);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  try {
    fx.run({{0, 0}, {1, nan}});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "token 1, feature 1 is NaN: inputs must be finite numbers");
  }
  try {
    fx.run({{-inf, 0}});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "token 0, feature 0 is -infinity: inputs must be finite numbers");
  }
  try {
    exactTokens({{0, 0}, {0, 0}, {inf, 0}});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "token 2, feature 0 is +infinity: inputs must be finite numbers");
  }
}

TEST(RunErrors, InvalidGraphsAreRejected) {
  Graph g;
  Var x = Input(g, 1);
  ReLU(x);
  // No output set.
  EXPECT_THROW(Plan{g}, Error);
}

TEST(RunErrors, ExactExecutorNeedsTheExactPath) {
  Graph g;
  Var x = Input(g, 1);
  g.setOutput(ReLU(x).id());
  PlanOptions o;
  o.exact = false;
  auto plan = Plan::make(g, o);
  EXPECT_FALSE(plan->hasExact());
  EXPECT_THROW(ExactExecutor{plan}, Error);
  FloatExecutor fx(plan);
  EXPECT_EQ(fx.step({-1}), (std::vector<double>{0}));
}

}  // namespace
}  // namespace lsrl
