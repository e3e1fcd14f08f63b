// The Lattice block of docs/spec/seed-models.md §1.8 and the token model of §1.8a
// (core/seed_models/lattice.h): the newer config keys and their errors, the tensors of a
// token model, old configs unchanged to the bit, the causal conv, qk_norm's unit keys, the
// delta rule kept bounded by them, S₀ orthonormal at init, and run() in steps.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "common/expect_error.h"
#include "common/temp_path.h"
#include "core/seed_models/lattice.h"

namespace lsrl::seed_models {
namespace {

using testing_common::expectError;
using testing_common::tempPath;

// One-hot rows of `width` for a seeded random token stream.
Sequence oneHotRows(int width, size_t T, uint64_t seed) {
  Rng rng(seed);
  Sequence rows(T, Vector(static_cast<size_t>(width), 0.0));
  for (Vector& r : rows) r[rng.next() % static_cast<uint64_t>(width)] = 1;
  return rows;
}

Sequence gaussianRows(int width, size_t T, uint64_t seed, double scale = 1) {
  Rng rng(seed);
  Sequence rows(T, Vector(static_cast<size_t>(width)));
  for (Vector& r : rows)
    for (double& v : r) v = scale * rng.normal();
  return rows;
}

LatticeConfig tokenConfig() {
  return LatticeConfig::fromJson({{"input", "tokens"},
                                  {"d_in", 10},
                                  {"d_model", 12},
                                  {"heads", 2},
                                  {"d", 5},
                                  {"m", 3},
                                  {"layers", 2},
                                  {"d_ff", 20},
                                  {"d_out", 7},
                                  {"conv", 4},
                                  {"qk_norm", "l2"},
                                  {"mu_mode", "sigmoid"},
                                  {"init", "random_orthonormal"},
                                  {"seed", 9}});
}

std::vector<std::string> names(const LatticeModel& model) {
  std::vector<std::string> out;
  for (const Tensor& t : model.weights()) out.push_back(t.name);
  return out;
}

TEST(LatticeBlockConfig, NewKeysDefaultAndRoundTrip) {
  const LatticeConfig def;
  const nlohmann::json j = def.toJson();
  EXPECT_EQ(j["conv"], 0);
  EXPECT_EQ(j["qk_norm"], "none");
  EXPECT_EQ(j["s0"], "trained");
  EXPECT_EQ(j["d_model"], 16);
  EXPECT_EQ(j["layers"], 1);
  EXPECT_EQ(j["d_ff"], 0);
  EXPECT_EQ(j["d_out"], 0);
  EXPECT_EQ(j["mqar_keys"], 8);
  EXPECT_EQ(j["mqar_values"], 8);
  EXPECT_EQ(j["mqar_writes"], 16);
  EXPECT_EQ(j["mqar_queries"], 8);
  EXPECT_EQ(j["mqar_noise"], 4);
  EXPECT_EQ(j["mqar_length"], 64);
  EXPECT_EQ(j["lm_context"], 128);
  EXPECT_EQ(j["text"], "");
  nlohmann::json custom = j;
  custom["input"] = "tokens";
  custom["output_gate"] = true;
  custom["conv"] = 4;
  custom["qk_norm"] = "l2";
  custom["s0"] = "fixed";
  custom["d_model"] = 24;
  custom["layers"] = 3;
  custom["d_ff"] = 48;
  custom["d_out"] = 11;
  custom["mqar_keys"] = 5;
  custom["mqar_values"] = 6;
  custom["mqar_writes"] = 7;
  custom["mqar_queries"] = 0;
  custom["mqar_noise"] = 0;
  custom["mqar_length"] = 40;
  custom["lm_context"] = 32;
  custom["text"] = "shakespeare";
  const LatticeConfig c = LatticeConfig::fromJson(custom);
  EXPECT_EQ(c.toJson(), custom);
  EXPECT_EQ(c.qkNorm, "l2");
  EXPECT_EQ(c.mqarLength, 40);
  EXPECT_EQ(c.text, "shakespeare");
  // Tokens: the gate is implied, so a missing output_gate reads true.
  EXPECT_TRUE(LatticeConfig::fromJson({{"input", "tokens"}}).outputGate);
  EXPECT_EQ(LatticeConfig::fromJson({{"input", "tokens"}}).toJson()["output_gate"], true);
  // A config built in code says so too, and reads back.
  LatticeConfig code;
  code.input = "tokens";
  EXPECT_EQ(LatticeConfig::fromJson(code.toJson()).toJson(), code.toJson());
  EXPECT_TRUE(LatticeModel(code).settings().outputGate);
}

TEST(LatticeBlockConfig, BadValuesAreNamed) {
  expectError([] { LatticeConfig::fromJson({{"conv", -1}}); }, "\"conv\"", "between 0 and");
  expectError([] { LatticeConfig::fromJson({{"conv", 2.5}}); }, "\"conv\"", "integer");
  expectError([] { LatticeConfig::fromJson({{"qk_norm", "l1"}}); }, "\"qk_norm\"", "none, l2");
  expectError([] { LatticeConfig::fromJson({{"s0", "frozen"}}); }, "\"s0\"", "trained, fixed");
  expectError(
      [] {
        LatticeConfig::fromJson({{"input", "words"}});
      },
      "\"input\"", "projected, direct, tokens");
  expectError([] { LatticeConfig::fromJson({{"layers", 0}}); }, "\"layers\"", "got the number 0");
  expectError([] { LatticeConfig::fromJson({{"layers", 2000}}); }, "\"layers\"", "1 and 1000,");
  expectError([] { LatticeConfig::fromJson({{"d_model", 0}}); }, "\"d_model\"", "between 1");
  expectError([] { LatticeConfig::fromJson({{"d_ff", -3}}); }, "\"d_ff\"", "between 0");
  expectError([] { LatticeConfig::fromJson({{"d_out", "all"}}); }, "\"d_out\"", "integer");
  for (const char* key : {"mqar_keys", "mqar_values", "mqar_writes", "mqar_length", "lm_context"})
    expectError(
        [&] {
          LatticeConfig::fromJson({{key, 0}});
        },
        std::string("\"") + key + "\"", "between 1");
  for (const char* key : {"mqar_queries", "mqar_noise"}) {
    EXPECT_EQ(LatticeConfig::fromJson({{key, 0}}).toJson()[key], 0);
    expectError(
        [&] {
          LatticeConfig::fromJson({{key, -1}});
        },
        std::string("\"") + key + "\"", "between 0");
  }
  expectError([] { LatticeConfig::fromJson({{"text", 5}}); }, "\"text\"", "string");
  expectError(
      [] {
        LatticeConfig::fromJson({{"input", "direct"}, {"conv", 4}});
      },
      "\"conv\"", "projected");
  expectError(
      [] {
        LatticeConfig::fromJson({{"input", "direct"}, {"qk_norm", "l2"}});
      },
      "\"qk_norm\"", "projected");
  expectError(
      [] {
        LatticeConfig::fromJson({{"input", "tokens"}, {"output_gate", false}});
      },
      "\"output_gate\"", "every layer");
  expectError(
      [] {
        LatticeConfig::fromJson({{"input", "tokens"}, {"d_in", 2000}, {"d_model", 600}});
      },
      "lattice config", "weights, more than 1000000");
  expectError(
      [] {
        LatticeConfig::fromJson({{"heads", 100}, {"m", 100}, {"conv", 200}});
      },
      "conv_k", "more than 1000000");
  // A large vocabulary is no w_k of a token model: only the total counts there.
  EXPECT_NO_THROW(LatticeConfig::fromJson(
      {{"input", "tokens"}, {"d_in", 5000}, {"heads", 8}, {"m", 64}, {"d_model", 32}}));
}

TEST(LatticeBlock, OldConfigsKeepTheirTensorsAndOutputsToTheBit) {
  EXPECT_EQ(names(LatticeModel(LatticeConfig{})),
            (std::vector<std::string>{"w_k", "b_k", "w_v", "b_v", "w_q", "b_q", "w_gamma",
                                      "b_gamma", "s0"}));
  // Values printed by the build before the block's keys existed (lsrl model run lattice
  // --seed 3, JSON doubles are exact): a gated, SiLU, sigmoid-μ, random-S₀ config, and an
  // ENC gated_deltanet one.
  const LatticeModel gated(LatticeConfig::fromJson({{"heads", 2},
                                                    {"d_in", 6},
                                                    {"d", 4},
                                                    {"m", 3},
                                                    {"mu_mode", "sigmoid"},
                                                    {"activation", "silu"},
                                                    {"output_gate", true},
                                                    {"init", "random_orthonormal"},
                                                    {"seed", 5}}));
  EXPECT_EQ(names(gated), (std::vector<std::string>{"w_k", "b_k", "w_v", "b_v", "w_q", "b_q",
                                                    "w_gamma", "b_gamma", "w_mu", "b_mu", "s0",
                                                    "w_g", "b_g", "w_o", "b_o"}));
  const Sequence y = gated.run(gated.taskInput("rotating", 3));
  EXPECT_EQ(y[3][0], 0.0069710385938366376);
  EXPECT_EQ(y[3][1], -0.01828097359810974);
  EXPECT_EQ(y.back().back(), -0.012426643675574939);
  const LatticeModel delta(LatticeConfig::fromJson({{"heads", 2},
                                                    {"d_in", 24},
                                                    {"d", 8},
                                                    {"m", 4},
                                                    {"mode", "gated_deltanet"},
                                                    {"variant", "enc"},
                                                    {"gamma_mode", "constant"},
                                                    {"gamma", 0.4},
                                                    {"activation", "tanh"}}));
  const Sequence z = delta.run(delta.taskInput("rotating", 3));
  EXPECT_EQ(z[3][0], -0.21594356820522181);
  EXPECT_EQ(z[3][1], -0.028166942115005776);
  EXPECT_EQ(z.back().back(), 0.020138633117533597);
  // conv and qk_norm add their tensors last.
  LatticeConfig conv = gated.settings();
  conv.conv = 3;
  conv.qkNorm = "l2";
  std::vector<std::string> want = names(gated);
  want.insert(want.end(), {"conv_k", "conv_q"});
  EXPECT_EQ(names(LatticeModel(conv)), want);
  for (const Tensor& t : LatticeModel(conv).weights())
    if (t.name.rfind("conv_", 0) == 0) {
      EXPECT_EQ(t.shape, (std::vector<int64_t>{2, 3, 3}));
    }
}

TEST(LatticeTokenModel, TensorNamesAndShapes) {
  const LatticeModel model(tokenConfig());
  EXPECT_EQ(model.inputWidth(), 10);
  EXPECT_EQ(model.outputWidth(), 7);
  std::vector<std::pair<std::string, std::vector<int64_t>>> want = {{"embed.weight", {12, 10}}};
  for (const std::string p : {"layers.0.", "layers.1."}) {
    const std::vector<std::pair<std::string, std::vector<int64_t>>> layer = {
        {p + "norm1.weight", {12}},   {p + "norm1.bias", {12}},   {p + "w_k", {2, 3, 12}},
        {p + "b_k", {2, 3}},          {p + "w_v", {2, 5, 12}},    {p + "b_v", {2, 5}},
        {p + "w_q", {2, 3, 12}},      {p + "b_q", {2, 3}},        {p + "w_gamma", {2, 12}},
        {p + "b_gamma", {2}},         {p + "w_mu", {2, 12}},      {p + "b_mu", {2}},
        {p + "s0", {2, 3, 5}},        {p + "w_g", {10, 12}},      {p + "b_g", {10}},
        {p + "w_o", {12, 10}},        {p + "b_o", {12}},          {p + "conv_k", {2, 3, 4}},
        {p + "conv_q", {2, 3, 4}},    {p + "norm2.weight", {12}}, {p + "norm2.bias", {12}},
        {p + "ff1.weight", {20, 12}}, {p + "ff1.bias", {20}},     {p + "ff2.weight", {12, 20}},
        {p + "ff2.bias", {12}}};
    want.insert(want.end(), layer.begin(), layer.end());
  }
  want.insert(want.end(), {{"norm_f.weight", {12}},
                           {"norm_f.bias", {12}},
                           {"head.weight", {7, 12}},
                           {"head.bias", {7}}});
  const std::vector<Tensor> w = model.weights();
  ASSERT_EQ(w.size(), want.size());
  for (size_t i = 0; i < w.size(); ++i) {
    EXPECT_EQ(w[i].name, want[i].first);
    EXPECT_EQ(w[i].shape, want[i].second) << w[i].name;
  }
  // The init: LayerNorm gain 1 and bias 0, b_mu 3, other biases 0, s0 orthonormal.
  for (const Tensor& t : w) {
    double want = NAN;  // NaN: random
    if (t.name.find("norm") != std::string::npos) want = t.name.ends_with(".weight") ? 1.0 : 0.0;
    if (t.name.ends_with(".bias") || t.name.ends_with(".b_k")) want = 0.0;
    if (t.name.ends_with("b_mu")) want = 3.0;
    if (std::isnan(want)) continue;
    for (const double v : t.data) EXPECT_EQ(v, want) << t.name;
  }
  // d_ff 0: no MLP; d_out 0: the vocabulary.
  LatticeConfig bare = tokenConfig();
  bare.dFf = 0;
  bare.dOut = 0;
  bare.conv = 0;
  bare.layers = 1;
  const LatticeModel small(bare);
  EXPECT_EQ(small.outputWidth(), 10);
  for (const Tensor& t : small.weights()) {
    EXPECT_EQ(t.name.find("ff"), std::string::npos) << t.name;
    EXPECT_EQ(t.name.find("norm2"), std::string::npos) << t.name;
    EXPECT_EQ(t.name.find("conv"), std::string::npos) << t.name;
  }
}

TEST(LatticeTokenModel, TraceHasEveryLayerAndHead) {
  const LatticeModel model(tokenConfig());
  const Sequence x = oneHotRows(10, 9, 1);
  Trace trace;
  const Sequence y = model.run(x, &trace);
  ASSERT_EQ(y.size(), 9u);
  EXPECT_EQ(y[0].size(), 7u);
  for (const std::string p : {"", "head1/", "layer1/", "layer1/head1/"}) {
    EXPECT_EQ(trace.get(p + "slots").shape, (std::vector<int64_t>{9, 3, 5})) << p;
    EXPECT_EQ(trace.get(p + "k").shape, (std::vector<int64_t>{9, 3})) << p;
    EXPECT_EQ(trace.get(p + "slots_initial").shape, (std::vector<int64_t>{3, 5})) << p;
  }
  EXPECT_FALSE(trace.has("layer2/slots"));
  EXPECT_FALSE(trace.has("mixer_output"));
  EXPECT_EQ(trace.get("output").shape, (std::vector<int64_t>{9, 7}));
  EXPECT_EQ(trace.get("output").data.back(), y.back().back());
  // One layer's arrays (NOSR DEC: 24 per head) for 2 layers × 2 heads, and the output.
  EXPECT_EQ(trace.arrays().size(), 4u * 24u + 1u);
  // slots_initial is the layer's own S₀.
  EXPECT_EQ(trace.get("layer1/head1/slots_initial").data, model.initialSlots(1, 1).data);
  EXPECT_NE(model.initialSlots(1, 1).data, model.initialSlots(1, 0).data);
}

TEST(LatticeTokenModel, RunIsItsStepsAndSavesBitIdentically) {
  const LatticeModel model(tokenConfig());
  const Sequence in = oneHotRows(10, 11, 2);
  Sequence x = model.embed(in);
  for (int l = 0; l < 2; ++l) {
    const std::vector<std::vector<LatticeToken>> tokens = model.layerInputs(l, x);
    ASSERT_EQ(tokens.size(), 2u);
    Sequence mixed(x.size());
    for (int h = 0; h < 2; ++h) {
      const Sequence y =
          latticeRecurrence(model.initialSlots(h, l), tokens[size_t(h)], model.settings().options);
      for (size_t t = 0; t < y.size(); ++t)
        mixed[t].insert(mixed[t].end(), y[t].begin(), y[t].end());
    }
    x = model.layerOutput(l, x, mixed);
  }
  EXPECT_EQ(model.head(x), model.run(in));
  expectError([&] { model.layerInputs(2, x); }, "lattice", "layer 2 out of range 0..1");
  expectError([&] { model.run({Vector(9, 0.0)}); }, "lattice", "expected 10");
  EXPECT_TRUE(model.run({}).empty());

  const std::string path = tempPath("lsrl_lattice_tokens_", "roundtrip.safetensors");
  model.save(path);
  const LatticeModel again = LatticeModel::load(path);
  EXPECT_EQ(again.config(), model.config());
  EXPECT_EQ(again.weights(), model.weights());
  Trace t1, t2;
  EXPECT_EQ(again.run(in, &t2), model.run(in, &t1));
  EXPECT_EQ(t1.arrays(), t2.arrays());
  std::filesystem::remove(path);
}

TEST(LatticeTokenModel, TasksAreTheScoredTokenTasks) {
  const LatticeModel model(tokenConfig());
  EXPECT_EQ(model.tasks(), (std::vector<std::string>{"mqar", "char_lm"}));
  expectError([&] { model.taskInput("rotating", 0); }, "lattice", "known: mqar, char_lm");
  EXPECT_FALSE(model.recallParams());
  // The generators belong to the scored tasks (being written): rows of the vocabulary
  // once they exist, an lsrl::Error until then.
  for (const std::string task : {"mqar", "char_lm"}) {
    try {
      for (const Vector& row : model.taskInput(task, 1))
        EXPECT_EQ(static_cast<int>(row.size()), model.inputWidth()) << task;
    } catch (const Error&) {
    }
  }
  expectError([] { LatticeModel(LatticeConfig{}).taskInput("mqar", 0); }, "lattice",
              "needs input \"tokens\"");
}

TEST(LatticeBlock, ConvIsCausal) {
  // Changing token t changes no output (and no key) before t, and does change t's.
  const LatticeModel tokens(tokenConfig());
  LatticeConfig pc;
  pc.dIn = 6;
  pc.d = 4;
  pc.m = 3;
  pc.heads = 2;
  pc.conv = 4;
  pc.outputGate = true;
  pc.seed = 4;
  const LatticeModel projected(pc);
  for (const LatticeModel* model : {&tokens, &projected}) {
    const int w = model->inputWidth();
    const Sequence a = model->settings().tokens() ? oneHotRows(w, 14, 3) : gaussianRows(w, 14, 3);
    for (const size_t changed : {size_t(0), size_t(6), size_t(13)}) {
      Sequence b = a;
      if (model->settings().tokens()) {
        std::rotate(b[changed].begin(), b[changed].begin() + 1, b[changed].end());
      } else {
        b[changed][0] += 0.5;
      }
      Trace ta, tb;
      const Sequence ya = model->run(a, &ta), yb = model->run(b, &tb);
      for (size_t t = 0; t < changed; ++t) EXPECT_EQ(ya[t], yb[t]) << "t = " << t;
      EXPECT_NE(ya[changed], yb[changed]);
      const Vector &ka = ta.get("k").data, &kb = tb.get("k").data;
      for (size_t i = 0; i < changed * 3; ++i) EXPECT_EQ(ka[i], kb[i]);
    }
  }
  // The conv itself: a kernel of one tap 1 (the current token) is no conv.
  LatticeConfig one = pc;
  one.conv = 1;
  const LatticeModel withTap(one);
  std::vector<Tensor> w = withTap.weights();
  for (Tensor& t : w)
    if (t.name.rfind("conv_", 0) == 0) std::fill(t.data.begin(), t.data.end(), 1.0);
  std::vector<Tensor> plain;
  for (const Tensor& t : w)
    if (t.name.rfind("conv_", 0) != 0) plain.push_back(t);
  LatticeConfig none = pc;
  none.conv = 0;
  const Sequence x = gaussianRows(6, 10, 8);
  EXPECT_EQ(LatticeModel(one, w).run(x), LatticeModel(none, plain).run(x));
}

TEST(LatticeBlock, QkNormGivesUnitKeys) {
  LatticeConfig c;
  c.dIn = 6;
  c.d = 4;
  c.m = 5;
  c.heads = 2;
  c.activation = "silu";
  c.seed = 2;
  const Sequence x = gaussianRows(6, 30, 5, 2.0);
  Trace plain, normed;
  LatticeModel(c).run(x, &plain);
  c.qkNorm = "l2";
  LatticeModel(c).run(x, &normed);  // the same weights: qk_norm adds none
  for (const std::string p : {"", "head1/"})
    for (const char* name : {"k", "q"}) {
      const Vector &raw = plain.get(p + name).data, &unit = normed.get(p + name).data;
      for (size_t t = 0; t < 30; ++t) {
        double s = 0, n2 = 0;
        for (size_t i = 0; i < 5; ++i) s += raw[t * 5 + i] * raw[t * 5 + i];
        for (size_t i = 0; i < 5; ++i) {
          EXPECT_NEAR(unit[t * 5 + i], raw[t * 5 + i] / std::sqrt(s + 1e-6), 1e-15);
          n2 += unit[t * 5 + i] * unit[t * 5 + i];
        }
        EXPECT_NEAR(n2, s / (s + 1e-6), 1e-12) << p << name << " t = " << t;
      }
    }
  // v is left alone.
  EXPECT_EQ(plain.get("v").data, normed.get("v").data);
}

TEST(LatticeBlock, DeltaRuleWithUnitKeysStaysBounded) {
  // γ = σ(·) ∈ (0, 1): with unit keys I − γ k kᵀ has eigenvalues in [0, 1], so the state
  // stays within the values' scale; unnormalised keys of norm ~4 give γ‖k‖² > 2 at times,
  // an eigenvalue below −1, and a state that overflows.
  LatticeConfig c;
  c.dIn = 8;
  c.d = 4;
  c.m = 4;
  c.options.mode = LatticeMode::Delta;
  c.seed = 6;
  const Sequence x = gaussianRows(8, 3000, 7, 2.0);
  auto largest = [&](const LatticeConfig& cfg) {
    Trace trace;
    LatticeModel(cfg).run(x, &trace);
    double most = 0;
    for (const double s : trace.get("slots").data)
      most = std::isfinite(s) ? std::max(most, std::fabs(s)) : INFINITY;
    return most;
  };
  const double unnormalised = largest(c);
  c.qkNorm = "l2";
  const double normalised = largest(c);
  double vMost = 0;  // |v| ≤ ‖W_v‖·|x|: the scale the written values have
  Trace trace;
  LatticeModel(c).run(x, &trace);
  for (const double v : trace.get("v").data) vMost = std::max(vMost, std::fabs(v));
  std::printf("  delta, 3000 tokens: max |S| %.3g with l2 keys (max |v| %.3g), %.3g without\n",
              normalised, vMost, unnormalised);
  EXPECT_LT(normalised, 4 * vMost + 1);
  EXPECT_GT(unnormalised, 1e100);
}

TEST(LatticeBlock, InitialSlotsAreOrthonormal) {
  // init "random_orthonormal" with m ≤ d: S₀ S₀ᵀ = I (the slots' Gram matrix) for every head
  // of every layer; "identity" likewise.
  auto expectOrthonormal = [](const LatticeModel& model) {
    const LatticeConfig& c = model.settings();
    for (int l = 0; l < c.layerCount(); ++l)
      for (int h = 0; h < c.heads; ++h) {
        const LatticeSlots S = model.initialSlots(h, l);
        for (int i = 0; i < c.m; ++i)
          for (int j = 0; j < c.m; ++j) {
            double g = 0;
            for (int k = 0; k < c.d; ++k) g += S.slot(i)[k] * S.slot(j)[k];
            EXPECT_NEAR(g, i == j ? 1.0 : 0.0, 1e-12) << "layer " << l << " head " << h;
          }
      }
  };
  LatticeConfig tokens = tokenConfig();
  tokens.layers = 3;
  tokens.m = 5;
  for (const std::string init : {"random_orthonormal", "identity"}) {
    tokens.init = init;
    expectOrthonormal(LatticeModel(tokens));
    LatticeConfig projected;
    projected.heads = 3;
    projected.d = 16;
    projected.m = 16;
    projected.init = init;
    expectOrthonormal(LatticeModel(projected));
  }
  // The heads' and layers' S₀ differ (one generator drawn in turn).
  const LatticeModel model(tokenConfig());
  EXPECT_NE(model.initialSlots(0, 0).data, model.initialSlots(1, 0).data);
  EXPECT_NE(model.initialSlots(0, 0).data, model.initialSlots(0, 1).data);
}

TEST(LatticeBlock, S0FixedIsRecordedOnly) {
  LatticeConfig c = tokenConfig();
  const LatticeModel trained(c);
  c.s0 = "fixed";
  const LatticeModel fixed(c);
  EXPECT_EQ(fixed.config()["s0"], "fixed");
  EXPECT_EQ(fixed.weights(), trained.weights());
  const Sequence x = oneHotRows(10, 6, 4);
  EXPECT_EQ(fixed.run(x), trained.run(x));
}

}  // namespace
}  // namespace lsrl::seed_models
