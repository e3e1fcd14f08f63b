// The scan / recurrence kernels on Vulkan against their CPU twins (core/float_batch/scan.h):
// random shapes (T = 1, T not a multiple of the chunk, B = 1, odd C, T = 4096), every
// path of the diagonal scan (subgroup, shared at widths 4/16/32/64, sequential), real and
// complex, constant and time-varying transitions, zero and nonzero h0; plus the timing of
// the chunked vs the sequential scan that `lsrl bench vulkan` reports.
#include "core/float_batch/scan.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "core/gpu/scan_kernels.h"
#include "core/gpu/workgroups.h"
#include "gpu/float_parity.h"
#include "gpu/scan_cases.h"
#include "gpu/vulkan_test_util.h"

namespace lsrl::gpu {
namespace {

using float_batch::SeriesShape;
using float_batch::TransitionStrides;
using V = std::vector<float>;

// |gpu − cpu| ≤ 1e-5·(1 + |cpu|) everywhere; reports the worst element.
::testing::AssertionResult matches(const V& gpu, const V& cpu) {
  if (gpu.size() != cpu.size())
    return ::testing::AssertionFailure() << "size " << gpu.size() << " vs " << cpu.size();
  size_t worst = 0;
  double worstExcess = -1;
  for (size_t i = 0; i < cpu.size(); ++i) {
    const double excess = std::abs(double(gpu[i]) - cpu[i]) - 1e-5 * (1 + std::abs(cpu[i]));
    if (!(excess <= worstExcess) || std::isnan(gpu[i])) worstExcess = excess, worst = i;
  }
  if (worstExcess <= 0 && !cpu.empty() && !std::isnan(gpu[worst]))
    return ::testing::AssertionSuccess();
  if (cpu.empty()) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "element " << worst << ": gpu " << gpu[worst] << " cpu "
                                       << cpu[worst] << " (of " << cpu.size() << ")";
}

using testing_vulkan::DiagCase;
using testing_vulkan::diagCases;
using testing_vulkan::PathCase;
using testing_vulkan::pathsOf;
using testing_vulkan::randomFloats;
using testing_vulkan::stridesOf;

void checkDiagScan(Device& dev, bool complex) {
  ScanKernels scans(dev);
  std::mt19937 rng(complex ? 11 : 10);
  // The single pass draws from a stream of its own, so that the data the other schedules
  // are tested on stays what it was before it came.
  std::mt19937 singlePassRng(complex ? 21 : 20);
  for (const PathCase& path : pathsOf(dev)) {
    std::mt19937& draw = path.options.schedule == ScanSchedule::SinglePass ? singlePassRng : rng;
    for (const DiagCase& c : diagCases()) {
      const SeriesShape& s = c.shape;
      const size_t per = complex ? 2 : 1;
      const TransitionStrides strides = stridesOf(c);
      const size_t aSlots = float_batch::scan_checks::transitionSlots("test", s, strides);
      V a = randomFloats(draw, aSlots * per, c.aLo, c.aHi);
      if (complex)  // a modulus in [|aLo|, |aHi|]-ish: scale a random phase
        for (size_t i = 0; i < aSlots; ++i) {
          const float r = std::abs(a[2 * i]), phase = a[2 * i + 1] * 3.14159f;
          a[2 * i] = r * std::cos(phase), a[2 * i + 1] = r * std::sin(phase);
        }
      const V b = randomFloats(draw, size_t(s.batch) * s.steps * s.channels * per, -1, 1);
      const V h0 = c.withH0 ? randomFloats(draw, size_t(s.batch) * s.channels * per, -2, 2) : V{};
      SCOPED_TRACE(path.name + " B=" + std::to_string(s.batch) + " T=" + std::to_string(s.steps) +
                   " C=" + std::to_string(s.channels) + (c.constantA ? " constant a" : "") +
                   (c.withH0 ? " h0" : ""));
      const V cpu = complex ? float_batch::complexDiagScan(s, a, strides, b, h0)
                            : float_batch::diagScan(s, a, strides, b, h0);
      const V gpu = complex ? scans.complexDiagScan(s, a, strides, b, h0, path.options)
                            : scans.diagScan(s, a, strides, b, h0, path.options);
      EXPECT_TRUE(matches(gpu, cpu));
    }
  }
  EXPECT_TRUE(dev.validationErrors().empty()) << dev.validationErrors().front();
}

TEST(VulkanScan, DiagScanMatchesTheTwinOnEveryPath) {
  LSRL_VULKAN_DEVICE(dev);
  checkDiagScan(dev, false);
}

TEST(VulkanScan, ComplexDiagScanMatchesTheTwinOnEveryPath) {
  LSRL_VULKAN_DEVICE(dev);
  checkDiagScan(dev, true);
}

TEST(VulkanScan, TransitionSharedAcrossTheBatchButVaryingInTime) {
  LSRL_VULKAN_DEVICE(dev);
  ScanKernels scans(dev);
  std::mt19937 rng(3);
  const SeriesShape s{3, 200, 11};
  const TransitionStrides strides{0, s.channels};
  const V a = randomFloats(rng, size_t(s.steps) * s.channels, 0.8f, 1.0f);
  const V b = randomFloats(rng, size_t(s.batch) * s.steps * s.channels, -1, 1);
  const V h0 = randomFloats(rng, size_t(s.batch) * s.channels, -1, 1);
  const V cpu = float_batch::diagScan(s, a, strides, b, h0);
  for (const PathCase& path : pathsOf(dev)) {
    SCOPED_TRACE(path.name);
    EXPECT_TRUE(matches(scans.diagScan(s, a, strides, b, h0, path.options), cpu));
  }
}

TEST(VulkanScan, AutoPicksTheSubgroupPathWhenTheDeviceHasOne) {
  LSRL_VULKAN_DEVICE(dev);
  ScanKernels scans(dev);
  const ScanPath chosen = scans.resolve({});
  EXPECT_EQ(chosen, dev.info().subgroupArithmetic ? ScanPath::Subgroup : ScanPath::Shared);
  std::printf("auto path: %s, chunk of %u steps\n", scanPathName(chosen), scans.chunkSteps({}));
  if (chosen == ScanPath::Subgroup) {
    const uint32_t lanes =
        dev.info().minSubgroupSize ? dev.info().minSubgroupSize : dev.info().subgroupSize;
    EXPECT_EQ(scans.chunkSteps({}), lanes * ScanOptions{}.stepsPerLane);
  }
}

TEST(VulkanScan, BlockScan2MatchesTheTwin) {
  LSRL_VULKAN_DEVICE(dev);
  ScanKernels scans(dev);
  std::mt19937 rng(5);
  const std::vector<SeriesShape> shapes = {
      {1, 1, 2},    {1, 1000, 2}, {3, 77, 34}, {2, 513, 130},
      {1, 4096, 6}, {1, 40000, 4}};  // several dispatches of steps (kernel_support.h's
                                     // stepsPerDispatch)
  for (const SeriesShape& s : shapes) {
    SCOPED_TRACE("B=" + std::to_string(s.batch) + " T=" + std::to_string(s.steps) +
                 " C=" + std::to_string(s.channels));
    // Scaled rotations (|eigenvalues| ≤ 1), the blocks a LinState's 2×2 parts are.
    V blocks(size_t(s.channels) * 2);
    const V angle = randomFloats(rng, s.channels / 2, -3.14f, 3.14f);
    const V radius = randomFloats(rng, s.channels / 2, 0.5f, 1.0f);
    for (int k = 0; k < s.channels / 2; ++k) {
      const float c = radius[k] * std::cos(angle[k]), sn = radius[k] * std::sin(angle[k]);
      blocks[4 * k] = c, blocks[4 * k + 1] = -sn, blocks[4 * k + 2] = sn, blocks[4 * k + 3] = c;
    }
    const V b = randomFloats(rng, size_t(s.batch) * s.steps * s.channels, -1, 1);
    const V h0 = randomFloats(rng, size_t(s.batch) * s.channels, -1, 1);
    EXPECT_TRUE(
        matches(scans.blockScan2(s, blocks, b, h0), float_batch::blockScan2(s, blocks, b, h0)));
    EXPECT_TRUE(
        matches(scans.blockScan2(s, blocks, b, {}), float_batch::blockScan2(s, blocks, b, {})));
  }
}

// A random sparse C × C matrix with about `perRow` entries a row and absolute row sums
// ≤ 0.95, so the recurrence stays bounded over long T.
float_batch::CsrMatrix randomContraction(std::mt19937& rng, int C, int perRow) {
  float_batch::CsrMatrix A;
  A.rows = A.cols = C;
  std::uniform_int_distribution<int> column(0, C - 1), count(0, perRow);
  std::uniform_real_distribution<float> value(-1, 1);
  for (int r = 0; r < C; ++r) {
    std::vector<uint32_t> cols;
    for (int k = count(rng); k > 0; --k) cols.push_back(uint32_t(column(rng)));
    std::sort(cols.begin(), cols.end());
    cols.erase(std::unique(cols.begin(), cols.end()), cols.end());
    V vals;
    float sum = 0;
    for (size_t k = 0; k < cols.size(); ++k)
      vals.push_back(value(rng)), sum += std::abs(vals.back());
    for (size_t k = 0; k < cols.size(); ++k) {
      A.col.push_back(cols[k]);
      A.val.push_back(vals[k] * 0.95f / std::max(sum, 1.0f));
    }
    A.rowPtr.push_back(uint32_t(A.col.size()));
  }
  return A;
}

TEST(VulkanScan, LinearRecurrenceMatchesTheTwin) {
  LSRL_VULKAN_DEVICE(dev);
  ScanKernels scans(dev);
  std::mt19937 rng(9);
  struct Case {
    SeriesShape shape;
    int perRow;
  };
  const std::vector<Case> cases = {{{1, 1, 1}, 1},    {{2, 5, 7}, 3},      {{1, 1024, 33}, 4},
                                   {{3, 64, 300}, 6}, {{2, 1024, 257}, 3}, {{1, 16, 3000}, 4}};
  for (const Case& c : cases) {
    const SeriesShape& s = c.shape;
    SCOPED_TRACE("B=" + std::to_string(s.batch) + " T=" + std::to_string(s.steps) +
                 " C=" + std::to_string(s.channels));
    const float_batch::CsrMatrix A = randomContraction(rng, s.channels, c.perRow);
    const V u = randomFloats(rng, size_t(s.batch) * s.steps * s.channels, -1, 1);
    const V h0 = randomFloats(rng, size_t(s.batch) * s.channels, -1, 1);
    EXPECT_TRUE(
        matches(scans.linearRecurrence(s, A, u, h0), float_batch::linearRecurrence(s, A, u, h0)));
    if (s.steps <= 64) {
      EXPECT_TRUE(
          matches(scans.linearRecurrence(s, A, u, {}), float_batch::linearRecurrence(s, A, u, {})));
    }
  }
  EXPECT_TRUE(dev.validationErrors().empty()) << dev.validationErrors().front();
}

// h_t = ReLU(A h_{t−1} + u_t): inputs centred below zero so the ReLU clips often.
TEST(VulkanScan, LinearRecurrenceWithAReluStateMatchesTheTwin) {
  LSRL_VULKAN_DEVICE(dev);
  ScanKernels scans(dev);
  std::mt19937 rng(10);
  for (const SeriesShape s : {SeriesShape{1, 1, 1}, SeriesShape{3, 13, 7}, SeriesShape{2, 37, 300},
                              SeriesShape{1, 9, 700}}) {
    SCOPED_TRACE("B=" + std::to_string(s.batch) + " T=" + std::to_string(s.steps) +
                 " C=" + std::to_string(s.channels));
    const float_batch::CsrMatrix A = randomContraction(rng, s.channels, 4);
    const V u = randomFloats(rng, size_t(s.batch) * s.steps * s.channels, -1, 0.5f);
    const V h0 = randomFloats(rng, size_t(s.batch) * s.channels, -1, 1);
    const V cpu = float_batch::linearRecurrence(s, A, u, h0, true);
    EXPECT_TRUE(matches(scans.linearRecurrence(s, A, u, h0, true), cpu));
    EXPECT_TRUE(std::all_of(cpu.begin(), cpu.end(), [](float v) { return v >= 0; }));
    EXPECT_TRUE(matches(scans.linearRecurrence(s, A, u, {}, true),
                        float_batch::linearRecurrence(s, A, u, {}, true)));
  }
  EXPECT_TRUE(dev.validationErrors().empty()) << dev.validationErrors().front();
}

// A long sequence runs as several dispatches, each continuing from the state the last one
// wrote: lavapipe stops a shader loop after 65,535 iterations, which one dispatch over all
// T would pass here (700 steps × 192 entries per row).
TEST(VulkanScan, LinearRecurrenceRunsLongSequencesInChunksOfSteps) {
  LSRL_VULKAN_DEVICE(dev);
  ScanKernels scans(dev);
  std::mt19937 rng(11);
  const SeriesShape s{1, 700, 192};
  const float_batch::CsrMatrix A = randomContraction(rng, s.channels, s.channels);
  const V u = randomFloats(rng, size_t(s.batch) * s.steps * s.channels, -1, 1);
  EXPECT_TRUE(
      matches(scans.linearRecurrence(s, A, u, {}), float_batch::linearRecurrence(s, A, u, {})));
  EXPECT_TRUE(dev.validationErrors().empty()) << dev.validationErrors().front();
}

// The sequential diagonal scan walks long series in several dispatches, each continuing
// from where the last one's walk ended (real and complex, vec4 packs and single channels).
TEST(VulkanScan, SequentialScanContinuesAcrossDispatches) {
  LSRL_VULKAN_DEVICE(dev);
  ScanKernels scans(dev);
  std::mt19937 rng(12);
  ScanOptions sequential;
  sequential.path = ScanPath::Sequential;
  for (const SeriesShape s : {SeriesShape{1, 40000, 4}, SeriesShape{2, 20001, 3}}) {
    const size_t n = size_t(s.batch) * s.steps * s.channels;
    const V a = randomFloats(rng, n, 0.9f, 1.0f), b = randomFloats(rng, n, -1, 1);
    const V h0 = randomFloats(rng, size_t(s.batch) * s.channels, -1, 1);
    const float_batch::TransitionStrides full{(long long)s.steps * s.channels, s.channels};
    EXPECT_TRUE(matches(scans.diagScan(s, a, full, b, h0, sequential),
                        float_batch::diagScan(s, a, full, b, h0)));
    const V ca = randomFloats(rng, 2 * n, -0.7f, 0.7f), cb = randomFloats(rng, 2 * n, -1, 1);
    EXPECT_TRUE(matches(scans.complexDiagScan(s, ca, full, cb, {}, sequential),
                        float_batch::complexDiagScan(s, ca, full, cb, {})));
  }
  EXPECT_TRUE(dev.validationErrors().empty()) << dev.validationErrors().front();
}

TEST(VulkanScan, AutoChainsTheChunksWhenTheBatchFillsTheDevice) {
  LSRL_VULKAN_DEVICE(dev);
  ScanKernels scans(dev);
  auto scheduleOf = [&](SeriesShape s) {
    return scans.resolveSchedule({s, {(long long)s.steps * s.channels, s.channels}}, {});
  };
  // One short row: time is the only parallelism left.
  EXPECT_EQ(scheduleOf({1, 4096, 4}), ScanSchedule::ReduceThenScan);
  // Thousands of sequences of many channels fill any device.
  EXPECT_EQ(scheduleOf({4096, 64, 1024}), ScanSchedule::Chained);
  EXPECT_EQ(scans.resolveSchedule({{1, 64, 4}, {0, 0}}, {.schedule = ScanSchedule::Chained}),
            ScanSchedule::Chained);
  EXPECT_EQ(scans.resolveSchedule({{1, 64, 4}, {0, 0}}, {.path = ScanPath::Sequential}),
            ScanSchedule::ReduceThenScan);  // not a chunked path: no schedule applies
  // The chained schedule needs no scratch.
  EXPECT_EQ(scans.diagScanScratchBytes({{8, 64, 8}, {512, 8}}, {.schedule = ScanSchedule::Chained}),
            0u);
  EXPECT_GT(scans.diagScanScratchBytes({{8, 64, 8}, {512, 8}},
                                       {.schedule = ScanSchedule::ReduceThenScan}),
            0u);
}

TEST(VulkanScan, ChainedScanContinuesAcrossDispatches) {
  LSRL_VULKAN_DEVICE(dev);
  ScanKernels scans(dev);
  std::mt19937 rng(13);
  // A chained dispatch walks at most a few hundred chunks (kernel_support.h): these series
  // take several dispatches, each continuing from the state the last one wrote.
  std::vector<ScanOptions> options = {{.path = ScanPath::Shared,
                                       .schedule = ScanSchedule::Chained,
                                       .sharedWidth = 4,
                                       .stepsPerLane = 2}};
  if (dev.info().subgroupArithmetic)
    options.push_back({.path = ScanPath::Subgroup, .schedule = ScanSchedule::Chained});
  // The single pass over thousands of chunks, each looking back to its predecessors.
  options.push_back({.path = ScanPath::Shared, .schedule = ScanSchedule::SinglePass});
  for (const ScanOptions& o : options) {
    for (const SeriesShape s : {SeriesShape{1, 90001, 4}, SeriesShape{2, 30000, 3}}) {
      SCOPED_TRACE(std::string(scanPathName(o.path)) + " T=" + std::to_string(s.steps));
      const size_t n = size_t(s.batch) * s.steps * s.channels;
      const V a = randomFloats(rng, n, 0.9f, 1.0f), b = randomFloats(rng, n, -1, 1);
      const V h0 = randomFloats(rng, size_t(s.batch) * s.channels, -1, 1);
      const float_batch::TransitionStrides full{(long long)s.steps * s.channels, s.channels};
      EXPECT_TRUE(
          matches(scans.diagScan(s, a, full, b, h0, o), float_batch::diagScan(s, a, full, b, h0)));
      const V ca = randomFloats(rng, 2 * n, -0.7f, 0.7f), cb = randomFloats(rng, 2 * n, -1, 1);
      EXPECT_TRUE(matches(scans.complexDiagScan(s, ca, full, cb, {}, o),
                          float_batch::complexDiagScan(s, ca, full, cb, {})));
    }
  }
  EXPECT_TRUE(dev.validationErrors().empty()) << dev.validationErrors().front();
}

TEST(VulkanScan, BadInputsAreErrorsNamingTheKernel) {
  LSRL_VULKAN_DEVICE(dev);
  ScanKernels scans(dev);
  auto expectError = [](auto f, std::initializer_list<std::string> parts) {
    try {
      f();
      ADD_FAILURE() << "no error";
    } catch (const Error& e) {
      for (const std::string& part : parts)
        EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
    }
  };
  expectError(
      [&] {
        scans.diagScan({1, 2, 2}, V{1, 1}, {0, 0}, V{1, 2, 3}, {});
      },
      {"diagScan", "4", "3"});
  expectError([&] { scans.diagScan({0, 2, 2}, V{1, 1}, {0, 0}, V{}, {}); }, {"diagScan", "B=0"});
  expectError(
      [&] {
        scans.diagScan({1, 1, 1}, V{1}, {0, 0}, V{1}, {},
                       {.path = ScanPath::Shared, .sharedWidth = 3});
      },
      {"diagScan", "shared width", "3"});
  expectError(
      [&] {
        scans.blockScan2({1, 1, 3}, V(6, 0.0f), V(3, 0.0f), {});
      },
      {"blockScan2", "C=3"});
  // record() checks the buffers it is given against the shape.
  auto small = dev.buffer(16), big = dev.buffer(1024);
  Batch batch = dev.batch();
  expectError(
      [&] {
        scans.recordDiagScan(batch, {big.get(), small.get(), nullptr, big.get(), big.get()},
                             {{1, 8, 1}, {0, 0}, false}, {.path = ScanPath::Shared});
      },
      {"diagScan", "buffer b", "32", "16"});
  expectError(
      [&] {
        scans.recordDiagScan(batch, {big.get(), big.get(), nullptr, big.get(), nullptr},
                             {{1, 8, 1}, {0, 0}, false}, {.path = ScanPath::Shared});
      },
      {"diagScan", "scratch"});
  // The recurrence's state must fit in shared memory.
  float_batch::CsrMatrix huge;
  huge.rows = huge.cols = int(dev.info().maxSharedMemory);  // 4× too many floats
  huge.rowPtr.assign(size_t(huge.rows) + 1, 0);
  expectError(
      [&] {
        scans.linearRecurrence({1, 1, huge.rows}, huge, V(size_t(huge.rows)), {});
      },
      {"linearRecurrence", "shared memory"});
  EXPECT_EQ(batch.size(), 0u);
}

// The figures `lsrl bench vulkan` reports: the chunked scan (auto path, and the shared
// path at each width) vs the sequential-per-channel one at B = 1, T = 4096, C = 1024.
TEST(VulkanScan, TimesChunkedAgainstSequentialScan) {
  LSRL_VULKAN_DEVICE(dev);
  if (dev.info().timestampPeriodNs <= 0) GTEST_SKIP() << "no timestamps on " << dev.info().name;
  ScanKernels scans(dev);
  const SeriesShape shape{1, 4096, 1024};
  const double bytes = ScanKernels::diagScanBytes(shape);
  // The copy kernel moving the same bytes (read + write) as the yardstick.
  const uint32_t count4 = uint32_t(bytes / sizeof(float) / 4 / 2 * 2 / 2);
  auto src = dev.buffer(size_t(count4) * 16), dst = dev.buffer(size_t(count4) * 16);
  Batch copy = dev.batch(Timing::PerDispatch);
  const Kernel& copyKernel = shaderKernel(dev, "copy", 2, sizeof(uint32_t));
  copy.dispatch(copyKernel, {src.get(), dst.get()}, &count4, sizeof count4,
                groupsFor(count4, copyKernel.workgroup().x));
  std::vector<double> copyMs;
  for (int i = 0; i < 6; ++i) copyMs.push_back(dev.run(copy).at(0));
  std::sort(copyMs.begin() + 1, copyMs.end());
  const double copyGBs = 2.0 * count4 * 16 / (copyMs[3] * 1e6);
  std::printf("copy: %.3f ms, %.2f GB/s\n", copyMs[3], copyGBs);
  const DiagScanShape diag = ScanKernels::timedScanShape(shape);
  std::vector<PathCase> paths = {{{},
                                  std::string("auto (") + scanPathName(scans.resolve({})) + ", " +
                                      scanScheduleName(scans.resolveSchedule(diag, {})) + ")"}};
  for (uint32_t steps : {4u, 16u, 32u})
    paths.push_back({{.stepsPerLane = steps}, "auto " + std::to_string(steps) + "/lane"});
  for (const PathCase& p : pathsOf(dev))
    if (p.options.path != ScanPath::Subgroup) paths.push_back(p);
  for (const PathCase& p : paths) {
    const double ms = scans.timeDiagScan(shape, p.options, 5);
    EXPECT_GT(ms, 0.0);
    const double gbs = bytes / (ms * 1e6);
    std::printf("diag scan B=1 T=4096 C=1024 %-14s %8.3f ms  %6.2f GB/s  %5.1f%% of copy\n",
                p.name.c_str(), ms, gbs, 100.0 * gbs / copyGBs);
  }
}

}  // namespace
}  // namespace lsrl::gpu
