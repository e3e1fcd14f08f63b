// dotLayout: Graphviz dot layouts of the visible graph, in scene coordinates, from any
// thread; hidden group members placed around their box.
#include "app/layout/dot_layout.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <functional>
#include <iostream>
#include <thread>

#include "app/layout/item_size.h"
#include "app/layout/visible_graph.h"
#include "core/graph/builder.h"
#include "core/graph/sugar.h"
#include "core/programs/tok2tok.h"
#include "layout/layout_test_util.h"

namespace lsrl {
namespace {

using testing_layout::applyLayout;
using testing_layout::firstOverlap;
using testing_layout::reluReading;
using testing_layout::visibleBoxes;

Graph sugarGraph() {
  Graph g;
  Var x = Input(g, 1, "x");
  Var c = f_larger(x, 5);
  Var y = f_ifelse(c, x, 1 - x);
  g.setOutput(ReLU(y).id());
  return g;
}

// Every visible item is placed, inside the first quadrant (origin top-left), without
// overlaps, and every visible edge runs left to right.
void expectGoodLayout(const Graph& g) {
  const VisibleGraph vg = visibleGraph(g);
  EXPECT_EQ(g.layout().size(), g.nodeCount());  // hidden members included
  size_t groupBoxes = 0;
  for (const VisibleItem& item : vg.items) groupBoxes += item.kind == VisibleItem::Kind::Group;
  EXPECT_EQ(g.groupLayout().size(), groupBoxes);
  const auto boxes = visibleBoxes(g);
  ASSERT_EQ(boxes.size(), vg.items.size());
  for (const auto& b : boxes) {
    EXPECT_GE(b.left, -0.5) << b.what;
    EXPECT_GE(b.top, -0.5) << b.what;
    EXPECT_TRUE(std::isfinite(b.right) && std::isfinite(b.bottom)) << b.what;
  }
  EXPECT_EQ(firstOverlap(boxes), "");
  for (const VisibleEdge& e : vg.edges) {
    if (e.from == e.to) continue;
    EXPECT_LT(boxes[static_cast<size_t>(e.from)].left, boxes[static_cast<size_t>(e.to)].left)
        << boxes[static_cast<size_t>(e.from)].what << " -> "
        << boxes[static_cast<size_t>(e.to)].what;
  }
}

TEST(DotLayout, CollapsedSugarGraph) {
  Graph g = sugarGraph();
  applyLayout(g, dotLayout(g));
  expectGoodLayout(g);
  // Hidden members sit around their group's box.
  const VisibleGraph vg = visibleGraph(g);
  for (const Node& n : g.nodes()) {
    const VisibleItem& item =
        vg.items[static_cast<size_t>(vg.itemOfNode[static_cast<size_t>(n.id)])];
    if (item.kind != VisibleItem::Kind::Group) continue;
    const NodePosition box = g.groupLayout().at(item.id);
    EXPECT_LT(std::abs(g.layout().at(n.id).y - box.y), 1000) << n.id;
  }
}

TEST(DotLayout, ExpandedGroupsAndEmptyGraph) {
  Graph g = sugarGraph();
  for (GroupId id = 0; id < static_cast<GroupId>(g.groups().size()); ++id)
    g.mutableGroup(id).expanded = true;
  applyLayout(g, dotLayout(g));
  expectGoodLayout(g);
  EXPECT_TRUE(g.groupLayout().empty());
  const LayoutResult none = dotLayout(Graph());
  EXPECT_TRUE(none.nodes.empty() && none.groups.empty());
}

TEST(DotLayout, UnconnectedAndCyclicGraphs) {
  Graph g;
  const NodeId x = g.addInput(1);
  const NodeId a = g.addReLU(x);
  const NodeId b = g.addReLU(a);
  g.mutableNode(a).inputs[0] = b;  // a cycle a <-> b
  g.addUnchecked(reluReading(3, kNoNode));
  const LayoutResult r = dotLayout(g);
  EXPECT_EQ(r.nodes.size(), 4u);
}

double millisecondsOf(const std::function<void()>& f) {
  const auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

TEST(DotLayout, Tok2tokTimedAndFromWorkerThreads) {
  const Graph g = buildTok2tok();
  Graph open = g;
  for (GroupId id = 0; id < static_cast<GroupId>(open.groups().size()); ++id)
    open.mutableGroup(id).expanded = true;
  LayoutResult collapsed;
  LayoutResult expanded;
  const double collapsedMs = millisecondsOf([&] { collapsed = dotLayout(g); });
  const double expandedMs = millisecondsOf([&] { expanded = dotLayout(open); });
  std::cout << "dotLayout tok2tok (" << g.nodeCount() << " nodes): collapsed " << collapsedMs
            << " ms (" << visibleGraph(g).items.size() << " items), every group expanded "
            << expandedMs << " ms (" << visibleGraph(open).items.size() << " items)\n";
  // Two layouts at once from two worker threads (Graphviz calls are serialised inside)
  // give the same result as on this thread.
  LayoutResult fromThreadA;
  LayoutResult fromThreadB;
  std::thread a([&] { fromThreadA = dotLayout(g); });
  std::thread b([&] { fromThreadB = dotLayout(open); });
  a.join();
  b.join();
  ASSERT_EQ(fromThreadA.nodes.size(), collapsed.nodes.size());
  for (const auto& [id, p] : collapsed.nodes) {
    EXPECT_EQ(fromThreadA.nodes.at(id).x, p.x) << id;
    EXPECT_EQ(fromThreadA.nodes.at(id).y, p.y) << id;
  }
  EXPECT_EQ(fromThreadB.nodes.size(), expanded.nodes.size());
  Graph c = g;
  applyLayout(c, collapsed);
  {
    SCOPED_TRACE("collapsed");
    expectGoodLayout(c);
  }
  applyLayout(open, expanded);
  {
    SCOPED_TRACE("expanded");
    expectGoodLayout(open);
  }
}

}  // namespace
}  // namespace lsrl
