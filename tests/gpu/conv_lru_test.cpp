// Hawk's causal convolution and RG-LRU inputs on Vulkan against their CPU twins
// (core/float_batch/conv_lru.h): B = 1, T not a multiple of 8, odd C, K = 1 and K > T, zero
// taps, zero bases and gates, in tiles; chained into the diagonal scan in one submission;
// bad shapes.
#include "core/float_batch/conv_lru.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "common/expect_error.h"
#include "core/float_batch/scan.h"
#include "core/gpu/conv_lru_kernels.h"
#include "core/gpu/scan_kernels.h"
#include "gpu/float_parity.h"
#include "gpu/vulkan_test_util.h"

namespace lsrl::gpu {
namespace {

using float_batch::SeriesShape;
using testing_vulkan::expectParity;
using testing_vulkan::randomFloats;
using V = std::vector<float>;

std::string convShapeName(const SeriesShape& s) {
  return "B=" + std::to_string(s.batch) + " T=" + std::to_string(s.steps) +
         " C=" + std::to_string(s.channels);
}

TEST(VulkanConvLru, CausalConvMatchesTheTwin) {
  LSRL_VULKAN_DEVICE(dev);
  std::mt19937 rng(51);
  struct Case {
    SeriesShape shape;
    int K;
    size_t maxTileRows;
  };
  const std::vector<Case> cases = {{{1, 1, 1}, 1, 0},   {{1, 13, 7}, 4, 0},  {{3, 5, 33}, 9, 0},
                                   {{2, 37, 96}, 4, 0}, {{5, 11, 17}, 3, 2}, {{1, 300, 129}, 2, 0}};
  for (const Case& c : cases) {
    const SeriesShape& s = c.shape;
    V taps = randomFloats(rng, size_t(s.channels) * c.K);
    for (size_t k = 1; k < taps.size(); k += 4) taps[k] = 0;
    const V bias = randomFloats(rng, s.channels);
    const V x = randomFloats(rng, size_t(s.batch) * s.steps * s.channels, -2.0f, 2.0f);
    expectParity(runCausalConv1d(dev, s, taps, c.K, bias, x, {.maxTileRows = c.maxTileRows}),
                 float_batch::causalConv1d(s, taps, c.K, bias, x),
                 "conv " + convShapeName(s) + " K=" + std::to_string(c.K));
  }
  EXPECT_TRUE(dev.validationErrors().empty()) << dev.validationErrors().front();
}

// r is 0 (a = 1) or at least 0.05: near r = 0, √(1 − a²) cancels, and one ulp of the
// device's pow would show as 1e-3 of b on either side.
V gates(std::mt19937& rng, size_t n) {
  V r = randomFloats(rng, n, 0.05f, 1.0f);
  for (size_t k = 0; k < n; k += 7) r[k] = 0;
  return r;
}

TEST(VulkanConvLru, RgLruInputsMatchTheTwin) {
  LSRL_VULKAN_DEVICE(dev);
  std::mt19937 rng(52);
  for (const SeriesShape s : {SeriesShape{1, 1, 1}, SeriesShape{1, 13, 7}, SeriesShape{3, 29, 33},
                              SeriesShape{2, 100, 257}}) {
    const size_t n = size_t(s.batch) * s.steps * s.channels;
    V base = randomFloats(rng, s.channels, 0.0f, 1.0f);
    base[0] = 0;
    if (s.channels > 2) base[2] = 1;
    const V r = gates(rng, n), i = randomFloats(rng, n), u = randomFloats(rng, n, -2.0f, 2.0f);
    V a(n), b(n), aGpu(n), bGpu(n);
    float_batch::rgLruInputs(s, base, 8.0f, r, i, u, a, b);
    runRgLruInputs(dev, s, base, 8.0f, r, i, u, aGpu, bGpu);
    expectParity(aGpu, a, "rglru a " + convShapeName(s));
    expectParity(bGpu, b, "rglru b " + convShapeName(s));
    runRgLruInputs(dev, s, base, 8.0f, r, i, u, aGpu, bGpu, {.maxTileRows = 5});
    expectParity(aGpu, a, "rglru a in tiles " + convShapeName(s));
    expectParity(bGpu, b, "rglru b in tiles " + convShapeName(s));
  }
  EXPECT_TRUE(dev.validationErrors().empty()) << dev.validationErrors().front();
}

// conv → RG-LRU inputs → diagonal scan with the series' strides, one submission, as the
// Hawk runner records a block's recurrence.
TEST(VulkanConvLru, ChainIntoTheDiagonalScanInOneSubmission) {
  LSRL_VULKAN_DEVICE(dev);
  std::mt19937 rng(53);
  const SeriesShape s{2, 21, 9};
  const int K = 4;
  const size_t n = size_t(s.batch) * s.steps * s.channels;
  const V taps = randomFloats(rng, size_t(s.channels) * K), bias = randomFloats(rng, s.channels);
  const V x = randomFloats(rng, n), base = randomFloats(rng, s.channels, 0.0f, 0.9f);
  const V r = gates(rng, n), i = randomFloats(rng, n);
  auto upload = [&](const V& v) {
    auto buffer = dev.buffer(v.size() * sizeof(float));
    dev.upload(*buffer, v.data(), v.size() * sizeof(float));
    return buffer;
  };
  auto tapB = upload(taps), biasB = upload(bias), xB = upload(x), baseB = upload(base);
  auto rB = upload(r), iB = upload(i);
  auto uB = dev.buffer(n * 4), aB = dev.buffer(n * 4), bB = dev.buffer(n * 4),
       hB = dev.buffer(n * 4);
  ScanKernels scans(dev);
  const DiagScanShape scan{s, {s.steps * (long long)s.channels, s.channels}, false};
  const ScanOptions sequential{.path = ScanPath::Sequential};
  Batch work = dev.batch();
  recordCausalConv1d(dev, work, *tapB, K, *biasB, *xB, *uB, s);
  recordRgLruInputs(dev, work, *baseB, 8.0f, *rB, *iB, *uB, *aB, *bB, s);
  scans.recordDiagScan(work, {aB.get(), bB.get(), nullptr, hB.get(), nullptr}, scan, sequential);
  dev.run(work);
  const V u = float_batch::causalConv1d(s, taps, K, bias, x);
  V a(n), b(n);
  float_batch::rgLruInputs(s, base, 8.0f, r, i, u, a, b);
  const V h = float_batch::diagScan(s, a, scan.aStrides, b, {});
  expectParity(dev.download<float>(*hB, n), h, "conv → rglru → scan");
  EXPECT_TRUE(dev.validationErrors().empty()) << dev.validationErrors().front();
}

using testing_common::expectError;

TEST(VulkanConvLru, BadShapesAreErrorsNamingTheKernel) {
  LSRL_VULKAN_DEVICE(dev);
  auto small = dev.buffer(4 * sizeof(float)), large = dev.buffer(64 * sizeof(float));
  Batch work = dev.batch();
  expectError(
      [&] {
        recordCausalConv1d(dev, work, *large, 0, *large, *large, *large, {1, 2, 2});
      },
      "causalConv1d", "K=0");
  expectError(
      [&] {
        recordCausalConv1d(dev, work, *small, 3, *large, *large, *large, {1, 2, 2});
      },
      "causalConv1d", "expected buffer taps of at least 24 bytes, got 16");
  expectError(
      [&] {
        recordCausalConv1d(dev, work, *large, 2, *large, *large, *small, {1, 4, 2});
      },
      "causalConv1d", "buffer out");
  expectError(
      [&] {
        recordRgLruInputs(dev, work, *large, 8, *large, *small, *large, *large, *large, {2, 2, 2});
      },
      "rgLruInputs", "expected buffer i of at least 32 bytes, got 16");
  expectError(
      [&] {
        recordRgLruInputs(dev, work, *large, 8, *large, *large, *large, *large, *large, {1, 0, 2});
      },
      "rgLruInputs", "T=0");
  EXPECT_EQ(work.size(), 0u);
  expectError(
      [&] {
        runCausalConv1d(dev, {1, 2, 2}, V(4), 2, V(2), V(3));
      },
      "causalConv1d", "expected x of 4 floats, got 3");
  V a(2), b(2);
  expectError(
      [&] {
        runRgLruInputs(dev, {1, 1, 2}, V{0.5f, -1}, 8, V(2), V(2), V(2), a, b);
      },
      "rgLruInputs", "base >= 0");
  V shortA(1);
  expectError(
      [&] {
        runRgLruInputs(dev, {1, 1, 2}, V(2), 8, V(2), V(2), V(2), shortA, b);
      },
      "rgLruInputs", "expected a of 2 floats, got 1");
  EXPECT_TRUE(dev.validationErrors().empty()) << dev.validationErrors().front();
}

}  // namespace
}  // namespace lsrl::gpu
