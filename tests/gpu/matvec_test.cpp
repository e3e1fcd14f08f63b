// The Linear-layer kernels on the device against their CPU twins (core/float_batch/matvec.h):
// CSR on both paths and dense, at random sizes (odd widths, one batch row, empty rows, a
// 1 × 1 matrix, one very long row, 10^5-wide matrices, 10^6 batch rows past the capped
// grid, batches cut into tiles), bad shapes, and the figure of a compiled layer's size.
#include "core/float_batch/matvec.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "common/expect_error.h"
#include "core/gpu/matvec_kernels.h"
#include "gpu/float_parity.h"
#include "gpu/vulkan_test_util.h"

namespace lsrl::gpu {
namespace {

using float_batch::CsrMatrix;
using float_batch::DenseMatrix;
using testing_vulkan::expectParity;
using testing_vulkan::randomFloats;

// An m × n matrix whose row i holds `perRow(i)` non-zeros at distinct random columns
// (fewer when n is smaller), in increasing column order.
template <class PerRow>
CsrMatrix randomCsr(std::mt19937& rng, int m, int n, PerRow perRow) {
  CsrMatrix A;
  A.rows = m;
  A.cols = n;
  std::uniform_real_distribution<float> value(-2.0f, 2.0f);
  std::vector<uint32_t> columns(static_cast<size_t>(n));
  std::iota(columns.begin(), columns.end(), 0u);
  for (int i = 0; i < m; ++i) {
    const size_t count = std::min<size_t>(perRow(i), columns.size());
    // A partial shuffle picks `count` distinct columns.
    for (size_t j = 0; j < count; ++j) {
      std::uniform_int_distribution<size_t> pick(j, columns.size() - 1);
      std::swap(columns[j], columns[pick(rng)]);
    }
    std::vector<uint32_t> row(columns.begin(), columns.begin() + static_cast<long>(count));
    std::sort(row.begin(), row.end());
    for (uint32_t c : row) {
      A.col.push_back(c);
      A.val.push_back(value(rng));
    }
    A.rowPtr.push_back(static_cast<uint32_t>(A.col.size()));
  }
  return A;
}

enum class BiasKind { None, Random, Negative, Zero };

std::vector<float> makeBias(std::mt19937& rng, int m, BiasKind kind) {
  switch (kind) {
    case BiasKind::None:
      return {};
    case BiasKind::Random:
      return randomFloats(rng, static_cast<size_t>(m), -3.0f, 3.0f);
    case BiasKind::Negative:
      return randomFloats(rng, static_cast<size_t>(m), -5.0f, -0.5f);
    case BiasKind::Zero:
      return std::vector<float>(static_cast<size_t>(m), 0.0f);
  }
  return {};
}

const char* pathName(CsrPath p) {
  return p == CsrPath::PerOutput     ? "per-output"
         : p == CsrPath::PerSubgroup ? "per-subgroup"
                                     : "auto";
}

// Runs A on the device along every path the device has and checks parity with the twin.
void checkCsr(Device& dev, const CsrMatrix& A, const std::vector<float>& bias, size_t rows,
              std::mt19937& rng, const std::string& what, size_t maxTileRows = 0) {
  const std::vector<float> X = randomFloats(rng, rows * static_cast<size_t>(A.cols));
  const std::vector<float> cpu = float_batch::csrMatvec(A, bias, X, rows);
  const DeviceCsr onDevice = uploadCsr(dev, A, bias);
  std::vector<CsrPath> paths = {CsrPath::Auto, CsrPath::PerOutput};
  if (dev.info().subgroupArithmetic) paths.push_back(CsrPath::PerSubgroup);
  for (CsrPath path : paths) {
    const std::string label = what + " (" + pathName(path) + ")";
    const std::vector<float> gpu =
        runCsrMatvec(dev, onDevice, X, rows, {.maxTileRows = maxTileRows}, path);
    const double worst = expectParity(gpu, cpu, label);
    std::printf("  %-48s max rel err %.2e\n", label.c_str(), worst);
  }
}

TEST(VulkanMatvec, CsrMatchesTheTwinAtRandomSizes) {
  LSRL_VULKAN_DEVICE(dev);
  std::mt19937 rng(20240601);
  struct Case {
    int m, n;
    size_t rows;
    int maxPerRow;
    BiasKind bias;
  };
  const std::vector<Case> cases = {
      {1, 1, 1, 1, BiasKind::Random},       // 1 × 1, one batch row
      {1, 1, 37, 1, BiasKind::Negative},    // 1 × 1 over a batch
      {7, 5, 1, 3, BiasKind::None},         // B = 1, odd widths
      {13, 29, 101, 4, BiasKind::Zero},     // odd everything
      {60, 60, 1031, 4, BiasKind::Random},  // a compiled layer's size
      {3, 200, 9, 200, BiasKind::Negative},
  };
  for (const Case& c : cases) {
    std::uniform_int_distribution<int> perRow(0, c.maxPerRow);  // 0: empty rows
    const CsrMatrix A = randomCsr(rng, c.m, c.n, [&](int) { return perRow(rng); });
    const std::string what = std::to_string(c.m) + "×" + std::to_string(c.n) + " nnz " +
                             std::to_string(A.val.size()) + " × " + std::to_string(c.rows) +
                             " rows";
    checkCsr(dev, A, makeBias(rng, c.m, c.bias), c.rows, rng, what);
  }
  EXPECT_TRUE(dev.validationErrors().empty()) << dev.validationErrors().front();
}

TEST(VulkanMatvec, CsrEdgeShapes) {
  LSRL_VULKAN_DEVICE(dev);
  std::mt19937 rng(7);
  // All rows empty: Y is the bias.
  checkCsr(dev, randomCsr(rng, 9, 4, [](int) { return 0; }), makeBias(rng, 9, BiasKind::Random), 5,
           rng, "9×4 all rows empty");
  // One very long row (all 20,000 columns) among empty and short ones. Summed in another
  // order (the per-subgroup path) a 20,000-term sum moves by ~√n·ε·Σ|terms| whatever the
  // kernel does: with terms of ±1 that is ~1e-3 against a result of ~100, beyond the parity
  // rule (measured: 2.5e-5 relative). The long row's values are scaled to Σ|terms| ≈ 1 so
  // the rule measures the kernel, not the summation order.
  CsrMatrix longRow = randomCsr(rng, 5, 20000, [](int i) { return i == 2 ? 20000 : i; });
  for (uint32_t k = longRow.rowPtr[2]; k < longRow.rowPtr[3]; ++k) longRow.val[k] *= 1e-4f;
  checkCsr(dev, longRow, makeBias(rng, 5, BiasKind::Negative), 3, rng, "5×20000, one row of 20000");
  // 10^5 × 10^5 with ~2 non-zeros a row.
  std::uniform_int_distribution<int> perRow(0, 4);
  checkCsr(dev, randomCsr(rng, 100000, 100000, [&](int) { return perRow(rng); }),
           makeBias(rng, 100000, BiasKind::Random), 3, rng, "100000×100000 × 3 rows");
  // A batch cut into tiles of 7 rows (50 = 7·7 + 1).
  checkCsr(dev, randomCsr(rng, 11, 13, [&](int) { return perRow(rng); }), {}, 50, rng,
           "11×13 × 50 rows in tiles of 7", 7);
  EXPECT_TRUE(dev.validationErrors().empty()) << dev.validationErrors().front();
}

TEST(VulkanMatvec, MillionRowBatchesPassTheCappedGrid) {
  LSRL_VULKAN_DEVICE(dev);
  std::mt19937 rng(11);
  // 1,000,003 × 5 outputs: more than 65,535 groups × 64 invocations, so the kernel loops.
  const size_t rows = 1000003;
  const CsrMatrix A = randomCsr(rng, 5, 7, [](int i) { return i + 1; });
  const std::vector<float> bias = makeBias(rng, 5, BiasKind::Random);
  const std::vector<float> X = randomFloats(rng, rows * 7);
  const DeviceCsr onDevice = uploadCsr(dev, A, bias);
  const std::vector<float> cpu = float_batch::csrMatvec(A, bias, X, rows);
  expectParity(runCsrMatvec(dev, onDevice, X, rows, {}, CsrPath::PerOutput), cpu,
               "csr per-output 1M rows");
  if (dev.info().subgroupArithmetic)
    expectParity(runCsrMatvec(dev, onDevice, X, rows, {}, CsrPath::PerSubgroup), cpu,
                 "csr per-subgroup 1M rows");
  // Dense: 1,100,000 rows = 68,750 row tiles of 16, past the 65,535 cap in y.
  const size_t denseRows = 1100000;
  const DenseMatrix D{2, 3, randomFloats(rng, 6)};
  const std::vector<float> DX = randomFloats(rng, denseRows * 3);
  const DeviceDense dense = uploadDense(dev, D, {});
  expectParity(runDenseMatvec(dev, dense, DX, denseRows),
               float_batch::denseMatvec(D, {}, DX, denseRows), "dense 1.1M rows");
  EXPECT_TRUE(dev.validationErrors().empty()) << dev.validationErrors().front();
}

TEST(VulkanMatvec, DenseMatchesTheTwinAtRandomSizes) {
  LSRL_VULKAN_DEVICE(dev);
  std::mt19937 rng(31337);
  struct Case {
    int m, n;
    size_t rows;
    BiasKind bias;
    size_t maxTileRows;
  };
  const std::vector<Case> cases = {
      {1, 1, 1, BiasKind::Random, 0},    {1, 1, 19, BiasKind::Zero, 0},
      {5, 3, 1, BiasKind::None, 0},      {17, 33, 45, BiasKind::Negative, 0},
      {16, 16, 32, BiasKind::Random, 0}, {60, 60, 1031, BiasKind::Random, 0},
      {3, 301, 7, BiasKind::None, 0},    {129, 2, 77, BiasKind::Negative, 10},
  };
  for (const Case& c : cases) {
    const DenseMatrix A{c.m, c.n, randomFloats(rng, static_cast<size_t>(c.m) * c.n)};
    const std::vector<float> bias = makeBias(rng, c.m, c.bias);
    const std::vector<float> X = randomFloats(rng, c.rows * static_cast<size_t>(c.n));
    const std::string what = "dense " + std::to_string(c.m) + "×" + std::to_string(c.n) + " × " +
                             std::to_string(c.rows) + " rows";
    const double worst = expectParity(
        runDenseMatvec(dev, uploadDense(dev, A, bias), X, c.rows, {.maxTileRows = c.maxTileRows}),
        float_batch::denseMatvec(A, bias, X, c.rows), what);
    std::printf("  %-48s max rel err %.2e\n", what.c_str(), worst);
  }
  EXPECT_TRUE(dev.validationErrors().empty()) << dev.validationErrors().front();
}

using testing_common::expectError;

TEST(VulkanMatvec, BadShapesAreErrorsNamingTheKernel) {
  LSRL_VULKAN_DEVICE(dev);
  std::mt19937 rng(3);
  const CsrMatrix A = randomCsr(rng, 4, 6, [](int) { return 2; });
  const DeviceCsr onDevice = uploadCsr(dev, A, {});
  auto x = dev.buffer(6 * 3 * sizeof(float));
  auto y = dev.buffer(4 * 2 * sizeof(float));  // room for 2 rows only
  Batch work = dev.batch();
  expectError([&] { recordCsrMatvec(dev, work, onDevice, *x, *y, 3); }, "csr_matvec",
              "output of 3 rows × 4 = 12 floats expected, got 8");
  expectError([&] { recordCsrMatvec(dev, work, onDevice, *x, *y, 0); }, "csr_matvec",
              "at least 1 batch row expected, got 0");
  expectError([&] { recordCsrMatvec(dev, work, onDevice, *y, *y, 2); }, "csr_matvec",
              "input of 2 rows × 6 = 12 floats expected, got 8");
  expectError([&] { recordCsrMatvec(dev, work, DeviceCsr{}, *x, *y, 1); }, "csr_matvec",
              "no matrix");
  EXPECT_EQ(work.size(), 0u);
  expectError([&] { runCsrMatvec(dev, onDevice, std::vector<float>(11), 2); }, "csr_matvec",
              "12 floats expected, got 11");
  expectError([&] { uploadCsr(dev, A, std::vector<float>(5)); }, "csr_matvec",
              "bias of 0 or 4 values expected, got 5");
  CsrMatrix bad = A;
  bad.col.back() = 6;
  expectError([&] { uploadCsr(dev, bad, {}); }, "csr_matvec", "column index < 6 expected, got 6");
  expectError(
      [&] {
        uploadDense(dev, DenseMatrix{2, 2, {1, 2, 3}}, {});
      },
      "dense_matvec", "4 matrix values expected, got 3");
  const DeviceDense dense = uploadDense(dev, DenseMatrix{2, 2, {1, 2, 3, 4}}, {});
  expectError([&] { runDenseMatvec(dev, dense, std::vector<float>(3), 2); }, "dense_matvec",
              "2 rows × 2 = 4 floats expected, got 3");
  // A matrix larger than the device's buffer range (tried where that range is small, as
  // lavapipe's 128 MiB, to keep the host array affordable).
  const size_t range = dev.info().maxStorageBufferRange;
  if (range <= (size_t{256} << 20)) {
    const size_t tooWide = range / sizeof(float) + 1;
    expectError(
        [&] {
          uploadDense(dev, DenseMatrix{1, static_cast<int>(tooWide), std::vector<float>(tooWide)},
                      {});
        },
        "dense_matvec", "storage-buffer range");
  }
  EXPECT_TRUE(dev.validationErrors().empty()) << dev.validationErrors().front();
}

// The figure: a CSR matvec the size of a compiled vec2vec layer (60 × 60, ~120 non-zeros)
// over B·T rows, on the device (kernel time from timestamps) and with the CPU twin.
// LSRL_MATVEC_BENCH_ROWS overrides the row count (default 4096 × 1024 / 16 to keep the
// suite quick; the full 4096 × 1024 was run for docs/vulkan.md's figures).
TEST(VulkanMatvec, PrintsKernelAndCpuTimeForACompiledLayer) {
  LSRL_VULKAN_DEVICE(dev);
  size_t rows = 4096 * 1024 / 16;
  if (const char* env = std::getenv("LSRL_MATVEC_BENCH_ROWS")) rows = std::stoull(env);
  std::mt19937 rng(60);
  std::uniform_int_distribution<int> perRow(0, 4);  // mean 2: ~120 non-zeros, some rows empty
  const CsrMatrix A = randomCsr(rng, 60, 60, [&](int) { return perRow(rng); });
  const std::vector<float> bias = makeBias(rng, 60, BiasKind::Random);
  const std::vector<float> X = randomFloats(rng, rows * 60);

  using Clock = std::chrono::steady_clock;
  std::vector<float> cpu(rows * 60);  // allocated (and zeroed) outside the timing, as on the GPU
  auto t0 = Clock::now();
  float_batch::csrMatvec(A, bias, X, rows, cpu);
  const double cpuMs = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();

  const DeviceCsr onDevice = uploadCsr(dev, A, bias);
  std::vector<double> kernelMs;
  t0 = Clock::now();
  const std::vector<float> gpu = runCsrMatvec(dev, onDevice, X, rows, {.kernelMs = &kernelMs});
  const double wallMs = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  const double worst = expectParity(gpu, cpu, "compiled-layer csr");
  const double gpuMs = std::accumulate(kernelMs.begin(), kernelMs.end(), 0.0);
  std::printf(
      "csr_matvec 60x60 nnz %zu over %zu rows on %s (%s path, %zu tiles): kernel %.1f ms "
      "(with transfers %.1f ms), CPU twin %.1f ms, max rel err %.2e\n",
      A.val.size(), rows, dev.info().name.c_str(), pathName(chooseCsrPath(dev.info(), onDevice)),
      kernelMs.size(), gpuMs, wallMs, cpuMs, worst);
  EXPECT_TRUE(dev.validationErrors().empty()) << dev.validationErrors().front();
}

}  // namespace
}  // namespace lsrl::gpu
