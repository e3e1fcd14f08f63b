// Incremental placement: layered blocks and new nodes next to their neighbours,
// without overlaps, fast enough for every edit on tok2tok.
#include "app/layout/incremental_layout.h"

#include <gtest/gtest.h>

#include <chrono>
#include <iostream>

#include "app/layout/dot_layout.h"
#include "app/layout/item_size.h"
#include "core/programs/tok2tok.h"
#include "layout/layout_test_util.h"

namespace lsrl {
namespace {

using testing_layout::boxOf;
using testing_layout::firstOverlap;
using testing_layout::visibleBoxes;

// x(0) -> a(1) -> b(2); c(3) = Concat(x, b); d(4) = ReLU(c).
Graph chain() {
  Graph g;
  const NodeId x = g.addInput(1);
  const NodeId a = g.addReLU(x);
  const NodeId b = g.addReLU(a);
  const NodeId c = g.addConcat({x, b});
  g.setOutput(g.addReLU(c));
  return g;
}

TEST(LayeredPlacement, LongestPathColumnsCentredWithoutOverlap) {
  const Graph g = chain();
  const auto pos = layeredPlacement(g, {4, 3, 2, 1, 0}, {1000, 500});
  ASSERT_EQ(pos.size(), 5u);
  // Layers: x 0, a 1, b 2, c 3 (longest path through b, not 1 through x), d 4.
  for (NodeId id = 1; id < 5; ++id) {
    EXPECT_DOUBLE_EQ(pos.at(id).x - pos.at(id - 1).x, kNodeWidth + kLayerGap) << id;
  }
  EXPECT_DOUBLE_EQ((pos.at(0).x + pos.at(4).x) / 2, 1000);
  for (const auto& [id, p] : pos) EXPECT_DOUBLE_EQ(p.y, 500) << id;
}

TEST(LayeredPlacement, IgnoresInputsOutsideTheSetAndStacksColumns) {
  Graph g = chain();
  const NodeId e = g.addReLU(0);  // a second reader of x, in a's layer
  const auto pos = layeredPlacement(g, {1, 2, 3, e}, {0, 0});
  ASSERT_EQ(pos.size(), 4u);
  EXPECT_DOUBLE_EQ(pos.at(1).x, pos.at(e).x);  // both in layer 0 without x
  EXPECT_DOUBLE_EQ(pos.at(e).y - pos.at(1).y, kNodeHeight + kSiblingGap);
  EXPECT_DOUBLE_EQ(pos.at(1).y + pos.at(e).y, 0);  // the column is centred
  std::vector<testing_layout::PlacedBox> boxes;
  for (const auto& [id, p] : pos)
    boxes.push_back(boxOf(std::to_string(id), p, {kNodeWidth, kNodeHeight}));
  EXPECT_EQ(firstOverlap(boxes), "");
  EXPECT_TRUE(layeredPlacement(g, {}, {0, 0}).empty());
}

TEST(PlaceNewNodes, NextToInputsElseReadersElseFallback) {
  Graph g = chain();
  g.layout()[0] = {0, 0};
  g.layout()[1] = {300, 0};
  g.layout()[4] = {1000, 200};
  // b (2) has its input a placed; c (3) then has b; a node with nothing placed falls back.
  const NodeId lone = g.addReLU(0);
  g.mutableNode(lone).inputs = {kNoNode};  // unconnected: nothing placed next to it
  auto pos = placeNewNodes(g, {3, 2, lone, 0}, {-500, -500});
  ASSERT_EQ(pos.size(), 3u);  // x already has a position
  EXPECT_DOUBLE_EQ(pos.at(2).x, 300 + kNodeWidth + kLayerGap);
  EXPECT_DOUBLE_EQ(pos.at(2).y, 0);
  EXPECT_DOUBLE_EQ(pos.at(3).x, pos.at(2).x + kNodeWidth + kLayerGap);  // rightmost input: b
  EXPECT_DOUBLE_EQ(pos.at(lone).x, -500);
  EXPECT_DOUBLE_EQ(pos.at(lone).y, -500);

  // Only a reader placed: one layer to its left.
  Graph h = chain();
  h.layout()[4] = {1000, 200};
  pos = placeNewNodes(h, {3}, {0, 0});
  EXPECT_DOUBLE_EQ(pos.at(3).x, 1000 - kNodeWidth - kLayerGap);
  EXPECT_DOUBLE_EQ(pos.at(3).y, 200);
}

TEST(PlaceNewNodes, MovesDownPastPlacedBoxes) {
  Graph g = chain();
  g.layout()[0] = {0, 0};
  const NodeId e = g.addReLU(0);
  const NodeId f = g.addReLU(0);
  g.layout()[e] = {kNodeWidth + kLayerGap, 0};  // where a would go
  const auto pos = placeNewNodes(g, {1, f}, {0, 0});
  EXPECT_DOUBLE_EQ(pos.at(1).x, kNodeWidth + kLayerGap);
  EXPECT_DOUBLE_EQ(pos.at(1).y, kNodeHeight + kSiblingGap);
  EXPECT_DOUBLE_EQ(pos.at(f).y, 2 * (kNodeHeight + kSiblingGap));  // below a, placed first
  for (const auto& [id, p] : pos) g.layout()[id] = p;
  EXPECT_EQ(firstOverlap(visibleBoxes(g)), "");
}

TEST(PlaceNewNodes, HiddenNodesAndGroupBoxes) {
  Graph g;
  const NodeId x = g.addInput(1);
  GroupScope scope(g, "f_long_function_name", {{"scale", "1000"}, {"lambda", "1e10"}});
  const NodeId hidden = scope.finish(g.addReLU(x));
  const NodeId r = g.addReLU(hidden);
  g.layout()[x] = {0, 0};
  g.groupLayout()[0] = {400, 0};
  const auto pos = placeNewNodes(g, {hidden, r}, {0, 0});
  ASSERT_EQ(pos.size(), 1u);  // the hidden member is drawn as the group's box
  const double groupWidth = itemSize(g, {VisibleItem::Kind::Group, 0}).width;
  EXPECT_GT(groupWidth, kGroupMinWidth);
  EXPECT_DOUBLE_EQ(pos.at(r).x, 400 + groupWidth / 2 + kLayerGap + kNodeWidth / 2);
}

TEST(PlaceGroupBoxes, CentreOfTheMembersForBoxesWithoutPosition) {
  Graph g;
  const NodeId x = g.addInput(1);
  GroupScope outer(g, "f_outer");
  const NodeId a = g.addReLU(x);
  GroupScope inner(g, "f_inner");
  const NodeId b = inner.finish(g.addReLU(a));
  outer.finish(b);
  GroupScope other(g, "f_other");
  other.finish(g.addReLU(b));
  GroupScope placed(g, "f_placed");
  const NodeId d = placed.finish(g.addReLU(b));
  g.layout()[a] = {0, 10};
  g.layout()[b] = {100, 50};  // hidden two levels deep: still a member of f_outer's box
  g.layout()[d] = {7, 7};
  g.groupLayout()[3] = {1, 2};
  const auto boxes = placeGroupBoxes(g);
  ASSERT_EQ(boxes.size(), 1u);  // f_other's member has no position; f_placed has one
  EXPECT_DOUBLE_EQ(boxes.at(0).x, 50);
  EXPECT_DOUBLE_EQ(boxes.at(0).y, 30);
  g.mutableGroup(0).expanded = true;  // now f_inner is the box
  EXPECT_DOUBLE_EQ(placeGroupBoxes(g).at(1).x, 100);
}

TEST(PlaceNewNodes, FastOnTok2tokWithAFullLayout) {
  Graph g = buildTok2tok();
  for (GroupId id = 0; id < static_cast<GroupId>(g.groups().size()); ++id)
    g.mutableGroup(id).expanded = true;  // every node is its own box: the most work
  const LayoutResult layout = dotLayout(g);
  g.layout() = layout.nodes;
  g.groupLayout() = layout.groups;
  // A small edit: a few new nodes reading the output.
  const NodeId out = g.output();
  const NodeId a = g.addReLU(out);
  const NodeId b = g.addReLU(a);
  const NodeId c = g.addConcat({a, b, out});
  const auto t0 = std::chrono::steady_clock::now();
  const auto pos = placeNewNodes(g, {a, b, c}, {0, 0});
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  std::cout << "placeNewNodes on tok2tok (" << g.nodeCount() << " nodes, all expanded): " << ms
            << " ms\n";
  ASSERT_EQ(pos.size(), 3u);
  for (const auto& [id, p] : pos) g.layout()[id] = p;
  EXPECT_EQ(firstOverlap(visibleBoxes(g)), "");
  EXPECT_LT(ms, 200.0);  // < 20 ms in Release; generous for sanitizer builds
}

}  // namespace
}  // namespace lsrl
