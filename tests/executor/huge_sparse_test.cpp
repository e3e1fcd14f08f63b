// PlanOptions::allowHugeSparse: compiled paths whose matrices are huge when counted
// densely (beyond kMaxMatrixEntries) but sparse still run; malformed shapes still fail.
#include <gtest/gtest.h>

#include "core/executor/executor.h"
#include "core/graph/checks.h"
#include "core/util/error.h"

namespace lsrl {
namespace {

constexpr int kWide = 20000;  // 20000² = 4·10^8 dense entries > kMaxMatrixEntries
static_assert(static_cast<long long>(kWide) * kWide > kMaxMatrixEntries);

Graph hugeDiagonal() {
  Graph g;
  const NodeId x = g.addInput(1);
  const NodeId wide = g.addLinear(x, ExactMatrix::filled(kWide, 1, Exact(1)), zerosVector(kWide));
  const NodeId y = g.addLinear(wide, ExactMatrix::identity(kWide, Exact(2)), zerosVector(kWide));
  g.setOutput(g.addSlice(y, kWide - 2, kWide));
  return g;
}

TEST(HugeSparsePlan, RunsOnlyWhenAllowed) {
  const Graph g = hugeDiagonal();
  EXPECT_THROW(Plan::make(g, {.exact = false}), Error);
  PlanOptions o;
  o.exact = false;
  o.allowHugeSparse = true;
  FloatExecutor ex(Plan::make(g, o));
  EXPECT_EQ(ex.step({3.0}), (std::vector<double>{6.0, 6.0}));
}

TEST(HugeSparsePlan, StillRejectsWrongShapes) {
  Graph g = hugeDiagonal();
  Node bad = g.node(2);
  bad.id = static_cast<NodeId>(g.nodeCount());
  bad.inputs = {0};  // A expects kWide inputs, the Input has 1
  g.setOutput(g.addUnchecked(bad));
  PlanOptions o;
  o.exact = false;
  o.allowHugeSparse = true;
  EXPECT_THROW(Plan::make(g, o), Error);
}

}  // namespace
}  // namespace lsrl
