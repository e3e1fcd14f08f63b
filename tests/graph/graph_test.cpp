// The IR and the builder operators: ids, lowering shapes, orders, groups, errors.
#include <gtest/gtest.h>

#include "common/error_of.h"
#include "core/graph/builder.h"
#include "core/graph/stats.h"
#include "core/util/error.h"

namespace lsrl {
namespace {

using testing_common::errorOf;

TEST(Graph, IdsAreCreationOrder) {
  Graph g;
  Var x = Input(g, 2);
  Var r = ReLU(x);
  Var s = x[1];
  EXPECT_EQ(x.id(), 0);
  EXPECT_EQ(r.id(), 1);
  EXPECT_EQ(s.id(), 2);
}

TEST(Graph, SumOfTwoNodesIsConcatPlusLinear) {
  Graph g;
  Var x = Input(g, 2);
  Var y = ReLU(x);
  Var s = x + y;
  ASSERT_EQ(g.nodeCount(), 4u);
  EXPECT_EQ(g.node(2).op, Op::Concat);
  EXPECT_EQ(g.node(2).inputs, (std::vector<NodeId>{0, 1}));
  const Node& lin = s.node();
  EXPECT_EQ(lin.op, Op::Linear);
  EXPECT_EQ(lin.A.rows(), 2);
  EXPECT_EQ(lin.A.cols(), 4);
  EXPECT_EQ(lin.A.at(0, 0), Exact(1));
  EXPECT_EQ(lin.A.at(0, 2), Exact(1));
  EXPECT_EQ(lin.A.at(1, 3), Exact(1));
  EXPECT_EQ(lin.A.at(0, 1), Exact(0));
  Var d = x - y;
  EXPECT_EQ(d.node().A.at(1, 3), Exact(-1));
}

TEST(Graph, ScalarOperatorsAreOneLinear) {
  Graph g;
  Var x = Input(g, 1);
  Var a = x - Exact::rational(1, 2);
  Var b = Exact(3) - x;
  Var c = 2 * x;
  Var d = x / 4;
  EXPECT_EQ(g.nodeCount(), 5u);
  EXPECT_EQ(a.node().A.at(0, 0), Exact(1));
  EXPECT_EQ(a.node().b[0], Exact::rational(-1, 2));
  EXPECT_EQ(b.node().A.at(0, 0), Exact(-1));
  EXPECT_EQ(b.node().b[0], Exact(3));
  EXPECT_EQ(c.node().A.at(0, 0), Exact(2));
  EXPECT_EQ(d.node().A.at(0, 0), Exact::rational(1, 4));
}

TEST(Graph, DivisionByZeroIsAnError) {
  Graph g;
  Var x = Input(g, 1);
  EXPECT_NE(errorOf([&] { x / 0; }).find("division by zero"), std::string::npos);
}

TEST(Graph, SliceIsATaggedLinear) {
  Graph g;
  Var x = Input(g, 4);
  Var s = x.slice(1, 3);
  EXPECT_TRUE(s.node().isSlice());
  EXPECT_EQ(s.node().countedOpName(), "Slice");
  EXPECT_EQ(s.dim(), 2);
  EXPECT_EQ(s.node().A.at(0, 1), Exact(1));
  EXPECT_EQ(s.node().A.at(1, 2), Exact(1));
  EXPECT_EQ(s.node().A.nonZeros(), 2u);
  const std::string msg = errorOf([&] { x.slice(2, 5); });
  EXPECT_NE(msg.find("out of range"), std::string::npos) << msg;
  EXPECT_NE(msg.find("width 4"), std::string::npos) << msg;
}

TEST(Graph, DimensionMismatchNamesNodesAndWidths) {
  Graph g;
  Var x = Input(g, 2);
  Var y = x[0];
  const std::string msg = errorOf([&] { x + y; });
  EXPECT_NE(msg.find("width 2"), std::string::npos) << msg;
  EXPECT_NE(msg.find("width 1"), std::string::npos) << msg;
  const std::string lin = errorOf([&] { Linear(x, ExactMatrix::identity(3), {}); });
  EXPECT_NE(lin.find("expected 2, got 3"), std::string::npos) << lin;
}

TEST(Graph, SecondInputAndOddMultiAreErrors) {
  Graph g;
  Var x = Input(g, 3);
  EXPECT_NE(errorOf([&] { Input(g, 1); }).find("exactly one Input"), std::string::npos);
  EXPECT_NE(errorOf([&] { Multi(x); }).find("odd width 3"), std::string::npos);
}

TEST(Graph, AbsurdWidthIsRefusedBeforeAllocating) {
  Graph g;
  EXPECT_NE(errorOf([&] { Input(g, 1 << 30); }).find("outside"), std::string::npos);
  EXPECT_NE(errorOf([&] { Input(g, 0); }).find("outside"), std::string::npos);
}

TEST(Graph, AlwaysPositivePropagation) {
  Graph g;
  Var x = Input(g, 2);
  Var r = ReLU(x);
  EXPECT_FALSE(x.alwaysPositive());
  EXPECT_TRUE(r.alwaysPositive());
  EXPECT_TRUE((r + r).alwaysPositive());
  EXPECT_FALSE((r + x).alwaysPositive());
  EXPECT_TRUE((r * 3).alwaysPositive());
  EXPECT_FALSE((r * -3).alwaysPositive());
  EXPECT_TRUE((r + 1).alwaysPositive());
  EXPECT_FALSE((r - 1).alwaysPositive());
  EXPECT_TRUE(r[0].alwaysPositive());
  EXPECT_TRUE(Concat({r, r}).alwaysPositive());
  EXPECT_FALSE(Concat({r, x}).alwaysPositive());
}

TEST(Graph, TopologicalOrderIsKahnSmallestIdFirst) {
  Graph g;
  Var x = Input(g, 1);     // 0
  Var a = ReLU(x);         // 1
  Var b = x * 2;           // 2
  Var c = ReLU(b);         // 3
  Var d = Concat({c, a});  // 4
  g.setOutput(d.id());
  EXPECT_EQ(g.topologicalOrder(), (std::vector<NodeId>{0, 1, 2, 3, 4}));
  // Node 5 does not reach the output: it is kept but is not part of the program.
  ReLU(d);
  EXPECT_EQ(g.programNodes().size(), 5u);
}

TEST(Graph, CyclesAreReportedWithTheirNodes) {
  Graph g;
  Var x = Input(g, 1);
  Var a = ReLU(x);
  Var b = ReLU(a);
  g.mutableNode(a.id()).inputs = {b.id()};
  g.setOutput(b.id());
  const std::string msg = errorOf([&] { g.topologicalOrder(); });
  EXPECT_NE(msg.find("cycle"), std::string::npos) << msg;
  EXPECT_NE(msg.find("1, 2"), std::string::npos) << msg;
}

TEST(Graph, GroupsRecordNodesAndNest) {
  Graph g;
  Var x = Input(g, 1);
  GroupScope outer(g, "outer", {{"k", "1"}});
  Var a = ReLU(x);
  NodeId inner_out;
  {
    GroupScope inner(g, "inner");
    inner_out = inner.finish(ReLU(a).id());
  }
  outer.finish(inner_out);
  ASSERT_EQ(g.groups().size(), 2u);
  EXPECT_EQ(g.groups()[0].nodes, (std::vector<NodeId>{1, 2}));
  EXPECT_EQ(g.groups()[1].nodes, (std::vector<NodeId>{2}));
  EXPECT_EQ(g.groups()[1].parent, 0);
  EXPECT_EQ(g.node(2).group, 1);
  EXPECT_EQ(g.node(1).group, 0);
  EXPECT_EQ(g.groups()[0].output, 2);
}

TEST(Graph, StatsCountSlicesSeparatelyAndBranches) {
  Graph g;
  Var x = Input(g, 2);
  Var s = x[0];
  Var t = x[1];
  Var out = s + t;
  g.setOutput(out.id());
  const GraphStats st = computeStats(g);
  EXPECT_EQ(st.countsByOp.at("Slice"), 2);
  EXPECT_EQ(st.countsByOp.at("Linear"), 1);
  EXPECT_EQ(st.countsByOp.at("Concat"), 1);
  EXPECT_EQ(st.totalNodes, 5);
  EXPECT_EQ(st.branchNodes, 1);  // the Input feeds both slices
  EXPECT_EQ(st.inputDim, 2);
  EXPECT_EQ(st.outputDim, 1);
}

TEST(Graph, ConductorIsTheLcmOfAllValues) {
  Graph g;
  Var x = Input(g, 1);
  Var y = x * Exact::sqrt(3);
  Var z = y * Exact::cosPi(1, 5);
  g.setOutput(z.id());
  EXPECT_EQ(g.conductor() % 12, 0);
  EXPECT_EQ(g.conductor() % 10, 0);
}

}  // namespace
}  // namespace lsrl
