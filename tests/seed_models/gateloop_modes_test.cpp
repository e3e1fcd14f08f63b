// The GateLoop operator (core/seed_models/gateloop_modes.h): the spec's test vectors G1 and G2
// (docs/spec/seed-models.md §6.2) in every mode, and the property of §6.4: recurrent = scan (any
// tree shape) = log-domain surrogate attention for random inputs, with |a| < 1.
#include "core/seed_models/gateloop_modes.h"

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "common/expect_error.h"
#include "core/seed_models/model_common.h"

namespace lsrl::seed_models {
namespace {

using testing_common::expectError;
constexpr double kGateLoopSpecTol = 1e-6;  // the spec's values are rounded to 6 decimals
const Complex I(0, 1);

void expectComplexNear(Complex got, Complex want, const std::string& what) {
  EXPECT_NEAR(got.real(), want.real(), kGateLoopSpecTol) << what;
  EXPECT_NEAR(got.imag(), want.imag(), kGateLoopSpecTol) << what;
}

// G1: max-headed, 2 channels (heads = 2, d_h = 1), T = 3; inputs laid out [T][channel].
GateLoopInputs g1() {
  GateLoopInputs in = gateLoopInputs(2, 1, 3);
  const double ln3 = std::log(3.0), ln4 = std::log(4.0), pi = std::numbers::pi;
  const double gamma[3][2] = {{0, ln4}, {ln3, ln4}, {0, -ln3}};
  const double theta[3][2] = {{0, pi / 2}, {0, pi / 2}, {0, pi}};
  const double k[3][2] = {{1, 1}, {2, 0.5}, {0, 1}};
  const double v[3][2] = {{1, 2}, {-1, 5}, {3, 1}};
  const double q[3][2] = {{1, 1}, {1, 1}, {2, 1}};
  for (int n = 0; n < 3; ++n) {
    for (int c = 0; c < 2; ++c) {
      const size_t i = static_cast<size_t>(2 * n + c);
      in.logA[i] = gateLoopLogTransition(gamma[n][c], theta[n][c]);
      in.k[i] = k[n][c];
      in.v[i] = v[n][c];
      in.q[i] = q[n][c];
    }
  }
  return in;
}

const std::vector<Complex> kG1Y = {1, 2, -1.25, 2.5 + 1.6 * I, -1.25, 0.375 - 0.4 * I};

// G2: one outer-product head, d_h = 2, T = 3, a given directly.
GateLoopInputs g2() {
  GateLoopInputs in = gateLoopInputs(1, 2, 3);
  const Complex a[3][2] = {{0.5, 0.5 * I}, {0.5, -0.5}, {0.8 * I, 0.25}};
  in.k = {1, 0, 1, 1, 0, 2};
  in.v = {1, 2, 0, 1, 1, -1};
  in.q = {1, 0, 0, 1, 1, 1};
  for (int n = 0; n < 3; ++n)
    for (int r = 0; r < 2; ++r) in.logA[static_cast<size_t>(2 * n + r)] = gateLoopLogOf(a[n][r]);
  return in;
}

const std::vector<Complex> kG2Y = {1, 2, 0, 1, 2.0 + 0.4 * I, -1.75 + 1.6 * I};

const GateLoopMode kExactModes[] = {GateLoopMode::Recurrent, GateLoopMode::Scan,
                                    GateLoopMode::ScanHillisSteele, GateLoopMode::Attention,
                                    GateLoopMode::AttentionNaive};

TEST(GateLoopOperator, G1TransitionsFromPreActivations) {
  const GateLoopInputs in = g1();
  const Complex want[6] = {0.5, 0.8 * I, 0.75, 0.8 * I, 0.5, -0.25};
  for (size_t i = 0; i < 6; ++i) {
    expectComplexNear(std::exp(in.logA[i]), want[i], "a " + std::to_string(i));
    EXPECT_LT(std::abs(std::exp(in.logA[i])), 1.0);
  }
}

TEST(GateLoopOperator, G1EveryModeMatchesTheTable) {
  for (const GateLoopMode mode : kExactModes) {
    const std::vector<Complex> y = gateLoopRun(g1(), mode);
    ASSERT_EQ(y.size(), kG1Y.size());
    for (size_t i = 0; i < y.size(); ++i)
      expectComplexNear(y[i], kG1Y[i],
                        std::string(gateLoopModeName(mode)) + " y " + std::to_string(i));
  }
  // h_n (d_h = 1: the state is y / q): channel 1 (1, −1.25, −0.625), channel 2 as y.
  std::vector<Complex> states;
  gateLoopRecurrent(g1(), &states);
  ASSERT_EQ(states.size(), 6u);
  expectComplexNear(states[4], -0.625, "h_3 channel 1");
  expectComplexNear(states[5], 0.375 - 0.4 * I, "h_3 channel 2");
  // Prefix products π_n = exp(L_n).
  const std::vector<Complex> L = gateLoopPrefixLog(g1());
  const Complex pi[6] = {0.5, 0.8 * I, 0.375, -0.64, 0.1875, 0.16};
  for (size_t i = 0; i < 6; ++i)
    expectComplexNear(std::exp(L[i]), pi[i], "pi " + std::to_string(i));
}

TEST(GateLoopOperator, G1SurrogateAttentionOfChannel2) {
  for (const GateLoopDomain domain : {GateLoopDomain::Log, GateLoopDomain::Naive}) {
    std::vector<Complex> A;
    gateLoopAttention(g1(), domain, &A);
    ASSERT_EQ(A.size(), 2u * 9u);  // [heads][T][T]
    const Complex want[9] = {1, 0, 0, 0.8 * I, 0.5, 0, -0.2 * I, -0.125, 1};
    for (size_t i = 0; i < 9; ++i) expectComplexNear(A[9 + i], want[i], "A " + std::to_string(i));
  }
}

TEST(GateLoopOperator, G1ScanOperatorIsAssociativeOnChannel2) {
  GateLoopInputs in = g1();
  // Channel 2 alone as a one-channel input.
  GateLoopInputs c2 = gateLoopInputs(1, 1, 3);
  for (size_t n = 0; n < 3; ++n) {
    c2.logA[n] = in.logA[2 * n + 1];
    c2.k[n] = in.k[2 * n + 1];
    c2.v[n] = in.v[2 * n + 1];
    c2.q[n] = in.q[2 * n + 1];
  }
  const GateLoopElement x1 = gateLoopLeaf(c2, 0), x2 = gateLoopLeaf(c2, 1),
                        x3 = gateLoopLeaf(c2, 2);
  const GateLoopElement x23 = gateLoopCombine(x2, x3, 1);
  expectComplexNear(x23.A[0], -0.2 * I, "x2•x3 A");
  expectComplexNear(x23.B[0], 0.375, "x2•x3 B");
  const GateLoopElement right = gateLoopCombine(x1, x23, 1);
  const GateLoopElement left = gateLoopCombine(gateLoopCombine(x1, x2, 1), x3, 1);
  for (const GateLoopElement& e : {right, left}) {
    expectComplexNear(e.A[0], 0.16, "π_3");
    expectComplexNear(e.B[0], 0.375 - 0.4 * I, "h_3");
  }
}

TEST(GateLoopOperator, G2EveryModeMatchesTheTable) {
  for (const GateLoopMode mode : kExactModes) {
    const std::vector<Complex> y = gateLoopRun(g2(), mode);
    ASSERT_EQ(y.size(), kG2Y.size());
    for (size_t i = 0; i < y.size(); ++i)
      expectComplexNear(y[i], kG2Y[i],
                        std::string(gateLoopModeName(mode)) + " y " + std::to_string(i));
  }
  for (const bool scan : {false, true}) {
    std::vector<Complex> H;
    if (scan)
      gateLoopScan(g2(), GateLoopScanAlgorithm::Blelloch, &H);
    else
      gateLoopRecurrent(g2(), &H);
    ASSERT_EQ(H.size(), 12u);  // [T][1][2][2]
    const Complex want[12] = {1, 2, 0, 0, 0.5, 2, 0, 1, 0.4 * I, 1.6 * I, 2, -1.75};
    for (size_t i = 0; i < 12; ++i) expectComplexNear(H[i], want[i], "H " + std::to_string(i));
  }
  const std::vector<Complex> L = gateLoopPrefixLog(g2());
  const Complex pi[6] = {0.5, 0.5 * I, 0.25, -0.25 * I, 0.2 * I, -0.0625 * I};
  for (size_t i = 0; i < 6; ++i)
    expectComplexNear(std::exp(L[i]), pi[i], "pi " + std::to_string(i));
  std::vector<Complex> A;
  gateLoopAttention(g2(), GateLoopDomain::Log, &A);
  const Complex want[9] = {1, 0, 0, 0, 1, 0, 0.4 * I, 0.25 + 0.8 * I, 2};
  for (size_t i = 0; i < 9; ++i) expectComplexNear(A[i], want[i], "A " + std::to_string(i));
}

// Random inputs: a from random pre-activations (so |a| < 1), q, k, v standard normal.
GateLoopInputs randomInputs(Rng& rng, int heads, int dh, int steps, bool withH0) {
  GateLoopInputs in = gateLoopInputs(heads, dh, steps);
  const GateLoopMagnitude mag =
      rng.uniform() < 0.5 ? GateLoopMagnitude::Sigmoid : GateLoopMagnitude::ExpExp;
  const GateLoopPhase phase = rng.uniform() < 0.5 ? GateLoopPhase::Identity : GateLoopPhase::PiTanh;
  for (size_t i = 0; i < in.logA.size(); ++i) {
    in.logA[i] = gateLoopLogTransition(1 + 2 * rng.normal(), 2 * rng.normal(), mag, phase);
    in.q[i] = rng.normal();
    in.k[i] = rng.normal();
    in.v[i] = rng.normal();
  }
  if (withH0) {
    in.h0.resize(static_cast<size_t>(heads * dh * dh));
    for (Complex& h : in.h0) h = Complex(rng.normal(), rng.normal());
  }
  return in;
}

double maxAbs(const std::vector<Complex>& z) {
  double m = 0;
  for (const Complex& x : z) m = std::max(m, std::abs(x));
  return m;
}

void expectRelativelyEqual(const std::vector<Complex>& got, const std::vector<Complex>& want,
                           double tol, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  const double scale = std::max(maxAbs(want), 1e-300);
  for (size_t i = 0; i < got.size(); ++i)
    ASSERT_LE(std::abs(got[i] - want[i]), tol * scale) << what << " entry " << i;
}

// The prefix x_0 • … • x_{hi−1} of [lo, hi) folded along a random binary tree.
GateLoopElement foldRandomTree(Rng& rng, const std::vector<GateLoopElement>& leaves, size_t lo,
                               size_t hi, int dh) {
  if (hi - lo == 1) return leaves[lo];
  const size_t mid = lo + 1 + static_cast<size_t>(rng.uniform() * static_cast<double>(hi - lo - 1));
  return gateLoopCombine(foldRandomTree(rng, leaves, lo, mid, dh),
                         foldRandomTree(rng, leaves, mid, hi, dh), dh);
}

TEST(GateLoopOperatorProperty, RecurrentEqualsScanEqualsAttention) {
  Rng rng(2024);
  for (int trial = 0; trial < 40; ++trial) {
    const int heads = 1 + static_cast<int>(rng.uniform() * 3);
    const int dh = 1 + static_cast<int>(rng.uniform() * 3);
    const int steps = 1 + static_cast<int>(rng.uniform() * 64);
    const GateLoopInputs in = randomInputs(rng, heads, dh, steps, trial % 3 == 0);
    for (const Complex la : in.logA) ASSERT_LT(std::exp(la.real()), 1.0);
    std::vector<Complex> statesRec, statesScan, statesHs;
    const std::vector<Complex> rec = gateLoopRecurrent(in, &statesRec);
    const std::string what = "trial " + std::to_string(trial);
    expectRelativelyEqual(gateLoopScan(in, GateLoopScanAlgorithm::Blelloch, &statesScan), rec,
                          1e-10, what + " blelloch");
    expectRelativelyEqual(gateLoopScan(in, GateLoopScanAlgorithm::HillisSteele, &statesHs), rec,
                          1e-10, what + " hillis-steele");
    expectRelativelyEqual(statesScan, statesRec, 1e-10, what + " blelloch states");
    expectRelativelyEqual(statesHs, statesRec, 1e-10, what + " hillis-steele states");
    expectRelativelyEqual(gateLoopAttention(in, GateLoopDomain::Log), rec, 1e-10,
                          what + " attention");
    // The naive surrogate divides by π, which underflows for very small |a|.
    const std::vector<Complex> L = gateLoopPrefixLog(in);
    double lowest = 0;
    for (const Complex l : L) lowest = std::min(lowest, l.real());
    if (lowest > -600)
      expectRelativelyEqual(gateLoopAttention(in, GateLoopDomain::Naive), rec, 1e-10,
                            what + " naive attention");

    // Any tree shape: prefixes folded along random trees give (π_n, H_n).
    std::vector<GateLoopElement> leaves;
    for (int n = 0; n < steps; ++n) leaves.push_back(gateLoopLeaf(in, n));
    const size_t stateSize = static_cast<size_t>(heads * dh * dh),
                 P = static_cast<size_t>(heads * dh);
    for (size_t n = 0; n < static_cast<size_t>(steps); n += 7) {
      const GateLoopElement e = foldRandomTree(rng, leaves, 0, n + 1, dh);
      const std::vector<Complex> H(statesRec.begin() + static_cast<long>(n * stateSize),
                                   statesRec.begin() + static_cast<long>((n + 1) * stateSize));
      expectRelativelyEqual(e.B, H, 1e-10, what + " random tree H");
      std::vector<Complex> pi(P);
      for (size_t r = 0; r < P; ++r) pi[r] = std::exp(L[n * P + r]);
      expectRelativelyEqual(e.A, pi, 1e-10, what + " random tree π");
    }
  }
}

TEST(GateLoopOperatorProperty, LongSequencesStayFiniteInTheLogDomain) {
  // |a| = 0.5 for 1200 steps: π underflows to 0 (2^-1200), so the naive surrogate breaks
  // down while the log-domain one still matches the recurrence.
  GateLoopInputs in = gateLoopInputs(1, 1, 1200);
  for (size_t n = 0; n < 1200; ++n) {
    in.logA[n] = gateLoopLogOf(0.5);
    in.q[n] = 1;
    in.k[n] = 1;
    in.v[n] = n % 2 ? 1.0 : -1.0;
  }
  const std::vector<Complex> rec = gateLoopRecurrent(in);
  expectRelativelyEqual(gateLoopAttention(in, GateLoopDomain::Log), rec, 1e-10, "log attention");
  const std::vector<Complex> naive = gateLoopAttention(in, GateLoopDomain::Naive);
  EXPECT_FALSE(std::isfinite(std::abs(naive.back())));
}

TEST(GateLoopOperator, ZeroTransitionResetsTheState) {
  // "Sum since last reset" toy (§5.2) set by hand: a = 0 on a reset, ≈ 1 otherwise.
  const std::vector<int> tokens = {2, 3, -1, 1, 4, -1, 2};  // −1 = reset
  GateLoopInputs in = gateLoopInputs(1, 1, 7);
  for (size_t n = 0; n < tokens.size(); ++n) {
    in.logA[n] = tokens[n] < 0 ? gateLoopLogOf(0) : gateLoopLogTransition(40, 0);  // σ(40) ≈ 1
    in.q[n] = 1;
    in.k[n] = 1;
    in.v[n] = tokens[n] < 0 ? 0 : tokens[n];
  }
  const double sums[7] = {2, 5, 0, 1, 5, 0, 2};
  for (const GateLoopMode mode : kExactModes) {
    if (mode == GateLoopMode::AttentionNaive) continue;  // divides by π = 0
    const std::vector<Complex> y = gateLoopRun(in, mode);
    for (size_t n = 0; n < 7; ++n)
      EXPECT_NEAR(y[n].real(), sums[n], 1e-12) << gateLoopModeName(mode);
  }
}

TEST(GateLoopOperator, ConstantPhaseTicksWithPeriodP) {
  const int P = 6;
  GateLoopInputs in = gateLoopInputs(1, 1, 24);
  for (size_t n = 0; n < 24; ++n) {
    in.logA[n] = gateLoopLogTransition(40, 2 * std::numbers::pi / P);  // |a| ≈ 1
    in.q[n] = 1;
    in.k[n] = n == 0 ? 1 : 0;  // one write, then pure rotation
    in.v[n] = 1;
  }
  const std::vector<Complex> y = gateLoopRecurrent(in);
  for (size_t n = 0; n + P < 24; ++n) EXPECT_NEAR(y[n].real(), y[n + P].real(), 1e-12);
  EXPECT_NEAR(y[3].real(), -1, 1e-12);
}

TEST(GateLoopOperator, SoftmaxAttentionIsAConvexCombination) {
  Rng rng(5);
  GateLoopInputs in = randomInputs(rng, 2, 2, 10, false);
  for (double& v : in.v) v = 3.5;
  for (const Complex& y : gateLoopSoftmaxAttention(in)) {
    EXPECT_NEAR(y.real(), 3.5, 1e-12);
    EXPECT_EQ(y.imag(), 0);
  }
  // The first token attends only to itself.
  in = randomInputs(rng, 1, 1, 4, false);
  EXPECT_NEAR(gateLoopSoftmaxAttention(in)[0].real(), in.v[0], 1e-12);
}

TEST(GateLoopOperator, EmptySequencesAndNonFiniteInputs) {
  const GateLoopInputs empty = gateLoopInputs(2, 2, 0);
  for (const GateLoopMode mode : kExactModes) EXPECT_TRUE(gateLoopRun(empty, mode).empty());
  EXPECT_TRUE(gateLoopSoftmaxAttention(empty).empty());

  Rng rng(9);
  GateLoopInputs in = randomInputs(rng, 1, 2, 8, false);
  in.v[2 * 4] = std::nan("");
  for (const GateLoopMode mode : kExactModes) {
    const std::vector<Complex> y = gateLoopRun(in, mode);
    for (size_t n = 0; n < 8; ++n)
      EXPECT_EQ(std::isfinite(std::abs(y[2 * n])), n < 4) << gateLoopModeName(mode) << " " << n;
  }
}

TEST(GateLoopOperator, ParameterisationAndNames) {
  // sigmoid magnitude in closed form, even where σ rounds to 1 or underflows.
  EXPECT_NEAR(gateLoopLogTransition(0, 0).real(), std::log(0.5), 1e-15);
  EXPECT_LT(gateLoopLogTransition(50, 0).real(), 0.0);
  EXPECT_EQ(gateLoopLogTransition(-1e6, 0).real(), kGateLoopLogZero);
  EXPECT_NEAR(gateLoopLogTransition(0, 0, GateLoopMagnitude::ExpExp).real(), -1, 1e-15);
  EXPECT_NEAR(
      gateLoopLogTransition(0, 100, GateLoopMagnitude::Sigmoid, GateLoopPhase::PiTanh).imag(),
      std::numbers::pi, 1e-15);
  EXPECT_EQ(gateLoopLogTransition(0, 100).imag(), 100);
  for (const GateLoopMode mode : kExactModes)
    EXPECT_EQ(gateLoopModeFromName(gateLoopModeName(mode)), mode);
  EXPECT_EQ(gateLoopModeFromName("softmax"), GateLoopMode::Softmax);
  EXPECT_FALSE(gateLoopModeFromName("parallel"));
  EXPECT_EQ(gateLoopMagnitudeFromName("exp_exp"), GateLoopMagnitude::ExpExp);
  EXPECT_EQ(gateLoopPhaseFromName("pi_tanh"), GateLoopPhase::PiTanh);
  EXPECT_FALSE(gateLoopPhaseFromName("tanh"));
}

TEST(GateLoopOperator, InputSizeErrors) {
  GateLoopInputs in = gateLoopInputs(2, 1, 3);
  in.v.pop_back();
  expectError([&] { gateLoopRecurrent(in); }, "gateloop operator", "v entries: expected 6, got 5");
  in = gateLoopInputs(2, 1, 3);
  in.h0 = {1};
  expectError([&] { gateLoopScan(in); }, "gateloop operator", "h0 entries: expected 2, got 1");
  in = gateLoopInputs(2, 1, 3);
  in.dh = 0;
  expectError([&] { gateLoopAttention(in); }, "gateloop operator", "d_h = 0");
}

}  // namespace
}  // namespace lsrl::seed_models
