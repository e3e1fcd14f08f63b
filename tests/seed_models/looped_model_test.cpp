// The looped transformer as a seed model (core/seed_models/looped.h): config JSON and its
// errors, seeded initialisation, the §6.3 properties (γ = 0 is the identity on every loop,
// α = γ = 1 is the plain block, r = 0 gives E, folding α, γ into the weights, permutation
// equivariance), save/load, trace arrays and shapes, bad input.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "common/expect_error.h"
#include "common/temp_path.h"
#include "common/vector_compare.h"
#include "core/seed_models/looped.h"

namespace lsrl::seed_models {
namespace {

using nlohmann::json;
using testing_common::expectError;
using testing_common::maxDiff;
using testing_common::tempPath;

std::vector<Tensor> withTensor(std::vector<Tensor> w, const std::string& name, double value) {
  for (Tensor& t : w)
    if (t.name == name) std::fill(t.data.begin(), t.data.end(), value);
  return w;
}

TEST(LoopedConfig, DefaultsAreSmallAndRoundTrip) {
  const LoopedConfig c;
  EXPECT_EQ(c.d, 32);
  EXPECT_EQ(c.heads * c.headDim, 32);
  EXPECT_EQ(c.loops, 8);
  EXPECT_EQ(c.seed, 0u);
  const json j = c.toJson();
  EXPECT_EQ(j["timestep"], "tmlt");
  EXPECT_EQ(j["scoring"], "softmax");
  EXPECT_EQ(j["inject"], "none");
  EXPECT_EQ(j["x0"], "input");
  EXPECT_EQ(j["pe_layout"], "cos_sin");
  EXPECT_EQ(LoopedConfig::fromJson(j).toJson(), j);
  EXPECT_EQ(LoopedConfig::fromJson(json::object()).toJson(), j);

  const json custom = {{"d", 12},
                       {"heads", 3},
                       {"timestep", "plain"},
                       {"scoring", "hardmax"},
                       {"inject", "add_input"},
                       {"x0", "zero"},
                       {"norm", "none"},
                       {"activation", "relu"},
                       {"softmax_lambda", 2.5},
                       {"pe_layout", "sin_cos_interleaved"},
                       {"modulation_init", "zero"},
                       {"seed", 9},
                       {"sudoku_box", 3},
                       {"sudoku_blanks", 40}};
  const LoopedConfig d = LoopedConfig::fromJson(custom);
  EXPECT_EQ(d.headDim, 4);  // d / heads when "head_dim" is missing
  EXPECT_EQ(d.timestep, LoopedTimestep::Plain);
  EXPECT_EQ(d.scoring, LoopedScoring::Hardmax);
  EXPECT_TRUE(d.inject);
  EXPECT_TRUE(d.x0Zero);
  EXPECT_TRUE(d.zeroModulationInit);
  EXPECT_EQ(d.softmaxLambda, 2.5);
  EXPECT_EQ(d.peLayout, PeLayout::SinCosInterleaved);
  EXPECT_EQ(LoopedConfig::fromJson(d.toJson()).toJson(), d.toJson());
  EXPECT_EQ(LoopedConfig::fromJson({{"d", 10}, {"heads", 3}, {"head_dim", 2}}).headDim, 2);
}

TEST(LoopedConfig, BadKeysAndValuesAreNamed) {
  auto from = [](json j) { return [j] { LoopedConfig::fromJson(j); }; };
  expectError(from({{"d", -3}}), "looped config", "\"d\": expected an integer in 1..");
  expectError(from({{"d", 2000000}}), "looped config", "\"d\"");
  expectError(from({{"d", 600}}), "looped config", "more than 1000000 weights");
  expectError(from({{"heads", 5}}), "looped config", "\"heads\": 5 do not divide d = 32");
  expectError(from({{"loops", -1}}), "looped config", "\"loops\"");
  expectError(from({{"timestep", "adaln"}}), "looped config",
              "\"timestep\": unknown name \"adaln\" (expected one of tmlt, plain)");
  expectError(from({{"scoring", "sparsemax"}}), "looped config", "\"scoring\"");
  expectError(from({{"inject", true}}), "looped config", "\"inject\": expected one of none");
  expectError(from({{"x0", "E"}}), "looped config", "\"x0\": unknown name");
  expectError(from({{"softmax_lambda", 0}}), "looped config",
              "\"softmax_lambda\": expected a finite number > 0");
  expectError(from({{"rms_eps", -1e-6}}), "looped config", "\"rms_eps\"");
  expectError(from({{"causal", "yes"}}), "looped config", "\"causal\": expected true or false");
  expectError(from({{"seed", -1}}), "looped config", "\"seed\": expected a non-negative integer");
  expectError(from({{"sudoku_box", 4}}), "looped config", "\"sudoku_box\"");
  expectError(from({{"sudoku_blanks", 20}}), "looped config", "\"sudoku_blanks\": 20 exceed");
  expectError(from({{"colour", 1}}), "looped config", "\"colour\": unknown key");
  expectError(from(json::array()), "looped config", "expected a JSON object");
  expectError(from(json::parse(R"({"d": 0})")), "looped config", "\"d\"");
  expectError(from(json::parse(R"({"d_out": 18446744073709551615})")), "looped config",
              "\"d_out\"");
}

TEST(LoopedModel, SeededInitialisationIsDeterministic) {
  const LoopedModel a, b;
  LoopedConfig other;
  other.seed = 1;
  const LoopedModel c(other);
  EXPECT_EQ(a.kind(), "looped");
  EXPECT_EQ(a.weights(), b.weights());
  EXPECT_NE(a.weights(), c.weights());
  EXPECT_EQ(a.inputWidth(), 32);
  EXPECT_EQ(a.outputWidth(), 32);
  const std::vector<LoopedWeightSpec> specs = loopedWeightSpecs(a.settings());
  ASSERT_EQ(a.weights().size(), specs.size());
  for (size_t i = 0; i < specs.size(); ++i) {
    EXPECT_EQ(a.weights()[i].name, specs[i].name);
    EXPECT_EQ(a.weights()[i].shape, specs[i].shape);
  }
  EXPECT_EQ(a.weight("modulation.weight").shape, (std::vector<int64_t>{128, 32}));
  EXPECT_EQ(a.weight("timestep.fc1.weight").shape, (std::vector<int64_t>{32, 32}));
  EXPECT_EQ(a.weight("mlp.fc1.weight").shape, (std::vector<int64_t>{128, 32}));
  const Tensor& b5 = a.weight("modulation.bias");
  for (size_t i = 0; i < 128; ++i) EXPECT_EQ(b5.data[i], i < 64 ? 1.0 : 0.0);
  expectError([&] { a.weight("attn.q.bias"); }, "looped", "no weight \"attn.q.bias\"");
  // Plain mode has no timestep weights; zero modulation init is the paper's identity start.
  LoopedConfig plain;
  plain.timestep = LoopedTimestep::Plain;
  expectError([&] { LoopedModel(plain).weight("modulation.weight"); }, "looped", "modulation");
  expectError([&] { LoopedModel(plain).timestepCode(0); }, "looped", "plain");
  LoopedConfig zero;
  zero.zeroModulationInit = true;
  const LoopedModel z(zero);
  const Sequence x = z.taskInput("random", 1);
  EXPECT_EQ(z.trajectory(x, 8).back(), x);
}

// Acceptance: γ ≡ 0 (W_5 = 0 and b_5 = 0 on the γ chunks) keeps X fixed on every loop,
// whatever the other weights, the α chunks, the scoring and the injection.
TEST(LoopedModel, ZeroGammaIsTheIdentityOnEveryLoop) {
  for (const bool inject : {false, true})
    for (const LoopedScoring scoring : {LoopedScoring::Softmax, LoopedScoring::Hardmax}) {
      LoopedConfig c;
      c.inject = inject;
      c.scoring = scoring;
      c.causal = inject;
      c.seed = 5;
      const LoopedModel r(c);
      std::vector<Tensor> w = withTensor(r.weights(), "modulation.weight", 0.0);
      for (Tensor& t : w)
        if (t.name == "modulation.bias")
          for (size_t i = 0; i < t.data.size(); ++i) t.data[i] = i < 64 ? 0.0 : 0.3;  // α = 1.3
      const LoopedModel m(c, w);
      const Sequence e = m.taskInput("random", 2);
      const std::vector<Sequence> states = m.trajectory(e, 12);
      // With injection the block input is X + E, so X^(t) = X^(t−1) + E (γ = 0 leaves the
      // block's input as it is).
      for (size_t t = 0; t < states.size(); ++t)
        for (size_t n = 0; n < e.size(); ++n)
          for (size_t i = 0; i < e[n].size(); ++i)
            EXPECT_DOUBLE_EQ(states[t][n][i], e[n][i] * (inject ? double(t) + 1 : 1.0));
      Trace trace;
      m.run(e, &trace);
      for (const double s : trace.get("step_norm").data)
        if (!inject) {
          EXPECT_EQ(s, 0.0);
        }
      for (const double g : trace.get("gamma").data) EXPECT_EQ(g, 0.0);
    }
}

TEST(LoopedModel, ZeroLoopsGiveTheInput) {
  const LoopedModel m;
  const Sequence e = m.taskInput("random", 4);
  EXPECT_EQ(m.trajectory(e, 0), std::vector<Sequence>{e});
  Trace trace;
  EXPECT_EQ(m.run(e, 0, &trace), m.readout(e));
  EXPECT_EQ(trace.get("hidden").shape, (std::vector<int64_t>{1, 8, 32}));
  EXPECT_EQ(trace.get("attention").shape, (std::vector<int64_t>{0, 4, 8, 8}));
  expectError([&] { m.run(e, -1); }, "looped", "loops must be ≥ 0, got -1");
}

// α ≡ γ ≡ 1 in "tmlt" (W_5 = 0, b_5 = (1, 1, 0, 0)) equals "plain" with the same block.
TEST(LoopedModel, UnitModulationIsThePlainBlock) {
  LoopedConfig c;
  c.seed = 3;
  const LoopedModel r(c);
  std::vector<Tensor> w = withTensor(r.weights(), "modulation.weight", 0.0), plainW;
  for (Tensor& t : w)
    if (t.name == "modulation.bias")
      for (size_t i = 0; i < t.data.size(); ++i) t.data[i] = i < 64 ? 1.0 : 0.0;
  for (const Tensor& t : w)
    if (t.name.rfind("timestep.", 0) != 0 && t.name.rfind("modulation.", 0) != 0)
      plainW.push_back(t);
  LoopedConfig pc = c;
  pc.timestep = LoopedTimestep::Plain;
  const LoopedModel tm(c, w), plain(pc, plainW);
  const Sequence x = tm.taskInput("random", 0);
  EXPECT_LT(maxDiff(tm.run(x), plain.run(x)), 1e-12);
}

// §6.3: folding α_1 into W_{Q,K,V} and γ_1 into W_O (and α_2, γ_2 into the MLP) gives the
// same loop, for both norms and with biases.
TEST(LoopedModel, FoldedModulationMatches) {
  for (const LoopedNorm norm : {LoopedNorm::RMS, LoopedNorm::None}) {
    LoopedConfig c;
    c.norm = norm;
    c.qkvoBias = true;
    c.seed = 11;
    const LoopedModel r(c);
    std::vector<Tensor> w = r.weights();
    Rng rng(2);
    for (Tensor& t : w)
      if (t.name.find(".bias") != std::string::npos && t.name.rfind("attn.", 0) == 0)
        t = randomNormal(rng, t.name, t.shape, 0.3);
    const LoopedModel m(c, w);
    Sequence x = m.taskInput("random", 6);
    const LoopedBlockOptions opt = c.blockOptions();
    for (int t = 0; t < 4; ++t) {
      const Sequence a = loopedBlock(x, m.blockWeights(), opt, m.modulation(t));
      const Sequence b = loopedBlock(x, m.effectiveWeights(t), opt, Modulation::identity(c.d));
      EXPECT_LT(maxDiff(a, b), 1e-12) << loopedNormName(norm) << " t = " << t;
      x = a;
    }
  }
  LoopedConfig compat;
  compat.baselineCompat = true;
  expectError([&] { LoopedModel(compat).effectiveWeights(0); }, "looped", "baseline_compat");
}

// Bidirectional, no positional embedding: permuting tokens permutes every loop's output.
TEST(LoopedModel, PermutationEquivariance) {
  for (const bool inject : {false, true}) {
    LoopedConfig c;
    c.inject = inject;
    const LoopedModel m(c);
    const Sequence x = m.taskInput("random", 8);
    const std::vector<size_t> perm = {3, 0, 7, 1, 6, 2, 5, 4};
    Sequence px;
    for (const size_t p : perm) px.push_back(x[p]);
    const Sequence y = m.run(x), py = m.run(px);
    for (size_t n = 0; n < perm.size(); ++n)
      for (size_t i = 0; i < y[n].size(); ++i) EXPECT_NEAR(py[n][i], y[perm[n]][i], 1e-12);
  }
}

TEST(LoopedModel, ModesRunAndDiffer) {
  const LoopedModel base;
  const Sequence x = base.taskInput("random", 1);
  const Sequence ref = base.run(x);
  for (const char* key : {"causal", "baseline_compat", "x0", "inject", "scoring", "pe_layout"}) {
    json j = json::object();
    if (std::string(key) == "x0")
      j[key] = "zero";
    else if (std::string(key) == "inject")
      j[key] = "add_input";
    else if (std::string(key) == "scoring")
      j[key] = "hardmax";
    else if (std::string(key) == "pe_layout")
      j[key] = "sin_cos_interleaved";
    else
      j[key] = true;
    const LoopedModel m(LoopedConfig::fromJson(j));
    EXPECT_EQ(m.weights(), base.weights()) << key;  // same weights: only the mode differs
    const Sequence y = m.run(x);
    EXPECT_GT(maxDiff(y, ref), 1e-6) << key;
    for (const Vector& r : y)
      for (const double v : r) EXPECT_TRUE(std::isfinite(v)) << key;
  }
  // The published baseline quirk: values from the un-normalised X change only the values.
  LoopedConfig compat;
  compat.baselineCompat = true;
  Trace a, b;
  LoopedModel(compat).run(x, 1, &a);
  base.run(x, 1, &b);
  for (size_t i = 0; i < a.get("attention").data.size(); ++i)
    EXPECT_NEAR(a.get("attention").data[i], b.get("attention").data[i], 1e-12);
}

TEST(LoopedModel, SinusoidLayouts) {
  const Vector code = sinusoidalCode(2, 4, PeLayout::CosThenSin);
  const Vector paper = sinusoidalCode(2, 4, PeLayout::SinCosInterleaved);
  const double w[2] = {1, 0.01};
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_DOUBLE_EQ(code[i], std::cos(2 * w[i]));
    EXPECT_DOUBLE_EQ(code[2 + i], std::sin(2 * w[i]));
    EXPECT_DOUBLE_EQ(paper[2 * i], std::sin(2 * w[i]));
    EXPECT_DOUBLE_EQ(paper[2 * i + 1], std::cos(2 * w[i]));
  }
  const Vector odd = sinusoidalCode(1, 5, PeLayout::CosThenSin);
  ASSERT_EQ(odd.size(), 5u);
  EXPECT_EQ(odd[4], 0.0);
}

TEST(LoopedModel, WeightErrorsNameTheTensor) {
  const LoopedModel m;
  std::vector<Tensor> w = m.weights();
  w[1].shape = {3};
  expectError([&] { LoopedModel(m.settings(), w); }, "looped weights",
              "\"" + w[1].name + "\" is [3], expected [32, 32]");
  w = m.weights();
  w.pop_back();
  expectError([&] { LoopedModel(m.settings(), w); }, "looped weights",
              "no tensor \"readout.bias\"");
  w = m.weights();
  w.push_back(filled("extra", {1}, 0.0));
  expectError([&] { LoopedModel(m.settings(), w); }, "looped weights",
              "unexpected tensor \"extra\"");
  w = m.weights();
  w[0].data[0] = NAN;
  expectError([&] { LoopedModel(m.settings(), w); }, "looped weights", "non-finite");
}

TEST(LoopedModel, SaveLoadRoundTripIsBitIdentical) {
  LoopedConfig c;
  c.seed = 17;
  c.inject = true;
  c.qkvoBias = true;
  const LoopedModel m(c);
  const std::string path = tempPath("lsrl_looped_", "roundtrip.safetensors");
  m.save(path);
  const LoopedModel back = LoopedModel::load(path);
  EXPECT_EQ(back.config(), m.config());
  EXPECT_EQ(back.weights(), m.weights());
  const Sequence x = m.taskInput("random", 1);
  EXPECT_EQ(back.run(x), m.run(x));
  // The §6.2 construction too (its config is not the default).
  const LoopedModel cm = LoopedModel::contextualMapping({});
  cm.save(path);
  const Sequence ids = {{1, 1, 1, 0, 0}, {3, 3, 1, 0, 0}, {2, 2, 1, 0, 0}};
  EXPECT_EQ(LoopedModel::load(path).run(ids), cm.run(ids));
  std::filesystem::remove(path);
}

TEST(LoopedModel, LoadErrorsNameTheFile) {
  const std::string path = tempPath("lsrl_looped_", "bad.safetensors");
  saveWeights(path, "mingru", json::object(), {filled("w", {1}, 0)});
  expectError([&] { LoopedModel::load(path); }, path, "not looped");
  saveWeights(path, "looped", {{"d", 0}}, {});
  expectError([&] { LoopedModel::load(path); }, path, "\"d\"");
  const LoopedModel m;
  std::vector<Tensor> w = m.weights();
  w[2].shape = {32, 1};
  w[2].data.resize(32);
  saveWeights(path, "looped", m.config(), w);
  expectError([&] { LoopedModel::load(path); }, path, "expected [32, 32]");
  std::filesystem::remove(path);
}

TEST(LoopedModel, TraceArraysAndShapes) {
  LoopedConfig c;
  c.loops = 5;
  c.dOut = 7;
  const LoopedModel m(c);
  const Sequence x = m.taskInput("random", 2);
  const int64_t r = 5, N = 8, d = 32, h = 4;
  Trace trace;
  const Sequence y = m.run(x, &trace);
  const std::vector<std::pair<std::string, std::vector<int64_t>>> expected = {
      {"hidden", {r + 1, N, d}},
      {"mid", {r, N, d}},
      {"attn_branch", {r, N, d}},
      {"mlp_branch", {r, N, d}},
      {"attention", {r, h, N, N}},
      {"alpha", {r, 2, d}},
      {"gamma", {r, 2, d}},
      {"pe", {r, 32}},
      {"te", {r, d}},
      {"step_norm", {r}},
      {"readout", {r, N, 7}},
      {"output", {N, 7}}};
  for (const auto& [name, shape] : expected) EXPECT_EQ(trace.get(name).shape, shape) << name;
  EXPECT_EQ(trace.get("output").data[7 * 3 + 5], y[3][5]);
  EXPECT_EQ(trace.get("readout").data[((r - 1) * N + 3) * 7 + 5], y[3][5]);
  // Rows of every attention map sum to 1; step norms are the distances of hidden states.
  const Tensor& P = trace.get("attention");
  for (size_t row = 0; row < P.data.size() / 8; ++row) {
    double s = 0;
    for (size_t j = 0; j < 8; ++j) s += P.data[row * 8 + j];
    EXPECT_NEAR(s, 1.0, 1e-12);
  }
  const std::vector<Sequence> states = m.trajectory(x, 5);
  for (size_t t = 1; t <= 5; ++t) {
    double s = 0;
    for (size_t n = 0; n < 8; ++n)
      for (size_t i = 0; i < 32; ++i) s += std::pow(states[t][n][i] - states[t - 1][n][i], 2);
    EXPECT_NEAR(trace.get("step_norm").data[t - 1], std::sqrt(s), 1e-12);
  }
  // α, γ in the trace are the model's modulation; the trace does not change the result.
  EXPECT_EQ(trace.get("gamma").data[2 * d + 3], m.modulation(1).gamma1[3]);
  EXPECT_EQ(trace.get("alpha").data[2 * d + d + 3], m.modulation(1).alpha2[3]);
  EXPECT_EQ(m.run(x), y);
  EXPECT_EQ(m.readout(states.back()), y);
}

TEST(LoopedModel, InputErrorsEmptyAndNonFinite) {
  const LoopedModel m;
  expectError([&] { m.run(Sequence{Vector(5, 0.0)}); }, "looped",
              "token 0 has 5 features, expected 32");
  Trace trace;
  EXPECT_TRUE(m.run(Sequence{}, &trace).empty());
  EXPECT_EQ(trace.get("hidden").shape, (std::vector<int64_t>{9, 0, 32}));
  EXPECT_EQ(trace.get("attention").shape, (std::vector<int64_t>{8, 4, 0, 0}));
  EXPECT_EQ(trace.get("step_norm").data, std::vector<double>(8, 0.0));
  // Bidirectional: a NaN token reaches every token; causal: only itself and later ones.
  Sequence x = m.taskInput("random", 0);
  x[5][0] = std::nan("");
  for (const Vector& r : m.run(x)) EXPECT_TRUE(std::isnan(r[0]));
  LoopedConfig causal;
  causal.causal = true;
  const Sequence y = LoopedModel(causal).run(x);
  for (size_t n = 0; n < y.size(); ++n) EXPECT_EQ(std::isfinite(y[n][0]), n < 5) << n;
}

// Its speed is a benchmark's business (lsrl bench models), not a timed test's.
TEST(LoopedModel, DefaultTaskRunsWithATrace) {
  const LoopedModel m;
  const Sequence x = m.taskInput(m.tasks()[0], 0);
  Trace trace;
  EXPECT_EQ(m.run(x, &trace).size(), x.size());
  EXPECT_TRUE(trace.has("hidden"));
}

}  // namespace
}  // namespace lsrl::seed_models
