// The editor's deletions that keep ids: Graph::erase leaves tombstones (Node::removed),
// restoreRecord puts records back, compacted() is what files hold; and a graph with
// tombstones checks, runs, compiles, lays out and saves exactly as its compacted twin.
#include <gtest/gtest.h>

#include "app/layout/dot_layout.h"
#include "app/layout/visible_graph.h"
#include "common/error_of.h"
#include "core/compiler/compiler.h"
#include "core/executor/executor.h"
#include "core/graph/checks.h"
#include "core/graph/derived_widths.h"
#include "core/graph/stats.h"
#include "core/graph/sugar.h"
#include "core/io/graph_file.h"
#include "core/programs/more_ones.h"
#include "graph/nested_groups_sample.h"

namespace lsrl {
namespace {

using testing_common::errorOf;

// The editing sample (x, a, b in f_inner, c in f_outer, d the output) plus an unused
// e = ReLU(x) (5); f_inner's call names its operand by id, as palette sugar does.
Graph sampleWithUnusedRelu() {
  Graph g = testing_graph::nestedGroupsSample();
  const NodeId e = g.addReLU(0, "e");
  g.layout()[e] = {500, 50};
  g.mutableGroup(1).params = {{"input", "node 1"}};
  g.mutableGroup(1).expanded = false;
  return g;
}

TEST(Tombstones, EraseKeepsEveryOtherIdAndCleansReferences) {
  Graph g = sampleWithUnusedRelu();
  g.erase({2});  // b: f_inner's only member
  EXPECT_EQ(g.nodeCount(), 6u);
  EXPECT_EQ(g.liveNodeCount(), 5u);
  EXPECT_FALSE(g.contains(2));
  EXPECT_TRUE(g.nodes()[2].removed);
  EXPECT_NE(errorOf([&] { g.node(2); }).find("node 2 was deleted"), std::string::npos);
  for (NodeId id : {0, 1, 3, 4, 5}) EXPECT_EQ(g.node(id).id, id);
  EXPECT_EQ(g.node(3).name, "c");
  EXPECT_EQ(g.node(3).inputs, (std::vector<NodeId>{1, 1}));  // the Concat lost b's slot
  EXPECT_EQ(g.groups()[0].nodes, (std::vector<NodeId>{1, 3}));
  EXPECT_TRUE(g.groups()[1].removed);  // f_inner lost its only member; its id stays
  EXPECT_FALSE(g.containsGroup(1));
  EXPECT_TRUE(g.containsGroup(0));
  EXPECT_EQ(g.groupLayout().count(1), 0u);
  EXPECT_EQ(g.layout().count(2), 0u);
  // Sugar parameters are the call's record: they are not rewritten by a deletion.
  EXPECT_EQ(g.groups()[1].params,
            (std::vector<std::pair<std::string, std::string>>{{"input", "node 1"}}));
  EXPECT_EQ(g.output(), 4);
}

TEST(Tombstones, ReadersKeepAnOpenSlotAndAnErasedOutputIsCleared) {
  Graph g = sampleWithUnusedRelu();
  g.erase({4, 1});
  EXPECT_EQ(g.output(), kNoNode);
  EXPECT_EQ(g.node(2).inputs, std::vector<NodeId>{kNoNode});
  EXPECT_EQ(g.node(3).inputs, std::vector<NodeId>{2});  // Concat(a, b, a) -> Concat(b)
  // Only a live id may be erased; a bad one changes nothing.
  const std::string before = graphToString(g);
  EXPECT_NE(errorOf([&] { g.erase({0, 4}); }).find("node 4 was deleted"), std::string::npos);
  EXPECT_NE(errorOf([&] { g.erase({9}); }).find("no node with id 9"), std::string::npos);
  EXPECT_EQ(graphToString(g), before);
  EXPECT_TRUE(g.contains(0));
}

TEST(Tombstones, RestoreRecordUndoesAnErase) {
  Graph g = sampleWithUnusedRelu();
  const std::string original = graphToString(g);
  const Graph before = g;
  g.erase({2});
  for (NodeId id : {2, 3}) g.restoreRecord(before.nodes()[static_cast<size_t>(id)]);
  for (GroupId id : {0, 1}) g.restoreRecord(before.groups()[static_cast<size_t>(id)]);
  g.layout() = before.layout();
  g.groupLayout() = before.groupLayout();
  EXPECT_EQ(graphToString(g), original);
  Node stranger;
  stranger.id = 7;
  EXPECT_NE(errorOf([&] { g.restoreRecord(stranger); }).find("cannot restore node 7"),
            std::string::npos);
}

TEST(Tombstones, CompactedRenumbersAndIsWhatFilesHold) {
  Graph g = sampleWithUnusedRelu();
  g.erase({2});
  std::vector<NodeId> map;
  const Graph c = g.compacted(&map);
  EXPECT_EQ(map, (std::vector<NodeId>{0, 1, kNoNode, 2, 3, 4}));
  ASSERT_EQ(c.nodeCount(), 5u);
  EXPECT_EQ(c.liveNodeCount(), 5u);
  EXPECT_EQ(c.node(2).name, "c");
  EXPECT_EQ(c.node(2).inputs, (std::vector<NodeId>{1, 1}));
  ASSERT_EQ(c.groups().size(), 1u);  // the removed f_inner is gone from the file
  EXPECT_EQ(c.output(), 3);
  // Saving writes the compacted graph; it reads back as the same.
  const Graph read = graphFromString(graphToString(g), "saved");
  EXPECT_EQ(graphToString(read), graphToString(c));
}

TEST(Tombstones, ChecksStatsAndVisibleGraphIgnoreThem) {
  Graph g = sampleWithUnusedRelu();
  g.erase({5});  // the unused node
  EXPECT_TRUE(checkGraph(g).empty());
  EXPECT_EQ(computeStats(g).unusedNodes, 0);
  const VisibleGraph v = visibleGraph(g);
  EXPECT_EQ(v.itemOfNode[5], -1);
  for (const VisibleItem& item : v.items)
    EXPECT_FALSE(item.kind == VisibleItem::Kind::Node && item.id == 5);
  // Erasing the Input leaves a program without one: reported, not a crash.
  g.erase({0});
  bool noInput = false;
  for (const Problem& p : checkGraph(g)) noInput = noInput || p.kind == ProblemKind::NoInput;
  EXPECT_TRUE(noInput);
}

TEST(Tombstones, AProgramWithTombstonesRunsAndCompilesAsItsCompactedTwin) {
  Graph g = buildMoreOnes();
  // An unused node, added and erased, leaves a tombstone in the middle of the ids.
  const NodeId spare = g.addReLU(g.input(), "spare");
  g.erase({spare});
  ASSERT_EQ(g.liveNodeCount() + 1, g.nodeCount());
  const Graph twin = g.compacted();
  const FloatSequence tokens{{1}, {0}, {1}, {1}, {0}};
  FloatExecutor withTombstone(g), compact(twin);
  EXPECT_EQ(withTombstone.run(tokens), compact.run(tokens));
  const CompileResult a = compile(g);
  const CompileResult b = compile(twin);
  EXPECT_EQ(graphToString(a.path), graphToString(b.path));
}

TEST(Tombstones, DotLaysOutAGraphWithThem) {
  Graph g = sampleWithUnusedRelu();
  g.erase({2, 5});
  const LayoutResult r = dotLayout(g);  // crashed on a tombstone's item index -1
  EXPECT_EQ(r.nodes.count(2), 0u);
  EXPECT_EQ(r.nodes.count(5), 0u);
  EXPECT_EQ(r.nodes.size(), 4u);
}

TEST(Tombstones, WidthsFlowPastThem) {
  Graph g = sampleWithUnusedRelu();
  g.erase({2});
  std::vector<NodeId> changed;
  rederiveWidths(g, {3}, [&](NodeId id) { changed.push_back(id); });
  EXPECT_EQ(g.node(3).dim, 2);  // Concat(a, a)
  EXPECT_EQ(g.node(4).dim, 2);
  EXPECT_EQ(changed, (std::vector<NodeId>{3, 4}));
}

}  // namespace
}  // namespace lsrl
