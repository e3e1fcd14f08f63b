// Weight noise (core/experiments/noise.h), the executor's state override (Executor::setState) and
// the Fig. 4 experiment on tiny configurations (core/experiments/noise_experiment.h).
#include "core/experiments/noise.h"

#include <gtest/gtest.h>

#include <cmath>

#include "core/executor/executor.h"
#include "core/experiments/noise_experiment.h"
#include "core/util/error.h"
#include "executor/run_helpers.h"

namespace lsrl {
namespace {

using testing_run::mat;
using testing_run::scalarTokens;
using testing_run::vec;

// Input(1) -> Linear (half zeros) -> LinState (2) -> Slice -> output, with init [5, 7].
Graph smallRecurrence() {
  Graph g;
  const NodeId x = g.addInput(1);
  const NodeId h = g.addLinear(x, mat({{2}, {0}, {-1}}), vec({0, 1, 3}));
  const NodeId s = g.addLinState(h, mat({{Exact::rational(1, 2), 0}, {1, 1}}),
                                 mat({{1, 0, 1}, {0, 1, 0}}), vec({5, 7}), vec({0, 4}));
  const NodeId y = g.addSlice(s, 0, 2);
  g.setOutput(y);
  return g;
}

// A Linear with many non-zeros (and many zeros) to measure the noise's spread.
Graph wideLinear(int n) {
  Graph g;
  const NodeId x = g.addInput(n);
  std::vector<ExactMatrix::Entry> entries;
  for (int r = 0; r < n; ++r)
    for (int c = 0; c < n; ++c)
      if ((r + c) % 3 == 0) entries.push_back({r, c, Exact(r - c + 1 == 0 ? 7 : r - c + 1)});
  ExactVector b(static_cast<size_t>(n));
  for (int r = 0; r < n; r += 2) b[static_cast<size_t>(r)] = Exact(r + 1);
  g.setOutput(g.addLinear(x, ExactMatrix::fromEntries(n, n, entries), b));
  return g;
}

TEST(WeightNoise, KeepsZerosAndPerturbsNonZerosAtScaleSigma) {
  const Graph g = wideLinear(60);
  const double sigma = 1e-3;
  const Graph noisy = withWeightNoise(g, {sigma, 42});
  const Node& a = g.node(1);
  const Node& b = noisy.node(1);
  const auto ea = a.A.entries(), eb = b.A.entries();
  ASSERT_EQ(ea.size(), eb.size()) << "the sparsity pattern must be kept";
  double sum = 0, sumSq = 0;
  size_t n = 0;
  for (size_t i = 0; i < ea.size(); ++i) {
    ASSERT_EQ(ea[i].row, eb[i].row);
    ASSERT_EQ(ea[i].col, eb[i].col);
    const double d = eb[i].value.toDouble() - ea[i].value.toDouble();
    EXPECT_NE(d, 0.0);
    sum += d;
    sumSq += d * d;
    ++n;
  }
  for (size_t i = 0; i < a.b.size(); ++i) {
    if (a.b[i].isZero()) {
      EXPECT_TRUE(b.b[i].isZero()) << "offset " << i << " was zero";
    } else {
      const double d = b.b[i].toDouble() - a.b[i].toDouble();
      EXPECT_NE(d, 0.0);
      sum += d;
      sumSq += d * d;
      ++n;
    }
  }
  ASSERT_GT(n, 1000u);
  const double mean = sum / static_cast<double>(n);
  const double sd = std::sqrt(sumSq / static_cast<double>(n) - mean * mean);
  EXPECT_NEAR(mean, 0.0, 4 * sigma / std::sqrt(static_cast<double>(n)));
  EXPECT_NEAR(sd, sigma, 0.1 * sigma);
}

TEST(WeightNoise, LinStateMatricesAndBiasButNotInit) {
  const Graph g = smallRecurrence();
  const Graph noisy = withWeightNoise(g, {1e-6, 1});
  const Node& s = g.node(2);
  const Node& t = noisy.node(2);
  EXPECT_EQ(t.init, s.init);
  EXPECT_EQ(t.A.nonZeros(), s.A.nonZeros());
  EXPECT_EQ(t.B.nonZeros(), s.B.nonZeros());
  EXPECT_NE(t.A, s.A);
  EXPECT_NE(t.B, s.B);
  EXPECT_TRUE(t.bias[0].isZero());
  EXPECT_NE(t.bias[1], s.bias[1]);
  EXPECT_NEAR(t.bias[1].toDouble(), 4.0, 1e-4);
  EXPECT_TRUE(g.node(3).isSlice());
  EXPECT_FALSE(noisy.node(3).isSlice()) << "a perturbed Slice no longer selects";
}

TEST(WeightNoise, ZeroSigmaIsTheSameGraphAndSeedsAreReproducible) {
  const Graph g = smallRecurrence();
  const Graph same = withWeightNoise(g, {0, 9});
  for (size_t i = 0; i < g.nodeCount(); ++i) {
    EXPECT_EQ(same.node(static_cast<NodeId>(i)).A, g.node(static_cast<NodeId>(i)).A);
    EXPECT_EQ(same.node(static_cast<NodeId>(i)).b, g.node(static_cast<NodeId>(i)).b);
  }
  EXPECT_EQ(withWeightNoise(g, {1e-3, 5}).node(2).A, withWeightNoise(g, {1e-3, 5}).node(2).A);
  EXPECT_NE(withWeightNoise(g, {1e-3, 5}).node(2).A, withWeightNoise(g, {1e-3, 6}).node(2).A);
  EXPECT_THROW(withWeightNoise(g, {-1, 0}), Error);
  EXPECT_THROW(withWeightNoise(g, {std::nan(""), 0}), Error);
}

TEST(StateOverride, NextStepReadsTheGivenState) {
  const Graph g = smallRecurrence();
  FloatExecutor fx(g);
  ASSERT_EQ(fx.plan().linStates(), std::vector<NodeId>{2});
  fx.step({1.0});
  fx.setState(2, {10.0, -2.0});
  EXPECT_EQ(fx.value(2), (std::vector<double>{10.0, -2.0}));
  // h = [2x, 1, 3 - x] at x = 2: [4, 1, 1]; s = [0.5·10 + 4 + 1, 10 − 2 + 1 + 4]
  EXPECT_EQ(fx.step({2.0}), (std::vector<double>{10.0, 13.0}));

  ExactExecutor ex(g);
  ex.step({Exact(1)});
  ex.setState(2, {Exact(10), Exact(-2)});
  EXPECT_EQ(ex.step({Exact(2)}), (ExactVector{Exact(10), Exact(13)}));
}

TEST(StateOverride, RejectsOtherNodesAndWrongWidths) {
  FloatExecutor fx(smallRecurrence());
  EXPECT_THROW(fx.setState(1, {0, 0, 0}), Error);  // a Linear
  EXPECT_THROW(fx.setState(2, {1.0}), Error);
  EXPECT_THROW(fx.setState(99, {1.0, 2.0}), Error);
}

// The experiment's protocol on a hand-built graph: the noisy model, reset to the clean
// states before every step, computes A'·s_clean(t−1) + B'·h'(x_t) + bias' each step, and
// equals the clean run when σ = 0.
TEST(StateOverride, NoisyRunWithCleanStatesFollowsTheCleanTrajectory) {
  const Graph g = smallRecurrence();
  const FloatSequence tokens = scalarTokens({1, -2, 0.5, 3, 4});
  for (double sigma : {0.0, 1e-3}) {
    const Graph noisy = withWeightNoise(g, {sigma, 3});
    FloatExecutor clean(g), model(noisy);
    const Node& s = noisy.node(2);
    const Node& h = noisy.node(1);
    for (const FloatVector& x : tokens) {
      const FloatVector prev = clean.value(2);
      model.setState(2, prev);
      const FloatVector out = model.step(x);
      const FloatVector want = clean.step(x);  // the clean output is the state (a Slice)
      if (sigma == 0) {
        EXPECT_EQ(out, want);
        continue;
      }
      const FloatVector got = model.value(2);
      FloatVector hx(3);
      for (int r = 0; r < 3; ++r)
        hx[r] = h.A.at(r, 0).toDouble() * x[0] + h.b[static_cast<size_t>(r)].toDouble();
      for (int r = 0; r < 2; ++r) {
        double v = s.bias[static_cast<size_t>(r)].toDouble();
        for (int c = 0; c < 2; ++c) v += s.A.at(r, c).toDouble() * prev[static_cast<size_t>(c)];
        for (int c = 0; c < 3; ++c) v += s.B.at(r, c).toDouble() * hx[static_cast<size_t>(c)];
        EXPECT_NEAR(got[static_cast<size_t>(r)], v, 1e-12);
        EXPECT_NEAR(got[static_cast<size_t>(r)], want[static_cast<size_t>(r)], 0.1);
        EXPECT_NE(got[static_cast<size_t>(r)], want[static_cast<size_t>(r)]);
      }
    }
  }
}

NoiseExperimentConfig tinyTok2tok() {
  NoiseExperimentConfig c;
  c.program = NoiseProgram::Tok2tok;
  c.settings = {{"L", "1"}, {"entries", "4"}, {"vocab", "6"}, {"queries", "3"}};
  c.variants = {Conditional::Optimized, Conditional::StepOptimized, Conditional::Multiplicative,
                Conditional::MultiplicativeOptimized};
  c.sigmas = {0, 1e-3};
  c.seeds = 2;
  c.optimize = true;  // small compiled models keep the tests fast
  c.threads = 1;
  return c;
}

TEST(NoiseExperiment, CleanTok2tokIsRightAndHugeNoiseIsNot) {
  const NoiseExperimentResult r = runNoiseExperiment(tinyTok2tok());
  EXPECT_EQ(r.metricName, "percent_wrong_tokens");
  ASSERT_EQ(r.rows.size(), 4u * 2u * 2u);
  double noisyWrong = 0;
  for (const NoiseRow& row : r.rows) {
    if (row.sigma == 0) {
      EXPECT_EQ(row.metric, 0.0) << conditionalName(row.variant) << ", seed " << row.seed;
    } else {
      noisyWrong += row.metric;
    }
  }
  EXPECT_GT(noisyWrong, 0.0) << "σ = 1e-3 against λ = 1e10 must break some variant";
  ASSERT_EQ(r.compiles.size(), 4u);
  EXPECT_GT(r.compiles[0].stateDim, 0);
  const auto summary = summarizeNoise(r.rows);
  ASSERT_EQ(summary.size(), 8u);
  EXPECT_EQ(summary[1].seeds, 2);
  EXPECT_DOUBLE_EQ(summary[1].mean, (r.rows[2].metric + r.rows[3].metric) / 2);
}

TEST(NoiseExperiment, ResultsDoNotDependOnThreads) {
  NoiseExperimentConfig c = tinyTok2tok();
  c.variants = {Conditional::StepOptimized};
  c.sigmas = {0, 1e-9, 1e-7};
  c.settings["queries"] = "4";
  const NoiseExperimentResult one = runNoiseExperiment(c);
  c.threads = 3;
  const NoiseExperimentResult three = runNoiseExperiment(c);
  ASSERT_EQ(one.rows.size(), three.rows.size());
  for (size_t i = 0; i < one.rows.size(); ++i) EXPECT_EQ(one.rows[i].metric, three.rows[i].metric);
}

TEST(NoiseExperiment, SkippingUnreadNoisyStepsChangesNothing) {
  NoiseExperimentConfig tok = tinyTok2tok();
  tok.variants = {Conditional::StepOptimized};
  tok.sigmas = {0, 1e-9, 1e-5, 1e-3};
  tok.seeds = 1;
  tok.optimize = false;  // the plain paper algorithm's larger path
  NoiseExperimentConfig vec;
  vec.program = NoiseProgram::Vec2vec;
  vec.settings = {{"N", "3"}, {"queries", "3"}};
  vec.variants = {Conditional::Direct, Conditional::StepOptimized};
  vec.sigmas = {0, 1e-7, 1e-3};
  vec.seeds = 1;
  for (NoiseExperimentConfig c : {tok, vec}) {
    const NoiseExperimentResult skipping = runNoiseExperiment(c);
    c.skipUnreadSteps = false;
    const NoiseExperimentResult full = runNoiseExperiment(c);
    ASSERT_EQ(skipping.rows.size(), full.rows.size());
    for (size_t i = 0; i < full.rows.size(); ++i) {
      EXPECT_EQ(skipping.rows[i].metric, full.rows[i].metric)
          << noiseProgramName(c.program) << " row " << i;
    }
  }
}

TEST(NoiseExperiment, Vec2vecCleanErrorIsTheCellDiscretisation) {
  NoiseExperimentConfig c;
  c.program = NoiseProgram::Vec2vec;
  c.settings = {{"N", "4"}, {"queries", "4"}};
  c.variants = {Conditional::Multiplicative};
  c.sigmas = {0, 1e-2};
  c.seeds = 1;
  c.threads = 1;
  const NoiseExperimentResult r = runNoiseExperiment(c);
  EXPECT_EQ(r.metricName, "mean_abs_error");
  ASSERT_EQ(r.rows.size(), 2u);
  EXPECT_GT(r.rows[0].metric, 0.0);  // f(centre) ≠ f(x)
  EXPECT_LT(r.rows[0].metric, 1.0);
  EXPECT_GT(r.rows[1].metric, r.rows[0].metric);
}

TEST(NoiseExperiment, CancelAndBadSettings) {
  EXPECT_THROW(runNoiseExperiment(tinyTok2tok(), {}, [] { return true; }), Cancelled);
  // Stops mid-run too: after the first compile.
  int polls = 0;
  EXPECT_THROW(runNoiseExperiment(tinyTok2tok(), {}, [&] { return ++polls > 3; }), Cancelled);
  NoiseExperimentConfig c = tinyTok2tok();
  c.settings["bogus"] = "1";
  EXPECT_THROW(runNoiseExperiment(c), Error);
  c = tinyTok2tok();
  c.settings["L"] = "1.5";
  EXPECT_THROW(runNoiseExperiment(c), Error);
  c = tinyTok2tok();
  c.sigmas = {-1};
  EXPECT_THROW(runNoiseExperiment(c), Error);
  // Progress is reported once per compile and per query.
  c = tinyTok2tok();
  c.variants = {Conditional::StepOptimized};
  long long calls = 0, total = 0;
  runNoiseExperiment(c, [&](const NoiseProgress& p) {
    ++calls;
    total = p.total;
  });
  EXPECT_EQ(calls, 2 * (1 + 3));
  EXPECT_EQ(total, calls);
}

}  // namespace
}  // namespace lsrl
