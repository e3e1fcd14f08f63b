// visibleGraph: which nodes and collapsed groups the editor draws, and their edges.
#include "app/layout/visible_graph.h"

#include <gtest/gtest.h>

#include "app/layout/item_size.h"
#include "core/graph/graph.h"
#include "layout/layout_test_util.h"

namespace lsrl {
namespace {

using Kind = VisibleItem::Kind;
using testing_layout::reluReading;

// x(0) -> [f_outer: a(1), [f_inner: b(2)], c = Concat(a, b)(3)] -> d(4); e(5) reads x and c.
Graph sample() {
  Graph g;
  const NodeId x = g.addInput(1, "x");
  GroupScope outer(g, "f_outer", {{"mu", "1000"}});
  const NodeId a = g.addReLU(x);
  GroupScope inner(g, "f_inner");
  const NodeId b = inner.finish(g.addReLU(a));
  const NodeId c = outer.finish(g.addConcat({a, b}));
  const NodeId d = g.addReLU(c);
  g.setOutput(g.addConcat({x, c, d}));
  return g;
}

TEST(VisibleGraph, CollapsedGroupsAreOneBox) {
  const Graph g = sample();
  const VisibleGraph vg = visibleGraph(g);
  ASSERT_EQ(vg.items.size(), 4u);  // x, d, e, then f_outer
  EXPECT_EQ(vg.items[0].id, 0);
  EXPECT_EQ(vg.items[1].id, 4);
  EXPECT_EQ(vg.items[2].id, 5);
  EXPECT_EQ(vg.items[3].kind, Kind::Group);
  EXPECT_EQ(vg.items[3].id, 0);
  EXPECT_EQ(vg.itemOfNode, (std::vector<int>{0, 3, 3, 3, 1, 2}));
  EXPECT_EQ(vg.itemOfGroup, (std::vector<int>{3, -1}));
  EXPECT_EQ(vg.itemIndex(Kind::Node, 4), 1);
  EXPECT_EQ(vg.itemIndex(Kind::Node, 2), -1);  // hidden
  EXPECT_EQ(vg.itemIndex(Kind::Group, 0), 3);
  EXPECT_EQ(vg.itemIndex(Kind::Group, 1), -1);
  EXPECT_EQ(vg.itemIndex(Kind::Node, 99), -1);
  // Edges crossing items only: x -> a, c -> d, and e's three inputs.
  ASSERT_EQ(vg.edges.size(), 5u);
  EXPECT_EQ(vg.edges[0].from, 0);
  EXPECT_EQ(vg.edges[0].to, 3);
  EXPECT_EQ(vg.edges[0].toNode, 1);
  EXPECT_EQ(vg.edges[1].fromNode, 3);
  EXPECT_EQ(vg.edges[1].to, 1);
  EXPECT_EQ(vg.edges[4].toNode, 5);
  EXPECT_EQ(vg.edges[4].slot, 2);
}

TEST(VisibleGraph, ExpandingShowsMembersAndInnerBoxes) {
  Graph g = sample();
  g.mutableGroup(0).expanded = true;
  VisibleGraph vg = visibleGraph(g);
  // x, a, c, d, e and the f_inner box.
  ASSERT_EQ(vg.items.size(), 6u);
  EXPECT_EQ(vg.items[5].kind, Kind::Group);
  EXPECT_EQ(vg.items[5].id, 1);
  EXPECT_EQ(vg.itemOfNode[2], 5);
  EXPECT_EQ(vg.edges.size(), 8u);  // x->a, a->b, a->c, b->c, c->d and e's three inputs
  g.mutableGroup(1).expanded = true;
  vg = visibleGraph(g);
  EXPECT_EQ(vg.items.size(), 6u);  // every node, no box
  EXPECT_EQ(vg.itemOfGroup, (std::vector<int>{-1, -1}));
  // An expanded group inside a collapsed one stays hidden.
  g.mutableGroup(0).expanded = false;
  vg = visibleGraph(g);
  EXPECT_EQ(vg.items.size(), 4u);
  EXPECT_EQ(vg.itemOfNode[2], 3);
}

TEST(VisibleGraph, UnconnectedInputsMakeNoEdge) {
  Graph g;
  const NodeId x = g.addInput(1);
  const NodeId r = g.addReLU(x);
  g.mutableNode(r).inputs[0] = kNoNode;
  g.addUnchecked(reluReading(2, 42));
  EXPECT_TRUE(visibleGraph(g).edges.empty());
}

TEST(ItemSize, GroupBoxesFitTheirTitle) {
  Graph g = sample();
  EXPECT_EQ(groupTitle(g.groups()[0]), "f_outer(mu=1000)");
  EXPECT_EQ(itemSize(g, {Kind::Group, 1}).width, kGroupMinWidth);
  g.mutableGroup(0).params.push_back({"lambda", "10000000000"});
  const ItemSize s = itemSize(g, {Kind::Group, 0});
  EXPECT_GE(s.width, 7.0 * static_cast<double>(groupTitle(g.groups()[0]).size()));
  EXPECT_EQ(s.height, kGroupHeight);
  EXPECT_EQ(itemSize(g, {Kind::Node, 0}).width, kNodeWidth);
}

}  // namespace
}  // namespace lsrl
