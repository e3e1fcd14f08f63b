// Path graph → gated layer normal form (docs/spec/targets.md §1.3), and the NF-family
// targets (§1.2, §2.1) against the path itself, exactly and in float64.
#include "core/targets/normal_form.h"

#include <gtest/gtest.h>

#include <random>
#include <string>

#include "core/targets/positivity.h"
#include "core/targets/targets.h"
#include "targets/arch_helpers.h"

namespace lsrl {
namespace {

using testing_arch::expectAllTargetsMatch;
using testing_arch::mat;
using testing_arch::randomMatrix;
using testing_arch::randomTokens;
using testing_arch::randomVector;
using testing_arch::vec;

// §1.3's example: Lin ReLU LinState Lin ReLU Lin Multi Lin LinState Lin ReLU Lin.
Graph sectionExample() {
  Graph g;
  Var x = Input(g, 2);
  Var a = Linear(x, mat({{1, -1}, {2, 1}, {0, 1}}), vec({0, Exact::rational(-1, 2), 1}));
  Var r = ReLU(a);
  Var s = LinState(r, mat({{1, 0}, {Exact::rational(1, 2), -1}}), mat({{1, 0, -1}, {0, 2, 1}}),
                   vec({1, -1}), vec({0, Exact::rational(1, 4)}));
  Var b = Linear(s, mat({{1, 1}, {-1, 2}, {0, 1}}), vec({0, 1, -1}));
  Var r2 = ReLU(b);
  Var c = Linear(r2, mat({{1, 0, 0}, {0, -1, 1}, {1, 1, 0}, {0, 0, 2}}), vec({0, 0, -1, 1}));
  Var p = Multi(c);
  Var d = Linear(p, mat({{1, -1}, {1, 1}}), vec({1, 0}));
  Var s2 = LinState(d, mat({{Exact::rational(1, 2), 1}, {0, -1}}), mat({{1, 0}, {1, 1}}),
                    vec({0, 2}), vec({1, 0}));
  Var e = Linear(s2, mat({{1, 2}, {-1, 0}}), vec({-1, 0}));
  Var r3 = ReLU(e);
  Var out = Linear(r3, mat({{1, -2}, {3, 1}}), vec({0, Exact::rational(1, 3)}));
  g.setOutput(out.id());
  return g;
}

TEST(ArchNormalForm, SectionExampleHasThreeLayers) {
  const Graph g = sectionExample();
  const NfModel<Exact> nf = compileNormalForm(g);
  ASSERT_EQ(nf.layers.size(), 3u);
  // 1: ungated, pass-through state (A = 0, s0 = 0), depth 1.
  EXPECT_FALSE(nf.layers[0].gated);
  EXPECT_EQ(nf.layers[0].A.nonZeros(), 0u);
  EXPECT_EQ(nf.layers[0].A.rows(), 3);
  EXPECT_EQ(nf.layers[0].f.size(), 1u);
  EXPECT_TRUE(nf.layers[0].g.empty());
  // 2: gated, depth 2 on both branches.
  EXPECT_TRUE(nf.layers[1].gated);
  EXPECT_EQ(nf.layers[1].f.size(), 2u);
  EXPECT_EQ(nf.layers[1].g.size(), 2u);
  // 3: ungated, depth 1.
  EXPECT_FALSE(nf.layers[2].gated);
  EXPECT_EQ(nf.layers[2].f.size(), 1u);
  // The last Lin is the readout.
  EXPECT_EQ(nf.readoutW, mat({{1, -2}, {3, 1}}));
  for (const auto& L : nf.layers) EXPECT_EQ(L.update, StateUpdate::Linear);
  expectAllTargetsMatch(g, 1);
}

// The brief's case: two LinStates, ReLUs, a Multi (with a Slice and a one-input Concat).
TEST(ArchNormalForm, TwoStatesReluAndMulti) {
  Graph g;
  Var x = Input(g, 2);
  Var s = LinState(x, mat({{1, 1}, {0, 1}}), mat({{1, 0}, {0, -1}}), vec({0, 1}));
  Var r = ReLU(Linear(s, mat({{1, -1}, {-1, 1}, {1, 1}}), vec({0, 0, Exact::rational(-1, 2)})));
  Var c = Concat({r});
  Var m = Multi(Linear(c, mat({{1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {-1, 1, 1}}), vec({0, 0, 0, 1})));
  Var s2 = LinState(m, mat({{-1, 0}, {1, Exact::rational(1, 2)}}), mat({{1, 1}, {0, -1}}),
                    vec({1, -1}), vec({0, 1}));
  Var r2 = ReLU(s2);
  Var out = r2.slice(1, 2);
  g.setOutput(out.id());
  expectAllTargetsMatch(g, 2);
}

// LinState → LinState (merged by Q3) with two Multis; the second Multi needs a
// pass-through state.
TEST(ArchNormalForm, StateStateTwoMultis) {
  Graph g;
  Var x = Input(g, 1);
  Var s1 = LinState(x, mat({{1}}), mat({{1}}), vec({0}));
  Var s2 = LinState(Linear(s1, mat({{2}, {-1}}), vec({1, 0})), mat({{0, 1}, {-1, 0}}),
                    mat({{1, 0}, {0, 1}}), vec({1, 0}), vec({0, Exact::rational(1, 2)}));
  Var m1 = Multi(s2);
  Var m2 = Multi(Linear(m1, mat({{1}, {-1}}), vec({Exact::rational(1, 2), 1})));
  Var out = Linear(m2, mat({{3}}), vec({-1}));
  g.setOutput(out.id());
  const NfModel<Exact> nf = compileNormalForm(g);
  ASSERT_EQ(nf.layers.size(), 2u);
  EXPECT_EQ(nf.layers[0].stateDim(), 3);  // merged 1 + 2
  EXPECT_TRUE(nf.layers[0].gated);
  EXPECT_EQ(nf.layers[0].outputDim(), 4);  // both halves signed: 4k
  EXPECT_TRUE(nf.layers[1].gated);
  EXPECT_EQ(nf.layers[1].A.nonZeros(), 0u);  // pass-through
  expectAllTargetsMatch(g, 3);
}

// Starts with ReLU and Multi (both halves provably ≥ 0: product width k), ends on a
// bare state (closing with the split layer).
TEST(ArchNormalForm, ReluMultiFirstEndsOnState) {
  Graph g;
  Var x = Input(g, 4);
  Var m = Multi(ReLU(x));
  Var s = LinState(m, mat({{1, -1}, {1, 0}}), mat({{1, 0}, {-1, 1}}), vec({-1, 1}));
  g.setOutput(s.id());
  const NfModel<Exact> nf = compileNormalForm(g);
  ASSERT_EQ(nf.layers.size(), 2u);
  EXPECT_TRUE(nf.layers[0].gated);
  EXPECT_EQ(nf.layers[0].outputDim(), 2);
  EXPECT_FALSE(nf.layers[1].gated);
  EXPECT_EQ(nf.layers[1].outputDim(), 4);  // [v; -v] split
  expectAllTargetsMatch(g, 4);
}

// A Multi-free path: every one of the four targets, including linear-rnn and rnn.
Graph multiFree() {
  Graph g;
  Var x = Input(g, 2);
  Var s = LinState(Linear(x, mat({{1, 1}, {1, -1}}), vec({0, -1})), mat({{0, 1}, {-1, 0}}),
                   mat({{1, 0}, {0, 1}}), vec({0, 0}));
  Var r = ReLU(Linear(s, mat({{1, 0}, {0, -1}, {1, 1}}), vec({0, 0, 0})));
  Var s2 = LinState(r, mat({{1}}), mat({{1, -1, Exact::rational(1, 2)}}), vec({-2}));
  Var out = Linear(s2, mat({{2}, {-1}}), vec({0, 1}));
  g.setOutput(out.id());
  return g;
}

TEST(ArchNormalForm, MultiFreePathAllTargets) {
  const Graph g = multiFree();
  EXPECT_EQ(firstMulti(g), kNoNode);
  expectAllTargetsMatch(g, 5);
  const NfModel<Exact> nf = compileNormalForm(g);
  for (const auto& L : nf.layers) EXPECT_FALSE(L.gated);
  const TargetModel rnn = buildTarget(g, Target::Rnn);
  ASSERT_EQ(rnn.nf.layers.size(), nf.layers.size());
  for (size_t l = 0; l < nf.layers.size(); ++l) {
    EXPECT_EQ(rnn.nf.layers[l].update, StateUpdate::Relu);
    EXPECT_EQ(rnn.nf.layers[l].stateDim(), 2 * nf.layers[l].stateDim());
  }
}

// Irrational entries (a rotation by 2π/5 in Q(cos 2π/20)): still identical outputs.
TEST(ArchNormalForm, IrrationalRotation) {
  Graph g;
  Var x = Input(g, 2);
  const Exact c = Exact::cosPi(2, 5);
  const Exact s = Exact::sinPi(2, 5);
  Var st = LinState(x, mat({{c, -s}, {s, c}}), mat({{1, 0}, {0, 1}}), vec({1, 0}));
  Var m = Multi(Linear(st, mat({{1, 0}, {1, 1}}), vec({0, Exact::sqrt(2)})));
  Var st2 = LinState(m, mat({{c}}), mat({{1}}), vec({0}));
  Var out = ReLU(st2);
  g.setOutput(out.id());
  EXPECT_GT(g.conductor(), 4);
  expectAllTargetsMatch(g, 8);
}

TEST(ArchNormalForm, BarePathHasOnlyAReadout) {
  Graph g;
  Var x = Input(g, 2);
  Var y = Linear(Linear(x, mat({{1, 2}}), vec({1})), mat({{3}, {-1}}), vec({0, 2}));
  g.setOutput(y.id());
  const NfModel<Exact> nf = compileNormalForm(g);
  EXPECT_TRUE(nf.layers.empty());
  EXPECT_EQ(nf.readoutW, mat({{3, 6}, {-1, -2}}));
  EXPECT_EQ(nf.readoutB, vec({3, 1}));
  expectAllTargetsMatch(g, 6);
}

// Without the split, a ReLU state clips negative states: wrong on some input.
TEST(ArchNormalForm, ReluStateWithoutSplitIsWrong) {
  const Graph g = multiFree();
  NfModel<Exact> broken = compileNormalForm(g);
  for (auto& L : broken.layers) L.update = StateUpdate::Relu;
  std::mt19937 rng(7);
  ExactExecutor ex(g);
  bool differs = false;
  for (int run = 0; run < 4 && !differs; ++run) {
    const ExactSequence tokens = randomTokens(rng, 14, 2);
    differs = runNormalForm(broken, tokens) != ex.run(tokens);
  }
  EXPECT_TRUE(differs);
}

// Random paths: at least two LinStates and one Multi, small rational entries.
Graph randomPath(unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> width(1, 3);
  std::uniform_int_distribution<int> pick(0, 5);
  std::vector<int> ops = {2, 2, 3};  // 0 Linear, 1 ReLU, 2 LinState, 3 Multi, 4 Concat, 5 Slice
  const int extra = std::uniform_int_distribution<int>(4, 8)(rng);
  for (int i = 0; i < extra; ++i) ops.push_back(pick(rng));
  std::shuffle(ops.begin(), ops.end(), rng);
  Graph g;
  Var v = Input(g, width(rng));
  const Exact half = Exact::rational(1, 2);
  for (int op : ops) {
    const int d = v.dim();
    switch (op) {
      case 0: {
        const int w = width(rng) + 1;
        v = Linear(v, randomMatrix(rng, w, d, Exact(1)), randomVector(rng, w));
        break;
      }
      case 1:
        v = ReLU(v);
        break;
      case 2: {
        const int w = width(rng);
        v = LinState(v, randomMatrix(rng, w, w, half), randomMatrix(rng, w, d, Exact(1)),
                     randomVector(rng, w), randomVector(rng, w));
        break;
      }
      case 3: {
        const int k = width(rng);
        v = Multi(Linear(v, randomMatrix(rng, 2 * k, d, Exact(1)), randomVector(rng, 2 * k)));
        break;
      }
      case 4:
        v = Concat({v});
        break;
      default:
        if (d > 1) v = v.slice(0, d - 1);
        break;
    }
  }
  v = Linear(v, randomMatrix(rng, 2, v.dim(), Exact(1)), randomVector(rng, 2));
  g.setOutput(v.id());
  return g;
}

TEST(ArchNormalForm, RandomPaths) {
  for (unsigned seed = 100; seed < 112; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    const Graph g = randomPath(seed);
    ASSERT_NE(firstMulti(g), kNoNode);
    expectAllTargetsMatch(g, seed);
  }
}

}  // namespace
}  // namespace lsrl
