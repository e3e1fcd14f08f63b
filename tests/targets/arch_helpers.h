// Path graphs and comparisons shared by the core/targets tests.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "common/error_of.h"
#include "common/matrix_literals.h"
#include "core/executor/executor.h"
#include "core/graph/builder.h"
#include "core/targets/normal_form.h"
#include "core/targets/targets.h"
#include "core/util/error.h"

namespace lsrl::testing_arch {

using testing_common::mat;
using testing_common::vec;

using testing_common::errorOf;

// Small rationals: {-1, -1/2, 0, 0, 1/2, 1} (zeros twice as likely, for sparsity).
inline Exact smallEntry(std::mt19937& rng) {
  static const int num[] = {-2, -1, 0, 0, 1, 2};
  std::uniform_int_distribution<int> d(0, 5);
  return Exact::rational(num[d(rng)], 2);
}

inline ExactMatrix randomMatrix(std::mt19937& rng, int rows, int cols, const Exact& scale) {
  std::vector<ExactVector> dense(static_cast<size_t>(rows));
  for (auto& r : dense) {
    for (int c = 0; c < cols; ++c) r.push_back(smallEntry(rng) * scale);
  }
  return ExactMatrix::fromDense(dense, cols);
}

inline ExactVector randomVector(std::mt19937& rng, int n) {
  ExactVector v;
  for (int i = 0; i < n; ++i) v.push_back(smallEntry(rng));
  return v;
}

// T tokens of width d, entries k/16 in [-1, 1].
inline ExactSequence randomTokens(std::mt19937& rng, int T, int d) {
  std::uniform_int_distribution<int> k(-16, 16);
  ExactSequence out;
  for (int t = 0; t < T; ++t) {
    ExactVector tok;
    for (int i = 0; i < d; ++i) tok.push_back(Exact::rational(k(rng), 16));
    out.push_back(tok);
  }
  return out;
}

// Runs `target` built from `g` against the path itself on `tokens`: exact outputs
// identical, float64 outputs within 1e-9 (relative to max(1, |value|)).
inline void expectTargetMatches(const Graph& g, Target target, const ExactSequence& tokens,
                                const TargetOptions& options = {}) {
  SCOPED_TRACE(std::string(targetName(target)) +
               (options.positivity == Positivity::Shift ? " (shift)" : ""));
  const TargetModel model = buildTarget(g, target, options);
  ExactExecutor ex(g);
  const ExactSequence want = ex.run(tokens);
  const ExactSequence got = model.run(tokens);
  ASSERT_EQ(got.size(), want.size());
  for (size_t t = 0; t < want.size(); ++t) {
    EXPECT_EQ(got[t], want[t]) << "exact, token " << t;
  }
  FloatExecutor fx(g);
  const FloatSequence fwant = fx.run(floatTokens(tokens));
  const FloatSequence fgot = model.runFloat(floatTokens(tokens));
  ASSERT_EQ(fgot.size(), fwant.size());
  for (size_t t = 0; t < fwant.size(); ++t) {
    ASSERT_EQ(fgot[t].size(), fwant[t].size());
    for (size_t i = 0; i < fwant[t].size(); ++i) {
      const double tol = 1e-9 * std::max(1.0, std::abs(fwant[t][i]));
      EXPECT_NEAR(fgot[t][i], fwant[t][i], tol) << "float, token " << t << ", component " << i;
    }
  }
}

// Two LinStates, ReLUs and a Multi with signed halves (the shape of docs/spec/targets.md
// §1.3's example): a path every target family builds.
inline Graph pathWithMulti() {
  Graph g;
  Var x = Input(g, 2);
  Var s = LinState(x, mat({{1, 0}, {Exact::rational(1, 2), -1}}), mat({{1, 0}, {0, 2}}),
                   vec({1, -1}), vec({0, Exact::rational(1, 4)}));
  Var r = ReLU(Linear(s, mat({{1, 1}, {-1, 2}, {0, 1}}), vec({0, 1, -1})));
  Var c = Linear(r, mat({{1, 0, 0}, {0, -1, 1}, {1, 1, 0}, {0, 0, 2}}), vec({0, 0, -1, 1}));
  Var d = Linear(Multi(c), mat({{1, -1}, {1, 1}}), vec({1, 0}));
  Var s2 = LinState(d, mat({{Exact::rational(1, 3), 1}, {0, -1}}), mat({{1, 0}, {1, 1}}),
                    vec({0, 2}), vec({1, 0}));
  Var out = Linear(ReLU(Linear(s2, mat({{1, 2}, {-1, 0}}), vec({-1, 0}))), mat({{1, -2}, {3, 1}}),
                   vec({0, Exact::rational(1, 3)}));
  g.setOutput(out.id());
  return g;
}

// A path without Multi (the targets that need one: linear-rnn, rnn).
inline Graph multiFreePath() {
  Graph g;
  Var x = Input(g, 1);
  Var s = LinState(x, mat({{1, 1}, {0, 1}}), mat({{1}, {0}}), vec({0, 1}));
  Var out = Linear(ReLU(Linear(s, mat({{1, -1}}), vec({0}))), mat({{2}}), vec({1}));
  g.setOutput(out.id());
  return g;
}

inline bool hasMulti(const Graph& g) { return firstMulti(g) != kNoNode; }

// One build configuration of a target, with a label for failure messages.
struct TargetConfig {
  Target target;
  TargetOptions options;
  std::string label;
};

// Every target and its variants for inputs in [lo, hi] and sequences of at most T tokens:
// rnn / gated-rnn / gru / lstm by split and by shift, gru with both updates (the
// "pytorch" one with its bound K from the box), gru and lstm also as one stacked module,
// hawk with and without residuals.
inline std::vector<TargetConfig> allTargetConfigs(int T, const Exact& lo = Exact(-1),
                                                  const Exact& hi = Exact(1)) {
  std::vector<TargetConfig> out;
  TargetOptions box;
  box.shift.horizon = T;
  box.shift.inputLo = lo;
  box.shift.inputHi = hi;
  TargetOptions shift = box;
  shift.positivity = Positivity::Shift;
  for (Target t : allTargets()) {
    const std::string name(targetName(t));
    switch (t) {
      case Target::LinearRnn:
      case Target::GatedLinearRnn:
        out.push_back({t, {}, name});
        break;
      case Target::Rnn:
      case Target::GatedRnn:
      case Target::Lstm:
        out.push_back({t, {}, name + " (split)"});
        out.push_back({t, shift, name + " (shift)"});
        if (t == Target::Lstm) {
          TargetOptions stacked;
          stacked.stacked = true;
          out.push_back({t, stacked, "lstm stacked (split)"});
        }
        break;
      case Target::Gru: {
        out.push_back({t, box, "gru pytorch (split)"});
        TargetOptions paper;
        paper.gruUpdate = GruUpdate::Paper;
        out.push_back({t, paper, "gru paper (split)"});
        TargetOptions paperShift = shift;
        paperShift.gruUpdate = GruUpdate::Paper;
        out.push_back({t, paperShift, "gru paper (shift)"});
        TargetOptions stacked = box;
        stacked.stacked = true;
        out.push_back({t, stacked, "gru pytorch stacked (split)"});
        break;
      }
      case Target::Hawk: {
        out.push_back({t, box, "hawk residual"});
        TargetOptions plain = box;
        plain.hawkResidual = false;
        out.push_back({t, plain, "hawk without residuals"});
        break;
      }
    }
  }
  return out;
}

// Every target (allTargetConfigs(14)) on two random sequences of 14 tokens; the
// Multi-free ones refuse a program with a Multi.
inline void expectAllTargetsMatch(const Graph& g, unsigned seed) {
  std::mt19937 rng(seed);
  const int d = g.node(g.input()).dim;
  for (int run = 0; run < 2; ++run) {
    const ExactSequence tokens = randomTokens(rng, 14, d);
    for (const TargetConfig& c : allTargetConfigs(14)) {
      SCOPED_TRACE(c.label);
      if ((c.target == Target::LinearRnn || c.target == Target::Rnn) && hasMulti(g)) {
        EXPECT_THROW(buildTarget(g, c.target), Error);
        continue;
      }
      expectTargetMatches(g, c.target, tokens, c.options);
    }
  }
}

}  // namespace lsrl::testing_arch
