// The CPU twins of Hawk's causal convolution and RG-LRU inputs on values worked out by
// hand and against straightforward float64 loops at random sizes; their input checks.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "common/expect_error.h"
#include "core/float_batch/conv_lru.h"

namespace lsrl::float_batch {
namespace {

using V = std::vector<float>;

V uniform(std::mt19937& rng, size_t n, float lo, float hi) {
  std::uniform_real_distribution<float> d(lo, hi);
  V v(n);
  for (float& x : v) x = d(rng);
  return v;
}

TEST(ConvLruTwin, CausalConvByHand) {
  // C = 1, K = 3, taps (1, 10, 100): out_t = bias + 100 x_t + 10 x_{t−1} + 1 x_{t−2}.
  const V x{1, 2, 3, 4};
  EXPECT_EQ(causalConv1d({1, 4, 1}, V{1, 10, 100}, 3, V{0.5f}, x),
            (V{100.5f, 210.5f, 321.5f, 432.5f}));
  // C = 2 (channels do not mix), K = 1: out = bias + tap · x; two sequences start afresh.
  EXPECT_EQ(causalConv1d({2, 1, 2}, V{2, -1}, 1, V{0, 1}, V{1, 2, 3, 4}), (V{2, -1, 6, -3}));
}

TEST(ConvLruTwin, CausalConvMatchesAFloat64Loop) {
  std::mt19937 rng(31);
  struct Case {
    SeriesShape shape;
    int K;
  };
  for (const Case& c :
       {Case{{1, 1, 1}, 4}, Case{{2, 13, 7}, 4}, Case{{3, 5, 33}, 9}, Case{{1, 40, 3}, 1}}) {
    const SeriesShape& s = c.shape;
    const size_t B = s.batch, T = s.steps, C = s.channels, K = size_t(c.K);
    V taps = uniform(rng, C * K, -1, 1);
    for (size_t k = 0; k < taps.size(); k += 3) taps[k] = 0;  // skipped taps
    const V bias = uniform(rng, C, -1, 1), x = uniform(rng, B * T * C, -2, 2);
    const V out = causalConv1d(s, taps, c.K, bias, x);
    for (size_t b = 0; b < B; ++b)
      for (size_t t = 0; t < T; ++t)
        for (size_t ch = 0; ch < C; ++ch) {
          double want = bias[ch];
          for (size_t lag = 0; lag < K && lag <= t; ++lag)
            want += double(taps[ch * K + K - 1 - lag]) * x[((b * T) + t - lag) * C + ch];
          EXPECT_NEAR(out[(b * T + t) * C + ch], want, 1e-5 * (1 + std::abs(want)))
              << "K " << K << " b " << b << " t " << t << " c " << ch;
        }
  }
}

TEST(ConvLruTwin, RgLruInputsByHand) {
  // lruC = 2. Channel 0: base 0, r = 0.5 → a = 0, b = i·u; r = 0 → a = 1 (not 0^0), b = 0.
  // Channel 1: base 0.25, r = 0.5 → a = 0.25, b = √(15/16)·i·u. Channel 2: base 1 → a = 1.
  const V base{0, 0.25f, 1};
  const V r{0.5f, 0.5f, 0.5f, 0, 0, 0}, i{1, 2, 3, 1, 1, 1}, u{2, 2, 2, 1, 1, 1};
  V a(6), b(6);
  rgLruInputs({1, 2, 3}, base, 2.0f, r, i, u, a, b);
  EXPECT_EQ(a, (V{0, 0.25f, 1, 1, 1, 1}));
  EXPECT_EQ(b, (V{2, std::sqrt(1 - 0.0625f) * 4, 0, 0, 0, 0}));
}

TEST(ConvLruTwin, RgLruInputsMatchAFloat64Loop) {
  std::mt19937 rng(32);
  const SeriesShape s{3, 11, 9};
  const size_t C = s.channels, n = size_t(s.batch) * s.steps * C;
  V base = uniform(rng, C, 0, 1);
  base[2] = 0;
  V r = uniform(rng, n, 0, 1);
  for (size_t k = 0; k < n; k += 5) r[k] = 0;
  const V i = uniform(rng, n, -1, 1), u = uniform(rng, n, -1, 1);
  V a(n), b(n);
  rgLruInputs(s, base, 8.0f, r, i, u, a, b);
  for (size_t k = 0; k < n; ++k) {
    const double e = 8.0 * r[k];
    const double alpha = std::pow(double(base[k % C]), e);  // pow(0, 0) = 1 in C
    const double want = std::sqrt(1 - alpha * alpha) * i[k] * u[k];
    EXPECT_NEAR(a[k], alpha, 1e-6) << k;
    // √(1 − a²) loses digits as a → 1 (in float64 too): compare at fp32's resolution of a.
    EXPECT_NEAR(b[k], want, 1e-3 * (1 + std::abs(want))) << k;
  }
}

using testing_common::expectError;

TEST(ConvLruTwin, BadShapesAreErrorsNamingTheKernel) {
  expectError([] { causalConv1d({1, 2, 2}, V(4), 0, V(2), V(4)); }, "causalConv1d", "K=0");
  expectError(
      [] {
        causalConv1d({1, 2, 2}, V(5), 2, V(2), V(4));
      },
      "causalConv1d", "expected taps (C x K) of 4 floats, got 5");
  expectError(
      [] {
        causalConv1d({1, 2, 2}, V(4), 2, V(1), V(4));
      },
      "causalConv1d", "expected bias of 2 floats, got 1");
  expectError(
      [] {
        causalConv1d({1, 2, 2}, V(4), 2, V(2), V(3));
      },
      "causalConv1d", "expected x of 4 floats, got 3");
  V a(2), b(2);
  expectError(
      [&] {
        rgLruInputs({1, 1, 2}, V{1, -0.5f}, 8, V(2), V(2), V(2), a, b);
      },
      "rgLruInputs", "base >= 0");
  expectError(
      [&] {
        rgLruInputs({1, 1, 2}, V(3), 8, V(2), V(2), V(2), a, b);
      },
      "rgLruInputs", "expected base of 2 floats, got 3");
  expectError(
      [&] {
        rgLruInputs({1, 1, 2}, V(2), 8, V(2), V(1), V(2), a, b);
      },
      "rgLruInputs", "expected i of 2 floats, got 1");
  V shortOut(1);
  expectError(
      [&] {
        rgLruInputs({1, 1, 2}, V(2), 8, V(2), V(2), V(2), a, shortOut);
      },
      "rgLruInputs", "expected bOut of 2 floats, got 1");
  expectError([&] { rgLruInputs({0, 1, 2}, V(2), 8, V{}, V{}, V{}, a, b); }, "rgLruInputs", "B=0");
}

}  // namespace
}  // namespace lsrl::float_batch
