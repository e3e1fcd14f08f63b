// Graphs too big for dot and for drawing in full: the layered layout places
// any size in linear time, full_layout keeps dot to graphs it lays out in seconds and
// survives dot failing, limitForDrawing cuts what the explorer draws to what it can
// paint. The big shapes are the explorer's crash reproducers (docs/graph-format.md).
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <set>

#include "app/layout/dot_layout.h"
#include "app/layout/full_layout.h"
#include "app/layout/item_size.h"
#include "app/layout/layered_layout.h"
#include "app/layout/visible_graph.h"
#include "core/graph/graph.h"
#include "core/util/error.h"
#include "layout/layout_test_util.h"

namespace lsrl {
namespace {

using testing_layout::applyLayout;
using testing_layout::firstOverlap;
using testing_layout::reluReading;
using testing_layout::visibleBoxes;

// Input -> `n` ReLUs in a chain.
Graph chain(int n) {
  Graph g;
  NodeId last = g.addInput(1, "x");
  for (int i = 0; i < n; ++i) last = g.addReLU(last);
  g.setOutput(last);
  return g;
}

// Input, then `n` ReLUs in a ring (node 1 reads node n): a broken graph, as a file can hold.
Graph cycle(int n) {
  Graph g;
  g.addInput(1, "x");
  for (int i = 1; i <= n; ++i) g.addUnchecked(reluReading(i, i == 1 ? n : i - 1));
  g.setOutput(n);
  return g;
}

// One Concat reading the Input `n` times.
Graph wideConcat(int n) {
  Graph g;
  const NodeId x = g.addInput(1, "x");
  g.setOutput(g.addConcat(std::vector<NodeId>(static_cast<size_t>(n), x)));
  return g;
}

// A small DAG with crossings and a crowded layer: x feeds 300 ReLUs, pairs of them are
// concatenated, and the pairs are read in reverse order.
Graph fan() {
  Graph g;
  const NodeId x = g.addInput(1, "x");
  std::vector<NodeId> first;
  for (int i = 0; i < 300; ++i) first.push_back(g.addReLU(x));
  std::vector<NodeId> pairs;
  for (size_t i = 0; i + 1 < first.size(); i += 2)
    pairs.push_back(g.addConcat({first[i], first[i + 1]}));
  std::vector<NodeId> last;
  for (auto it = pairs.rbegin(); it != pairs.rend(); ++it) last.push_back(g.addReLU(*it));
  g.setOutput(g.addConcat(last));
  return g;
}

template <class F>
double secondsOf(F&& f) {
  const auto start = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

TEST(LayeredLayout, PlacesEveryBoxApartWithEdgesPointingRight) {
  Graph g = fan();
  applyLayout(g, layeredLayout(g));
  EXPECT_EQ(g.layout().size(), g.nodeCount());
  EXPECT_EQ(firstOverlap(visibleBoxes(g)), "");
  for (const Node& n : g.nodes())
    for (NodeId in : n.inputs)
      EXPECT_GT(g.layout().at(n.id).x, g.layout().at(in).x) << in << " -> " << n.id;
}

TEST(LayeredLayout, CutsACrowdedLayerIntoColumnsOfTwoRootNBoxes) {
  Graph g;
  const NodeId x = g.addInput(1, "x");
  for (int i = 0; i < 10000; ++i) g.addReLU(x);
  applyLayout(g, layeredLayout(g));
  std::map<double, int> perColumn;
  for (const auto& [id, p] : g.layout()) ++perColumn[p.x];
  const auto cap = static_cast<int>(2 * std::sqrt(10001.0));
  EXPECT_EQ(perColumn.size(), 1u + (10000 + cap - 1) / cap);
  for (const auto& [x, count] : perColumn) EXPECT_LE(count, cap) << "column at x = " << x;
}

TEST(LayeredLayout, PlacesTheCrashReproducersInSeconds) {
  // dot crashed on the cycle (dot_mincross) and took minutes on the chain.
  for (const auto& [name, graph] :
       std::vector<std::pair<std::string, Graph>>{{"10^5-node cycle", cycle(100000)},
                                                  {"2*10^5-node chain", chain(200000)},
                                                  {"Concat of 10^5 inputs", wideConcat(100000)}}) {
    SCOPED_TRACE(name);
    const Graph& g = graph;  // clang 14 cannot capture a structured binding
    LayoutResult r;
    const double s = secondsOf([&] { r = layeredLayout(g); });
    std::printf("[ measure ] layeredLayout %s: %.2f s\n", name.c_str(), s);
    EXPECT_EQ(r.nodes.size(), g.nodeCount());
    std::set<std::pair<double, double>> distinct;
    for (const auto& [id, p] : r.nodes) distinct.insert({p.x, p.y});
    EXPECT_EQ(distinct.size(), g.nodeCount()) << "two boxes at one place";
  }
}

TEST(FullLayout, DotWithinItsLimitsLayersAbove) {
  const Graph small = fan();
  const FullLayout byDot = fullLayout(small);
  EXPECT_TRUE(byDot.byDot) << byDot.note;
  EXPECT_EQ(byDot.note, "");
  // The same layout as dot in this process: the forked copy only moves the work.
  const LayoutResult inProcess = dotLayout(small);
  ASSERT_EQ(byDot.layout.nodes.size(), inProcess.nodes.size());
  for (const auto& [id, p] : inProcess.nodes) {
    EXPECT_EQ(byDot.layout.nodes.at(id).x, p.x) << id;
    EXPECT_EQ(byDot.layout.nodes.at(id).y, p.y) << id;
  }

  const Graph big = cycle(100000);
  const FullLayout layered = fullLayout(big);
  EXPECT_FALSE(layered.byDot);
  EXPECT_EQ(layered.note,
            "100,001 boxes and 100,000 edges: laid out in layers (dot is used up to 1,500 boxes "
            "and 6,000 edges)");
  EXPECT_EQ(layered.layout.nodes.size(), big.nodeCount());
}

TEST(FullLayout, DotPastItsDeadlineIsStoppedAndLayersTakeOver) {
  LayoutLimits limits;
  limits.dotTimeoutMs = 1;  // no layout finishes in 1 ms (forking alone takes longer)
  const Graph g = fan();
  const FullLayout r = fullLayout(g, nullptr, limits);
  EXPECT_FALSE(r.byDot);
  EXPECT_NE(r.note.find("dot took longer than"), std::string::npos) << r.note;
  EXPECT_NE(r.note.find("laid out in layers instead"), std::string::npos) << r.note;
  EXPECT_EQ(r.layout.nodes.size(), g.nodeCount());
}

TEST(FullLayout, CancellingStopsDot) {
  std::atomic<bool> cancel{true};
  EXPECT_THROW(fullLayout(fan(), &cancel), Cancelled);
}

TEST(LimitForDrawing, LeavesADrawableGraphAlone) {
  VisibleGraph vg = visibleGraph(fan());
  const VisibleGraph before = vg;
  limitForDrawing(vg);
  EXPECT_EQ(vg.items.size(), before.items.size());
  EXPECT_EQ(vg.edges.size(), before.edges.size());
  EXPECT_EQ(vg.omittedItems, 0u);
  EXPECT_EQ(vg.omittedEdges, 0u);
}

TEST(LimitForDrawing, KeepsATopologicalPrefixAndConsistentIndices) {
  // The reproducer shape: a small program plus 10^6 unused nodes.
  const Graph g = chain(1000000);
  VisibleGraph vg = visibleGraph(g);
  limitForDrawing(vg);
  const DrawLimits limits;
  ASSERT_EQ(vg.items.size(), limits.maxItems);
  EXPECT_EQ(vg.omittedItems, g.nodeCount() - limits.maxItems);
  EXPECT_EQ(vg.edges.size(), limits.maxItems - 1);
  EXPECT_EQ(vg.omittedEdges, 1000000 - (limits.maxItems - 1));
  // The chain's start (the input first) is what is drawn.
  for (size_t i = 0; i < vg.items.size(); ++i) EXPECT_EQ(vg.items[i].id, static_cast<int>(i));
  for (size_t id = 0; id < vg.itemOfNode.size(); ++id) {
    const int item = vg.itemOfNode[id];
    if (id < limits.maxItems) {
      ASSERT_EQ(item, static_cast<int>(id));
    } else {
      ASSERT_EQ(item, -1) << id;
    }
  }
  for (const VisibleEdge& e : vg.edges) {
    ASSERT_LT(static_cast<size_t>(e.from), vg.items.size());
    ASSERT_LT(static_cast<size_t>(e.to), vg.items.size());
    EXPECT_EQ(vg.items[static_cast<size_t>(e.to)].id, e.toNode);
  }
}

TEST(LimitForDrawing, CapsTheEdgesIntoOneBoxAndKeepsCyclesLast) {
  VisibleGraph wide = visibleGraph(wideConcat(100000));
  limitForDrawing(wide);
  EXPECT_EQ(wide.items.size(), 2u);
  EXPECT_EQ(wide.edges.size(), DrawLimits{}.maxEdgesIntoItem);
  EXPECT_EQ(wide.omittedEdges, 100000 - DrawLimits{}.maxEdgesIntoItem);

  // In a ring nothing is a source: the input comes first, the ring in item order after.
  VisibleGraph ring = visibleGraph(cycle(100000));
  limitForDrawing(ring);
  ASSERT_EQ(ring.items.size(), DrawLimits{}.maxItems);
  EXPECT_EQ(ring.items.front().id, 0);
  EXPECT_EQ(ring.omittedItems, 100001 - DrawLimits{}.maxItems);
}

}  // namespace
}  // namespace lsrl
