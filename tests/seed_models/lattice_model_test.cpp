// The Lattice seed model (core/seed_models/lattice.h): config JSON and its errors, seeded
// init, explicit weights (the spec's L1 through the model), save/load, the trace's arrays
// and shapes, heads, the output gate, the task generators and bad input.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "common/expect_error.h"
#include "common/temp_path.h"
#include "core/seed_models/lattice.h"

namespace lsrl::seed_models {
namespace {

using testing_common::expectError;
using testing_common::tempPath;

LatticeConfig directConfig(int heads = 1) {
  LatticeConfig c;
  c.input = "direct";
  c.heads = heads;
  c.d = 3;
  c.m = 2;
  return c;
}

// §6.1's tokens packed as direct rows.
Sequence specRows() {
  return {packLatticeToken({{1, 0}, {0, 0, 1}, {1, 1}, 1.0, 1.0}),
          packLatticeToken({{0.5, 0.5}, {0, 1, 1}, {1, 0}, 1.0, 1.0}),
          packLatticeToken({{-1, 2}, {1, 1, 0}, {0.5, -1}, 0.5, 1.0})};
}

TEST(LatticeConfig, DefaultsAndJsonRoundTrip) {
  const LatticeConfig def;
  EXPECT_EQ(def.seed, 0u);
  EXPECT_EQ(def.heads, 1);
  const nlohmann::json j = def.toJson();
  EXPECT_EQ(j["mode"], "nosr");
  EXPECT_EQ(j["variant"], "dec");
  EXPECT_EQ(LatticeConfig::fromJson(nlohmann::json::object()).toJson(), j);
  nlohmann::json custom = j;
  custom["mode"] = "gated_deltanet";
  custom["variant"] = "enc";
  custom["heads"] = 2;
  custom["mu_mode"] = "sigmoid";
  custom["output_gate"] = true;
  EXPECT_EQ(LatticeConfig::fromJson(custom).toJson(), custom);
  EXPECT_EQ(LatticeConfig::fromJson({{"d", 5}}).d, 5);
}

TEST(LatticeConfig, BadKeysAndValuesAreNamed) {
  using J = nlohmann::json;
  expectError([] { LatticeConfig::fromJson({{"d", -2}}); }, "\"d\"", "got the number -2");
  expectError([] { LatticeConfig::fromJson({{"m", 2000000}}); }, "\"m\"", "1000000");
  expectError(
      [] {
        LatticeConfig::fromJson({{"d", 2000}, {"d_in", 2000}, {"m", 2000}});
      },
      "lattice config", "more than 1000000");
  expectError([] { LatticeConfig::fromJson({{"mode", "deltanet"}}); }, "\"mode\"", "\"deltanet\"");
  expectError(
      [] {
        LatticeConfig::fromJson({{"variant", "both"}});
      },
      "\"variant\"", "dec, enc, sim");
  expectError([] { LatticeConfig::fromJson({{"input", "raw"}}); }, "\"input\"", "projected");
  expectError([] { LatticeConfig::fromJson({{"heads", "two"}}); }, "\"heads\"", "integer");
  expectError(
      [] {
        LatticeConfig::fromJson({{"slots", 4}});
      },
      "\"slots\"", "not a lattice config key");
  expectError([] { LatticeConfig::fromJson({{"mu", 1.5}}); }, "\"mu\"", "[0, 1]");
  expectError([] { LatticeConfig::fromJson({{"seed", -1}}); }, "\"seed\"", "non-negative");
  // A seed written as a signed integer (as C++ ints become in JSON) is fine when >= 0.
  EXPECT_EQ(LatticeConfig::fromJson({{"seed", static_cast<int>(5)}}).seed, 5u);
  expectError([] { LatticeConfig::fromJson({{"eps", 0}}); }, "\"eps\"", "positive");
  expectError(
      [] {
        LatticeConfig::fromJson({{"chunk", 4}, {"mode", "delta"}});
      },
      "\"chunk\"", "nosr or osr");
  expectError(
      [] {
        LatticeConfig::fromJson({{"input", "direct"}, {"output_gate", true}});
      },
      "\"output_gate\"", "projected");
  expectError([] { LatticeConfig::fromJson(J::array()); }, "lattice config", "JSON object");
  LatticeConfig c;
  c.m = 0;
  expectError([&] { LatticeModel model(c); }, "\"m\"", "got 0");
}

TEST(LatticeModel, DefaultIsSmallAndSeeded) {
  const LatticeModel model{LatticeConfig{}};
  EXPECT_EQ(model.kind(), "lattice");
  EXPECT_EQ(model.inputWidth(), 3);
  EXPECT_EQ(model.outputWidth(), 3);
  EXPECT_TRUE(model.warnings().empty());
  EXPECT_EQ(model.tasks().front(), "rotating");
  Trace trace;
  const Sequence y = model.run(model.taskInput(model.tasks().front(), 0), &trace);
  EXPECT_EQ(y.size(), 48u);
  // Same seed, same weights; another seed, others.
  EXPECT_EQ(LatticeModel{LatticeConfig{}}.weights(), model.weights());
  LatticeConfig other;
  other.seed = 1;
  EXPECT_NE(LatticeModel{other}.weights(), model.weights());
  // S_0 = I by default, and NOSR keeps every slot on the sphere.
  EXPECT_EQ(model.initialSlots(0).data, identitySlots(3, 3).data);
  for (const double n : trace.get("slot_norms").data) EXPECT_NEAR(n, 1, 1e-12);
}

TEST(LatticeModel, SpecVectorL1ThroughDirectInput) {
  const LatticeModel model(directConfig(), {filled("s0", {1, 2, 3}, 0.0)});
  EXPECT_EQ(model.weights()[0].data, Vector(6, 0.0));  // explicit weights are used as given
  Tensor s0 = filled("s0", {1, 2, 3}, 0.0);
  s0.data[0] = s0.data[4] = 1;  // [e1 e2]
  const LatticeModel spec(directConfig(), {s0});
  EXPECT_EQ(spec.inputWidth(), 9);
  Trace trace;
  const Sequence y = spec.run(specRows(), &trace);
  const Vector want = {0.707107, 1,         0.707107,  0.419470, 0.229416,
                       0.878301, -0.842746, -0.288293, 0.004464};
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(y[i / 3][i % 3], want[i], 1e-6);
  EXPECT_NEAR(trace.get("slot_cosines").data[(2 * 2 + 0) * 2 + 1], 0.456647,
              1e-6);                                            // t=3, (s1, s2)
  EXPECT_NEAR(trace.get("write_strength").data[5], -1, 1e-12);  // t=3, slot 2
}

TEST(LatticeModel, TraceArraysAndShapes) {
  LatticeConfig c;
  c.d = 3;
  c.dIn = 5;
  c.init = "random_orthonormal";
  c.m = 3;
  const LatticeModel model(c);
  const Sequence x = model.taskInput("low_rank", 3);
  const auto T = static_cast<int64_t>(x.size());
  Trace trace;
  model.run(x, &trace);
  const std::vector<std::pair<std::string, std::vector<int64_t>>> shapes = {
      {"slots", {T, 3, 3}},
      {"slots_initial", {3, 3}},
      {"incoming", {T, 3}},
      {"parallel", {T, 3, 3}},
      {"orthogonal", {T, 3, 3}},
      {"delta", {T, 3, 3}},
      {"write_strength", {T, 3}},
      {"slot_norms", {T, 3}},
      {"slot_cosines", {T, 3, 3}},
      {"beta", {T, 3}},
      {"theta", {T, 3}},
      {"cos_in", {T, 3}},
      {"perp_frac", {T, 3}},
      {"pre_norms", {T, 3}},
      {"guarded", {T, 3}},
      {"error", {T, 3}},
      {"loss_before", {T}},
      {"loss_after", {T}},
      {"k", {T, 3}},
      {"v", {T, 3}},
      {"q", {T, 3}},
      {"gamma", {T}},
      {"mu", {T}},
      {"y", {T, 3}},
      {"output", {T, 3}}};
  for (const auto& [name, shape] : shapes) {
    ASSERT_TRUE(trace.has(name)) << name;
    EXPECT_EQ(trace.get(name).shape, shape) << name;
  }
  // parallel + orthogonal = incoming, per slot; orthogonal ⟂ the previous slot.
  const Tensor& in = trace.get("incoming");
  const Tensor& par = trace.get("parallel");
  const Tensor& perp = trace.get("orthogonal");
  const Tensor& slots = trace.get("slots");
  for (int64_t t = 0; t < T; ++t)
    for (int i = 0; i < 3; ++i) {
      double along = 0;
      for (int j = 0; j < 3; ++j) {
        const size_t at = (t * 3 + i) * 3 + j;
        EXPECT_NEAR(par.data[at] + perp.data[at], in.data[t * 3 + j], 1e-12);
        const double prev = t == 0 ? trace.get("slots_initial").data[i * 3 + j]
                                   : slots.data[((t - 1) * 3 + i) * 3 + j];
        along += perp.data[at] * prev;
      }
      EXPECT_NEAR(along, 0, 1e-12);
    }
  // Cosines: 1 on the diagonal; y = S_t q_t.
  for (int64_t t = 0; t < T; ++t) {
    for (int i = 0; i < 3; ++i)
      EXPECT_NEAR(trace.get("slot_cosines").data[(t * 3 + i) * 3 + i], 1, 1e-12);
    for (int j = 0; j < 3; ++j) {
      double y = 0;
      for (int i = 0; i < 3; ++i)
        y += slots.data[(t * 3 + i) * 3 + j] * trace.get("q").data[t * 3 + i];
      EXPECT_NEAR(trace.get("output").data[t * 3 + j], y, 1e-12);
    }
  }
  // The trace serialises for the explorer.
  EXPECT_EQ(trace.toJson("lattice")["arrays"]["slots"]["shape"], nlohmann::json({T, 3, 3}));
  // ENC's error is per slot; SIM has none.
  c.options.variant = LatticeVariant::Enc;
  Trace enc;
  LatticeModel(c).run(x, &enc);
  EXPECT_EQ(enc.get("error").shape, (std::vector<int64_t>{T, 3}));
  c.m = 2;
  c.options.variant = LatticeVariant::Enc;
  Trace enc2;
  LatticeModel(c).run(x, &enc2);
  EXPECT_EQ(enc2.get("error").shape, (std::vector<int64_t>{T, 2}));
  c.options.variant = LatticeVariant::Sim;
  Trace sim;
  LatticeModel(c).run(x, &sim);
  EXPECT_FALSE(sim.has("error"));
}

TEST(LatticeModel, HeadsAreIndependentAndTracedUnderTheirPrefix) {
  const LatticeModel two(directConfig(2), {[] {
                           Tensor s0 = filled("s0", {2, 2, 3}, 0.0);
                           for (int h = 0; h < 2; ++h) s0.data[h * 6 + 0] = s0.data[h * 6 + 4] = 1;
                           return s0;
                         }()});
  EXPECT_EQ(two.inputWidth(), 18);
  EXPECT_EQ(two.outputWidth(), 6);
  Sequence rows = specRows();
  const Sequence other = {packLatticeToken({{0, 1}, {1, 0, 0}, {0, 1}, 0.3, 1.0}),
                          packLatticeToken({{1, 1}, {0, 1, 0}, {1, 1}, 0.7, 0.5}),
                          packLatticeToken({{2, 0}, {0, 0, 1}, {1, 0}, 0.1, 1.0})};
  for (size_t t = 0; t < rows.size(); ++t)
    rows[t].insert(rows[t].end(), other[t].begin(), other[t].end());
  Trace trace;
  const Sequence y = two.run(rows, &trace);
  Tensor s0 = filled("s0", {1, 2, 3}, 0.0);
  s0.data[0] = s0.data[4] = 1;
  const LatticeModel one(directConfig(), {s0});
  const Sequence y0 = one.run(specRows()), y1 = one.run(other);
  for (size_t t = 0; t < 3; ++t)
    for (int j = 0; j < 3; ++j) {
      EXPECT_EQ(y[t][j], y0[t][j]);
      EXPECT_EQ(y[t][3 + j], y1[t][j]);
    }
  EXPECT_TRUE(trace.has("slots"));
  EXPECT_TRUE(trace.has("head1/slots"));
  EXPECT_EQ(trace.get("head1/orthogonal").shape, (std::vector<int64_t>{3, 2, 3}));
  EXPECT_EQ(trace.get("output").shape, (std::vector<int64_t>{3, 6}));
  // Direct tasks: each head its own stream.
  const Sequence task = two.taskInput("rotating", 5);
  ASSERT_EQ(task.size(), 48u);
  EXPECT_EQ(task[0].size(), 18u);
}

TEST(LatticeModel, SaveLoadRoundTripIsBitIdentical) {
  LatticeConfig c;
  c.heads = 2;
  c.dIn = 4;
  c.muMode = "sigmoid";
  c.activation = "silu";
  c.outputGate = true;
  c.init = "random_orthonormal";
  c.options.variant = LatticeVariant::Enc;
  c.seed = 12;
  const LatticeModel model(c);
  EXPECT_EQ(model.outputWidth(), 4);
  const std::string path = tempPath("lsrl_lattice_", "roundtrip.safetensors");
  model.save(path);
  const LatticeModel again = LatticeModel::load(path);
  EXPECT_EQ(again.config(), model.config());
  EXPECT_EQ(again.weights(), model.weights());
  const Sequence x = model.taskInput("recall", 2);
  Trace t1, t2;
  const Sequence y1 = model.run(x, &t1), y2 = again.run(x, &t2);
  EXPECT_EQ(y1, y2);
  EXPECT_EQ(t1.arrays(), t2.arrays());
  EXPECT_EQ(t1.get("mixer_output").shape, (std::vector<int64_t>{18, 6}));
  std::filesystem::remove(path);
}

TEST(LatticeModel, WeightShapeAndFileErrors) {
  LatticeConfig c;
  expectError([&] { LatticeModel(c, {}); }, "lattice weights", "no tensor \"w_k\"");
  std::vector<Tensor> w = LatticeModel(c).weights();
  w[0].shape = {1, 3, 2};
  w[0].data.resize(6);
  expectError([&] { LatticeModel(c, w); }, "\"w_k\"", "is [1, 3, 2], expected [1, 3, 3]");
  w = LatticeModel(c).weights();
  w[0].data.pop_back();
  expectError([&] { LatticeModel(c, w); }, "\"w_k\" values", "expected 9, got 8");
  w = LatticeModel(c).weights();
  w[0].shape = {1, 3, 2};
  w[0].data.resize(6);
  // A file whose config and tensors disagree names the file and the tensor.
  const std::string path = tempPath("lsrl_lattice_", "bad.safetensors");
  saveWeights(path, "lattice", c.toJson(), w);
  expectError([&] { LatticeModel::load(path); }, path, "\"w_k\" is [1, 3, 2]");
  saveWeights(path, "lattice", {{"mode", "nope"}}, w);
  expectError([&] { LatticeModel::load(path); }, path, "\"mode\"");
  saveWeights(path, "mingru", c.toJson(), w);
  expectError([&] { LatticeModel::load(path); }, path, "not lattice");
  std::filesystem::remove(path);
}

TEST(LatticeModel, BadInput) {
  const LatticeModel model{LatticeConfig{}};
  expectError([&] { model.run({{1, 2, 3}, {1, 2}}); }, "lattice", "expected 3");
  expectError([&] { model.taskInput("spiral", 0); }, "lattice", "known: rotating");
  // Empty in, empty out, with empty trace arrays of the right rank.
  Trace trace;
  EXPECT_TRUE(model.run({}, &trace).empty());
  EXPECT_EQ(trace.get("slots").shape, (std::vector<int64_t>{0, 3, 3}));
  EXPECT_EQ(trace.get("output").shape, (std::vector<int64_t>{0, 3}));
  // NaN propagates (reported by the values themselves, no throw).
  const Sequence y = model.run({{1, 0, 0}, {std::nan(""), 0, 0}, {0, 1, 0}});
  EXPECT_TRUE(std::isfinite(y[0][0]));
  EXPECT_TRUE(std::isnan(y[1][0]));
  EXPECT_TRUE(std::isnan(y[2][0]));
}

TEST(LatticeModel, TasksAreDeterministicAndShaped) {
  for (const bool direct : {false, true}) {
    LatticeConfig c;
    c.dIn = 4;
    if (direct) c.input = "direct";
    const LatticeModel model(c);
    for (const std::string& task : model.tasks()) {
      const Sequence a = model.taskInput(task, 3), b = model.taskInput(task, 3);
      EXPECT_EQ(a, b) << task;
      ASSERT_FALSE(a.empty()) << task;
      for (const Vector& row : a)
        EXPECT_EQ(static_cast<int>(row.size()), model.inputWidth()) << task;
      if (task != "parallel") {
        EXPECT_NE(model.taskInput(task, 4), a) << task;
      }
      EXPECT_EQ(model.run(a).size(), a.size());
    }
  }
}

TEST(LatticeModel, ModesAndGammaOptionsRunThroughTheModel) {
  const Sequence x = LatticeModel{LatticeConfig{}}.taskInput("rotating", 1);
  for (const char* mode : {"nosr", "osr", "l1", "output_normalised", "delta", "linear_attention",
                           "mamba2", "gated_deltanet"}) {
    const LatticeModel model(LatticeConfig::fromJson(
        {{"mode", mode}, {"gamma_mode", "constant"}, {"gamma", 0.5}, {"activation", "tanh"}}));
    Trace trace;
    const Sequence y = model.run(x, &trace);
    for (const Vector& row : y)
      for (const double v : row) EXPECT_TRUE(std::isfinite(v)) << mode;
    for (const double g : trace.get("gamma").data) EXPECT_EQ(g, 0.5);
  }
  const LatticeModel chunked(LatticeConfig::fromJson({{"chunk", 4}}));
  const LatticeModel exact{LatticeConfig{}};
  EXPECT_NE(chunked.run(x), exact.run(x));
  // m > d with the identity init: a warning and random unit slots.
  const LatticeModel wide(LatticeConfig::fromJson({{"m", 4}}));
  ASSERT_EQ(wide.warnings().size(), 1u);
  EXPECT_NE(wide.warnings()[0].find("m = 4 > d = 3"), std::string::npos);
  const LatticeSlots S = wide.initialSlots(0);
  for (int i = 0; i < 4; ++i) {
    double n2 = 0;
    for (int j = 0; j < 3; ++j) n2 += S.slot(i)[j] * S.slot(i)[j];
    EXPECT_NEAR(n2, 1, 1e-12);
  }
}

}  // namespace
}  // namespace lsrl::seed_models
