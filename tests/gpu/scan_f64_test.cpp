// The scan kernels in fp64 (ScanKernels(dev, Real::F64), docs/vulkan.md "Float64 on the
// device") against plain float64 loops on the CPU: the diagonal scan real and complex on
// every path and schedule (the shapes of scan_test.cpp), sequences several dispatches long,
// the 2×2 block scan and the general recurrence; |gpu − cpu| ≤ 1e-12·(1 + |cpu|).
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "core/float_batch/scan.h"
#include "core/gpu/scan_kernels.h"
#include "core/util/cancelling_sum.h"
#include "gpu/float_parity.h"
#include "gpu/scan_cases.h"
#include "gpu/vulkan_test_util.h"

namespace lsrl::gpu {
namespace {

using float_batch::SeriesShape;
using float_batch::TransitionStrides;
using testing_vulkan::expectFp64Parity;
using V64 = std::vector<double>;

// `count` doubles uniform in [lo, hi).
V64 randomDoubles(std::mt19937& rng, size_t count, double lo, double hi) {
  std::uniform_real_distribution<double> d(lo, hi);
  V64 v(count);
  for (double& x : v) x = d(rng);
  return v;
}

// h_t = a_t ⊙ h_{t−1} + b_t in float64, one step at a time (complex: interleaved pairs).
V64 diagScanLoop(const SeriesShape& s, const V64& a, TransitionStrides st, const V64& b,
                 const V64& h0, bool complex) {
  using C = std::complex<double>;
  const size_t per = complex ? 2 : 1, channels = size_t(s.channels);
  V64 h(b.size());
  for (size_t bi = 0; bi < size_t(s.batch); ++bi)
    for (size_t c = 0; c < channels; ++c) {
      C state = 0;
      if (!h0.empty())
        state = C(h0[(bi * channels + c) * per], complex ? h0[(bi * channels + c) * per + 1] : 0);
      for (size_t t = 0; t < size_t(s.steps); ++t) {
        const size_t ai = (bi * size_t(st.batchStride) + t * size_t(st.stepStride) + c) * per;
        const size_t slot = ((bi * size_t(s.steps) + t) * channels + c) * per;
        const C at(a[ai], complex ? a[ai + 1] : 0), bt(b[slot], complex ? b[slot + 1] : 0);
        state = at * state + bt;
        h[slot] = state.real();
        if (complex) h[slot + 1] = state.imag();
      }
    }
  return h;
}

// A transition of modulus within [lo, hi] (complex: a random phase), `slots` of them.
V64 transition(std::mt19937& rng, size_t slots, double lo, double hi, bool complex) {
  V64 a = randomDoubles(rng, slots * (complex ? 2 : 1), lo, hi);
  if (complex)
    for (size_t i = 0; i < slots; ++i) {
      const double r = std::abs(a[2 * i]), phase = a[2 * i + 1] * 3.141592653589793;
      a[2 * i] = r * std::cos(phase), a[2 * i + 1] = r * std::sin(phase);
    }
  return a;
}

void checkDiagScanF64(Device& dev, bool complex) {
  ScanKernels scans(dev, Real::F64);
  std::mt19937 rng(complex ? 21 : 20);
  double worst = 0;
  for (const testing_vulkan::PathCase& path : testing_vulkan::pathsOf(dev)) {
    for (const testing_vulkan::DiagCase& c : testing_vulkan::diagCases()) {
      const SeriesShape& s = c.shape;
      const size_t per = complex ? 2 : 1;
      const TransitionStrides strides = testing_vulkan::stridesOf(c);
      const size_t aSlots = float_batch::scan_checks::transitionSlots("test", s, strides);
      const V64 a = transition(rng, aSlots, c.aLo, c.aHi, complex);
      const V64 b = randomDoubles(rng, size_t(s.batch) * s.steps * s.channels * per, -1, 1);
      const V64 h0 =
          c.withH0 ? randomDoubles(rng, size_t(s.batch) * s.channels * per, -2, 2) : V64{};
      const std::string what = path.name + " B=" + std::to_string(s.batch) +
                               " T=" + std::to_string(s.steps) + " C=" + std::to_string(s.channels);
      const V64 cpu = diagScanLoop(s, a, strides, b, h0, complex);
      const V64 gpu = complex ? scans.complexDiagScan(s, a, strides, b, h0, path.options)
                              : scans.diagScan(s, a, strides, b, h0, path.options);
      worst = std::max(worst, expectFp64Parity(gpu, cpu, what));
    }
  }
  std::printf("%s diag scan fp64 vs float64 loop: max rel %.2e over every path and shape\n",
              complex ? "complex" : "real", worst);
  EXPECT_TRUE(dev.validationErrors().empty()) << dev.validationErrors().front();
}

TEST(VulkanScanF64, DiagScanMatchesAFloat64LoopOnEveryPath) {
  LSRL_VULKAN_DEVICE(dev);
  if (!dev.info().shaderFloat64) GTEST_SKIP() << dev.info().name << " has no shaderFloat64";
  checkDiagScanF64(dev, false);
}

TEST(VulkanScanF64, ComplexDiagScanMatchesAFloat64LoopOnEveryPath) {
  LSRL_VULKAN_DEVICE(dev);
  if (!dev.info().shaderFloat64) GTEST_SKIP() << dev.info().name << " has no shaderFloat64";
  checkDiagScanF64(dev, true);
}

// Series several dispatches long (kernel_support.h's stepsPerDispatch): the chained
// schedule and the sequential walk continue from the state the last dispatch wrote.
TEST(VulkanScanF64, LongSeriesContinueAcrossDispatches) {
  LSRL_VULKAN_DEVICE(dev);
  if (!dev.info().shaderFloat64) GTEST_SKIP() << dev.info().name << " has no shaderFloat64";
  ScanKernels scans(dev, Real::F64);
  std::mt19937 rng(23);
  std::vector<ScanOptions> options = {{.path = ScanPath::Shared,
                                       .schedule = ScanSchedule::Chained,
                                       .sharedWidth = 4,
                                       .stepsPerLane = 2},
                                      {.path = ScanPath::Sequential}};
  if (dev.info().subgroupArithmetic)
    options.push_back({.path = ScanPath::Subgroup, .schedule = ScanSchedule::Chained});
  for (const ScanOptions& o : options) {
    for (const SeriesShape s : {SeriesShape{1, 90001, 4}, SeriesShape{2, 30000, 3}}) {
      const std::string what = std::string(scanPathName(o.path)) + " T=" + std::to_string(s.steps);
      const size_t n = size_t(s.batch) * s.steps * s.channels;
      const TransitionStrides full{(long long)s.steps * s.channels, s.channels};
      const V64 a = randomDoubles(rng, n, 0.9, 1.0), b = randomDoubles(rng, n, -1, 1);
      const V64 h0 = randomDoubles(rng, size_t(s.batch) * s.channels, -1, 1);
      const double real = expectFp64Parity(scans.diagScan(s, a, full, b, h0, o),
                                           diagScanLoop(s, a, full, b, h0, false), what);
      const V64 ca = transition(rng, n, 0.5, 0.99, true), cb = randomDoubles(rng, 2 * n, -1, 1);
      const double complex =
          expectFp64Parity(scans.complexDiagScan(s, ca, full, cb, {}, o),
                           diagScanLoop(s, ca, full, cb, {}, true), what + " complex");
      std::printf("%s: fp64 vs float64 loop max rel %.2e real, %.2e complex\n", what.c_str(), real,
                  complex);
    }
  }
  EXPECT_TRUE(dev.validationErrors().empty()) << dev.validationErrors().front();
}

// The sequential kernels of compiled LinStates: 2×2 rotation blocks and a general CSR
// transition (with and without a ReLU state), over several dispatches. Their rows (the
// drive u and the products) are summed by decreasing magnitude, as the float64 executor
// sums them (core/util/cancelling_sum.h), so the loops here do the same.
TEST(VulkanScanF64, BlockScanAndGeneralRecurrenceMatchFloat64Loops) {
  LSRL_VULKAN_DEVICE(dev);
  if (!dev.info().shaderFloat64) GTEST_SKIP() << dev.info().name << " has no shaderFloat64";
  ScanKernels scans(dev, Real::F64);
  std::mt19937 rng(24);
  {
    const SeriesShape s{2, 40000, 6};
    V64 blocks(size_t(s.channels) * 2);
    for (int k = 0; k < s.channels / 2; ++k) {
      const double angle = randomDoubles(rng, 1, -3.14, 3.14)[0],
                   r = randomDoubles(rng, 1, 0.5, 1.0)[0];
      blocks[4 * k] = blocks[4 * k + 3] = r * std::cos(angle);
      blocks[4 * k + 1] = -r * std::sin(angle), blocks[4 * k + 2] = r * std::sin(angle);
    }
    const V64 b = randomDoubles(rng, size_t(s.batch) * s.steps * s.channels, -1, 1);
    const V64 h0 = randomDoubles(rng, size_t(s.batch) * s.channels, -1, 1);
    V64 cpu(b.size());
    for (size_t bi = 0; bi < 2; ++bi)
      for (size_t k = 0; k < 3; ++k) {
        double x = h0[bi * 6 + 2 * k], y = h0[bi * 6 + 2 * k + 1];
        for (size_t t = 0; t < size_t(s.steps); ++t) {
          const size_t slot = (bi * s.steps + t) * 6 + 2 * k;
          const double* A = &blocks[4 * k];
          double first[] = {b[slot], A[0] * x, A[1] * y};
          double second[] = {b[slot + 1], A[2] * x, A[3] * y};
          cpu[slot] = x = sumByDecreasingMagnitude(first, 3);
          cpu[slot + 1] = y = sumByDecreasingMagnitude(second, 3);
        }
      }
    std::printf("blockScan2 fp64 vs float64 loop: max rel %.2e\n",
                expectFp64Parity(scans.blockScan2(s, blocks, b, h0), cpu, "blockScan2"));
  }
  // Rows of 6 products (sorted on the device) and of 80 (beyond kMaxSortedTerms: index
  // order, a few ulps from the loop's order), each row's |entries| summing to at most 0.9.
  struct Case {
    int channels, every;
    bool relu;
  };
  for (const Case c : {Case{40, 7, false}, Case{40, 7, true}, Case{80, 1, false}}) {
    const bool relu = c.relu;
    const SeriesShape s{2, 700, c.channels};
    float_batch::CsrMatrix64 A;
    A.rows = A.cols = s.channels;
    const double scale = 0.9 * c.every / c.channels;
    for (int r = 0; r < s.channels; ++r) {
      for (int k = 0; k < s.channels; k += c.every) {
        A.col.push_back(uint32_t((k + r) % s.channels));
        A.val.push_back(randomDoubles(rng, 1, -scale, scale)[0]);
      }
      A.rowPtr.push_back(uint32_t(A.col.size()));
    }
    const V64 u = randomDoubles(rng, size_t(s.batch) * s.steps * s.channels, -1, relu ? 0.5 : 1);
    V64 cpu(u.size());
    for (size_t bi = 0; bi < 2; ++bi) {
      V64 state(size_t(s.channels), 0.0);
      for (size_t t = 0; t < size_t(s.steps); ++t) {
        V64 next(state.size());
        for (size_t r = 0; r < state.size(); ++r) {
          V64 terms = {u[(bi * s.steps + t) * s.channels + r]};
          for (uint32_t k = A.rowPtr[r]; k < A.rowPtr[r + 1]; ++k)
            terms.push_back(A.val[k] * state[A.col[k]]);
          next[r] = sumByDecreasingMagnitude(terms.data(), int(terms.size()));
          if (relu) next[r] = std::max(next[r], 0.0);
          cpu[(bi * s.steps + t) * s.channels + r] = next[r];
        }
        state = next;
      }
    }
    const std::string what = "linearRecurrence C=" + std::to_string(c.channels) +
                             (relu ? " relu" : "") + ", " +
                             std::to_string(float_batch::maxRowNonZeros(A)) + " products a row";
    std::printf("%s: fp64 vs float64 loop max rel %.2e\n", what.c_str(),
                expectFp64Parity(scans.linearRecurrence(s, A, u, {}, relu), cpu, what));
  }
  EXPECT_TRUE(dev.validationErrors().empty()) << dev.validationErrors().front();
}

TEST(VulkanScanF64, ValuesOfTheOtherPrecisionAreRefused) {
  LSRL_VULKAN_DEVICE(dev);
  if (!dev.info().shaderFloat64) GTEST_SKIP() << dev.info().name << " has no shaderFloat64";
  ScanKernels f64(dev, Real::F64), f32(dev);
  EXPECT_EQ(f64.real(), Real::F64);
  try {
    f64.diagScan({1, 2, 1}, std::vector<float>{1, 1}, {0, 1}, std::vector<float>{1, 2}, {});
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "diagScan: fp32 values given to fp64 kernels");
  }
  EXPECT_THROW(f32.diagScan({1, 2, 1}, V64{1, 1}, {0, 1}, V64{1, 2}, {}), Error);
  // Scratch (the chunk carries) is sized in doubles.
  const DiagScanShape shape{{2, 512, 8}, {0, 0}, false};
  const ScanOptions rts{.path = ScanPath::Shared, .schedule = ScanSchedule::ReduceThenScan};
  EXPECT_EQ(f64.diagScanScratchBytes(shape, rts), 2 * f32.diagScanScratchBytes(shape, rts));
}

}  // namespace
}  // namespace lsrl::gpu
