// Lattice's single step and recurrence (core/seed_models/lattice_step.h): the test vectors of
// docs/spec/seed-models.md §6.1 (L1–L6), the NOSR properties of §6.4, and the forms of §1.6 and
// the chunked approximation of §1.7 against each other and against their matrix formulas.
#include "core/seed_models/lattice_step.h"

#include <gtest/gtest.h>

#include <cmath>

#include "common/expect_error.h"
#include "common/vector_compare.h"
#include "core/seed_models/lattice_demos.h"

namespace lsrl::seed_models {
namespace {

using testing_common::expectNear;

constexpr double kVec = 1e-6;  // the spec's numbers are rounded to 6 decimals

// §6.1's shared setup: d = 3, m = 2, S_0 = [e1 e2].
std::vector<LatticeToken> specTokens(double mu = 1) {
  return {{{1, 0}, {0, 0, 1}, {1, 1}, 1.0, mu},
          {{0.5, 0.5}, {0, 1, 1}, {1, 0}, 1.0, mu},
          {{-1, 2}, {1, 1, 0}, {0.5, -1}, 0.5, mu}};
}

LatticeOptions options(LatticeMode mode, LatticeVariant variant = LatticeVariant::Dec) {
  LatticeOptions o;
  o.mode = mode;
  o.variant = variant;
  return o;
}

void expectNear(const double* got, const Vector& want, double tol, const std::string& what) {
  for (size_t j = 0; j < want.size(); ++j)
    EXPECT_NEAR(got[j], want[j], tol) << what << "[" << j << "]";
}

// Runs the spec's three tokens and checks S_t's slots (and y_t where given).
struct Expected {
  Vector s1, s2, y;
};
void checkSpecRun(const LatticeOptions& opt, const std::vector<Expected>& want, double mu = 1) {
  LatticeSlots S = identitySlots(3, 2);
  const auto tokens = specTokens(mu);
  for (size_t t = 0; t < want.size(); ++t) {
    const LatticeStepOut out = latticeStep(S, tokens[t], opt);
    const std::string at = "t=" + std::to_string(t + 1);
    if (!want[t].s1.empty()) expectNear(S.slot(0), want[t].s1, kVec, at + " s1");
    if (!want[t].s2.empty()) expectNear(S.slot(1), want[t].s2, kVec, at + " s2");
    if (!want[t].y.empty()) expectNear(out.y, want[t].y, kVec, at + " y");
  }
}

double dot(const double* a, const double* b, int n) {
  double s = 0;
  for (int j = 0; j < n; ++j) s += a[j] * b[j];
  return s;
}

TEST(LatticeVectors, L1DecNormalisedWithIntermediates) {
  LatticeSlots S = identitySlots(3, 2);
  const auto tokens = specTokens();
  const LatticeOptions opt;  // NOSR + DEC
  LatticeStepOut o = latticeStep(S, tokens[0], opt);
  expectNear(o.error, {1, 0, -1}, kVec, "e1");
  expectNear(o.orthogonal.data(), {0, 0, -1}, kVec, "h⊥ slot 1");
  EXPECT_NEAR(o.writeStrength[0], -1, kVec);
  EXPECT_NEAR(o.writeStrength[1], 0, kVec);
  expectNear(o.delta.data(), {0, 0, 1}, kVec, "Δs1");
  EXPECT_NEAR(o.beta[0], 0.707107, kVec);
  EXPECT_NEAR(o.theta[0], std::atan(1.0), 1e-12);  // 45°
  expectNear(S.slot(0), {0.707107, 0, 0.707107}, kVec, "s1");
  expectNear(S.slot(1), {0, 1, 0}, kVec, "s2");
  expectNear(o.y, {0.707107, 1, 0.707107}, kVec, "y1");

  o = latticeStep(S, tokens[1], opt);
  expectNear(o.error, {0.353553, -0.5, -0.646447}, kVec, "e2");
  expectNear(o.orthogonal.data(), {0.5, -0.5, -0.5}, kVec, "h⊥ slot 1");
  expectNear(o.orthogonal.data() + 3, {0.353553, 0, -0.646447}, kVec, "h⊥ slot 2");
  EXPECT_NEAR(o.writeStrength[0], -0.5, kVec);
  EXPECT_NEAR(o.writeStrength[1], -0.5, kVec);
  expectNear(o.delta.data(), {-0.25, 0.25, 0.25}, kVec, "Δs1");
  expectNear(o.delta.data() + 3, {-0.176777, 0, 0.323223}, kVec, "Δs2");
  EXPECT_NEAR(o.beta[0], 0.917663, kVec);
  EXPECT_NEAR(o.beta[1], 0.938348, kVec);
  expectNear(S.slot(0), {0.419470, 0.229416, 0.878301}, kVec, "s1");
  expectNear(S.slot(1), {-0.165878, 0.938348, 0.303296}, kVec, "s2");
  expectNear(o.y, {0.419470, 0.229416, 0.878301}, kVec, "y2");
  EXPECT_NEAR(dot(S.slot(0), S.slot(1), 3), 0.412076, kVec);

  o = latticeStep(S, tokens[2], opt);
  expectNear(o.error, {-1.751226, 0.647279, -0.271710}, kVec, "e3");
  expectNear(o.orthogonal.data(), {-1.405275, 0.836486, 0.452655}, kVec, "h⊥ slot 1");
  expectNear(o.orthogonal.data() + 3, {-1.615960, -0.117900, -0.519034}, kVec, "h⊥ slot 2");
  EXPECT_NEAR(o.writeStrength[0], 0.5, kVec);
  EXPECT_NEAR(o.writeStrength[1], -1, kVec);
  EXPECT_NEAR(o.beta[0], 0.762526, kVec);
  EXPECT_NEAR(o.beta[1], 0.506719, kVec);
  EXPECT_NEAR(o.preNorm[0] * o.preNorm[0], 1 + 0.719851, kVec);
  EXPECT_NEAR(o.preNorm[1] * o.preNorm[1], 1 + 2.894623, kVec);
  expectNear(S.slot(0), {-0.215923, 0.493857, 0.842308}, kVec, "s1");
  expectNear(S.slot(1), {0.734784, 0.535221, 0.416690}, kVec, "s2");
  expectNear(o.y, {-0.842746, -0.288293, 0.004464}, kVec, "y3");
  EXPECT_NEAR(dot(S.slot(0), S.slot(1), 3), 0.456647, kVec);
}

TEST(LatticeVectors, L2DecUnnormalised) {
  checkSpecRun(
      options(LatticeMode::Osr),
      {{{1, 0, 1}, {0, 1, 0}, {1, 1, 1}},
       {{0.823223, 0.176777, 1.176777}, {-0.176777, 1, 0.323223}, {0.823223, 0.176777, 1.176777}},
       {{0.393951, 0.486355, 1.430572},
        {1.457204, 1.137802, 0.790539},
        {-1.260228, -0.894625, -0.075253}}});
  LatticeSlots S = identitySlots(3, 2);
  const auto tokens = specTokens();
  latticeStep(S, tokens[0], options(LatticeMode::Osr));
  const LatticeStepOut o2 = latticeStep(S, tokens[1], options(LatticeMode::Osr));
  EXPECT_NEAR(o2.writeStrength[0], -0.353553, kVec);  // ‖s1‖ = 1.414214
  const LatticeStepOut o3 = latticeStep(S, tokens[2], options(LatticeMode::Osr));
  expectNear(o3.error, {-1.900681, 0.754526, -0.206673}, kVec, "e3");
  EXPECT_NEAR(o3.preNorm[0], 1.561498, kVec);
  EXPECT_NEAR(o3.preNorm[1], 2.010718, kVec);
}

TEST(LatticeVectors, L3EncNormalised) {
  LatticeSlots S = identitySlots(3, 2);
  const auto tokens = specTokens();
  const LatticeOptions opt = options(LatticeMode::Nosr, LatticeVariant::Enc);
  const Vector e1 = latticeStep(S, tokens[0], opt).error;
  expectNear(e1, {-1, 0}, kVec, "e1");
  const Vector e2 = latticeStep(S, tokens[1], opt).error;
  expectNear(e2, {0.207107, 0.5}, kVec, "e2");
  const Vector e3 = latticeStep(S, tokens[2], opt).error;
  expectNear(e3, {1.585026, -1.105573}, kVec, "e3");
  checkSpecRun(
      opt,
      {{{0.707107, 0, 0.707107}, {0, 1, 0}, {0.707107, 1, 0.707107}},
       {{0.785776, -0.200749, 0.585026}, {0, 0.894427, -0.447214}, {0.785776, -0.200749, 0.585026}},
       {{0.250284, -0.760367, 0.599333},
        {0.472849, 0.859656, -0.193403},
        {-0.347708, -1.239840, 0.493070}}});
}

TEST(LatticeVectors, L4SimNormalised) {
  checkSpecRun(
      options(LatticeMode::Nosr, LatticeVariant::Sim),
      {{{0.707107, 0, 0.707107}, {0, 1, 0}, {}},
       {{0.389822, 0.426401, 0.816223}, {0, 0.894427, 0.447214}, {0.389822, 0.426401, 0.816223}},
       {{0.042358, 0.086963, 0.995311},
        {0.674200, 0.737863, 0.031831},
        {-0.653021, -0.694381, 0.465824}}});
}

TEST(LatticeVectors, L5ForgetGateAndItsStepSizeEquivalence) {
  const LatticeOptions opt;
  checkSpecRun(opt,
               {{{0.447214, 0, 0.894427}, {0, 1, 0}, {}},
                {{0.039209, 0.415227, 0.908872}, {-0.192054, 0.858892, 0.474784}, {}},
                {{-0.787532, 0.382015, 0.483588},
                 {0.850062, 0.418679, 0.319534},
                 {-1.243828, -0.227671, -0.077740}}},
               0.5);
  // Slot 2 at t = 1: β = 2, yet it stays unit length.
  LatticeSlots S = identitySlots(3, 2);
  EXPECT_NEAR(latticeStep(S, specTokens(0.5)[0], opt).beta[1], 2, 1e-12);
  // normalize(μ s + Δs) = normalize(s + Δs/μ): γ → γ/μ with μ = 1 gives the same run.
  std::vector<LatticeToken> scaled = specTokens(1);
  for (LatticeToken& t : scaled) t.gamma /= 0.5;
  const Sequence a = latticeRecurrence(identitySlots(3, 2), specTokens(0.5), opt);
  const Sequence b = latticeRecurrence(identitySlots(3, 2), scaled, opt);
  for (size_t t = 0; t < a.size(); ++t) expectNear(a[t], b[t], 1e-12, "y");
}

TEST(LatticeVectors, L6NonRedundancy) {
  LatticeSlots S = identitySlots(2, 2);
  LatticeStepOut o = latticeStep(S, {{1, 0}, {2, 0}, {1, 0}, 1, 1}, LatticeOptions{});
  expectNear(o.error, {-1, 0}, kVec, "e");
  expectNear(o.orthogonal.data(), {0, 0}, 1e-12, "h⊥ slot 1");
  expectNear(S.data, {1, 0, 0, 1}, 1e-12, "S_1 = I");
  expectNear(o.y, {1, 0}, 1e-12, "y");
  EXPECT_GT(o.lossBefore, 0);  // the error is not zero, yet nothing moved

  S = identitySlots(2, 2);
  o = latticeStep(S, {{1, 1}, {1, 0}, {1, 1}, 1, 1},
                  options(LatticeMode::Nosr, LatticeVariant::Sim));
  expectNear(S.slot(0), {1, 0}, 1e-12, "slot 1 unchanged");
  expectNear(o.delta.data() + 2, {1, 0}, 1e-12, "Δs2");
  expectNear(S.slot(1), {0.707107, 0.707107}, kVec, "slot 2");
  expectNear(o.y, {1.707107, 0.707107}, kVec, "y");
}

// Random tokens for the property tests.
std::vector<LatticeToken> randomTokens(int m, int d, int T, uint64_t seed) {
  Rng rng(seed);
  std::vector<LatticeToken> out;
  for (int t = 0; t < T; ++t) {
    LatticeToken tok{Vector(m), Vector(d), Vector(m), rng.uniform(0.05, 1.5),
                     rng.uniform(0.2, 1.0)};
    for (double& x : tok.k) x = rng.normal();
    for (double& x : tok.v) x = rng.normal();
    for (double& x : tok.q) x = rng.normal();
    out.push_back(tok);
  }
  return out;
}

TEST(LatticeProperties, NormalisedSlotsStayUnitAndUpdatesAreOrthogonal) {
  for (const LatticeVariant variant :
       {LatticeVariant::Dec, LatticeVariant::Enc, LatticeVariant::Sim}) {
    for (const auto& [d, m] : {std::pair{3, 3}, std::pair{5, 3}, std::pair{4, 4}}) {
      Rng init(d * 10 + m);
      LatticeSlots S = randomOrthonormalSlots(d, m, init);
      const LatticeOptions opt = options(LatticeMode::Nosr, variant);
      for (const LatticeToken& tok : randomTokens(m, d, 200, 42 + d)) {
        const LatticeSlots before = S;
        const LatticeStepOut o = latticeStep(S, tok, opt);
        for (int i = 0; i < m; ++i) {
          const double* ds = o.delta.data() + static_cast<size_t>(i) * d;
          const double dsNorm = std::sqrt(dot(ds, ds, d));
          EXPECT_NEAR(std::sqrt(dot(S.slot(i), S.slot(i), d)), 1.0, 1e-12);
          EXPECT_LE(std::abs(dot(ds, before.slot(i), d)), 1e-12 * std::max(1.0, dsNorm));
          // The write changes the direction by θ = atan(‖Δs‖/μ) and β = cos θ / μ.
          EXPECT_NEAR(o.theta[i], std::atan2(dsNorm, tok.mu), 1e-12);
          EXPECT_NEAR(o.beta[i], std::cos(o.theta[i]) / tok.mu, 1e-9);
          const double c = o.cosIn[i], r = o.perpFrac[i];
          EXPECT_NEAR(c * c + r * r, 1.0, 1e-12);
        }
      }
    }
  }
}

TEST(LatticeProperties, ClosedFormBetaAgreesWithTheActualNorm) {
  LatticeOptions closed;
  closed.beta = LatticeBeta::ClosedForm;
  const auto tokens = randomTokens(3, 4, 64, 9);
  Rng a(1), b(1);
  const Sequence y1 = latticeRecurrence(randomOrthonormalSlots(4, 3, a), tokens, LatticeOptions{});
  const Sequence y2 = latticeRecurrence(randomOrthonormalSlots(4, 3, b), tokens, closed);
  for (size_t t = 0; t < y1.size(); ++t) expectNear(y1[t], y2[t], 1e-12, "y");
}

TEST(LatticeProperties, ZeroIncomingVectorGivesNoNaN) {
  // DEC with v = S k: e = 0, so h = 0; SIM with v = 0 likewise.
  for (const LatticeVariant variant : {LatticeVariant::Dec, LatticeVariant::Sim}) {
    LatticeSlots S = identitySlots(3, 2);
    const LatticeToken tok{
        {1, 0}, variant == LatticeVariant::Dec ? Vector{1, 0, 0} : Vector{0, 0, 0}, {1, 1}, 1, 1};
    const LatticeStepOut o = latticeStep(S, tok, options(LatticeMode::Nosr, variant));
    for (int i = 0; i < 2; ++i) {
      EXPECT_EQ(o.cosIn[i], 0);
      EXPECT_EQ(o.perpFrac[i], 0);
      EXPECT_EQ(o.theta[i], 0);
      EXPECT_EQ(o.beta[i], 1);
    }
    expectNear(S.data, identitySlots(3, 2).data, 0, "unchanged");
  }
}

TEST(LatticeProperties, ZeroSlotIsGuardedNotDividedBy) {
  // m > d with the identity: slot 3 is zero. P = I there and α = −γ c (no division).
  LatticeSlots S = identitySlots(2, 3);
  const LatticeStepOut o = latticeStep(S, {{1, 0, 1}, {0, 1}, {1, 1, 1}, 1, 1}, LatticeOptions{});
  EXPECT_EQ(o.guarded[2], 1);
  EXPECT_EQ(o.guarded[0], 0);
  EXPECT_NEAR(o.writeStrength[2], -1, 1e-12);
  for (const double x : S.data) EXPECT_TRUE(std::isfinite(x));
  // e = S k − v = (1, −1); the zero slot takes −α·e/‖e‖ direction: (−1, 1)/√2.
  expectNear(S.slot(2), {-std::sqrt(0.5), std::sqrt(0.5)}, 1e-12, "slot 3");
  // Nothing written to a zero slot: it stays zero, flagged, and finite.
  LatticeSlots Z = identitySlots(2, 3);
  const LatticeStepOut z = latticeStep(Z, {{1, 0, 0}, {0, 1}, {1, 1, 1}, 1, 1}, LatticeOptions{});
  EXPECT_EQ(z.guarded[2], 1);
  expectNear(Z.slot(2), {0, 0}, 0, "still zero");
}

TEST(LatticeProperties, NaNInTheTokenPropagates) {
  LatticeSlots S = identitySlots(3, 2);
  const LatticeStepOut o =
      latticeStep(S, {{1, 0}, {std::nan(""), 0, 1}, {1, 1}, 1, 1}, LatticeOptions{});
  EXPECT_TRUE(std::isnan(o.y[0]));
}

// S as a d×m matrix for the comparison forms' direct formulas.
using Mat = std::vector<Vector>;  // [row j][column i]
Mat matrixOf(const LatticeSlots& S) {
  Mat M(S.d, Vector(S.m));
  for (int i = 0; i < S.m; ++i)
    for (int j = 0; j < S.d; ++j) M[j][i] = S.slot(i)[j];
  return M;
}

TEST(LatticeModes, ComparisonFormsMatchTheirMatrixFormulas) {
  const int d = 3, m = 2;
  const auto tokens = randomTokens(m, d, 5, 3);
  for (const LatticeMode mode :
       {LatticeMode::Delta, LatticeMode::GatedDeltaNet, LatticeMode::LinearAttention,
        LatticeMode::Mamba2, LatticeMode::OutputNormalised}) {
    LatticeSlots S = identitySlots(d, m);
    for (const LatticeToken& tok : tokens) {
      const Mat A = matrixOf(S);
      Vector sk(d, 0.0);
      for (int j = 0; j < d; ++j)
        for (int i = 0; i < m; ++i) sk[j] += A[j][i] * tok.k[i];
      Mat want = A;
      for (int j = 0; j < d; ++j)
        for (int i = 0; i < m; ++i) {
          const double g = tok.gamma, mu = tok.mu, k = tok.k[i];
          switch (mode) {
            case LatticeMode::Delta:  // S (I − γ k kᵀ) + γ v kᵀ
              want[j][i] = A[j][i] - g * sk[j] * k + g * tok.v[j] * k;
              break;
            case LatticeMode::GatedDeltaNet:  // μ S (I − γ k kᵀ) + γ v kᵀ
              want[j][i] = mu * (A[j][i] - g * sk[j] * k) + g * tok.v[j] * k;
              break;
            case LatticeMode::LinearAttention:
              want[j][i] = A[j][i] + tok.v[j] * k;
              break;
            case LatticeMode::Mamba2:
              want[j][i] = mu * A[j][i] + tok.v[j] * k;
              break;
            default: {  // output-normalised: S − γ (P(z) e / ‖z‖) kᵀ
              const double nz = std::sqrt(dot(sk.data(), sk.data(), d));
              Vector e(d);
              for (int r = 0; r < d; ++r) e[r] = sk[r] / nz - tok.v[r];
              const double along = dot(sk.data(), e.data(), d) / (nz * nz);
              want[j][i] = A[j][i] - g * ((e[j] - along * sk[j]) / nz) * k;
            }
          }
        }
      const LatticeStepOut o = latticeStep(S, tok, options(mode));
      for (int j = 0; j < d; ++j)
        for (int i = 0; i < m; ++i)
          EXPECT_NEAR(S.slot(i)[j], want[j][i], 1e-12) << latticeModeName(mode);
      EXPECT_EQ(o.beta[0], 1);
    }
  }
}

TEST(LatticeModes, SpecialCasesAgree) {
  auto tokens = randomTokens(3, 4, 30, 5);
  for (LatticeToken& t : tokens) t.mu = 1;
  auto run = [&](LatticeMode mode, double lambda = 0.05) {
    LatticeOptions o = options(mode);
    o.lambda = lambda;
    return latticeRecurrence(identitySlots(4, 3), tokens, o);
  };
  auto same = [](const Sequence& a, const Sequence& b, const char* what) {
    for (size_t t = 0; t < a.size(); ++t) expectNear(a[t], b[t], 1e-12, what);
  };
  same(run(LatticeMode::GatedDeltaNet), run(LatticeMode::Delta), "gated μ=1 = delta");
  same(run(LatticeMode::Mamba2), run(LatticeMode::LinearAttention), "mamba2 μ=1 = linear");
  same(run(LatticeMode::L1, 0.0), run(LatticeMode::Osr), "l1 λ=0 = osr");
  // A positive λ shrinks entries toward 0 (ISTA).
  LatticeSlots S = identitySlots(4, 3);
  LatticeOptions l1 = options(LatticeMode::L1);
  l1.lambda = 0.5;
  latticeStep(S, {{0, 0, 0}, {0, 0, 0, 0}, {1, 0, 0}, 1, 1}, l1);
  EXPECT_NEAR(S.slot(0)[0], 0.5, 1e-12);
  // Unnormalised OSR's norms never shrink (Pythagoras).
  std::vector<LatticeStepOut> steps;
  std::vector<LatticeSlots> slots;
  latticeRecurrence(identitySlots(4, 3), tokens, options(LatticeMode::Osr), 1, &steps, &slots);
  for (size_t t = 1; t < slots.size(); ++t)
    for (int i = 0; i < 3; ++i)
      EXPECT_GE(dot(slots[t].slot(i), slots[t].slot(i), 4),
                dot(slots[t - 1].slot(i), slots[t - 1].slot(i), 4) * (1 - 1e-12));
}

TEST(LatticeModes, ChunkedApproximation) {
  const auto tokens = randomTokens(3, 4, 20, 11);
  for (const LatticeMode mode : {LatticeMode::Nosr, LatticeMode::Osr}) {
    const LatticeOptions opt = options(mode);
    const Sequence exact = latticeRecurrence(identitySlots(4, 3), tokens, opt);
    std::vector<LatticeSlots> slots;
    const Sequence one = latticeRecurrence(identitySlots(4, 3), tokens, opt, 1, nullptr, &slots);
    for (size_t t = 0; t < exact.size(); ++t) EXPECT_EQ(exact[t], one[t]);
    std::vector<LatticeSlots> chunkSlots;
    const Sequence four =
        latticeRecurrence(identitySlots(4, 3), tokens, opt, 4, nullptr, &chunkSlots);
    ASSERT_EQ(four.size(), tokens.size());
    expectNear(four[0], exact[0], 1e-12, "first step of a chunk is exact");
    double diff = 0;
    for (size_t t = 0; t < four.size(); ++t)
      for (size_t j = 0; j < four[t].size(); ++j)
        diff = std::max(diff, std::abs(four[t][j] - exact[t][j]));
    EXPECT_GT(diff, 1e-6);  // an approximation, not the recurrence
    if (mode == LatticeMode::Nosr) {
      for (const LatticeSlots& S : chunkSlots)
        for (int i = 0; i < 3; ++i) EXPECT_NEAR(dot(S.slot(i), S.slot(i), 4), 1, 1e-12);
    }
  }
  testing_common::expectError(
      [&] { latticeRecurrence(identitySlots(4, 3), tokens, options(LatticeMode::Delta), 2); },
      "lattice", "needs mode nosr or osr, not delta");
  testing_common::expectError(
      [&] { latticeRecurrence(identitySlots(4, 3), tokens, LatticeOptions{}, 0); }, "lattice",
      "chunk must be at least 1, got 0");
}

TEST(LatticeModes, NamesRoundTrip) {
  for (int i = 0; i < kLatticeModeCount; ++i) {
    const auto mode = static_cast<LatticeMode>(i);
    EXPECT_EQ(latticeModeFromName(latticeModeName(mode)), mode);
  }
  for (int i = 0; i < kLatticeVariantCount; ++i) {
    const auto v = static_cast<LatticeVariant>(i);
    EXPECT_EQ(latticeVariantFromName(latticeVariantName(v)), v);
  }
  EXPECT_EQ(latticeBetaFromName("closed_form"), LatticeBeta::ClosedForm);
  EXPECT_FALSE(latticeModeFromName("deltanet").has_value());
}

TEST(LatticeInit, RandomOrthonormalSlots) {
  Rng rng(4);
  const LatticeSlots S = randomOrthonormalSlots(5, 3, rng);
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b) EXPECT_NEAR(dot(S.slot(a), S.slot(b), 5), a == b ? 1 : 0, 1e-12);
  Rng again(4);
  EXPECT_EQ(randomOrthonormalSlots(5, 3, again).data, S.data);
  Rng wide(5);
  const LatticeSlots W = randomOrthonormalSlots(2, 4, wide);  // m > d: unit columns
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(dot(W.slot(i), W.slot(i), 2), 1, 1e-12);
}

TEST(LatticeDemos, DeterministicShapedAndBehaving) {
  for (const std::string& name : latticeDemoNames()) {
    const auto a = latticeDemo(name, 3, 3, 7), b = latticeDemo(name, 3, 3, 7);
    ASSERT_FALSE(a.empty()) << name;
    for (size_t t = 0; t < a.size(); ++t) {
      EXPECT_EQ(a[t].k.size(), 3u);
      EXPECT_EQ(a[t].v.size(), 3u);
      EXPECT_EQ(a[t].q.size(), 3u);
      EXPECT_EQ(a[t].v, b[t].v) << name;
      EXPECT_EQ(a[t].k, b[t].k) << name;
    }
    if (name != "parallel") {
      EXPECT_NE(latticeDemo(name, 3, 3, 8)[0].v, a[0].v) << name;
    }
  }
  testing_common::expectError([] { latticeDemo("spiral", 3, 3, 0); }, "\"spiral\"",
                              "known: rotating, repeated");
  testing_common::expectError([] { latticeDemo("rotating", 0, 3, 0); }, "\"rotating\"", "m = 0");
  // "repeated": the writes die out once the slots have aligned.
  std::vector<LatticeStepOut> steps;
  latticeRecurrence(identitySlots(3, 3), latticeDemo("repeated", 3, 3, 1), LatticeOptions{}, 1,
                    &steps);
  double first = 0, last = 0;
  for (int i = 0; i < 3; ++i) {
    first += steps.front().theta[i];
    last += steps.back().theta[i];
  }
  EXPECT_LT(last, 0.05 * first);
  // "parallel": a non-zero error, yet the slots never move.
  std::vector<LatticeSlots> slots;
  latticeRecurrence(identitySlots(3, 3), latticeDemo("parallel", 3, 3, 0), LatticeOptions{}, 1,
                    nullptr, &slots);
  for (const LatticeSlots& S : slots) EXPECT_EQ(S.data, identitySlots(3, 3).data);
  // "recall": the reads (γ = 0) write nothing.
  const auto recall = latticeDemo("recall", 3, 3, 2);
  EXPECT_EQ(recall.size(), 18u);
  EXPECT_EQ(recall.back().gamma, 0);
}

}  // namespace
}  // namespace lsrl::seed_models
