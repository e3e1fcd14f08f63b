// Float64 rows are summed by decreasing magnitude (docs/compiler.md, "Float64 row sums"):
// a small term between the two halves of a large cancelling pair survives, in the helper,
// in a Linear row and in a LinState row (its state and input products in one row).
#include <gtest/gtest.h>

#include <vector>

#include "core/executor/executor.h"
#include "core/graph/builder.h"
#include "core/util/cancelling_sum.h"
#include "executor/run_helpers.h"

namespace lsrl {
namespace {

using testing_run::mat;
using testing_run::vec;

TEST(RowSum, LargeHalvesCancelBeforeTheSmallTermIsAdded) {
  // In index order 0.1 + 1e16 rounds to 1e16, and the row comes out 0.
  std::vector<double> terms = {0.1, 1e16, -1e16};
  EXPECT_EQ(sumByDecreasingMagnitude(terms.data(), 3), 0.1);
  // Ties keep index order: +2^60 first, then -2^60, then the small terms.
  std::vector<double> tied = {0x1p60, -0x1p60, 0.25, -0.5};
  EXPECT_EQ(sumByDecreasingMagnitude(tied.data(), 4), -0.25);
  EXPECT_EQ(tied, (std::vector<double>{0x1p60, -0x1p60, -0.5, 0.25}));
  // Longer rows (past the insertion sort) too.
  std::vector<double> wide(40, 0.0);
  wide[0] = 0.1;
  wide[17] = 1e16;
  wide[39] = -1e16;
  EXPECT_EQ(sumByDecreasingMagnitude(wide.data(), 40), 0.1);
}

TEST(RowSum, ExecutorRowsKeepTheSmallTerm) {
  Graph g;
  Var x = Input(g, 3);
  // 0.1 + 1e16 - 1e16 (+ bias 0), the small term first in index order.
  Var y = Linear(x, mat({{1, 1, 1}}), vec({0}));
  Var big = Linear(x, mat({{1, 0, 0}, {0, 10000000000000000, 0}, {0, 0, -10000000000000000}}),
                   vec({0, 0, 0}));
  Var row = Linear(big, mat({{1, 1, 1}}), vec({0}));
  Var s = LinState(big, mat({{1}}), mat({{1, 1, 1}}), vec({0}));
  g.setOutput(Concat({y, row, s}).id());
  FloatExecutor fx(Plan::make(g));
  const std::vector<double> out = fx.step({0.1, 1, 1});
  ASSERT_EQ(out.size(), 3u);
  EXPECT_DOUBLE_EQ(out[0], 2.1);  // nothing cancels
  EXPECT_EQ(out[1], 0.1);
  EXPECT_EQ(out[2], 0.1);  // LinState: 1·0 (state) + 0.1 + 1e16 - 1e16
}

}  // namespace
}  // namespace lsrl
