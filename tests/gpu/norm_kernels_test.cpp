// LayerNorm on the device (core/gpu/norm_kernels.h) against its twin, the seed models'
// float64 layerNorm (core/seed_models/dense_layers.h): widths under, at and over one
// workgroup, rows beyond one grid (65,535 workgroups), and the buffer checks.
#include "core/gpu/norm_kernels.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "common/expect_error.h"
#include "core/gpu/kernel_support.h"
#include "core/seed_models/dense_layers.h"
#include "gpu/trace_parity.h"
#include "gpu/vulkan_test_util.h"

namespace lsrl::gpu {
namespace {

TEST(VulkanLayerNorm, MatchesTheSeedModelsTwin) {
  LSRL_VULKAN_DEVICE(dev);
  std::mt19937 rng(3);
  std::normal_distribution<double> normal(0.5, 2.0);
  struct Shape {
    size_t rows, width;
  };
  double worst = 0;
  for (const Shape s : {Shape{1, 1}, Shape{5, 7}, Shape{33, 64}, Shape{9, 130}, Shape{66000, 3}}) {
    Tensor gain{"g", {int64_t(s.width)}, Tensor::F32, {}},
        bias{"b", {int64_t(s.width)}, Tensor::F32, {}};
    for (size_t i = 0; i < s.width; ++i) {
      gain.data.push_back(normal(rng));
      bias.data.push_back(normal(rng));
    }
    std::vector<float> x(s.rows * s.width);
    for (float& v : x) v = static_cast<float>(normal(rng));
    const std::vector<float> g(gain.data.begin(), gain.data.end()),
        b(bias.data.begin(), bias.data.end());
    auto gainBuf = uploadFloats(dev, g), biasBuf = uploadFloats(dev, b);
    auto xBuf = uploadFloats(dev, x), yBuf = dev.buffer(x.size() * sizeof(float));
    Batch batch = dev.batch();
    recordLayerNorm(dev, batch, *gainBuf, *biasBuf, *xBuf, *yBuf, s.rows, s.width,
                    static_cast<float>(seed_models::kLayerNormEps));
    dev.run(batch);
    const std::vector<float> y = dev.download<float>(*yBuf, x.size());
    // fp32 sums lose ~an ulp of |x| to the mean and the variance; the normalisation divides
    // by σ, so a row's error scales with max|x| / σ (a few values that nearly agree are ill
    // conditioned): kParity plus 8 ulps of that, times the gain.
    for (size_t r = 0; r < s.rows; ++r) {
      const seed_models::Vector row(x.begin() + long(r * s.width),
                                    x.begin() + long((r + 1) * s.width));
      const seed_models::Vector want = seed_models::layerNorm(gain, bias, row);
      double mean = 0, var = 0, largest = 0;
      for (const double v : row)
        mean += v / double(s.width), largest = std::max(largest, std::abs(v));
      for (const double v : row) var += (v - mean) * (v - mean) / double(s.width);
      const double conditioning = largest / std::sqrt(var + seed_models::kLayerNormEps);
      for (size_t i = 0; i < s.width; ++i) {
        const double got = y[r * s.width + i];
        const double tol =
            testing_vulkan::kParity + 8 * 0x1p-24 * conditioning * std::abs(gain.data[i]);
        const double err = std::abs(got - want[i]) / (1 + std::abs(want[i]));
        EXPECT_LE(err, tol) << s.rows << " rows of " << s.width << ", row " << r << " value " << i;
        worst = std::max(worst, err);
      }
    }
  }
  std::printf("layer norm fp32 vs float64: max relative difference %.3g\n", worst);
  testing_vulkan::expectNoValidationErrors(dev);
}

TEST(VulkanLayerNorm, RefusesBuffersTooSmall) {
  LSRL_VULKAN_DEVICE(dev);
  auto four = dev.buffer(4 * sizeof(float)), eight = dev.buffer(8 * sizeof(float));
  Batch batch = dev.batch();
  testing_common::expectError(
      [&] { recordLayerNorm(dev, batch, *four, *four, *eight, *eight, 3, 4, 1e-5f); }, "layerNorm",
      "expected buffer X of at least 48 bytes, got 32");
  testing_common::expectError(
      [&] { recordLayerNorm(dev, batch, *four, *four, *eight, *eight, 1, 0, 1e-5f); }, "layerNorm",
      "expected a width of at least 1, got 0");
}

}  // namespace
}  // namespace lsrl::gpu
