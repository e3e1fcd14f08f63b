// ExactMatrix::fromEntries: entries in any order are sorted and summed; entries already in
// compressed-row order take the fast path (moved in, no sort) and give the same matrix.
#include "core/graph/matrix.h"

#include <gtest/gtest.h>

#include "common/error_of.h"

namespace lsrl {
namespace {

using testing_common::errorOf;

TEST(ExactMatrix, FromEntriesInRowOrderEqualsTheSortedBuild) {
  const std::vector<ExactMatrix::Entry> ordered = {
      {0, 1, Exact(2)}, {0, 3, Exact(0)}, {1, 0, Exact(-1)}, {2, 2, Exact(5)}, {2, 3, Exact(7)}};
  const ExactMatrix fast = ExactMatrix::fromEntries(3, 4, ordered);
  std::vector<ExactMatrix::Entry> shuffled = {ordered[4], ordered[1], ordered[2], ordered[0],
                                              ordered[3]};
  const ExactMatrix sorted = ExactMatrix::fromEntries(3, 4, shuffled);
  EXPECT_TRUE(fast == sorted);
  EXPECT_EQ(fast.nonZeros(), 4u);  // the zero is dropped on both paths
  EXPECT_EQ(fast.rowStart(), (std::vector<int64_t>{0, 1, 2, 4}));
  EXPECT_EQ(fast.colIndex(), (std::vector<int>{1, 0, 2, 3}));
  EXPECT_TRUE(fast.at(2, 3) == Exact(7));
}

TEST(ExactMatrix, FromEntriesSumsRepeatsAndChecksBounds) {
  const ExactMatrix m =
      ExactMatrix::fromEntries(2, 2, {{1, 1, Exact(1)}, {0, 0, Exact(3)}, {1, 1, Exact(-1)}});
  EXPECT_EQ(m.nonZeros(), 1u);  // 1 + (-1) cancels
  EXPECT_TRUE(m.at(0, 0) == Exact(3));
  EXPECT_EQ(errorOf([] {
              (void)ExactMatrix::fromEntries(2, 2, {{0, 0, Exact(1)}, {2, 0, Exact(1)}});
            }),
            "matrix entry (2, 0) is outside the 2x2 matrix");
}

}  // namespace
}  // namespace lsrl
