// The CPU twins of the Linear-layer kernels against values computed by hand, so the
// references of the Vulkan parity tests are known right; and their input checks.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/expect_error.h"
#include "core/float_batch/matvec.h"
#include "core/util/error.h"

namespace lsrl::float_batch {
namespace {

// [[1 0 2]
//  [0 0 0]     (an empty row)
//  [0 -3 0]]
CsrMatrix handCsr() {
  CsrMatrix A;
  A.rows = 3;
  A.cols = 3;
  A.rowPtr = {0, 2, 2, 3};
  A.col = {0, 2, 1};
  A.val = {1, 2, -3};
  return A;
}

TEST(MatvecTwin, CsrByHand) {
  const std::vector<float> X = {1, 2, 3, -1, 0, 4};
  const std::vector<float> bias = {0.5f, -1, 0};
  // Row 0: (1 + 6 + 0.5, -1, -6); row 1: (-1 + 8 + 0.5, -1, 0).
  EXPECT_EQ(csrMatvec(handCsr(), bias, X, 2), (std::vector<float>{7.5f, -1, -6, 7.5f, -1, 0}));
  EXPECT_EQ(csrMatvec(handCsr(), {}, X, 2), (std::vector<float>{7, 0, -6, 7, 0, 0}));
}

TEST(MatvecTwin, CsrBlocksOfRowsAndTheRemainder) {
  // 19 rows = two blocks of 8 and 3 more, alternating the two hand-checked rows.
  std::vector<float> X;
  std::vector<float> expected;
  for (int r = 0; r < 19; ++r) {
    const bool even = r % 2 == 0;
    const std::vector<float> x = even ? std::vector<float>{1, 2, 3} : std::vector<float>{-1, 0, 4};
    const std::vector<float> y =
        even ? std::vector<float>{7.5f, -1, -6} : std::vector<float>{7.5f, -1, 0};
    X.insert(X.end(), x.begin(), x.end());
    expected.insert(expected.end(), y.begin(), y.end());
  }
  EXPECT_EQ(csrMatvec(handCsr(), std::vector<float>{0.5f, -1, 0}, X, 19), expected);
}

TEST(MatvecTwin, DenseByHand) {
  const DenseMatrix A{2, 3, {1, 2, 3, 4, 5, 6}};
  const std::vector<float> X = {1, 0, -1, 0.5f, 0.5f, 0.5f};
  EXPECT_EQ(denseMatvec(A, {}, X, 2), (std::vector<float>{-2, -2, 3, 7.5f}));
  EXPECT_EQ(denseMatvec(A, std::vector<float>{1, -1}, X, 2), (std::vector<float>{-1, -3, 4, 6.5f}));
  // 9 rows: one block of 8 and one more.
  std::vector<float> X9;
  for (int r = 0; r < 9; ++r) X9.insert(X9.end(), {1, 0, -1});
  const std::vector<float> Y9 = denseMatvec(A, {}, X9, 9);
  for (int r = 0; r < 9; ++r) {
    EXPECT_EQ(Y9[2 * r], -2) << r;
    EXPECT_EQ(Y9[2 * r + 1], -2) << r;
  }
}

TEST(MatvecTwin, OneByOne) {
  CsrMatrix A;
  A.rows = A.cols = 1;
  A.rowPtr = {0, 1};
  A.col = {0};
  A.val = {-2};
  EXPECT_EQ(csrMatvec(A, std::vector<float>{3}, std::vector<float>{4, -1}, 2),
            (std::vector<float>{-5, 5}));
}

using testing_common::expectError;

TEST(MatvecTwin, BadShapesAreErrorsNamingTheKernel) {
  const std::vector<float> X = {1, 2, 3};
  expectError([&] { csrMatvec(handCsr(), {}, X, 0); }, "csr_matvec", "at least 1 batch row");
  expectError([&] { csrMatvec(handCsr(), {}, X, 2); }, "csr_matvec", "6 floats expected, got 3");
  expectError(
      [&] {
        csrMatvec(handCsr(), std::vector<float>{1, 2}, X, 1);
      },
      "csr_matvec", "bias of 0 or 3 values expected, got 2");
  CsrMatrix badCol = handCsr();
  badCol.col[1] = 3;
  expectError([&] { csrMatvec(badCol, {}, X, 1); }, "csr_matvec", "column index < 3 expected");
  CsrMatrix badPtr = handCsr();
  badPtr.rowPtr = {0, 2, 1, 3};
  expectError([&] { csrMatvec(badPtr, {}, X, 1); }, "csr_matvec", "must not decrease");
  CsrMatrix shortPtr = handCsr();
  shortPtr.rowPtr = {0, 3};
  expectError([&] { csrMatvec(shortPtr, {}, X, 1); }, "csr_matvec",
              "4 row pointers expected, got 2");
  CsrMatrix empty;
  expectError([&] { csrMatvec(empty, {}, X, 1); }, "csr_matvec",
              "at least 1 × 1 expected, got 0 × 0");
  expectError([&] { csrMatvec(handCsr(), {}, X, size_t{1} << 62); }, "csr_matvec",
              "floats expected, got 3");
  expectError([&] { csrMatvec(handCsr(), {}, X, size_t{1} << 63); }, "csr_matvec", "overflows");
  const DenseMatrix dense{2, 3, {1, 2, 3}};
  expectError([&] { denseMatvec(dense, {}, X, 1); }, "dense_matvec",
              "6 matrix values expected, got 3");
  std::vector<float> Y(1);
  expectError(
      [&] {
        denseMatvec(DenseMatrix{2, 3, {1, 2, 3, 4, 5, 6}}, {}, X, 1, Y);
      },
      "dense_matvec", "output of 1 rows × 2 = 2 floats expected, got 1");
}

}  // namespace
}  // namespace lsrl::float_batch
