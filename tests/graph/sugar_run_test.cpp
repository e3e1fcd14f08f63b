// The sugar library's values, run through the executors (ForEach semantics): edge
// values of the step, the logic gates, the conditionals and the modulo counter, exactly
// and in float64.
#include <gtest/gtest.h>

#include <functional>
#include <vector>

#include "core/executor/executor.h"
#include "core/graph/sugar.h"

namespace lsrl {
namespace {

// Builds a program over an Input of width `inWidth` and runs it exactly on `tokens`.
ExactSequence runExact(int inWidth, const std::function<Var(const Var&)>& body,
                       const ExactSequence& tokens) {
  Graph g;
  const Var in = Input(g, inWidth);
  g.setOutput(body(in).id());
  ExactExecutor ex(g);
  return ex.run(tokens);
}

FloatSequence runFloat(int inWidth, const std::function<Var(const Var&)>& body,
                       const FloatSequence& tokens) {
  Graph g;
  const Var in = Input(g, inWidth);
  g.setOutput(body(in).id());
  FloatExecutor ex(g);
  return ex.run(tokens);
}

ExactSequence scalars(const std::vector<Exact>& xs) {
  ExactSequence s;
  for (const Exact& x : xs) s.push_back({x});
  return s;
}

// Runs a scalar program on each input, exactly and in float64, and compares both with
// the expected values (exactly, and to 1e-9).
void expectScalarMap(int inWidth, const std::function<Var(const Var&)>& body,
                     const ExactSequence& tokens, const std::vector<Exact>& expected) {
  const ExactSequence out = runExact(inWidth, body, tokens);
  ASSERT_EQ(out.size(), expected.size());
  for (size_t t = 0; t < out.size(); ++t) {
    ASSERT_EQ(out[t].size(), 1u);
    EXPECT_EQ(out[t][0], expected[t]) << "exact, token " << t;
  }
  const FloatSequence fout = runFloat(inWidth, body, floatTokens(tokens));
  for (size_t t = 0; t < fout.size(); ++t) {
    EXPECT_NEAR(fout[t][0], expected[t].toDouble(), 1e-9) << "float64, token " << t;
  }
}

const Exact kMu(1000);
const Exact kHalfStep = Exact::rational(1, 2000);  // 1/(2μ)
const Exact kStep = Exact::rational(1, 1000);      // 1/μ

TEST(SugarRun, StepEdgeValues) {
  const std::vector<Exact> z = {Exact(-5), -kStep,           Exact(0), kHalfStep,
                                kStep,     Exact(2) * kStep, Exact(7)};
  const std::vector<Exact> expected = {Exact(0), Exact(0), Exact(0), Exact::rational(1, 2),
                                       Exact(1), Exact(1), Exact(1)};
  expectScalarMap(
      1, [](const Var& x) { return f_step(x); }, scalars(z), expected);
  // Another scale: 0 at 0, ½ at 1/(2μ), 1 at 1/μ.
  expectScalarMap(1, [](const Var& x) { return f_step(x, Exact(4)); },
                  scalars({Exact(0), Exact::rational(1, 8), Exact::rational(1, 4), Exact(1)}),
                  {Exact(0), Exact::rational(1, 2), Exact(1), Exact(1)});
}

TEST(SugarRun, StepIsElementWise) {
  const ExactSequence out =
      runExact(3, [](const Var& x) { return f_step(x); },
               {{Exact(-1), kHalfStep, Exact(3)}, {kStep, Exact(0), Exact::rational(1, 4000)}});
  EXPECT_EQ(out[0], (ExactVector{Exact(0), Exact::rational(1, 2), Exact(1)}));
  EXPECT_EQ(out[1], (ExactVector{Exact(1), Exact(0), Exact::rational(1, 4)}));
}

TEST(SugarRun, Comparisons) {
  const ExactSequence pairs = {{Exact(1), Exact(2)},
                               {Exact(2), Exact(1)},
                               {Exact(3), Exact(3)},
                               {Exact(3) + kStep, Exact(3)},
                               {Exact(3) + kHalfStep, Exact(3)}};
  expectScalarMap(2, [](const Var& x) { return f_larger(x[0], x[1]); }, pairs,
                  {Exact(0), Exact(1), Exact(0), Exact(1), Exact::rational(1, 2)});
  expectScalarMap(2, [](const Var& x) { return f_smaller(x[1], x[0]); }, pairs,
                  {Exact(0), Exact(1), Exact(0), Exact(1), Exact::rational(1, 2)});
  // Within 1/μ both equality tests see a fractional step, and the outer step rounds it
  // up: f_eq and f_neq are both 1 at a distance of 1/(2μ) (precision 1/μ).
  expectScalarMap(2, [](const Var& x) { return f_eq(x[0], x[1]); }, pairs,
                  {Exact(0), Exact(0), Exact(1), Exact(0), Exact(1)});
  expectScalarMap(2, [](const Var& x) { return f_neq(x[0], x[1]); }, pairs,
                  {Exact(1), Exact(1), Exact(0), Exact(1), Exact(1)});
  // Constants on either side.
  expectScalarMap(1, [](const Var& x) { return f_larger(x, 0.5); },
                  scalars({Exact(0), Exact(1), Exact::rational(1, 2)}),
                  {Exact(0), Exact(1), Exact(0)});
  expectScalarMap(1, [](const Var& x) { return f_larger(Exact::rational(1, 2), x); },
                  scalars({Exact(0), Exact(1), Exact::rational(1, 2)}),
                  {Exact(1), Exact(0), Exact(0)});
  expectScalarMap(1, [](const Var& x) { return f_eq(x, 4); },
                  scalars({Exact(4), Exact(5), Exact(3)}), {Exact(1), Exact(0), Exact(0)});
}

TEST(SugarRun, Bump) {
  const ExactSequence z =
      scalars({Exact(0), Exact(1), Exact::rational(3, 2), Exact(2), Exact(2) + kStep, Exact(5)});
  const std::vector<Exact> expected = {Exact(0), Exact(0), Exact(1), Exact(1), Exact(0), Exact(0)};
  expectScalarMap(
      1, [](const Var& x) { return f_bump(x, Exact(1), Exact(2)); }, z, expected);
  // Bounds as nodes.
  expectScalarMap(
      1,
      [](const Var& x) {
        const Var lb = f_constant(x, {Exact(1)});
        const Var ub = f_constant(x, {Exact(2)});
        return f_bump(x, lb, ub);
      },
      z, expected);
}

TEST(SugarRun, LogicTruthTables) {
  const ExactSequence bits = {
      {Exact(0), Exact(0)}, {Exact(0), Exact(1)}, {Exact(1), Exact(0)}, {Exact(1), Exact(1)}};
  expectScalarMap(2, [](const Var& x) { return f_and(x[0], x[1]); }, bits,
                  {Exact(0), Exact(0), Exact(0), Exact(1)});
  expectScalarMap(2, [](const Var& x) { return f_or(x[0], x[1]); }, bits,
                  {Exact(0), Exact(1), Exact(1), Exact(1)});
  expectScalarMap(2, [](const Var& x) { return f_not(x[0]); }, bits,
                  {Exact(1), Exact(1), Exact(0), Exact(0)});
}

using IfElse = std::function<Var(const Var& c, const Var& t, const Var& f)>;

// c, t, f from the token [c, t, f].
void expectIfElse(const IfElse& build, bool withT, bool withF) {
  const std::vector<std::pair<Exact, Exact>> values = {
      {Exact(3), Exact(-7)}, {Exact(-2), Exact::rational(5, 2)}, {Exact(0), Exact(9)}};
  ExactSequence tokens;
  std::vector<Exact> expected;
  for (const auto& [t, f] : values) {
    for (int c : {0, 1}) {
      tokens.push_back({Exact(c), t, f});
      expected.push_back(c == 1 ? (withT ? t : Exact(0)) : (withF ? f : Exact(0)));
    }
  }
  expectScalarMap(
      3, [&](const Var& x) { return build(x[0], x[1], x[2]); }, tokens, expected);
}

TEST(SugarRun, IfElseDirect) {
  expectIfElse(
      [](const Var& c, const Var& t, const Var& f) { return f_ifelse(c, Operand(t), Operand(f)); },
      true, true);
  expectIfElse(
      [](const Var& c, const Var& t, const Var&) { return f_ifelse(c, Operand(t), std::nullopt); },
      true, false);
  expectIfElse(
      [](const Var& c, const Var&, const Var& f) { return f_ifelse(c, std::nullopt, Operand(f)); },
      false, true);
  // Constant branches.
  expectScalarMap(1, [](const Var& c) { return f_ifelse(c, Operand(4), Operand(Exact(-1))); },
                  scalars({Exact(0), Exact(1)}), {Exact(-1), Exact(4)});
}

TEST(SugarRun, IfElseStep) {
  expectIfElse([](const Var& c, const Var& t,
                  const Var& f) { return f_ifelse_step(c, Operand(t), Operand(f)); },
               true, true);
  expectIfElse([](const Var& c, const Var& t,
                  const Var&) { return f_ifelse_step(c, Operand(t), std::nullopt); },
               true, false);
  expectIfElse([](const Var& c, const Var&,
                  const Var& f) { return f_ifelse_step(c, std::nullopt, Operand(f)); },
               false, true);
}

TEST(SugarRun, IfElseMul) {
  expectIfElse([](const Var& c, const Var& t, const Var& f) { return f_ifelse_mul(c, t, f); }, true,
               true);
  expectIfElse(
      [](const Var& c, const Var& t, const Var&) { return f_ifelse_mul(c, t, std::nullopt); }, true,
      false);
  expectIfElse(
      [](const Var& c, const Var&, const Var& f) { return f_ifelse_mul(c, std::nullopt, f); },
      false, true);
  // The multiplicative form also blends for fractional c.
  expectScalarMap(3, [](const Var& x) { return f_ifelse_mul(x[0], x[1], x[2]); },
                  {{Exact::rational(1, 4), Exact(8), Exact(4)}}, {Exact(5)});
}

TEST(SugarRun, IfEq) {
  expectScalarMap(2,
                  [](const Var& x) { return f_ifeq(x[0], 3, Operand(x[1]), Operand(Exact(-1))); },
                  {{Exact(3), Exact(8)}, {Exact(4), Exact(8)}, {Exact(3), Exact(-6)}},
                  {Exact(8), Exact(-1), Exact(-6)});
}

TEST(SugarRun, ModuloCounterCountsExactly) {
  for (int n = 1; n <= 8; ++n) {
    ExactSequence tokens;
    std::vector<Exact> expected;
    for (int t = 0; t < 3 * n + 2; ++t) {
      tokens.push_back({Exact(t % 5)});  // the token's value does not matter
      expected.push_back(Exact(t % n));
    }
    expectScalarMap(
        1, [n](const Var& x) { return f_modulo_counter(x, n); }, tokens, expected);
  }
  // A divisor that needs a larger scale.
  ExactSequence tokens;
  std::vector<Exact> expected;
  for (int t = 0; t < 200; ++t) {
    tokens.push_back({Exact(0)});
    expected.push_back(Exact(t % 90));
  }
  expectScalarMap(
      1, [](const Var& x) { return f_modulo_counter(x, 90, Exact(10000)); }, tokens, expected);
}

TEST(SugarRun, ReluIdentityAndConstant) {
  expectScalarMap(1, [](const Var& x) { return f_relu_identity(x); },
                  scalars({Exact(-3), Exact(0), Exact::rational(7, 3)}),
                  {Exact(-3), Exact(0), Exact::rational(7, 3)});
  expectScalarMap(1, [](const Var& x) { return f_constant(x, {Exact::rational(-2, 3)}); },
                  scalars({Exact(-3), Exact(5)}), {Exact::rational(-2, 3), Exact::rational(-2, 3)});
}

TEST(SugarRun, ForEachSemantics) {
  // A LinState's value at step t is its state after the update, and every run starts
  // from a reset: the running sum of the tokens, twice in a row.
  Graph g;
  const Var in = Input(g, 1);
  const ExactMatrix one = ExactMatrix::identity(1);
  const Var sum = LinState(in, one, one, {Exact(10)});
  const Var doubled = sum * 2;
  g.setOutput(doubled.id());
  ExactExecutor ex(g);
  const ExactSequence tokens = scalars({Exact(1), Exact(2), Exact(3)});
  const ExactSequence expected = scalars({Exact(22), Exact(26), Exact(32)});
  EXPECT_EQ(ex.run(tokens), expected);
  EXPECT_EQ(ex.run(tokens), expected);
  FloatExecutor fx(g);
  EXPECT_EQ(fx.run(floatTokens(tokens)), floatTokens(expected));
  // A comparison against a state sees the state after this token's update.
  Graph g2;
  const Var in2 = Input(g2, 1);
  const Var count = LinState(f_constant(in2, {Exact(1)}), one, one, {Exact(0)});
  g2.setOutput(f_larger(count, Exact::rational(5, 2)).id());
  ExactExecutor ex2(g2);
  EXPECT_EQ(ex2.run(scalars({Exact(0), Exact(0), Exact(0), Exact(0)})),
            scalars({Exact(0), Exact(0), Exact(1), Exact(1)}));
}

}  // namespace
}  // namespace lsrl
