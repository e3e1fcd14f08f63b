// The CPU twins of ReLU and Multi against values computed by hand; their input checks.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/expect_error.h"
#include "core/float_batch/elementwise.h"
#include "core/util/error.h"

namespace lsrl::float_batch {
namespace {

TEST(ElementwiseTwin, ReluByHand) {
  const std::vector<float> in = {-2, 0, 3.5f, -0.25f, 1e-30f};
  EXPECT_EQ(relu(in), (std::vector<float>{0, 0, 3.5f, 0, 1e-30f}));
  std::vector<float> inPlace = in;
  reluInPlace(inPlace);
  EXPECT_EQ(inPlace, relu(in));
}

TEST(ElementwiseTwin, MultiByHand) {
  // Rows of 2h = 4: (1, 2 | 3, 4) → (3, 8); (-1, 0.5 | 2, 2) → (-2, 1).
  const std::vector<float> X = {1, 2, 3, 4, -1, 0.5f, 2, 2};
  EXPECT_EQ(multi(X, 2, 2), (std::vector<float>{3, 8, -2, 1}));
  EXPECT_EQ(multi(std::vector<float>{-3, 5}, 1, 1), (std::vector<float>{-15}));
}

TEST(ElementwiseTwin, AddAndMulByHand) {
  const std::vector<float> x = {1, -2, 0.5f}, y = {3, 4, -0.25f};
  std::vector<float> out(3);
  add(x, y, out);
  EXPECT_EQ(out, (std::vector<float>{4, 2, 0.25f}));
  mul(x, y, out);
  EXPECT_EQ(out, (std::vector<float>{3, -8, -0.125f}));
  std::vector<float> inPlace = x;  // out aliasing x
  mul(inPlace, y, inPlace);
  EXPECT_EQ(inPlace, out);
}

using testing_common::expectError;

TEST(ElementwiseTwin, BadShapesAreErrorsNamingTheKernel) {
  std::vector<float> out(2);
  expectError([&] { relu(std::vector<float>{}); }, "relu", "at least 1 value expected, got 0");
  expectError(
      [&] {
        relu(std::vector<float>{1, 2, 3}, out);
      },
      "relu", "3 floats expected, got 3 and 2");
  const std::vector<float> X = {1, 2, 3};
  expectError([&] { multi(X, 1, 2); }, "multi", "1 rows × 4 = 4 floats expected, got 3");
  expectError([&] { multi(X, 0, 1); }, "multi", "at least 1 row");
  expectError([&] { multi(X, 1, 0); }, "multi", "half-width 0");
  expectError([&] { multi(X, size_t{1} << 40, size_t{1} << 40); }, "multi", "overflows");
  std::vector<float> none, three(3);
  expectError([&] { add(X, X, none); }, "add", "at least 1 value expected, got 0");
  expectError([&] { add(X, out, three); }, "add", "3 floats expected, got 3, 2 and 3");
  expectError([&] { mul(out, X, three); }, "mul", "3 floats expected, got 2, 3 and 3");
}

}  // namespace
}  // namespace lsrl::float_batch
