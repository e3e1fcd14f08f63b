// minGRU and minLSTM as seed models (core/seed_models/mingru.h, minlstm.h, min_rnn_model.h):
// config JSON and its errors, seeded initialisation, the spec's M4 vector as weights,
// the three modes agreeing through whole (stacked) models, save/load, the trace's arrays,
// the tasks and the hand-set hold toy, bad input.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>

#include "common/expect_error.h"
#include "common/temp_path.h"
#include "common/vector_compare.h"
#include "core/seed_models/mingru.h"
#include "core/seed_models/minlstm.h"

namespace lsrl::seed_models {
namespace {

using nlohmann::json;
using testing_common::expectError;
using testing_common::maxDiff;
using testing_common::tempPath;

// Both cells from one config, for the tests that hold for either.
std::vector<std::unique_ptr<MinRnnModel>> bothModels(const MinRnnConfig& c = {}) {
  std::vector<std::unique_ptr<MinRnnModel>> out;
  out.push_back(std::make_unique<MinGruModel>(c));
  out.push_back(std::make_unique<MinLstmModel>(c));
  return out;
}

TEST(MinRnnConfig, DefaultsAreSmallAndRoundTrip) {
  const MinRnnConfig c;
  EXPECT_EQ(c.dModel, 8);
  EXPECT_EQ(c.dh, 8);
  EXPECT_EQ(c.layers, 1);
  EXPECT_EQ(c.seed, 0u);
  EXPECT_EQ(c.dIn(), 16);
  const json j = c.toJson();
  EXPECT_EQ(j["variant"], "log");
  EXPECT_EQ(j["mode"], "sequential");
  EXPECT_EQ(j["vocabulary"], 16);
  EXPECT_EQ(MinGruConfig::fromJson(j).toJson(), j);
  EXPECT_EQ(MinLstmConfig::fromJson(json::object()).toJson(), j);

  const json custom = {{"d_model", 6},        {"d_h", 12},       {"layers", 3},
                       {"mode", "log_space"}, {"seed", 12},      {"layer_norm", false},
                       {"residual", false},   {"d_out", 5},      {"vocabulary", 5},
                       {"task_length", 10},   {"data_tokens", 2}};
  const MinRnnConfig d = MinGruConfig::fromJson(custom);
  EXPECT_EQ(d.mode, MinRnnMode::LogSpace);
  EXPECT_EQ(d.task.length, 10);
  EXPECT_FALSE(d.layerNorm);
  EXPECT_EQ(MinLstmConfig::fromJson(d.toJson()).toJson(), d.toJson());
}

TEST(MinRnnConfig, BadKeysAndValuesAreNamed) {
  auto gru = [](json j) { return [j] { MinGruConfig::fromJson(j); }; };
  auto lstm = [](json j) { return [j] { MinLstmConfig::fromJson(j); }; };
  expectError(gru({{"d_h", -3}}), "mingru config", "\"d_h\": expected an integer in 1..");
  expectError(lstm({{"d_model", 2000000}}), "minlstm config", "\"d_model\"");
  expectError(gru({{"d_model", 1000}, {"d_h", 1000}}), "mingru config", "more than 1000000");
  expectError(gru({{"layers", "two"}}), "mingru config", "\"layers\"");
  expectError(gru({{"mode", "scan"}}), "mingru config", "\"mode\": unknown name \"scan\"");
  expectError(gru({{"variant", "complex"}}), "mingru config", "\"variant\": unknown name");
  expectError(lstm({{"variant", "vanilla"}, {"mode", "log_space"}}), "minlstm config",
              "\"mode\": log_space needs \"variant\": \"log\"");
  expectError(gru({{"layer_norm", "yes"}}), "mingru config", "\"layer_norm\": expected true");
  expectError(gru({{"seed", -1}}), "mingru config", "\"seed\": expected a non-negative integer");
  expectError(gru({{"vocabulary", 2}}), "mingru config", "\"vocabulary\"");
  expectError(gru({{"data_tokens", 65}}), "mingru config", "data_tokens 65 do not fit length 64");
  expectError(gru({{"task_length", -1}}), "mingru config", "\"task_length\"");
  expectError(gru({{"colour", 1}}), "mingru config", "\"colour\": unknown key");
  expectError(gru(json::array()), "mingru config", "expected a JSON object");
  expectError(gru(json::parse(R"({"d_model": 0})")), "mingru config", "\"d_model\"");
  expectError(gru(json::parse(R"({"d_out": 18446744073709551615})")), "mingru config", "\"d_out\"");
  // A config built in code is checked by the constructor.
  MinRnnConfig bad;
  bad.dh = 0;
  expectError([&] { MinGruModel m(bad); }, "mingru config", "\"d_h\"");
}

TEST(MinRnnModel, SeededInitialisationIsDeterministic) {
  MinRnnConfig other;
  other.seed = 1;
  for (const MinRnnCell cell : {MinRnnCell::Gru, MinRnnCell::Lstm}) {
    const bool gru = cell == MinRnnCell::Gru;
    auto make = [&](const MinRnnConfig& c) -> std::unique_ptr<MinRnnModel> {
      if (gru) return std::make_unique<MinGruModel>(c);
      return std::make_unique<MinLstmModel>(c);
    };
    const auto a = make({}), b = make({}), c = make(other);
    EXPECT_EQ(a->kind(), gru ? "mingru" : "minlstm");
    EXPECT_EQ(a->cell(), cell);
    EXPECT_EQ(a->weights(), b->weights());
    EXPECT_NE(a->weights(), c->weights());
    EXPECT_EQ(a->inputWidth(), 16);
    EXPECT_EQ(a->outputWidth(), 16);
    const std::vector<MinRnnWeightSpec> specs = minRnnWeightSpecs(a->settings(), cell);
    ASSERT_EQ(a->weights().size(), specs.size());
    EXPECT_EQ(specs.size(), gru ? 11u : 13u);
    for (size_t i = 0; i < specs.size(); ++i) {
      EXPECT_EQ(a->weights()[i].name, specs[i].name);
      EXPECT_EQ(a->weights()[i].shape, specs[i].shape);
    }
    EXPECT_EQ(a->weight("embed.weight").shape, (std::vector<int64_t>{8, 16}));
    EXPECT_EQ(a->weight("layers.0.h.weight").shape, (std::vector<int64_t>{8, 8}));
    EXPECT_EQ(a->weight("layers.0.out.weight").shape, (std::vector<int64_t>{8, 8}));
    EXPECT_EQ(a->weight("head.weight").shape, (std::vector<int64_t>{16, 8}));
    for (const std::string& gate : minRnnGateLinears(cell))
      for (const double w : a->weight("layers.0." + gate + ".bias").data) {
        EXPECT_GE(w, -1 / std::sqrt(8.0));  // nn.Linear: U(±1/√fan_in)
        EXPECT_LT(w, 1 / std::sqrt(8.0));
      }
    for (const double g : a->weight("layers.0.norm.weight").data) EXPECT_EQ(g, 1.0);
    expectError([&] { a->weight("nope"); }, a->kind(), "no weight \"nope\"");
  }
  expectError([] { MinGruModel().weight("layers.0.f.weight"); }, "mingru", "f.weight");
}

// §6.3 M4 through the model: a bare model (no LayerNorm, no skip) with the identity as
// projection and head, so the output is h_t. The embedding reads the first two of three
// input features (the vocabulary has at least 3 ids), so the cell sees x = (1,0), (0,1), (1,1).
MinGruModel m4Model() {
  MinRnnConfig c;
  c.dModel = c.dh = c.dOut = 2;
  c.task = SelectiveCopyParams{3, 4, 1};
  c.variant = MinRnnVariant::Vanilla;
  c.layerNorm = c.residual = false;
  const std::vector<Tensor> w = {{"embed.weight", {2, 3}, Tensor::F64, {1, 0, 0, 0, 1, 0}},
                                 {"layers.0.z.weight", {2, 2}, Tensor::F64, {1, -1, 0.5, 2}},
                                 {"layers.0.z.bias", {2}, Tensor::F64, {0, -1}},
                                 {"layers.0.h.weight", {2, 2}, Tensor::F64, {2, 0, -1, 1}},
                                 {"layers.0.h.bias", {2}, Tensor::F64, {0.5, 0}},
                                 {"layers.0.out.weight", {2, 2}, Tensor::F64, {1, 0, 0, 1}},
                                 {"layers.0.out.bias", {2}, Tensor::F64, {0, 0}},
                                 {"head.weight", {2, 2}, Tensor::F64, {1, 0, 0, 1}},
                                 {"head.bias", {2}, Tensor::F64, {0, 0}}};
  return MinGruModel(c, w);
}

const Sequence kM4Input = {{1, 0, 0}, {0, 1, 0}, {1, 1, 0}};

TEST(MinRnnModel, M4ExplicitWeights) {
  const MinGruModel model = m4Model();
  Trace trace;
  const Sequence h = model.run(kM4Input, &trace);
  const Sequence want = {{1.827646, -0.377541}, {1.470587, 0.629522}, {1.985294, 0.114841}};
  EXPECT_LT(maxDiff(h, want), 1e-6);
  const std::vector<double> zPre = {1, -0.5, -1, 1, 0, 1.5};
  const std::vector<double> z = {0.731059, 0.377541, 0.268941, 0.731059, 0.5, 0.817574};
  const std::vector<double> hTilde = {2.5, -1, 0.5, 1, 2.5, 0};
  for (size_t i = 0; i < 6; ++i) {
    EXPECT_NEAR(trace.get("z_pre").data[i], zPre[i], 1e-12);
    EXPECT_NEAR(trace.get("z").data[i], z[i], 1e-6);
    EXPECT_NEAR(trace.get("h_tilde").data[i], hTilde[i], 1e-12);
    EXPECT_NEAR(trace.get("hidden").data[i], want[i / 2][i % 2], 1e-6);
  }
  EXPECT_EQ(maxDiff(model.run(kM4Input, MinRnnMode::Parallel), h) < 1e-12, true);
  expectError([&] { model.run(kM4Input, MinRnnMode::LogSpace); }, "mingru",
              "log_space mode needs the \"log\" variant");
}

// The acceptance property through whole models: two stacked layers with LayerNorm and
// skips, an expansion d_h > d_model, a selective-copying input and random real rows.
TEST(MinRnnModel, ModesAgreeThroughTheModel) {
  MinRnnConfig c;
  c.layers = 2;
  c.dh = 12;
  c.seed = 4;
  for (const auto& model : bothModels(c)) {
    Sequence random;
    Rng rng(2);
    for (int t = 0; t < 40; ++t) {
      Vector row;
      for (int i = 0; i < 16; ++i) row.push_back(rng.uniform(-2, 2));
      random.push_back(row);
    }
    for (const Sequence& x : {model->taskInput("selective_copy", 7), random}) {
      const Sequence s = model->run(x, MinRnnMode::Sequential);
      EXPECT_LT(maxDiff(model->run(x, MinRnnMode::Parallel), s), 1e-10) << model->kind();
      EXPECT_LT(maxDiff(model->run(x, MinRnnMode::LogSpace), s), 1e-10) << model->kind();
      EXPECT_EQ(model->run(x), s);  // the config's mode is sequential
    }
    // The vanilla variant: sequential = parallel.
    MinRnnConfig v = c;
    v.variant = MinRnnVariant::Vanilla;
    for (const auto& vanilla : bothModels(v)) {
      const Sequence x = vanilla->taskInput("selective_copy", 1);
      EXPECT_LT(maxDiff(vanilla->run(x, MinRnnMode::Parallel), vanilla->run(x)), 1e-10);
    }
  }
}

TEST(MinRnnModel, TraceArraysAndShapes) {
  MinRnnConfig c;
  c.layers = 2;
  c.dh = 6;
  for (const auto& model : bothModels(c)) {
    const Sequence x = model->taskInput("selective_copy", 0);
    const int64_t T = static_cast<int64_t>(x.size()), H = 6, D = 8;
    Trace trace;
    const Sequence y = model->run(x, &trace);
    const std::vector<std::string> gates =
        model->cell() == MinRnnCell::Gru
            ? std::vector<std::string>{"z_pre", "z"}
            : std::vector<std::string>{"f_pre", "i_pre", "f", "i", "f_prime", "i_prime"};
    for (const std::string prefix : {"", "layer1."}) {
      for (const std::string& name : gates)
        EXPECT_EQ(trace.get(prefix + name).shape, (std::vector<int64_t>{T, H})) << name;
      for (const std::string name : {"h_pre", "h_tilde", "hidden"})
        EXPECT_EQ(trace.get(prefix + name).shape, (std::vector<int64_t>{T, H})) << name;
      EXPECT_EQ(trace.get(prefix + "h0").data, std::vector<double>(6, 0.5));  // g(0)
      EXPECT_EQ(trace.get(prefix + "attention").shape, (std::vector<int64_t>{H, T, T + 1}));
      EXPECT_EQ(trace.get(prefix + "retention").shape, (std::vector<int64_t>{H, T, T + 1}));
      EXPECT_EQ(trace.get(prefix + "layer_output").shape, (std::vector<int64_t>{T, D}));
      const Tensor& diff = trace.get(prefix + "mode_difference");
      ASSERT_EQ(diff.shape, (std::vector<int64_t>{2}));
      EXPECT_LT(diff.data[0], 1e-10);
      EXPECT_LT(diff.data[1], 1e-10);
      for (const double h : trace.get(prefix + "hidden").data) EXPECT_GT(h, 0);  // log variant
      for (const double h : trace.get(prefix + "h_tilde").data) EXPECT_GT(h, 0);
    }
    EXPECT_FALSE(trace.has("layer2.hidden"));
    EXPECT_EQ(trace.get("output").shape, (std::vector<int64_t>{T, 16}));
    for (size_t t = 0; t < y.size(); ++t)
      for (size_t i = 0; i < 16; ++i) EXPECT_EQ(trace.get("output").data[t * 16 + i], y[t][i]);
    // The state is a convex combination of h0 and the candidates (implicit attention).
    const Tensor& w = trace.get("attention");
    const Tensor& tilde = trace.get("h_tilde");
    const Tensor& hidden = trace.get("hidden");
    for (int64_t u = 0; u < H; ++u)
      for (int64_t t = 0; t < T; t += 17) {
        auto weight = [&](int64_t m) {
          return w.data[static_cast<size_t>((u * T + t) * (T + 1) + m)];
        };
        auto at = [&](const Tensor& a, int64_t row) {
          return a.data[static_cast<size_t>(row * H + u)];
        };
        double h = weight(0) * 0.5;
        for (int64_t m = 1; m <= t + 1; ++m) h += weight(m) * at(tilde, m - 1);
        EXPECT_NEAR(h, at(hidden, t), 1e-12);
      }
    // minLSTM: f' = f / (f + i) from the raw gates.
    if (model->cell() == MinRnnCell::Lstm) {
      const Tensor &f = trace.get("f"), &i = trace.get("i"), &fp = trace.get("f_prime"),
                   &ip = trace.get("i_prime");
      for (size_t n = 0; n < f.data.size(); ++n) {
        EXPECT_NEAR(fp.data[n], f.data[n] / (f.data[n] + i.data[n]), 1e-14);
        EXPECT_NEAR(fp.data[n] + ip.data[n], 1, 1e-14);
      }
    }
    // Vanilla: no log_space difference (NaN), h0 = 0.
    MinRnnConfig v = c;
    v.variant = MinRnnVariant::Vanilla;
    for (const auto& vanilla : bothModels(v)) {
      Trace tv;
      vanilla->run(x, &tv);
      EXPECT_TRUE(std::isnan(tv.get("mode_difference").data[1]));
      EXPECT_EQ(tv.get("h0").data, std::vector<double>(6, 0.0));
    }
  }
  // Long sequences leave out the T×T arrays.
  MinRnnConfig longTask;
  longTask.task.length = 300;
  Trace trace;
  const MinGruModel model(longTask);
  model.run(model.taskInput("selective_copy", 0), &trace);
  EXPECT_TRUE(trace.has("hidden"));
  EXPECT_FALSE(trace.has("attention"));
}

TEST(MinRnnModel, SaveLoadRoundTripIsBitIdentical) {
  MinRnnConfig c;
  c.layers = 2;
  c.seed = 9;
  c.mode = MinRnnMode::Parallel;
  const MinGruModel gru(c);
  const MinLstmModel lstm(c);
  const std::string pg = tempPath("lsrl_min_", "gru.safetensors"),
                    pl = tempPath("lsrl_min_", "lstm.safetensors");
  gru.save(pg);
  saveSeedModel(lstm, pl);
  const MinGruModel gru2 = MinGruModel::load(pg);
  const MinLstmModel lstm2 = MinLstmModel::load(pl);
  EXPECT_EQ(gru2.weights(), gru.weights());
  EXPECT_EQ(gru2.config(), gru.config());
  EXPECT_EQ(lstm2.weights(), lstm.weights());
  const Sequence x = gru.taskInput("selective_copy", 5);
  EXPECT_EQ(gru2.run(x), gru.run(x));
  EXPECT_EQ(lstm2.run(x), lstm.run(x));
  // Wrong kind, wrong shape, missing and extra tensors are named.
  expectError([&] { MinLstmModel::load(pg); }, pg, "holds a mingru model, not minlstm");
  std::vector<Tensor> w = gru.weights();
  w[1].shape = {3, 3};
  w[1].data.resize(9);
  saveWeights(pg, "mingru", c.toJson(), w);
  expectError([&] { MinGruModel::load(pg); }, pg,
              "tensor \"layers.0.norm.weight\" is [3, 3], expected [8]");
  w = gru.weights();
  w.pop_back();
  saveWeights(pg, "mingru", c.toJson(), w);
  expectError([&] { MinGruModel::load(pg); }, pg, "no tensor \"head.bias\"");
  w = gru.weights();
  w.push_back(filled("extra", {1}, 0));
  saveWeights(pg, "mingru", c.toJson(), w);
  expectError([&] { MinGruModel::load(pg); }, "mingru weights", "unexpected tensor \"extra\"");
  json bad = c.toJson();
  bad["mode"] = "fast";
  saveWeights(pg, "mingru", bad, gru.weights());
  expectError([&] { MinGruModel::load(pg); }, pg, "\"mode\": unknown name \"fast\"");
  w = gru.weights();
  w[0].data[0] = std::nan("");
  expectError([&] { MinGruModel(c, w); }, "mingru weights", "non-finite entry");
  std::filesystem::remove(pg);
  std::filesystem::remove(pl);
}

TEST(MinRnnModel, TasksAndHoldToy) {
  for (const auto& model : bothModels()) {
    EXPECT_EQ(model->tasks(), (std::vector<std::string>{"selective_copy", "hold"}));
    const Sequence x = model->taskInput("selective_copy", 3);
    ASSERT_EQ(x.size(), 68u);
    for (const Vector& row : x) EXPECT_EQ(row.size(), 16u);
    EXPECT_EQ(model->taskInput("selective_copy", 3), x);
    EXPECT_NE(model->taskInput("selective_copy", 4), x);
    EXPECT_EQ(model->taskInput("hold", 3).size(), 64u);
    EXPECT_EQ(model->taskTargets("selective_copy", 3).size(), 68u);
    expectError([&] { model->taskInput("copy", 0); }, model->kind(), "unknown task \"copy\"");
    expectError([&] { model->taskTargets("copy", 0); }, model->kind(), "unknown task");
  }
  // The hand-set toy latches the latest data token: argmax of the logits is the target.
  const SelectiveCopyParams p{16, 128, 8};
  const MinGruModel gru = MinGruModel::hold(p);
  const MinLstmModel lstm = MinLstmModel::hold(p);
  for (const MinRnnModel* model :
       {static_cast<const MinRnnModel*>(&gru), static_cast<const MinRnnModel*>(&lstm)}) {
    for (uint64_t seed = 0; seed < 5; ++seed) {
      const std::vector<int> targets = model->taskTargets("hold", seed);
      Trace trace;
      const Sequence y = model->run(model->taskInput("hold", seed), &trace);
      for (size_t t = 0; t < y.size(); ++t) {
        if (targets[t] < 0) continue;
        const auto best = std::max_element(y[t].begin(), y[t].end()) - y[t].begin();
        EXPECT_EQ(best, targets[t]) << model->kind() << " seed " << seed << " step " << t;
        EXPECT_GT(y[t][static_cast<size_t>(best)], 0.99);
      }
      // The gate opens on data tokens and shuts on noise (§5.3).
      const std::vector<int> tokens = holdTokens(p, seed);
      const Tensor& w = trace.get(model->cell() == MinRnnCell::Gru ? "z" : "i_prime");
      for (size_t t = 0; t < tokens.size(); ++t)
        EXPECT_NEAR(w.data[t * 16], tokens[t] != 0 ? 1.0 : 0.0, 1e-8) << t;
    }
  }
}

TEST(MinRnnModel, BadInputNeverCrashes) {
  for (const auto& model : bothModels()) {
    expectError(
        [&] {
          model->run({Vector(16, 0.0), Vector(3, 0.0)});
        },
        model->kind(), "token 1 has 3 features, expected 16");
    EXPECT_TRUE(model->run({}).empty());
    Trace trace;
    EXPECT_TRUE(model->run({}, &trace).empty());
    EXPECT_EQ(trace.get("hidden").shape, (std::vector<int64_t>{0, 8}));
    // NaN / Inf in token 5 reach outputs 5.. only, in every mode.
    Sequence x = model->taskInput("selective_copy", 2);
    x[5][3] = std::nan("");
    x[9][0] = std::numeric_limits<double>::infinity();
    for (const MinRnnMode mode :
         {MinRnnMode::Sequential, MinRnnMode::Parallel, MinRnnMode::LogSpace}) {
      const Sequence y = model->run(x, mode);
      for (size_t t = 0; t < y.size(); ++t)
        for (const double v : y[t]) EXPECT_EQ(std::isfinite(v), t < 5) << t;
    }
    expectError([&] { model->layerGates(1, {}); }, model->kind(), "layer 1 out of range 0..0");
    expectError([&] { model->layerGates(0, {Vector(3, 0.0)}); }, "layer input", "expected 8");
  }
}

TEST(MinRnnModel, RegistryFacingTypesAndDefaultSpeed) {
  // The registry's factoryOf needs Config::fromJson, Model(config), Model(config, weights).
  const MinGruModel a(MinGruConfig::fromJson({{"seed", 3}}));
  MinRnnConfig c;
  c.seed = 3;
  const MinLstmModel b(MinLstmConfig::fromJson({{"seed", 3}}), MinLstmModel(c).weights());
  EXPECT_EQ(a.settings().seed, 3u);
  EXPECT_EQ(b.settings().seed, 3u);
  // The default model runs its default task with a full trace.
  for (const auto& model : bothModels()) {
    Trace trace;
    model->run(model->taskInput(model->tasks().front(), 0), &trace);
    EXPECT_TRUE(trace.has("hidden")) << model->kind();
  }
}

}  // namespace
}  // namespace lsrl::seed_models
