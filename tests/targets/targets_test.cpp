// Target names, refusals, errors on non-path graphs, and the §8 tensors and metadata.
#include "core/targets/targets.h"

#include <gtest/gtest.h>

#include <functional>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <string>

#include "core/targets/normal_form.h"
#include "core/targets/positivity.h"
#include "core/util/error.h"
#include "targets/arch_helpers.h"

namespace lsrl {
namespace {

using testing_arch::errorOf;
using testing_arch::mat;
using testing_arch::vec;

TEST(ArchTargets, NamesRoundTrip) {
  const std::vector<std::string> names = {
      "linear-rnn", "gated-linear-rnn", "rnn", "gated-rnn", "gru", "lstm", "hawk"};
  ASSERT_EQ(allTargets().size(), names.size());
  for (size_t i = 0; i < names.size(); ++i) {
    EXPECT_EQ(targetName(allTargets()[i]), names[i]);
    EXPECT_EQ(targetFromName(names[i]), allTargets()[i]);
  }
  EXPECT_EQ(targetArchName(Target::GatedLinearRnn), "gated_linear_rnn");
  EXPECT_FALSE(targetFromName("transformer").has_value());
}

Graph withMulti() {
  Graph g;
  Var x = Input(g, 2);
  Var s = LinState(x, mat({{1, 0}, {0, 1}}), mat({{1, 0}, {0, 1}}), vec({0, 0}));
  Var m = Multi(s, "prod");
  g.setOutput(m.id());
  return g;
}

TEST(ArchTargets, MultiFreeTargetsNameTheMulti) {
  const Graph g = withMulti();
  const std::string id = std::to_string(firstMulti(g));
  for (Target t : {Target::LinearRnn, Target::Rnn}) {
    const std::string msg = errorOf([&] { buildTarget(g, t); });
    EXPECT_NE(msg.find("Multi node " + id), std::string::npos) << msg;
    EXPECT_NE(msg.find("prod"), std::string::npos) << msg;
  }
  EXPECT_NO_THROW(buildTarget(g, Target::GatedRnn));
}

// The assumptions of §7 are asked for, not guessed: gru's "pytorch" product needs a box
// and T for K, and hawk needs T when a state never forgets its input (a counter).
TEST(ArchTargets, BoundsAreRequiredWhereTheConstructionNeedsThem) {
  const Graph g = withMulti();
  const std::string gru = errorOf([&] { buildTarget(g, Target::Gru); });
  EXPECT_NE(gru.find("horizon"), std::string::npos) << gru;
  TargetOptions paper;
  paper.gruUpdate = GruUpdate::Paper;
  EXPECT_NO_THROW(buildTarget(g, Target::Gru, paper));
  const std::string hawk = errorOf([&] { buildTarget(g, Target::Hawk); });
  EXPECT_NE(hawk.find("never forgets"), std::string::npos) << hawk;
  EXPECT_NO_THROW(buildTarget(g, Target::Lstm));
}

TEST(ArchTargets, NonPathGraphsNameTheNode) {
  Graph g;
  Var x = Input(g, 1);
  Var a = ReLU(x);
  Var y = Concat({a, x}, "branch");
  g.setOutput(y.id());
  const std::string msg = errorOf([&] { compileNormalForm(g); });
  EXPECT_NE(msg.find("node " + std::to_string(y.id())), std::string::npos) << msg;

  Graph h;
  Var u = Input(h, 2);
  Var r = ReLU(u);
  Var l = Linear(u, mat({{1, 1}}), vec({0}));  // reads the Input, not the ReLU
  Var c = Linear(r, mat({{1, 0}}), vec({0}));
  Var sum = c + l;
  h.setOutput(sum.id());
  EXPECT_THROW(compileNormalForm(h), Error);

  Graph none;
  Input(none, 1);
  EXPECT_THROW(compileNormalForm(none), Error);
}

TEST(ArchTargets, TensorsAndMetadata) {
  Graph g;
  Var x = Input(g, 2);
  Var s = LinState(x, mat({{1, 0}, {1, 1}}), mat({{1, 0}, {0, -1}}), vec({1, -1}));
  Var r = ReLU(Linear(s, mat({{1, -1}, {0, 1}, {1, 1}, {2, 0}}), vec({0, 0, 1, 0})));
  Var m = Multi(Linear(r, mat({{1, 0, 0, 0}, {0, 1, 1, 0}}), vec({0, -1})));
  Var out = Linear(m, mat({{2}}), vec({1}));
  g.setOutput(out.id());

  TargetOptions opts;
  opts.sourceName = "demo";
  opts.sourceHash = "abc";
  const TargetModel glr = buildTarget(g, Target::GatedLinearRnn, opts);
  const auto tensors = glr.tensors();
  std::set<std::string> names;
  for (const auto& t : tensors) {
    names.insert(t.name);
    int64_t n = 1;
    for (int64_t d : t.shape) n *= d;
    EXPECT_EQ(static_cast<int64_t>(t.data.size()), n) << t.name;
  }
  for (const char* n :
       {"layers.0.state.A", "layers.0.state.B", "layers.0.state.bias", "layers.0.state.s0",
        "layers.0.f.0.weight", "layers.0.f.0.bias", "layers.0.f.1.weight", "layers.0.g.1.bias",
        "readout.weight", "readout.bias"}) {
    EXPECT_TRUE(names.count(n)) << n;
  }
  EXPECT_EQ(tensors[0].name, "layers.0.state.A");
  EXPECT_EQ(tensors[0].shape, (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(tensors[0].data, (std::vector<double>{1, 0, 1, 1}));

  const nlohmann::json meta = glr.metadata();
  EXPECT_EQ(meta["arch"], "gated_linear_rnn");
  EXPECT_EQ(meta["d_in"], 2);
  EXPECT_EQ(meta["d_out"], 1);
  EXPECT_EQ(meta["positivity"], "none");
  EXPECT_EQ(meta["state_update"], "linear");
  EXPECT_EQ(meta["activation_replacements"]["tanh"], "relu");
  EXPECT_EQ(meta["source"]["program"], "demo");
  EXPECT_TRUE(meta["max_seq_len"].is_null());
  ASSERT_EQ(meta["layers"].size(), 1u);
  EXPECT_EQ(meta["layers"][0]["role"], "gated");

  const TargetModel grnn = buildTarget(g, Target::GatedRnn);
  const nlohmann::json m2 = grnn.metadata();
  EXPECT_EQ(m2["arch"], "gated_rnn");
  EXPECT_EQ(m2["positivity"], "split");
  EXPECT_EQ(m2["state_update"], "relu");
  EXPECT_EQ(grnn.tensors()[0].shape, (std::vector<int64_t>{4, 4}));
  EXPECT_EQ(grnn.nf.layers[0].s0, vec({1, 0, 0, 1}));

  TargetOptions shift;
  shift.positivity = Positivity::Shift;
  shift.shift.horizon = 14;
  const TargetModel srnn = buildTarget(g, Target::GatedRnn, shift);
  const nlohmann::json m3 = srnn.metadata();
  EXPECT_EQ(m3["positivity"], "shift");
  EXPECT_EQ(m3["max_seq_len"], 14);
  EXPECT_EQ(m3["input_box"], nlohmann::json::array({-1.0, 1.0}));
  bool hasC = false;
  for (const auto& t : srnn.tensors()) hasC |= t.name == "layers.0.positivity.c";
  EXPECT_TRUE(hasC);
}

// §2.2: c is made of zeros and powers of two, and the shifted state is s + c ≥ 0.
TEST(ArchTargets, ShiftStateIsStatePlusC) {
  Graph g;
  Var x = Input(g, 1);
  Var s = LinState(x, mat({{1, 0}, {1, Exact::rational(1, 2)}}), mat({{1}, {-1}}), vec({0, -3}));
  Var r = ReLU(Linear(s, mat({{1, -1}}), vec({0})));
  g.setOutput(r.id());
  const NfModel<Exact> nf = compileNormalForm(g);
  ShiftOptions opts;
  opts.horizon = 10;
  const ShiftResult shifted = shiftPositivity(nf, opts);
  ASSERT_EQ(shifted.c.size(), 1u);
  for (const Exact& c : shifted.c[0]) {
    if (!c.isZero()) {
      EXPECT_EQ(powerOfTwoAtLeast(c), c);
    }
  }
  // Counter s_1 reaches -10 and s_2 starts at -3: both need a shift.
  EXPECT_EQ(shifted.c[0][0], Exact(16));
  EXPECT_GT(shifted.c[0][1], Exact(0));
  std::mt19937 rng(9);
  const ExactSequence tokens = testing_arch::randomTokens(rng, 10, 1);
  std::vector<std::vector<ExactVector>> plain, shiftedStates;
  const auto want = runNormalForm(nf, tokens, &plain);
  const auto got = runNormalForm(shifted.model, tokens, &shiftedStates);
  EXPECT_EQ(got, want);
  for (size_t t = 0; t < tokens.size(); ++t) {
    for (size_t i = 0; i < 2; ++i) {
      EXPECT_EQ(shiftedStates[0][t][i], plain[0][t][i] + shifted.c[0][i]);
      EXPECT_GE(shiftedStates[0][t][i].sign(), 0);
    }
  }
  EXPECT_EQ(powerOfTwoAtLeast(Exact::rational(3, 8)), Exact::rational(1, 2));
  EXPECT_EQ(powerOfTwoAtLeast(Exact(4)), Exact(4));
  opts.horizon = 0;
  EXPECT_THROW(shiftPositivity(nf, opts), Error);
}

TEST(ArchTargets, FloatModelMatchesExactModel) {
  Graph g;
  Var x = Input(g, 1);
  Var s = LinState(x, mat({{Exact::rational(1, 3)}}), mat({{1}}), vec({1}));
  g.setOutput(s.id());
  const NfModel<Exact> nf = splitPositivity(compileNormalForm(g));
  const NfModel<double> f = toFloat(nf);
  std::vector<std::vector<Exact>> et = {{Exact(1)}, {Exact::rational(-1, 2)}, {Exact(-3)}};
  std::vector<std::vector<double>> ft = {{1.0}, {-0.5}, {-3.0}};
  std::vector<std::vector<std::vector<Exact>>> states;
  const auto eo = runNormalForm(nf, et, &states);
  const auto fo = runNormalForm(f, ft);
  ASSERT_EQ(states.size(), 1u);
  ASSERT_EQ(states[0].size(), 3u);
  for (const auto& st : states[0]) {
    for (const Exact& v : st) EXPECT_GE(v.sign(), 0);  // split states are ≥ 0
  }
  for (size_t t = 0; t < eo.size(); ++t) EXPECT_NEAR(fo[t][0], eo[t][0].toDouble(), 1e-12);
  EXPECT_THROW(runNormalForm(f, {{1.0, 2.0}}), Error);
}

}  // namespace
}  // namespace lsrl
