// GRU, LSTM and Hawk (docs/spec/targets.md §3–§5): layer counts and roles, the bounds they
// need, unequal branch depths (§1.4), Hawk's conv window, tensors and metadata (§8), and
// negative controls showing that the comparisons can fail.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <string>
#include <variant>

#include "core/targets/gru.h"
#include "core/targets/hawk.h"
#include "core/targets/lstm.h"
#include "core/targets/positivity.h"
#include "core/targets/targets.h"
#include "targets/arch_helpers.h"

namespace lsrl {
namespace {

using testing_arch::mat;
using testing_arch::randomMatrix;
using testing_arch::randomTokens;
using testing_arch::randomVector;
using testing_arch::vec;

// Lin ReLU LinState Lin ReLU Lin Multi Lin LinState Lin ReLU Lin: three NF layers
// (ungated depth 1, gated depth 2, ungated depth 1).
Graph threeLayers() {
  Graph g;
  Var x = Input(g, 2);
  Var r = ReLU(Linear(x, mat({{1, -1}, {2, 1}, {0, 1}}), vec({0, Exact::rational(-1, 2), 1})));
  Var s = LinState(r, mat({{1, 0}, {Exact::rational(1, 2), -1}}), mat({{1, 0, -1}, {0, 2, 1}}),
                   vec({1, -1}), vec({0, Exact::rational(1, 4)}));
  Var r2 = ReLU(Linear(s, mat({{1, 1}, {-1, 2}, {0, 1}}), vec({0, 1, -1})));
  Var c = Linear(r2, mat({{1, 0, 0}, {0, -1, 1}, {1, 1, 0}, {0, 0, 2}}), vec({0, 0, -1, 1}));
  Var d = Linear(Multi(c), mat({{1, -1}, {1, 1}}), vec({1, 0}));
  Var s2 = LinState(d, mat({{Exact::rational(1, 2), 1}, {0, -1}}), mat({{1, 0}, {1, 1}}),
                    vec({0, 2}), vec({1, 0}));
  Var r3 = ReLU(Linear(s2, mat({{1, 2}, {-1, 0}}), vec({-1, 0})));
  Var out = Linear(r3, mat({{1, -2}, {3, 1}}), vec({0, Exact::rational(1, 3)}));
  g.setOutput(out.id());
  return g;
}

TargetOptions boxAndHorizon(int T) {
  TargetOptions o;
  o.shift.horizon = T;
  return o;
}

template <class Layer>
std::vector<std::string> roles(const std::vector<Layer>& layers) {
  std::vector<std::string> out;
  for (const auto& l : layers) out.push_back(l.role);
  return out;
}

// Cost per NF layer (§6): GRU gated L + 2 / ungated L + 1, LSTM L + 1, Hawk gated L + 1 /
// ungated L.
TEST(ArchGatedTargets, LayerCountsAndRoles) {
  const Graph g = threeLayers();
  const TargetModel gru = buildTarget(g, Target::Gru, boxAndHorizon(14));
  const auto& G = std::get<GruModel<Exact>>(gru.built);
  EXPECT_EQ(roles(G.layers), (std::vector<std::string>{"state", "mlp", "state", "mlp", "mlp",
                                                       "product", "state", "mlp"}));
  const TargetModel lstm = buildTarget(g, Target::Lstm);
  const auto& L = std::get<LstmModel<Exact>>(lstm.built);
  EXPECT_EQ(roles(L.layers),
            (std::vector<std::string>{"state", "mlp", "state", "mlp", "product", "state", "mlp"}));
  const TargetModel hawk = buildTarget(g, Target::Hawk, boxAndHorizon(14));
  const auto& H = std::get<HawkModel<Exact>>(hawk.built);
  ASSERT_EQ(H.blocks.size(), 5u);
  EXPECT_EQ(H.blocks[0].role, "state");
  EXPECT_EQ(H.blocks[2].role, "identity");
  EXPECT_EQ(H.blocks[3].mlpRole, "product");
  EXPECT_EQ(H.maxSeqLen, 14);  // the counter-like state never forgets: window = T
  EXPECT_EQ(H.convWidth, 14);
  // Split states: GRU and LSTM state widths are 2 d_s.
  EXPECT_EQ(G.layers[2].hiddenSize(), 2 * compileNormalForm(g).layers[1].stateDim());
  EXPECT_EQ(L.layers[2].hiddenSize(), G.layers[2].hiddenSize());
}

// §3.2: K is a power of two per unit, at least the bound on f over the box and t ≤ T.
TEST(ArchGatedTargets, GruBoundKIsAPowerOfTwo) {
  const Graph g = threeLayers();
  const TargetModel gru = buildTarget(g, Target::Gru, boxAndHorizon(14));
  const auto& G = std::get<GruModel<Exact>>(gru.built);
  const GruLayer<Exact>& prod = G.layers[5];
  ASSERT_EQ(prod.role, "product");
  ASSERT_FALSE(prod.K.empty());
  for (const Exact& k : prod.K) EXPECT_EQ(powerOfTwoAtLeast(k), k);
  // A larger box gives a bound at least as large.
  TargetOptions wide = boxAndHorizon(14);
  wide.shift.inputLo = Exact(-8);
  wide.shift.inputHi = Exact(8);
  const TargetModel wideGru = buildTarget(g, Target::Gru, wide);
  const auto& W = std::get<GruModel<Exact>>(wideGru.built);
  for (size_t i = 0; i < prod.K.size(); ++i) EXPECT_GE(W.layers[5].K[i], prod.K[i]);
  // "paper" needs no bound: K = 1.
  TargetOptions paper;
  paper.gruUpdate = GruUpdate::Paper;
  const TargetModel paperGru = buildTarget(g, Target::Gru, paper);
  const auto& P = std::get<GruModel<Exact>>(paperGru.built);
  for (const Exact& k : P.layers[5].K) EXPECT_EQ(k, Exact(1));
}

// A linear NF layer with branches of unequal depth (never produced by the compiler):
// GRU and LSTM pad the shorter branch with identity layers, Hawk copies it (§1.4, §5.4).
NfModel<Exact> unequalDepths(unsigned seed, int lf, int lg) {
  std::mt19937 rng(seed);
  NfModel<Exact> m;
  m.inputDim = 2;
  NfLayer<Exact> L;
  L.A = randomMatrix(rng, 3, 3, Exact::rational(1, 2));
  L.B = randomMatrix(rng, 3, 2, Exact(1));
  L.bias = randomVector(rng, 3);
  L.s0 = randomVector(rng, 3);
  L.gated = true;
  auto branch = [&](int depth) {
    std::vector<NfReluLayer<Exact>> br;
    int w = 3;
    for (int k = 0; k < depth; ++k) {
      const int out = k + 1 == depth ? 2 : 3;
      br.push_back({randomMatrix(rng, out, w, Exact(1)), randomVector(rng, out)});
      w = out;
    }
    return br;
  };
  L.f = branch(lf);
  L.g = branch(lg);
  m.layers.push_back(L);
  m.readoutW = randomMatrix(rng, 2, 2, Exact(1));
  m.readoutB = randomVector(rng, 2);
  m.validate();
  return m;
}

TEST(ArchGatedTargets, UnequalBranchDepths) {
  for (auto [lf, lg] : {std::pair{1, 3}, std::pair{3, 1}, std::pair{2, 2}, std::pair{1, 1}}) {
    SCOPED_TRACE("L_f = " + std::to_string(lf) + ", L_g = " + std::to_string(lg));
    const NfModel<Exact> nf = unequalDepths(static_cast<unsigned>(10 * lf + lg), lf, lg);
    std::mt19937 rng(static_cast<unsigned>(lf + 7 * lg));
    const ExactSequence tokens = randomTokens(rng, 12, 2);
    const ExactSequence want = runNormalForm(nf, tokens);
    const NfModel<Exact> relu = splitPositivity(nf);
    EXPECT_EQ(runGru(buildGru(relu, GruUpdate::Paper, {}), tokens), want);
    EXPECT_EQ(runLstm(buildLstm(relu), tokens), want);
    const HawkModel<Exact> hawk = buildHawk(nf, true, 12);
    EXPECT_EQ(hawk.blocks.size(),
              static_cast<size_t>(std::max(std::min(lf, lg), std::max(lf, lg) - 1) + 1));
    EXPECT_EQ(runHawk(hawk, tokens), want);
    EXPECT_EQ(runHawk(buildHawk(nf, false, 12), tokens), want);
  }
}

// A shift register (nilpotent A) forgets its input after two steps: Hawk needs no
// horizon, its window is 2, and it is exact on sequences of any length.
TEST(ArchGatedTargets, HawkNilpotentStateNeedsNoHorizon) {
  Graph g;
  Var x = Input(g, 1);
  Var s = LinState(x, mat({{0, 0}, {1, 0}}), mat({{1}, {0}}), vec({0, 0}), vec({1, -1}));
  Var m = Multi(Linear(s, mat({{1, 0}, {1, 1}}), vec({0, 1})));
  g.setOutput(m.id());
  const TargetModel hawk = buildTarget(g, Target::Hawk);
  const auto& H = std::get<HawkModel<Exact>>(hawk.built);
  EXPECT_EQ(H.convWidth, 2);
  EXPECT_EQ(H.maxSeqLen, 0);
  EXPECT_TRUE(hawk.metadata()["max_seq_len"].is_null());
  std::mt19937 rng(3);
  testing_arch::expectTargetMatches(g, Target::Hawk, randomTokens(rng, 40, 1));
}

// A counter never forgets: the window is the horizon, and longer sequences are refused.
TEST(ArchGatedTargets, HawkCounterWindowIsTheHorizon) {
  Graph g;
  Var x = Input(g, 1);
  Var s = LinState(x, mat({{1}}), mat({{1}}), vec({0}));
  g.setOutput(ReLU(s).id());
  const TargetModel hawk = buildTarget(g, Target::Hawk, boxAndHorizon(10));
  EXPECT_EQ(std::get<HawkModel<Exact>>(hawk.built).convWidth, 10);
  EXPECT_EQ(hawk.metadata()["max_seq_len"], 10);
  std::mt19937 rng(4);
  testing_arch::expectTargetMatches(g, Target::Hawk, randomTokens(rng, 10, 1), boxAndHorizon(10));
  EXPECT_THROW(hawk.run(randomTokens(rng, 11, 1)), Error);
}

std::set<std::string> names(const std::vector<Tensor>& ts) {
  std::set<std::string> out;
  for (const Tensor& t : ts) {
    out.insert(t.name);
    int64_t n = 1;
    for (int64_t d : t.shape) n *= d;
    EXPECT_EQ(static_cast<int64_t>(t.data.size()), n) << t.name;
    EXPECT_EQ(t.dtype, Tensor::F64) << t.name;
  }
  return out;
}

const Tensor& find(const std::vector<Tensor>& ts, const std::string& name) {
  for (const Tensor& t : ts) {
    if (t.name == name) return t;
  }
  throw Error("no tensor " + name);
}

TEST(ArchGatedTargets, TensorsAndMetadata) {
  const Graph g = threeLayers();
  const TargetModel gru = buildTarget(g, Target::Gru, boxAndHorizon(14));
  const auto gt = gru.tensors();
  const auto gn = names(gt);
  for (const char* n : {"gru.0.weight_ih_l0", "gru.0.weight_hh_l0", "gru.0.bias_ih_l0",
                        "gru.0.bias_hh_l0", "gru.0.h0", "gru.7.h0", "readout.weight"}) {
    EXPECT_TRUE(gn.count(n)) << n;
  }
  const int H0 = std::get<GruModel<Exact>>(gru.built).layers[0].hiddenSize();
  EXPECT_EQ(find(gt, "gru.0.weight_ih_l0").shape, (std::vector<int64_t>{3 * H0, 2}));
  const nlohmann::json gm = gru.metadata();
  EXPECT_EQ(gm["arch"], "gru");
  EXPECT_EQ(gm["gru_update"], "pytorch");
  EXPECT_EQ(gm["gate_order"], "r,z,n");
  EXPECT_EQ(gm["reset"], "after_matmul");
  EXPECT_EQ(gm["positivity"], "split");
  EXPECT_EQ(gm["max_seq_len"], 14);
  EXPECT_EQ(gm["activation_replacements"]["sigmoid"], "relu");
  EXPECT_EQ(gm["layers"].size(), 8u);
  EXPECT_EQ(gm["layers"][5]["role"], "product");
  EXPECT_TRUE(gm["layers"][5].contains("K"));
  EXPECT_EQ(gm["nf_layers"].size(), 3u);

  const TargetModel lstm = buildTarget(g, Target::Lstm);
  const auto lt = lstm.tensors();
  EXPECT_TRUE(names(lt).count("lstm.6.c0"));
  const int L0 = std::get<LstmModel<Exact>>(lstm.built).layers[0].hiddenSize();
  EXPECT_EQ(find(lt, "lstm.0.weight_hh_l0").shape, (std::vector<int64_t>{4 * L0, L0}));
  EXPECT_EQ(lstm.metadata()["gate_order"], "i,f,g,o");
  EXPECT_TRUE(lstm.metadata()["max_seq_len"].is_null());

  const TargetModel hawk = buildTarget(g, Target::Hawk, boxAndHorizon(14));
  const auto& H = std::get<HawkModel<Exact>>(hawk.built);
  const auto ht = hawk.tensors();
  const auto hn = names(ht);
  for (const char* n :
       {"embed.weight", "blocks.0.recurrent.linear_x.weight", "blocks.0.recurrent.conv_1d.weight",
        "blocks.0.recurrent.rg_lru.a_param", "blocks.0.recurrent.rg_lru.a_gate.weight",
        "blocks.0.recurrent.rg_lru.input_gate.bias", "blocks.4.recurrent.linear_y.weight",
        "blocks.4.recurrent.linear_out.bias", "blocks.4.mlp.gate.weight", "blocks.4.mlp.up.bias",
        "blocks.4.mlp.down.weight", "readout.bias"}) {
    EXPECT_TRUE(hn.count(n)) << n;
  }
  EXPECT_EQ(find(ht, "blocks.0.recurrent.conv_1d.weight").shape,
            (std::vector<int64_t>{H.DR, 1, H.convWidth}));
  EXPECT_EQ(find(ht, "blocks.1.mlp.down.weight").shape, (std::vector<int64_t>{H.D, H.M}));
  const nlohmann::json hm = hawk.metadata();
  EXPECT_EQ(hm["arch"], "hawk");
  EXPECT_EQ(hm["positivity"], "none");
  EXPECT_EQ(hm["lru_base"], "relu");
  EXPECT_EQ(hm["lru_c"], 8);
  EXPECT_EQ(hm["norm"], "none");
  EXPECT_EQ(hm["residual"], true);
  EXPECT_EQ(hm["conv_width"], 14);
  EXPECT_EQ(hm["D_R"], H.DR);
  EXPECT_EQ(hm["blocks"].size(), 5u);
  EXPECT_EQ(hm["blocks"][0]["role"], "state");
  // Index K−1 of the conv weight multiplies the current token (§8): the state channels'
  // current-token tap is B's entry, here the pass-through state's (A = 0) only tap.
  const Tensor& conv = find(ht, "blocks.0.recurrent.conv_1d.weight");
  bool currentTapUsed = false;
  for (int64_t c = 0; c < H.DR; ++c)
    currentTapUsed |= conv.data[static_cast<size_t>(c * H.convWidth + H.convWidth - 1)] != 0;
  EXPECT_TRUE(currentTapUsed);
}

// §3.3: one stacked module, every layer padded to the largest hidden size, nn.GRU /
// nn.LSTM names; the outputs are those of the per-layer model.
TEST(ArchGatedTargets, StackedModules) {
  const Graph g = threeLayers();
  std::mt19937 rng(23);
  const ExactSequence tokens = randomTokens(rng, 14, 2);
  TargetOptions opts = boxAndHorizon(14);
  const TargetModel plain = buildTarget(g, Target::Gru, opts);
  opts.stacked = true;
  const TargetModel stacked = buildTarget(g, Target::Gru, opts);
  const auto& P = std::get<GruModel<Exact>>(plain.built);
  int Hmax = 0;
  for (const auto& l : P.layers) Hmax = std::max(Hmax, l.hiddenSize());
  const auto ts = stacked.tensors();
  EXPECT_EQ(find(ts, "gru.weight_ih_l0").shape, (std::vector<int64_t>{3 * Hmax, 2}));
  EXPECT_EQ(find(ts, "gru.weight_hh_l7").shape, (std::vector<int64_t>{3 * Hmax, Hmax}));
  EXPECT_EQ(find(ts, "gru.h0").shape, (std::vector<int64_t>{8, Hmax}));
  const nlohmann::json meta = stacked.metadata();
  EXPECT_EQ(meta["stacked"], true);
  EXPECT_EQ(meta["num_layers"], 8);
  EXPECT_EQ(meta["hidden_size"], Hmax);
  EXPECT_EQ(meta["layers"][0]["units_used"], P.layers[0].hiddenSize());
  EXPECT_EQ(stacked.run(tokens), plain.run(tokens));

  TargetOptions lopts;
  lopts.stacked = true;
  const TargetModel lstm = buildTarget(g, Target::Lstm, lopts);
  const auto lt = lstm.tensors();
  EXPECT_EQ(find(lt, "lstm.c0").shape, find(lt, "lstm.h0").shape);
  EXPECT_EQ(lstm.run(tokens), buildTarget(g, Target::Lstm).run(tokens));
}

// Negative controls: one changed weight changes the outputs, so the equality checks of
// the other tests can fail.
TEST(ArchGatedTargets, PerturbedWeightsAreCaught) {
  const Graph g = threeLayers();
  std::mt19937 rng(21);
  const ExactSequence tokens = randomTokens(rng, 14, 2);
  ExactExecutor ex(g);
  const ExactSequence want = ex.run(tokens);

  TargetModel gru = buildTarget(g, Target::Gru, boxAndHorizon(14));
  ASSERT_EQ(gru.run(tokens), want);
  auto& gl = std::get<GruModel<Exact>>(gru.built).layers[5];  // the product's z bias
  gl.biasIh[static_cast<size_t>(gl.hiddenSize())] += Exact::rational(1, 8);
  EXPECT_NE(gru.run(tokens), want);

  TargetModel lstm = buildTarget(g, Target::Lstm);
  ASSERT_EQ(lstm.run(tokens), want);
  auto& ll = std::get<LstmModel<Exact>>(lstm.built).layers[0];  // the state's input gate
  ll.biasIh[0] = Exact::rational(1, 2);
  EXPECT_NE(lstm.run(tokens), want);

  TargetModel hawk = buildTarget(g, Target::Hawk, boxAndHorizon(14));
  ASSERT_EQ(hawk.run(tokens), want);
  auto& hb = std::get<HawkModel<Exact>>(hawk.built).blocks[2];  // a state block's s0
  hb.linearOutBias[0] += Exact(1);
  EXPECT_NE(hawk.run(tokens), want);
}

// §9.1: a literal single GRU product layer (h' = (1 − z) n + z h with z = 1 − f/K and
// n = K g, no accumulator) keeps a carry of the previous output and is wrong.
TEST(ArchGatedTargets, LiteralGruProductIsWrong) {
  const Graph g = threeLayers();
  std::mt19937 rng(22);
  const ExactSequence tokens = randomTokens(rng, 14, 2);
  ExactExecutor ex(g);
  TargetModel gru = buildTarget(g, Target::Gru, boxAndHorizon(14));
  GruModel<Exact>& G = std::get<GruModel<Exact>>(gru.built);
  GruLayer<Exact>& p = G.layers[5];
  const int dy = p.hiddenSize() / 2;
  // Drop the recurrence (n = K g instead of K g + acc) and the "prev" half.
  p.weightHh = ExactMatrix(3 * p.hiddenSize(), p.hiddenSize());
  ASSERT_EQ(dy * 2, p.hiddenSize());
  G.layers[6].weightIh = G.layers[6].weightIh *
                         ExactMatrix::vstack({ExactMatrix::identity(dy), ExactMatrix(dy, dy)}) *
                         ExactMatrix::hstack({ExactMatrix::identity(dy), ExactMatrix(dy, dy)});
  EXPECT_NE(gru.run(tokens), ex.run(tokens));
}

}  // namespace
}  // namespace lsrl
