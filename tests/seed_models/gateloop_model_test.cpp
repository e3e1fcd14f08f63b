// GateLoop as a seed model (core/seed_models/gateloop.h): config JSON and its errors, seeded
// initialisation, the spec's G1 vector set as weights of a bare model, modes agreeing
// through the whole model, save/load, the trace's arrays and the tasks.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <numbers>

#include "common/expect_error.h"
#include "common/temp_path.h"
#include "core/seed_models/gateloop.h"

namespace lsrl::seed_models {
namespace {

using nlohmann::json;
using testing_common::expectError;
using testing_common::tempPath;

TEST(GateLoopConfig, DefaultsAreSmallAndRoundTrip) {
  const GateLoopConfig c;
  EXPECT_EQ(c.dModel, 8);
  EXPECT_EQ(c.layers, 1);
  EXPECT_EQ(c.dh, 1);
  EXPECT_EQ(c.seed, 0u);
  EXPECT_EQ(c.dIn(), 6);
  const json j = c.toJson();
  EXPECT_EQ(j["mode"], "recurrent");
  EXPECT_EQ(j["magnitude_activation"], "sigmoid");
  EXPECT_EQ(j["transitions"], "data");
  EXPECT_EQ(GateLoopConfig::fromJson(j).toJson(), j);
  EXPECT_EQ(GateLoopConfig::fromJson(json::object()).toJson(), j);

  const json custom = {{"d_model", 6},
                       {"d_h", 3},
                       {"layers", 2},
                       {"mode", "scan"},
                       {"seed", 12},
                       {"transitions", "fixed"},
                       {"phase_activation", "pi_tanh"},
                       {"output_projection", true},
                       {"modulus", 7},
                       {"task_length", 10}};
  const GateLoopConfig d = GateLoopConfig::fromJson(custom);
  EXPECT_EQ(d.heads(), 2);
  EXPECT_EQ(d.mode, GateLoopMode::Scan);
  EXPECT_FALSE(d.dataControlled);
  EXPECT_EQ(d.task.modulus, 7);
  EXPECT_EQ(GateLoopConfig::fromJson(d.toJson()).toJson(), d.toJson());
}

TEST(GateLoopConfig, BadKeysAndValuesAreNamed) {
  auto from = [](json j) { return [j] { GateLoopConfig::fromJson(j); }; };
  expectError(from({{"d_model", -3}}), "gateloop config",
              "\"d_model\": expected an integer in 1..");
  expectError(from({{"d_model", 2000000}}), "gateloop config", "\"d_model\"");
  expectError(from({{"d_model", 1000}}), "gateloop config", "more than 1000000");
  expectError(from({{"layers", "two"}}), "gateloop config", "\"layers\"");
  expectError(from({{"d_h", 3}}), "gateloop config", "\"d_h\": 3 does not divide d_model = 8");
  expectError(from({{"mode", "parallel"}}), "gateloop config",
              "\"mode\": unknown name \"parallel\"");
  expectError(from({{"magnitude_activation", "relu"}}), "gateloop config", "magnitude_activation");
  expectError(from({{"transitions", 1}}), "gateloop config", "\"transitions\"");
  expectError(from({{"layer_norm", "yes"}}), "gateloop config",
              "\"layer_norm\": expected true or false");
  expectError(from({{"seed", -1}}), "gateloop config", "\"seed\": expected a non-negative integer");
  expectError(from({{"task_resets", 64}}), "gateloop config", "\"task_resets\": 64 do not fit");
  expectError(from({{"task_length", -1}}), "gateloop config", "\"task_length\"");
  expectError(from({{"colour", 1}}), "gateloop config", "\"colour\": unknown key");
  expectError(from(json::array()), "gateloop config", "expected a JSON object");
  // Parsed text gives unsigned integers: the lower bound still applies.
  expectError(from(json::parse(R"({"d_model": 0})")), "gateloop config", "\"d_model\"");
  expectError(from(json::parse(R"({"d_out": 18446744073709551615})")), "gateloop config",
              "\"d_out\"");
}

TEST(GateLoopModel, SeededInitialisationIsDeterministic) {
  const GateLoopModel a, b;
  GateLoopConfig other;
  other.seed = 1;
  const GateLoopModel c(other);
  EXPECT_EQ(a.kind(), "gateloop");
  EXPECT_EQ(a.weights(), b.weights());
  EXPECT_NE(a.weights(), c.weights());
  EXPECT_EQ(a.inputWidth(), 6);
  EXPECT_EQ(a.outputWidth(), 50);
  const std::vector<GateLoopWeightSpec> specs = gateLoopWeightSpecs(a.settings());
  ASSERT_EQ(a.weights().size(), specs.size());
  for (size_t i = 0; i < specs.size(); ++i) {
    EXPECT_EQ(a.weights()[i].name, specs[i].name);
    EXPECT_EQ(a.weights()[i].shape, specs[i].shape);
  }
  EXPECT_EQ(a.weight("layers.0.q.weight").shape, (std::vector<int64_t>{8, 8}));
  EXPECT_EQ(a.weight("embed.weight").shape, (std::vector<int64_t>{8, 6}));
  EXPECT_EQ(a.weight("head.weight").shape, (std::vector<int64_t>{50, 8}));
  for (const double b : a.weight("layers.0.gamma.bias").data) {
    EXPECT_GE(b, 1.0);
    EXPECT_LT(b, 4.0);
  }
  for (const double g : a.weight("layers.0.norm1.weight").data) EXPECT_EQ(g, 1.0);
  expectError([&] { a.weight("nope"); }, "gateloop", "no weight \"nope\"");
  // Fixed transitions store the biases only; no output projection by default.
  GateLoopConfig fixed;
  fixed.dataControlled = false;
  const GateLoopModel f(fixed);
  expectError([&] { f.weight("layers.0.gamma.weight"); }, "gateloop", "gamma.weight");
  expectError([&] { a.weight("layers.0.out.weight"); }, "gateloop", "out.weight");
}

// A bare model (no LayerNorm, FFN or skips; identity embedding) whose weights hold the
// spec's G1 vector: token n is the one-hot e_n, so column n of each projection is the
// value at step n. Channel 3 is unused (k = 0).
GateLoopModel g1Model() {
  GateLoopConfig c;
  c.dModel = 3;
  c.dOut = 2;
  c.layerNorm = false;
  c.channelMixing = false;
  c.residual = false;
  c.task.maxNumber = 1;  // vocabulary 3
  c.task.length = 3;
  c.task.resets = 0;
  const double ln3 = std::log(3.0), ln4 = std::log(4.0), pi = std::numbers::pi;
  auto cols = [](const std::string& name, std::vector<double> ch1, std::vector<double> ch2) {
    Tensor t = filled(name, {3, 3}, 0.0);
    for (size_t n = 0; n < 3; ++n) {
      t.data[n] = ch1[n];
      t.data[3 + n] = ch2[n];
    }
    return t;
  };
  std::vector<Tensor> w;
  for (const GateLoopWeightSpec& s : gateLoopWeightSpecs(c))
    w.push_back(filled(s.name, s.shape, 0.0));
  auto set = [&](Tensor t) {
    for (Tensor& x : w)
      if (x.name == t.name) x = t;
  };
  Tensor embed = filled("embed.weight", {3, 3}, 0.0);
  embed.data = {1, 0, 0, 0, 1, 0, 0, 0, 1};
  set(embed);
  set(cols("layers.0.gamma.weight", {0, ln3, 0}, {ln4, ln4, -ln3}));
  set(cols("layers.0.theta.weight", {0, 0, 0}, {pi / 2, pi / 2, pi}));
  set(cols("layers.0.k.weight", {1, 2, 0}, {1, 0.5, 1}));
  set(cols("layers.0.v.weight", {1, -1, 3}, {2, 5, 1}));
  set(cols("layers.0.q.weight", {1, 1, 2}, {1, 1, 1}));
  Tensor head = filled("head.weight", {2, 3}, 0.0);
  head.data = {1, 0, 0, 0, 1, 0};
  set(head);
  return GateLoopModel(c, w);
}

TEST(GateLoopModel, G1AsWeightsOfABareModel) {
  const GateLoopModel m = g1Model();
  const Sequence x = oneHot({0, 1, 2}, 3);
  const double want[3][2] = {{1, 2}, {-1.25, 2.5}, {-1.25, 0.375}};
  for (const GateLoopMode mode :
       {GateLoopMode::Recurrent, GateLoopMode::Scan, GateLoopMode::ScanHillisSteele,
        GateLoopMode::Attention, GateLoopMode::AttentionNaive}) {
    const Sequence y = m.run(x, mode);
    ASSERT_EQ(y.size(), 3u);
    for (size_t n = 0; n < 3; ++n)
      for (size_t c = 0; c < 2; ++c)
        EXPECT_NEAR(y[n][c], want[n][c], 1e-6) << gateLoopModeName(mode);
  }
  Trace trace;
  m.run(x, &trace);
  const Tensor& mag = trace.get("a_magnitude");
  const Tensor& phase = trace.get("a_phase");
  EXPECT_NEAR(mag.data[3 * 1 + 0], 0.75, 1e-6);
  EXPECT_NEAR(mag.data[3 * 2 + 1], 0.25, 1e-6);
  EXPECT_NEAR(phase.data[3 * 2 + 1], std::numbers::pi, 1e-12);
  const Tensor& state = trace.get("state");  // [T][3][1][1][2]
  EXPECT_NEAR(state.data[(2 * 3 + 1) * 2], 0.375, 1e-6);
  EXPECT_NEAR(state.data[(2 * 3 + 1) * 2 + 1], -0.4, 1e-6);
  EXPECT_NEAR(state.data[(2 * 3 + 0) * 2], -0.625, 1e-6);
}

TEST(GateLoopModel, WeightErrorsNameTheTensor) {
  const GateLoopModel m;
  std::vector<Tensor> w = m.weights();
  w[1].shape = {3};
  expectError([&] { GateLoopModel(m.settings(), w); }, "gateloop weights",
              "\"" + w[1].name + "\" is [3], expected [8]");
  w = m.weights();
  w.pop_back();
  expectError([&] { GateLoopModel(m.settings(), w); }, "gateloop weights",
              "no tensor \"head.bias\"");
  w = m.weights();
  w.push_back(filled("extra", {1}, 0.0));
  expectError([&] { GateLoopModel(m.settings(), w); }, "gateloop weights",
              "unexpected tensor \"extra\"");
  w = m.weights();
  w[0].data[0] = INFINITY;
  expectError([&] { GateLoopModel(m.settings(), w); }, "gateloop weights", "non-finite");
}

TEST(GateLoopModel, ModesAgreeThroughTheWholeModel) {
  GateLoopConfig c;
  c.layers = 2;
  c.dh = 2;
  c.outputProjection = true;
  const GateLoopModel m(c);
  const Sequence x = m.taskInput("memory_horizon", 4);
  const Sequence ref = m.run(x, GateLoopMode::Recurrent);
  for (const GateLoopMode mode : {GateLoopMode::Scan, GateLoopMode::ScanHillisSteele,
                                  GateLoopMode::Attention, GateLoopMode::AttentionNaive}) {
    const Sequence y = m.run(x, mode);
    double scale = 0, diff = 0;
    for (size_t n = 0; n < y.size(); ++n)
      for (size_t i = 0; i < y[n].size(); ++i) {
        scale = std::max(scale, std::abs(ref[n][i]));
        diff = std::max(diff, std::abs(y[n][i] - ref[n][i]));
      }
    EXPECT_LE(diff, 1e-10 * scale) << gateLoopModeName(mode);
  }
  // Softmax attention is a different model, but runs and stays finite.
  for (const Vector& r : m.run(x, GateLoopMode::Softmax))
    for (const double v : r) EXPECT_TRUE(std::isfinite(v));
}

TEST(GateLoopModel, SaveLoadRoundTripIsBitIdentical) {
  GateLoopConfig c;
  c.mode = GateLoopMode::Attention;
  c.seed = 17;
  c.dh = 4;
  const GateLoopModel m(c);
  const std::string path = tempPath("lsrl_gateloop_", "roundtrip.safetensors");
  m.save(path);
  const GateLoopModel back = GateLoopModel::load(path);
  EXPECT_EQ(back.config(), m.config());
  EXPECT_EQ(back.weights(), m.weights());
  const Sequence x = m.taskInput("memory_horizon", 1);
  EXPECT_EQ(back.run(x), m.run(x));
  std::filesystem::remove(path);
}

TEST(GateLoopModel, LoadErrorsNameTheFile) {
  const std::string path = tempPath("lsrl_gateloop_", "bad.safetensors");
  saveWeights(path, "mingru", json::object(), {filled("w", {1}, 0)});
  expectError([&] { GateLoopModel::load(path); }, path, "not gateloop");
  saveWeights(path, "gateloop", {{"d_model", 0}}, {});
  expectError([&] { GateLoopModel::load(path); }, path, "\"d_model\"");
  GateLoopModel m;
  std::vector<Tensor> w = m.weights();
  w[2].shape = {8, 1};
  w[2].data.resize(8);
  saveWeights(path, "gateloop", m.config(), w);
  expectError([&] { GateLoopModel::load(path); }, path, "expected [");
  std::filesystem::remove(path);
}

TEST(GateLoopModel, TraceArraysAndShapes) {
  GateLoopConfig c;
  c.layers = 2;
  c.dh = 2;
  const GateLoopModel m(c);
  const Sequence x = m.taskInput("memory_horizon", 2);
  const int64_t T = 64, C = 8, H = 4;
  Trace trace;
  const Sequence y = m.run(x, &trace);
  const std::vector<std::pair<std::string, std::vector<int64_t>>> expected = {
      {"gamma_pre", {T, C}},
      {"theta_pre", {T, C}},
      {"a_magnitude", {T, C}},
      {"a_phase", {T, C}},
      {"memory_length", {T, C}},
      {"q", {T, C}},
      {"k", {T, C}},
      {"v", {T, C}},
      {"prefix_log", {T, C, 2}},
      {"state", {T, H, 2, 2, 2}},
      {"y", {T, C, 2}},
      {"attention", {H, T, T, 2}},
      {"mode_difference", {4}},
      {"layer_output", {T, C}}};
  for (const std::string prefix : {"", "layer1."})
    for (const auto& [name, shape] : expected)
      EXPECT_EQ(trace.get(prefix + name).shape, shape) << prefix + name;
  EXPECT_EQ(trace.get("output").shape, (std::vector<int64_t>{T, 50}));
  EXPECT_EQ(trace.get("output").data[50 * 3 + 7], y[3][7]);
  for (const double m : trace.get("a_magnitude").data) {
    EXPECT_GT(m, 0.0);
    EXPECT_LT(m, 1.0);
  }
  for (const double d : trace.get("mode_difference").data) EXPECT_LT(d, 1e-10);
  // The trace does not change the result.
  EXPECT_EQ(m.run(x), y);
  EXPECT_FALSE(trace.has("layer2.q"));
}

TEST(GateLoopModel, InputErrorsEmptyAndNonFinite) {
  const GateLoopModel m;
  expectError([&] { m.run(Sequence{Vector(5, 0.0)}); }, "gateloop",
              "token 0 has 5 features, expected 6");
  Trace trace;
  EXPECT_TRUE(m.run(Sequence{}, &trace).empty());
  EXPECT_EQ(trace.get("output").shape, (std::vector<int64_t>{0, 50}));
  EXPECT_EQ(trace.get("state").shape, (std::vector<int64_t>{0, 8, 1, 1, 2}));
  Sequence x = m.taskInput("memory_horizon", 0);
  x[5][0] = std::nan("");
  const Sequence y = m.run(x);
  for (size_t n = 0; n < y.size(); ++n) EXPECT_EQ(std::isfinite(y[n][0]), n < 5) << n;
}

// Its speed is a benchmark's business (lsrl bench models), not a timed test's.
TEST(GateLoopModel, DefaultTaskRunsWithATrace) {
  const GateLoopModel m;
  const Sequence x = m.taskInput(m.tasks()[0], 0);
  Trace trace;
  EXPECT_EQ(m.run(x, &trace).size(), x.size());
  EXPECT_TRUE(trace.has("output"));
}

TEST(GateLoopModel, TasksAreDeterministicWithTheRightShapes) {
  const GateLoopModel m;
  EXPECT_EQ(m.tasks(), (std::vector<std::string>{"memory_horizon", "sum_since_reset", "tick"}));
  for (const std::string& task : m.tasks()) {
    const Sequence a = m.taskInput(task, 3), b = m.taskInput(task, 3);
    EXPECT_EQ(a, b) << task;
    ASSERT_EQ(a.size(), 64u) << task;
    for (const Vector& row : a) {
      ASSERT_EQ(row.size(), 6u);
      double sum = 0;
      for (const double v : row) sum += v;
      EXPECT_EQ(sum, 1.0);
    }
    EXPECT_EQ(m.taskTargets(task, 3).size(), 64u);
  }
  EXPECT_NE(m.taskInput("memory_horizon", 3), m.taskInput("memory_horizon", 4));
  int resets = 0;
  for (const Vector& row : m.taskInput("memory_horizon", 3)) resets += row[5] == 1.0;
  EXPECT_EQ(resets, 3);
  for (const double t : m.taskTargets("memory_horizon", 3)) {
    EXPECT_GE(t, 0);
    EXPECT_LT(t, 50);
  }
  EXPECT_EQ(m.taskTargets("tick", 0)[10], 10.0);
  expectError([&] { m.taskInput("copying", 0); }, "gateloop", "unknown task \"copying\"");
}

}  // namespace
}  // namespace lsrl::seed_models
