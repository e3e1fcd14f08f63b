// The looped transformer's hand-checkable vectors (docs/spec/seed-models.md §T6.1, §6.2):
// one TMLT block looped twice with every intermediate value, its variants, and the
// compiled hardmax block of Lemma A.6 (hardmax and softmax λ = 5, 10, 20).
#include <gtest/gtest.h>

#include <cmath>

#include "common/looped_spec_model.h"
#include "common/vector_compare.h"
#include "core/seed_models/looped.h"

namespace lsrl::seed_models {
namespace {

constexpr double kLoopedSpecTol =
    1e-6;  // the spec's values are rounded to 8 decimals, checked to 6

using spec61::config;
using spec61::flat;
using spec61::kE;
using spec61::slice;
using spec61::weights;
using testing_common::expectNear;

TEST(LoopedVectors, Section61TimestepCodes) {
  const LoopedModel m(config(), weights());
  const TimestepCode c0 = m.timestepCode(0), c1 = m.timestepCode(1);
  expectNear(c0.pe, {1, 1, 0, 0}, kLoopedSpecTol, "PE(0)");
  expectNear(c0.te, {0.72387272, 0.66967128}, kLoopedSpecTol, "TE(0)");
  expectNear(c0.m,
             {0.59749976, 0.58858808, 0.59304392, 0.49554416, 0.04874988, -0.04429404, 0.04652196,
              0.04429404},
             kLoopedSpecTol, "m(0)");
  expectNear(c0.mod.gamma1, {0.59749976, 0.58858808}, kLoopedSpecTol, "γ_1(0)");
  expectNear(c0.mod.gamma2, {0.59304392, 0.49554416}, kLoopedSpecTol, "γ_2(0)");
  expectNear(c0.mod.alpha1, {1.04874988, 0.95570596}, kLoopedSpecTol, "α_1(0)");
  expectNear(c0.mod.alpha2, {1.04652196, 1.04429404}, kLoopedSpecTol, "α_2(0)");
  expectNear(c1.pe, {0.54030231, 0.99995000, 0.84147098, 0.00999983}, kLoopedSpecTol, "PE(1)");
  expectNear(c1.te, {0.86808818, 0.58556660}, kLoopedSpecTol, "TE(1)");
  expectNear(c1.m,
             {0.62228719, 0.57522742, 0.59875731, 0.47647012, 0.06114359, -0.03761371, 0.04937865,
              0.03761371},
             kLoopedSpecTol, "m(1)");
  expectNear(c1.mod.alpha1, {1.06114359, 0.96238629}, kLoopedSpecTol, "α_1(1)");
  expectNear(c1.mod.alpha2, {1.04937865, 1.03761371}, kLoopedSpecTol, "α_2(1)");
}

TEST(LoopedVectors, Section61EveryLoop) {
  const LoopedModel m(config(), weights());
  Trace trace;
  const Sequence y = m.run(kE, &trace);
  const Tensor &P = trace.get("attention"), &mid = trace.get("mid"),
               &attn = trace.get("attn_branch"), &mlp = trace.get("mlp_branch"),
               &hidden = trace.get("hidden"), &alpha = trace.get("alpha"),
               &gamma = trace.get("gamma");
  // Loop t = 0.
  expectNear(slice(P, 0), {0.44917876, 0.55082124, 0.27721372, 0.72278628}, kLoopedSpecTol, "P(0)");
  const std::vector<double> g1 = {0.59749976, 0.58858808}, g2 = {0.59304392, 0.49554416};
  const std::vector<double> mha0 = {0.36567677, 0.66587846, 0.01680241, 0.87376409};
  const std::vector<double> mlp0 = {1.51003893, -0.05003123, 2.19024674, -2.09024674};
  std::vector<double> wantAttn, wantMlp;
  for (size_t i = 0; i < 4; ++i) {
    wantAttn.push_back(g1[i % 2] * mha0[i]);
    wantMlp.push_back(g2[i % 2] * mlp0[i]);
  }
  expectNear(slice(attn, 0), wantAttn, kLoopedSpecTol, "γ_1 ⊙ MHA(0)");
  expectNear(slice(mid, 0), {1.21849178, 0.39192812, 0.51003943, -0.48571288}, kLoopedSpecTol,
             "X'(0)");
  expectNear(slice(mlp, 0), wantMlp, kLoopedSpecTol, "γ_2 ⊙ MLP(0)");
  expectNear(slice(hidden, 0), flat(kE), kLoopedSpecTol, "X^(0)");
  expectNear(slice(hidden, 1), {2.11401118, 0.36713544, 1.80895194, -1.52152245}, kLoopedSpecTol,
             "X^(1)");
  expectNear(slice(alpha, 0), {1.04874988, 0.95570596, 1.04652196, 1.04429404}, kLoopedSpecTol,
             "α(0)");
  expectNear(slice(gamma, 0), {0.59749976, 0.58858808, 0.59304392, 0.49554416}, kLoopedSpecTol,
             "γ(0)");
  // Loop t = 1.
  expectNear(slice(P, 1), {0.42833212, 0.57166788, 0.31821753, 0.68178247}, kLoopedSpecTol, "P(1)");
  const std::vector<double> g11 = {0.62228719, 0.57522742}, g21 = {0.59875731, 0.47647012};
  const std::vector<double> mha1 = {0.88877280, 0.40107312, 0.73031234, 0.52318496};
  const std::vector<double> mlp1 = {1.62465608, -0.33212731, 2.10272098, -2.00272098};
  wantAttn.clear();
  wantMlp.clear();
  for (size_t i = 0; i < 4; ++i) {
    wantAttn.push_back(g11[i % 2] * mha1[i]);
    wantMlp.push_back(g21[i % 2] * mlp1[i]);
  }
  expectNear(slice(attn, 1), wantAttn, kLoopedSpecTol, "γ_1 ⊙ MHA(1)");
  expectNear(slice(mid, 1), {2.66708311, 0.59784370, 2.26341595, -1.22057211}, kLoopedSpecTol,
             "X'(1)");
  expectNear(slice(mlp, 1), wantMlp, kLoopedSpecTol, "γ_2 ⊙ MLP(1)");
  const std::vector<double> x2 = {3.63985781, 0.43959496, 3.52243550, -2.17480881};
  expectNear(slice(hidden, 2), x2, kLoopedSpecTol, "X^(2)");
  expectNear(flat(y), x2, kLoopedSpecTol, "output (identity read-out)");
  expectNear(trace.get("step_norm").data, {1.83334399, 2.38668542}, kLoopedSpecTol, "step norms");
  expectNear(slice(trace.get("readout"), 0), slice(hidden, 1), kLoopedSpecTol, "readout(1)");
}

// The first hand check of §6.1 and the intermediate Q, K, V of loop 0 through the block's
// parts: RMSN_1(x_1) = (√2·α_1, 0).
TEST(LoopedVectors, Section61QueriesKeysValues) {
  const LoopedModel m(config(), weights());
  const Modulation mod = m.modulation(0);
  const Sequence z = {{std::sqrt(2.0) * mod.alpha1[0], 0.0},
                      {0.66328766, -1.20888305}};  // RMSN_1 of the spec
  EXPECT_NEAR(z[0][0], 1.48315630, kLoopedSpecTol);
  const LoopedBlockWeights& w = m.blockWeights();
  expectNear(w.k.apply(z[0]), {0.74157815, 0.74157815}, kLoopedSpecTol, "K_1");
  expectNear(w.k.apply(z[1]), {0.93608535, -0.27279769}, kLoopedSpecTol, "K_2");
  expectNear(w.v.apply(z[1]), {-0.54559538, -1.20888305}, kLoopedSpecTol, "V_2");
  expectNear(w.q.apply(z[1]), {0.66328766, -1.20888305}, kLoopedSpecTol, "Q_2");
}

TEST(LoopedVectors, Section61Variants) {
  auto final = [](LoopedConfig c, std::vector<Tensor> w = weights()) {
    return flat(LoopedModel(c, w).run(kE));
  };
  LoopedConfig c = config();
  c.causal = true;
  expectNear(final(c), {4.88465498, -0.96860694, 3.47449023, -2.11640607}, kLoopedSpecTol,
             "causal");
  c = config();
  c.inject = true;
  expectNear(final(c), {5.62412653, 0.17414384, 4.33613455, -4.08197084}, kLoopedSpecTol, "inject");
  c = config();
  c.activation = LoopedActivation::GELU;
  expectNear(final(c), {3.31822584, 0.46247545, 3.35449395, -2.26956677}, kLoopedSpecTol, "gelu");
  c = config();
  c.rmsEps = 1e-6;
  expectNear(final(c), {3.63985694, 0.43959407, 3.52243297, -2.17480720}, kLoopedSpecTol,
             "rms_eps");
  expectNear(final(config(), weights(std::vector<double>(16, 0.0), std::vector<double>(8, 0.0))),
             flat(kE), kLoopedSpecTol, "γ = 0");
  const std::vector<Tensor> plain = weights(std::vector<double>(16, 0.0), {1, 1, 1, 1, 0, 0, 0, 0});
  Trace trace;
  LoopedModel(config(), plain).run(kE, &trace);
  expectNear(slice(trace.get("hidden"), 1), {2.44112085, 1.22092114, 2.24494452, -1.49086557},
             kLoopedSpecTol, "α = γ = 1, X^(1)");
  expectNear(slice(trace.get("hidden"), 2), {4.84827960, 1.52342109, 4.96312481, -2.90708638},
             kLoopedSpecTol, "α = γ = 1, X^(2)");
}

// The same plain block through the "plain" mode (no timestep weights at all).
TEST(LoopedVectors, Section61PlainMode) {
  LoopedConfig c = config();
  c.timestep = LoopedTimestep::Plain;
  std::vector<Tensor> w;
  for (const Tensor& x : weights())
    if (x.name.rfind("timestep.", 0) != 0 && x.name.rfind("modulation.", 0) != 0) w.push_back(x);
  const LoopedModel m(c, w);
  expectNear(flat(m.run(kE)), {4.84827960, 1.52342109, 4.96312481, -2.90708638}, kLoopedSpecTol,
             "plain");
  Trace trace;
  m.run(kE, &trace);
  for (const double a : trace.get("alpha").data) EXPECT_EQ(a, 1.0);
  EXPECT_FALSE(trace.has("pe"));
}

Sequence ids(std::vector<double> z) {
  Sequence x;
  for (const double v : z) x.push_back({v, v, 1, 0, 0});
  return x;
}

TEST(LoopedVectors, Section62HardmaxContextualMapping) {
  const LoopedModel m = LoopedModel::contextualMapping({});
  Trace trace;
  const Sequence y = m.run(ids({1, 3, 2}), &trace);
  const Tensor& hidden = trace.get("hidden");  // [4][3][5]
  const double ch5[3] = {3, 14, 57};
  const std::vector<std::vector<double>> ch2 = {{1, -0.5, 2}, {1, -0.5, -1.5}, {-2.5, -0.5, -1.5}};
  const size_t selected[3] = {1, 2, 0};
  const Tensor& P = trace.get("attention");  // [3][1][3][3]
  for (size_t loop = 0; loop < 3; ++loop)
    for (size_t n = 0; n < 3; ++n) {
      const size_t at = ((loop + 1) * 3 + n) * 5;
      EXPECT_EQ(hidden.data[at + 4], ch5[loop]) << loop << " " << n;
      EXPECT_EQ(hidden.data[at + 1], ch2[loop][n]) << loop << " " << n;
      EXPECT_EQ(hidden.data[at + 3], 0.0);  // scratch cleared
      for (size_t j = 0; j < 3; ++j)
        EXPECT_EQ(P.data[(loop * 3 + n) * 3 + j], j == selected[loop] ? 1.0 : 0.0);
    }
  for (const Vector& r : y) EXPECT_EQ(r, Vector{57});
  // Permutation equivariance: the sequence ID does not depend on the order.
  for (const Vector& r : m.run(ids({2, 1, 3}))) EXPECT_EQ(r, Vector{57});
  for (const Vector& r : m.run(ids({3, 2, 1}))) EXPECT_EQ(r, Vector{57});
}

TEST(LoopedVectors, Section62SoftmaxApproachesHardmax) {
  const std::vector<std::pair<double, std::vector<double>>> cases = {
      {5, {2.993217, 13.966179, 56.865592}},
      {10, {2.999955, 13.999773, 56.999093}},
      {20, {3, 14, 57}}};
  for (const auto& [lambda, want] : cases) {
    ContextualMappingParams p;
    p.scoring = LoopedScoring::Softmax;
    p.lambda = lambda;
    Trace trace;
    LoopedModel::contextualMapping(p).run(ids({1, 3, 2}), &trace);
    const Tensor& hidden = trace.get("hidden");
    for (size_t loop = 0; loop < 3; ++loop)
      for (size_t n = 0; n < 3; ++n)
        EXPECT_NEAR(hidden.data[((loop + 1) * 3 + n) * 5 + 4], want[loop], kLoopedSpecTol)
            << "λ = " << lambda << ", loop " << loop + 1 << ", token " << n;
  }
}

TEST(LoopedVectors, AttentionRowSoftmaxHardmaxAndTies) {
  expectNear(attentionRow({0, std::log(3.0)}, LoopedScoring::Softmax, 1), {0.25, 0.75},
             kLoopedSpecTol, "softmax");
  expectNear(attentionRow({0, std::log(3.0)}, LoopedScoring::Softmax, 2), {0.1, 0.9},
             kLoopedSpecTol, "λ = 2");
  EXPECT_EQ(attentionRow({1, 5, 5, 2}, LoopedScoring::Hardmax, 1),
            (std::vector<double>{0, 0.5, 0.5, 0}));
  EXPECT_TRUE(attentionRow({}, LoopedScoring::Softmax, 1).empty());
  for (const double p : attentionRow({1, std::nan(""), 0}, LoopedScoring::Hardmax, 1))
    EXPECT_TRUE(std::isnan(p));
  // Large scores do not overflow (the maximum is subtracted).
  expectNear(attentionRow({1000, 1000}, LoopedScoring::Softmax, 1), {0.5, 0.5}, kLoopedSpecTol,
             "large");
}

}  // namespace
}  // namespace lsrl::seed_models
