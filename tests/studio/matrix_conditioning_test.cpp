// The Debranching inspector's conditioning line (app/studio/player/matrix_conditioning.h).
#include "app/studio/player/matrix_conditioning.h"

#include <gtest/gtest.h>

namespace lsrl::studio {
namespace {

TEST(MatrixConditioning, MeasuresRangeRowsAndConditionNumber) {
  // [[1e10, 1], [0, 2]]: the paper's λ beside values of order 1.
  const ExactMatrix m =
      ExactMatrix::fromDense({{Exact(10000000000LL), Exact(1)}, {Exact(0), Exact(2)}}, 2);
  const MatrixConditioning c = conditioningOf(m);
  EXPECT_EQ(c.nonZeros, 3u);
  EXPECT_DOUBLE_EQ(c.largest, 1e10);
  EXPECT_DOUBLE_EQ(c.smallest, 1);
  EXPECT_DOUBLE_EQ(c.dynamicRange(), 1e10);
  EXPECT_DOUBLE_EQ(c.widestRow, 1e10 + 1);
  EXPECT_EQ(c.rank, 2);
  ASSERT_TRUE(c.conditionNumber);
  EXPECT_NEAR(*c.conditionNumber, 0.5e10, 1e5);  // σ₁ ≈ 1e10, σ₂ ≈ 2
  EXPECT_TRUE(c.describe().contains(QStringLiteral("beyond fp32"))) << c.describe().toStdString();
}

TEST(MatrixConditioning, PowersOfTwoAreWithinFp32AndRankDeficiencyIsCounted) {
  const ExactMatrix m =
      ExactMatrix::fromDense({{Exact(16), Exact(-16)}, {Exact(-16), Exact(16)}}, 2);
  const MatrixConditioning c = conditioningOf(m);
  EXPECT_DOUBLE_EQ(c.dynamicRange(), 1);
  EXPECT_EQ(c.rank, 1);
  EXPECT_DOUBLE_EQ(*c.conditionNumber, 1);
  EXPECT_FALSE(c.describe().contains(QStringLiteral("beyond")));
  EXPECT_EQ(conditioningOf(ExactMatrix(3, 2)).describe(), QStringLiteral("all zero"));
}

}  // namespace
}  // namespace lsrl::studio
