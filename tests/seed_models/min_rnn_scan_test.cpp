// The minGRU/minLSTM recurrence (core/seed_models/min_rnn_scan.h, mingru.h, minlstm.h): the
// spec's test vectors M1–M3-log and the g table (docs/spec/seed-models.md §6.3), and the property
// tests of §6.4 — sequential = parallel scan = log-space scan, implicit-attention rows
// summing to 1, positive log-space states — plus errors, NaN and empty sequences.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "common/expect_error.h"
#include "common/vector_compare.h"
#include "core/seed_models/mingru.h"
#include "core/seed_models/minlstm.h"

namespace lsrl::seed_models {
namespace {

using testing_common::expectError;
using testing_common::expectNear;
using testing_common::maxDiff;

constexpr double kSpec = 1e-6;    // the spec's values are rounded to 6 decimals
constexpr double kModes = 1e-10;  // the acceptance property, float64
const double ln3 = std::log(3.0), ln4 = std::log(4.0);

std::vector<double> expOf(const std::vector<double>& xs) {
  std::vector<double> out;
  for (const double x : xs) out.push_back(std::exp(x));
  return out;
}

// §6.3 shared setup: d_h = 2, T = 3, h_0 = (0, 1), candidate pre-activations ĥ.
const std::vector<double> kH0 = {0, 1};
const std::vector<double> kHPre = {1, -2, 0.5, 4, -1, 0};

MinRnnGates m1Gates() { return minGruGates({0, ln3, -ln3, 0, ln4, -ln4}, kHPre, 2); }
MinRnnGates m3Gates() {
  return minLstmGates({0, ln3, ln4, -ln4, -ln3, ln3}, {0, -ln3, 0, 0, ln3, ln3}, kHPre, 2);
}

TEST(MinRnnFunctions, GTable) {
  const std::vector<std::pair<double, std::pair<double, double>>> table = {
      {-2, {0.119203, -2.126928}}, {-1, {0.268941, -1.313262}},
      {0, {0.5, -0.693147}},       {0.5, {1, 0}},
      {1, {1.5, 0.405465}},        {4, {4.5, 1.504077}}};
  for (const auto& [x, want] : table) {
    EXPECT_NEAR(minRnnG(x), want.first, kSpec) << x;
    EXPECT_NEAR(minRnnLogG(x), want.second, kSpec) << x;
    EXPECT_NEAR(std::log(minRnnG(x)), minRnnLogG(x), 1e-15) << x;
  }
  // Continuous at 0 and safe far out: no overflow, no log(0).
  EXPECT_NEAR(minRnnG(-1e-12), 0.5, 1e-12);
  EXPECT_NEAR(minRnnLogG(-1000), -1000, 1e-9);
  EXPECT_TRUE(std::isfinite(minRnnLogG(1e300)));
  EXPECT_EQ(minRnnSoftplus(-1000), 0);
  EXPECT_EQ(minRnnSoftplus(1000), 1000);
  EXPECT_NEAR(minRnnSoftplus(0), std::log(2.0), 1e-15);
  EXPECT_EQ(minRnnSigmoid(-1000), 0);
  EXPECT_EQ(minRnnSigmoid(1000), 1);
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(logAddExp(-inf, -inf), -inf);
  EXPECT_EQ(logAddExp(-inf, 2), 2);
  EXPECT_EQ(logAddExp(inf, 2), inf);
  EXPECT_NEAR(logAddExp(1000, 1000), 1000 + std::log(2.0), 1e-12);
  EXPECT_TRUE(std::isnan(logAddExp(std::nan(""), 1)));
}

TEST(MinRnnVectors, M1MinGruVanilla) {
  const MinRnnGates g = m1Gates();
  EXPECT_EQ(g.steps, 3);
  EXPECT_EQ(g.width, 2);
  expectNear(expOf(g.logW), {0.5, 0.75, 0.25, 0.5, 0.8, 0.2}, kSpec, "z");
  expectNear(expOf(g.logA), {0.5, 0.25, 0.75, 0.5, 0.2, 0.8}, kSpec, "1 - z");
  const std::vector<double> want = {0.5, -1.25, 0.5, 1.375, -0.7, 1.1};
  for (const MinRnnMode mode : {MinRnnMode::Sequential, MinRnnMode::Parallel})
    expectNear(minRnnRun(g, MinRnnVariant::Vanilla, mode, kH0), want, kSpec, minRnnModeName(mode));
  // The closed form h_t = Σ_j b_j Π a (the implicit attention) gives the same values.
  const std::vector<double> w = minRnnAttention(g);
  std::vector<double> closed(6, 0.0);
  for (size_t u = 0; u < 2; ++u)
    for (size_t t = 0; t < 3; ++t) {
      double h = w[(u * 3 + t) * 4] * kH0[u];
      for (size_t m = 1; m <= t + 1; ++m) h += w[(u * 3 + t) * 4 + m] * kHPre[(m - 1) * 2 + u];
      closed[t * 2 + u] = h;
    }
  expectNear(closed, want, kSpec, "closed form");
}

TEST(MinRnnVectors, M2MinGruLogSpace) {
  const MinRnnGates g = m1Gates();
  const std::vector<double> h0 = minRnnInitialState(kH0, MinRnnVariant::Log);
  expectNear(h0, {0.5, 1.5}, kSpec, "h0_eff");
  expectNear(minRnnCandidates(g, MinRnnVariant::Log), {1.5, 0.119203, 1.0, 4.5, 0.268941, 0.5},
             kSpec, "g(h-hat)");
  const std::vector<double> want = {1.0, 0.464402, 1.0, 2.482201, 0.415153, 2.085761};
  for (const MinRnnMode mode : {MinRnnMode::Sequential, MinRnnMode::Parallel, MinRnnMode::LogSpace})
    expectNear(minRnnRun(g, MinRnnVariant::Log, mode, h0), want, kSpec, minRnnModeName(mode));

  // Heinsen's intermediates, rows [t][unit]: dimension 1 then dimension 2 interleaved.
  expectNear(g.logA, {-0.693147, -1.386294, -0.287682, -0.693147, -1.609438, -0.223144}, kSpec,
             "log_coeffs");
  const std::vector<double> values = minRnnLogValues(g, h0);
  ASSERT_EQ(values.size(), 8u);  // [T + 1][d]: log b_0 = log h0_eff, then log b_t
  std::vector<double> aStar, lcse;
  const std::vector<double> h = logSpaceScan(g.logA, values, 2, &aStar, &lcse);
  auto unit = [](const std::vector<double>& xs, size_t u) {
    std::vector<double> out;
    for (size_t i = u; i < xs.size(); i += 2) out.push_back(xs[i]);
    return out;
  };
  expectNear(unit(values, 0), {-0.693147, -0.287682, -1.386294, -1.536405}, kSpec, "log_values 1");
  expectNear(unit(values, 1), {0.405465, -2.414610, 0.810930, -2.302585}, kSpec, "log_values 2");
  expectNear(unit(aStar, 0), {0, -0.693147, -0.980829, -2.590267}, kSpec, "a* 1");
  expectNear(unit(aStar, 1), {0, -1.386294, -2.079442, -2.302585}, kSpec, "a* 2");
  expectNear(unit(lcse, 0), {-0.693147, 0.693147, 0.980829, 1.711159}, kSpec, "lcse 1");
  expectNear(unit(lcse, 1), {0.405465, 0.619290, 2.988587, 3.037719}, kSpec, "lcse 2");
  expectNear(h, want, kSpec, "h");
}

TEST(MinRnnVectors, M3MinLstmVanilla) {
  const MinRnnGates g = m3Gates();
  expectNear(expOf(g.logA), {0.5, 0.75, 0.615385, 0.285714, 0.25, 0.5}, kSpec, "f'");
  expectNear(expOf(g.logW), {0.5, 0.25, 0.384615, 0.714286, 0.75, 0.5}, kSpec, "i'");
  const std::vector<double> want = {0.5, 0.25, 0.5, 2.928571, -0.625, 1.464286};
  for (const MinRnnMode mode : {MinRnnMode::Sequential, MinRnnMode::Parallel})
    expectNear(minRnnRun(g, MinRnnVariant::Vanilla, mode, kH0), want, kSpec, minRnnModeName(mode));
  // The raw gates of the table come from the model's trace (minlstm.h): σ of p and k.
  EXPECT_NEAR(minRnnSigmoid(ln4), 0.8, kSpec);
  EXPECT_NEAR(minRnnSigmoid(-ln4), 0.2, kSpec);
}

TEST(MinRnnVectors, M3MinLstmLogSpace) {
  const MinRnnGates g = m3Gates();
  std::vector<double> diff;
  for (size_t i = 0; i < g.logA.size(); ++i) diff.push_back(g.logW[i] - g.logA[i]);  // log(i'/f')
  expectNear(diff, {0, -1.098612, -0.470004, 0.916291, 1.098612, 0}, kSpec, "diff");
  expectNear({g.logA[0], g.logA[1], g.logA[2], g.logA[3]},
             {-0.693147, -0.287682, -0.485508, -1.252763}, kSpec, "log f'");
  expectNear({g.logW[0], g.logW[1]}, {-0.693147, -1.386294}, kSpec, "log i'_1");
  const std::vector<double> h0 = minRnnInitialState(kH0, MinRnnVariant::Log);
  const std::vector<double> want = {1.0, 1.154801, 1.0, 3.544229, 0.451706, 2.022114};
  for (const MinRnnMode mode : {MinRnnMode::Sequential, MinRnnMode::Parallel, MinRnnMode::LogSpace})
    expectNear(minRnnRun(g, MinRnnVariant::Log, mode, h0), want, kSpec, minRnnModeName(mode));
}

TEST(MinRnnScan, CombineIsAssociativeWithIdentity) {
  const ScanPair x{0.5, 2}, y{0.25, -1}, z{0.8, 3};
  const ScanPair left = scanCombine(scanCombine(x, y), z),
                 right = scanCombine(x, scanCombine(y, z));
  EXPECT_DOUBLE_EQ(left.a, right.a);
  EXPECT_DOUBLE_EQ(left.b, right.b);
  EXPECT_DOUBLE_EQ(left.b, 0.8 * (0.25 * 2 - 1) + 3);  // h_3 from h_0 = 0
  const ScanPair e{};
  EXPECT_EQ(scanCombine(e, x).a, x.a);
  EXPECT_EQ(scanCombine(e, x).b, x.b);
  EXPECT_EQ(scanCombine(x, e).b, x.b);
}

// Random gates of every length up to 64 (powers of two and not): the three modes agree.
TEST(MinRnnProperties, ModesAgreeOnRandomInputs) {
  Rng rng(11);
  for (int T = 0; T <= 64; T += (T < 10 ? 1 : 9)) {
    for (const int d : {1, 3}) {
      std::vector<double> a, b, c;
      for (int i = 0; i < T * d; ++i) {
        a.push_back(rng.uniform(-6, 6));
        b.push_back(rng.uniform(-6, 6));
        c.push_back(rng.uniform(-4, 4));
      }
      std::vector<double> h0raw;
      for (int u = 0; u < d; ++u) h0raw.push_back(rng.uniform(-2, 2));
      for (const MinRnnGates& g : {minGruGates(a, c, d), minLstmGates(a, b, c, d)}) {
        const std::string what = "T=" + std::to_string(T) + " d=" + std::to_string(d);
        const std::vector<double> sv = minRnnSequential(g, MinRnnVariant::Vanilla, h0raw);
        EXPECT_LT(maxDiff(minRnnParallel(g, MinRnnVariant::Vanilla, h0raw), sv), kModes) << what;
        const std::vector<double> h0 = minRnnInitialState(h0raw, MinRnnVariant::Log);
        const std::vector<double> sl = minRnnSequential(g, MinRnnVariant::Log, h0);
        EXPECT_LT(maxDiff(minRnnParallel(g, MinRnnVariant::Log, h0), sl), kModes) << what;
        EXPECT_LT(maxDiff(minRnnLogSpace(g, MinRnnVariant::Log, h0), sl), kModes) << what;
        for (const double h : minRnnLogSpace(g, MinRnnVariant::Log, h0)) EXPECT_GT(h, 0) << what;
        for (const double h : sl) EXPECT_GT(h, 0) << what;
        // Implicit-attention rows sum to 1; retention is 1 on the diagonal, 0 above it.
        const std::vector<double> w = minRnnAttention(g), r = minRnnRetention(g);
        ASSERT_EQ(w.size(), static_cast<size_t>(d * T * (T + 1)));
        for (int u = 0; u < d; ++u)
          for (int t = 0; t < T; ++t) {
            double sum = 0;
            for (int m = 0; m <= T; ++m) {
              const size_t i = static_cast<size_t>((u * T + t) * (T + 1) + m);
              EXPECT_GE(w[i], 0);
              sum += w[i];
              if (m >= t + 1) {
                EXPECT_EQ(r[i], m == t + 1 ? 1.0 : 0.0);
              }
            }
            EXPECT_NEAR(sum, 1, 1e-12) << what;
          }
      }
    }
  }
}

TEST(MinRnnProperties, LongSequencesStayAccurate) {
  // T = 4096 with mean log a ≈ −0.7 (§3.4 point 5): a* reaches ≈ −2900, still fine in float64.
  Rng rng(5);
  const int T = 4096, d = 2;
  std::vector<double> k, c;
  for (int i = 0; i < T * d; ++i) {
    k.push_back(rng.uniform(-1, 1));
    c.push_back(rng.uniform(-3, 3));
  }
  const MinRnnGates g = minGruGates(k, c, d);
  const std::vector<double> h0 = minRnnInitialState({0, 0}, MinRnnVariant::Log);
  const std::vector<double> s = minRnnSequential(g, MinRnnVariant::Log, h0);
  EXPECT_LT(maxDiff(minRnnParallel(g, MinRnnVariant::Log, h0), s), kModes);
  EXPECT_LT(maxDiff(minRnnLogSpace(g, MinRnnVariant::Log, h0), s), kModes);
}

TEST(MinRnnProperties, NanReachesLaterStepsOnly) {
  std::vector<double> k = {0.1, 0.2, 0.3, std::nan(""), 0.5, 0.6, 0.7, 0.8, 0.9};
  const MinRnnGates g = minGruGates(k, std::vector<double>(9, 1.0), 1);
  const std::vector<double> h0 = {0.5};
  for (const MinRnnMode mode :
       {MinRnnMode::Sequential, MinRnnMode::Parallel, MinRnnMode::LogSpace}) {
    const std::vector<double> h = minRnnRun(g, MinRnnVariant::Log, mode, h0);
    for (size_t t = 0; t < h.size(); ++t)
      EXPECT_EQ(std::isfinite(h[t]), t < 3) << minRnnModeName(mode) << " step " << t;
  }
}

TEST(MinRnnProperties, EmptySequences) {
  const MinRnnGates g = minGruGates({}, {}, 4);
  EXPECT_EQ(g.steps, 0);
  const std::vector<double> h0(4, 0.5);
  for (const MinRnnMode mode : {MinRnnMode::Sequential, MinRnnMode::Parallel, MinRnnMode::LogSpace})
    EXPECT_TRUE(minRnnRun(g, MinRnnVariant::Log, mode, h0).empty());
  EXPECT_TRUE(minRnnAttention(g).empty());
  EXPECT_EQ(minRnnLogValues(g, h0).size(), 4u);  // log b_0 only
}

TEST(MinRnnErrors, AreNamed) {
  const MinRnnGates g = m1Gates();
  expectError(
      [&] {
        minRnnLogSpace(g, MinRnnVariant::Vanilla, {0.5, 0.5});
      },
      "log_space", "needs the \"log\" variant");
  expectError(
      [&] {
        minRnnLogSpace(g, MinRnnVariant::Log, {0.5, 0});
      },
      "log_space", "h0[1] = 0.000000 is not positive");
  expectError([&] { minRnnSequential(g, MinRnnVariant::Log, {0.5}); }, "initial state h0",
              "expected 2, got 1");
  MinRnnGates broken = g;
  broken.logW.pop_back();
  expectError(
      [&] {
        minRnnParallel(broken, MinRnnVariant::Log, {0.5, 0.5});
      },
      "\"logW\"", "expected 6, got 5");
  expectError([] { minGruGates({1, 2, 3}, {1, 2, 3}, 2); }, "minGRU gates", "not rows of width 2");
  expectError([] { minGruGates({1, 2}, {1}, 1); }, "minGRU candidate", "expected 2, got 1");
  expectError(
      [] {
        minLstmGates({1, 2}, {1}, {1, 2}, 1);
      },
      "minLSTM input-gate", "expected 2, got 1");
  expectError(
      [] {
        linearScanParallel({1, 2, 3}, {1, 2, 3}, {0, 0});
      },
      "linear scan", "not rows of width 2");
  expectError(
      [] {
        linearScanSequential({1, 2}, {1}, {0});
      },
      "linear scan: b", "expected 2, got 1");
  expectError(
      [] {
        logSpaceScan({0, 0}, {0, 0}, 1);
      },
      "log-space scan: log_values", "expected 3, got 2");
  EXPECT_EQ(minRnnModeFromName("log_space"), MinRnnMode::LogSpace);
  EXPECT_FALSE(minRnnModeFromName("scan").has_value());
  EXPECT_EQ(minRnnVariantFromName("vanilla"), MinRnnVariant::Vanilla);
  EXPECT_FALSE(minRnnVariantFromName("complex").has_value());
}

}  // namespace
}  // namespace lsrl::seed_models
