// ReLU, Multi, Add and Mul on the device against their CPU twins
// (core/float_batch/elementwise.h) at random sizes (odd, one element, past the capped grid, in
// tiles), in place, chained after a CSR matvec in one submission, and bad shapes.
#include "core/float_batch/elementwise.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "common/expect_error.h"
#include "core/float_batch/matvec.h"
#include "core/gpu/elementwise_kernels.h"
#include "core/gpu/matvec_kernels.h"
#include "gpu/float_parity.h"
#include "gpu/vulkan_test_util.h"

namespace lsrl::gpu {
namespace {

using testing_vulkan::expectParity;
using testing_vulkan::randomFloats;

TEST(VulkanElementwise, ReluMatchesTheTwin) {
  LSRL_VULKAN_DEVICE(dev);
  std::mt19937 rng(5);
  // 17,000,001 > 65,535 groups × 256: the kernel loops over the rest.
  for (size_t count : {size_t{1}, size_t{2}, size_t{255}, size_t{1001}, size_t{17000001}}) {
    const std::vector<float> in = randomFloats(rng, count, -3.0f, 3.0f);
    expectParity(runRelu(dev, in), float_batch::relu(in), "relu " + std::to_string(count));
  }
  const std::vector<float> in = randomFloats(rng, 1000);
  expectParity(runRelu(dev, in, {.maxTileRows = 333}), float_batch::relu(in),
               "relu in tiles of 333");
  EXPECT_TRUE(dev.validationErrors().empty()) << dev.validationErrors().front();
}

TEST(VulkanElementwise, ReluInPlace) {
  LSRL_VULKAN_DEVICE(dev);
  std::mt19937 rng(6);
  const std::vector<float> in = randomFloats(rng, 777);
  auto buffer = dev.buffer(in.size() * sizeof(float));
  dev.upload(*buffer, in.data(), in.size() * sizeof(float));
  Batch work = dev.batch();
  recordRelu(dev, work, *buffer, *buffer, in.size());
  dev.run(work);
  expectParity(dev.download<float>(*buffer, in.size()), float_batch::relu(in), "relu in place");
  EXPECT_TRUE(dev.validationErrors().empty()) << dev.validationErrors().front();
}

TEST(VulkanElementwise, MultiMatchesTheTwin) {
  LSRL_VULKAN_DEVICE(dev);
  std::mt19937 rng(8);
  struct Case {
    size_t rows, h, maxTileRows;
  };
  // 2^23 rows of h = 2: X fills lavapipe's 128 MiB range in one tile, and its 2^24 outputs
  // pass 65,535 groups × 256 invocations, so the kernel's loop covers the last 256.
  const std::vector<Case> cases = {{1, 1, 0},    {1, 7, 0},     {33, 1, 0},
                                   {101, 13, 0}, {1000, 3, 64}, {size_t{1} << 23, 2, 0}};
  for (const Case& c : cases) {
    const std::vector<float> X = randomFloats(rng, c.rows * 2 * c.h, -4.0f, 4.0f);
    const std::string what = "multi " + std::to_string(c.rows) + " rows, h " + std::to_string(c.h);
    expectParity(runMulti(dev, X, c.rows, c.h, {.maxTileRows = c.maxTileRows}),
                 float_batch::multi(X, c.rows, c.h), what);
  }
  EXPECT_TRUE(dev.validationErrors().empty()) << dev.validationErrors().front();
}

TEST(VulkanElementwise, AddAndMulMatchTheTwins) {
  LSRL_VULKAN_DEVICE(dev);
  std::mt19937 rng(10);
  for (size_t count : {size_t{1}, size_t{2}, size_t{255}, size_t{1001}, size_t{300007}}) {
    const std::vector<float> x = randomFloats(rng, count, -3.0f, 3.0f);
    const std::vector<float> y = randomFloats(rng, count, -3.0f, 3.0f);
    std::vector<float> sum(count), product(count);
    float_batch::add(x, y, sum);
    float_batch::mul(x, y, product);
    expectParity(runAdd(dev, x, y), sum, "add " + std::to_string(count));
    expectParity(runMul(dev, x, y), product, "mul " + std::to_string(count));
    if (count == 1001) {
      expectParity(runAdd(dev, x, y, {.maxTileRows = 333}), sum, "add in tiles of 333");
      expectParity(runMul(dev, x, y, {.maxTileRows = 100}), product, "mul in tiles of 100");
    }
  }
  EXPECT_TRUE(dev.validationErrors().empty()) << dev.validationErrors().front();
}

// out aliasing either input, and both ops in one submission.
TEST(VulkanElementwise, AddAndMulInPlace) {
  LSRL_VULKAN_DEVICE(dev);
  std::mt19937 rng(11);
  const size_t n = 513;
  const std::vector<float> x = randomFloats(rng, n), y = randomFloats(rng, n);
  auto xb = dev.buffer(n * sizeof(float)), yb = dev.buffer(n * sizeof(float));
  dev.upload(*xb, x.data(), n * sizeof(float));
  dev.upload(*yb, y.data(), n * sizeof(float));
  Batch work = dev.batch();
  recordAdd(dev, work, *xb, *yb, *xb, n);  // x ← x + y
  recordMul(dev, work, *xb, *yb, *yb, n);  // y ← (x + y) · y
  dev.run(work);
  std::vector<float> sum(n), product(n);
  float_batch::add(x, y, sum);
  float_batch::mul(sum, y, product);
  expectParity(dev.download<float>(*xb, n), sum, "add into x");
  expectParity(dev.download<float>(*yb, n), product, "mul into y");
  EXPECT_TRUE(dev.validationErrors().empty()) << dev.validationErrors().front();
}

// Linear → ReLU → Multi recorded into one batch over device buffers, as a model runner
// chains them: one submission, the twins composed on the CPU.
TEST(VulkanElementwise, ChainsAfterAMatvecInOneSubmission) {
  LSRL_VULKAN_DEVICE(dev);
  std::mt19937 rng(9);
  const size_t rows = 77;
  float_batch::CsrMatrix A;  // 6 × 5, row 3 empty
  A.rows = 6;
  A.cols = 5;
  A.rowPtr = {0, 2, 3, 5, 5, 6, 8};
  A.col = {0, 4, 2, 1, 3, 0, 2, 4};
  A.val = randomFloats(rng, 8, -2.0f, 2.0f);
  const std::vector<float> bias = randomFloats(rng, 6);
  const std::vector<float> X = randomFloats(rng, rows * 5);
  const DeviceCsr onDevice = uploadCsr(dev, A, bias);
  auto x = dev.buffer(X.size() * sizeof(float));
  auto linear = dev.buffer(rows * 6 * sizeof(float));
  auto gated = dev.buffer(rows * 3 * sizeof(float));
  dev.upload(*x, X.data(), X.size() * sizeof(float));
  Batch work = dev.batch(Timing::PerDispatch);
  recordCsrMatvec(dev, work, onDevice, *x, *linear, rows);
  recordRelu(dev, work, *linear, *linear, rows * 6);
  recordMulti(dev, work, *linear, *gated, rows, 3);
  EXPECT_EQ(work.size(), 3u);
  const std::vector<double> ms = dev.run(work);
  if (dev.info().timestampPeriodNs > 0) {
    EXPECT_EQ(ms.size(), 3u);
  }
  const std::vector<float> cpu =
      float_batch::multi(float_batch::relu(float_batch::csrMatvec(A, bias, X, rows)), rows, 3);
  expectParity(dev.download<float>(*gated, rows * 3), cpu, "linear → relu → multi");
  EXPECT_TRUE(dev.validationErrors().empty()) << dev.validationErrors().front();
}

using testing_common::expectError;

TEST(VulkanElementwise, BadShapesAreErrorsNamingTheKernel) {
  LSRL_VULKAN_DEVICE(dev);
  auto small = dev.buffer(4 * sizeof(float));
  auto large = dev.buffer(10 * sizeof(float));
  Batch work = dev.batch();
  expectError([&] { recordRelu(dev, work, *small, *large, 5); }, "relu",
              "5 floats expected, got 4 and 10");
  expectError([&] { recordRelu(dev, work, *large, *large, 0); }, "relu", "got 0");
  expectError([&] { recordMulti(dev, work, *large, *small, 2, 3); }, "multi",
              "input of 2 rows × 6 = 12 floats expected, got 10");
  expectError([&] { recordMulti(dev, work, *large, *small, 2, 0); }, "multi", "half-width 0");
  EXPECT_EQ(work.size(), 0u);
  recordMulti(dev, work, *large, *small, 2, 2);  // 8 of 10 in, 4 of 4 out: fits
  EXPECT_EQ(work.size(), 1u);
  expectError([&] { recordAdd(dev, work, *large, *small, *large, 5); }, "add",
              "5 floats expected, got 10, 4 and 10");
  expectError([&] { recordMul(dev, work, *large, *large, *small, 5); }, "mul",
              "5 floats expected, got 10, 10 and 4");
  expectError([&] { recordMul(dev, work, *large, *large, *large, 0); }, "mul", "got 0");
  EXPECT_EQ(work.size(), 1u);
  expectError([&] { runAdd(dev, std::vector<float>(2), std::vector<float>(3)); }, "add",
              "same length expected, got 2 and 3");
  expectError([&] { runMul(dev, std::vector<float>{}, std::vector<float>{}); }, "mul",
              "at least 1 value");
  expectError([&] { runRelu(dev, std::vector<float>{}); }, "relu", "at least 1 value");
  expectError([&] { runMulti(dev, std::vector<float>(5), 1, 3); }, "multi",
              "1 rows × 6 = 6 floats expected, got 5");
  EXPECT_TRUE(dev.validationErrors().empty()) << dev.validationErrors().front();
}

}  // namespace
}  // namespace lsrl::gpu
