// The CPU twins of the scan kernels on values worked out by hand, and their input checks.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/float_batch/scan.h"
#include "core/util/error.h"

namespace lsrl::float_batch {
namespace {

using V = std::vector<float>;

// Runs `f`, expecting an lsrl::Error whose message contains every part of `parts`.
template <class F>
void expectError(F f, std::initializer_list<std::string> parts) {
  try {
    f();
    FAIL() << "no error";
  } catch (const Error& e) {
    for (const std::string& part : parts)
      EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
  }
}

TEST(ScanTwin, DiagScanWithAConstantDiagonalAndAnInitialState) {
  // a = (0.5, 2) for every b, t; h0 = (2, −1).
  const V h = diagScan({1, 3, 2}, V{0.5f, 2}, {0, 0}, V{1, 1, 2, 0, 0, 1}, V{2, -1});
  EXPECT_EQ(h, (V{2, -1, 3, -2, 1.5f, -3}));
}

TEST(ScanTwin, DiagScanWithTimeVaryingTransitionsPerBatchItem) {
  // B = 2, T = 2, C = 1, zero state: b0: 1, 0.25·1 + 2; b1: 3, 3·3 + 4.
  const V h = diagScan({2, 2, 1}, V{0.5f, 0.25f, -1, 3}, {2, 1}, V{1, 2, 3, 4}, {});
  EXPECT_EQ(h, (V{1, 2.25f, 3, 13}));
}

TEST(ScanTwin, ComplexDiagScanMultipliesComplexNumbers) {
  // a = i, b = 1: h = 1, i + 1, i(1 + i) + 1 = i.
  const V h = complexDiagScan({1, 3, 1}, V{0, 1}, {0, 0}, V{1, 0, 1, 0, 1, 0}, {});
  EXPECT_EQ(h, (V{1, 0, 1, 1, 0, 1}));
  // With h0 = 2 − i and a = (1 + i) at t = 0: (1 + i)(2 − i) + 0 = 3 + i.
  const V g = complexDiagScan({1, 1, 1}, V{1, 1}, {0, 0}, V{0, 0}, V{2, -1});
  EXPECT_EQ(g, (V{3, 1}));
}

TEST(ScanTwin, BlockScan2AppliesEachBlockToItsChannelPair) {
  // Block 0 rotates by 90°, block 1 doubles; h0 = (1, 1, 1, −1).
  const V blocks{0, -1, 1, 0, 2, 0, 0, 2};
  const V b{1, 0, 0, 1, 0, 0, 1, 0};
  const V h = blockScan2({1, 2, 4}, blocks, b, V{1, 1, 1, -1});
  // t0: R(1,1) + (1,0) = (0,1); 2(1,−1) + (0,1) = (2,−1).
  // t1: R(0,1) + (0,0) = (−1,0); 2(2,−1) + (1,0) = (5,−2).
  EXPECT_EQ(h, (V{0, 1, 2, -1, -1, 0, 5, -2}));
}

TEST(ScanTwin, LinearRecurrenceRunsFibonacci) {
  // A = [[0, 1], [1, 1]], h0 = (0, 1), u = 0: (1, 1), (1, 2), (2, 3), (3, 5).
  CsrMatrix A;
  A.rows = A.cols = 2;
  A.rowPtr = {0, 1, 3};
  A.col = {1, 0, 1};
  A.val = {1, 1, 1};
  EXPECT_EQ(linearRecurrence({1, 4, 2}, A, V(8, 0.0f), V{0, 1}), (V{1, 1, 1, 2, 2, 3, 3, 5}));
  // An empty row keeps only the input; a second batch item starts from zero.
  CsrMatrix D;
  D.rows = D.cols = 2;
  D.rowPtr = {0, 1, 1};
  D.col = {0};
  D.val = {0.5f};
  EXPECT_EQ(linearRecurrence({2, 2, 2}, D, V{1, 2, 3, 4, 5, 6, 7, 8}, {}),
            (V{1, 2, 3.5f, 4, 5, 6, 9.5f, 8}));
}

TEST(ScanTwin, LinearRecurrenceWithAReluState) {
  // A = [[1, −1], [−1, 0.5]], u = (0.5, 1): from h0 = (1, 2), A h + u = (−0.5, 1)
  // → (0, 1), then (−1 + 0.5, 0.5 + 1) = (−0.5, 1.5) → (0, 1.5); without the ReLU
  // (−0.5, 1) then (−1, 2).
  CsrMatrix A;
  A.rows = A.cols = 2;
  A.rowPtr = {0, 2, 4};
  A.col = {0, 1, 0, 1};
  A.val = {1, -1, -1, 0.5f};
  const V u{0.5f, 1, 0.5f, 1};
  EXPECT_EQ(linearRecurrence({1, 2, 2}, A, u, V{1, 2}, true), (V{0, 1, 0, 1.5f}));
  EXPECT_EQ(linearRecurrence({1, 2, 2}, A, u, V{1, 2}, false), (V{-0.5f, 1, -1, 2}));
}

TEST(ScanTwin, BadInputsAreErrorsNamingKernelAndSizes) {
  expectError(
      [] {
        diagScan({1, 2, 2}, V{1, 1}, {0, 0}, V{1, 2, 3}, {});
      },
      {"diagScan", "b", "4", "3"});
  expectError([] { diagScan({1, 0, 2}, V{1, 1}, {0, 0}, V{}, {}); }, {"diagScan", "T=0"});
  expectError([] { diagScan({1, 1, 2}, V{1, 1}, {0, 0}, V{1, 2}, V{1}); }, {"h0", "2", "1"});
  expectError([] { diagScan({1, 1, 1}, V{1}, {-1, 0}, V{1}, {}); }, {"strides", "-1"});
  expectError(
      [] {
        diagScan({1 << 16, 1 << 16, 1}, V{1}, {0, 0}, V{}, {});
      },
      {"diagScan", "at most"});
  expectError(
      [] {
        complexDiagScan({1, 1, 1}, V{1}, {0, 0}, V{1, 0}, {});
      },
      {"complexDiagScan", "a", "2", "1"});
  expectError([] { blockScan2({1, 1, 3}, V(6, 0.0f), V(3, 0.0f), {}); }, {"blockScan2", "C=3"});
  CsrMatrix bad;
  bad.rows = bad.cols = 2;
  bad.rowPtr = {0, 1, 1};
  bad.col = {2};
  bad.val = {1};
  expectError(
      [&] {
        linearRecurrence({1, 1, 2}, bad, V(2, 0.0f), {});
      },
      {"linearRecurrence", "col[0]=2"});
  expectError(
      [&] {
        linearRecurrence({1, 1, 3}, bad, V(3, 0.0f), {});
      },
      {"linearRecurrence", "3x3", "2x2"});
}

}  // namespace
}  // namespace lsrl::float_batch
