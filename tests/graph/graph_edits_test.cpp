// Graph's structural edits for the editor (truncate, removeNodes, append) and
// extractFragment: ids stay consecutive and every reference follows them.
#include <gtest/gtest.h>

#include "common/error_of.h"
#include "core/graph/checks.h"
#include "core/graph/fragment.h"
#include "core/graph/graph.h"
#include "core/graph/sugar.h"
#include "core/io/graph_file.h"
#include "graph/nested_groups_sample.h"

namespace lsrl {
namespace {

using testing_common::errorOf;
using testing_graph::nestedGroupsSample;

// The whole graph as the file format writes it (nodes, groups, layouts, flags).
std::string text(const Graph& g) { return graphToString(g); }

TEST(GraphEdits, SampleIsValid) {
  const Graph g = nestedGroupsSample();
  EXPECT_TRUE(checkGraph(g).empty());
  EXPECT_EQ(g.groups()[0].nodes, (std::vector<NodeId>{1, 2, 3}));
  EXPECT_EQ(g.groups()[1].parent, 0);
}

TEST(GraphEdits, RemoveInnerNodeDropsItsGroupAndConcatSlot) {
  Graph g = nestedGroupsSample();
  const auto map = g.removeNodes({2});
  EXPECT_EQ(map, (std::vector<NodeId>{0, 1, kNoNode, 2, 3}));
  ASSERT_EQ(g.nodeCount(), 4u);
  for (NodeId id = 0; id < 4; ++id) EXPECT_EQ(g.node(id).id, id);
  EXPECT_EQ(g.node(2).name, "c");
  EXPECT_EQ(g.node(2).inputs, (std::vector<NodeId>{1, 1}));  // the b slot is gone
  EXPECT_EQ(g.node(3).inputs, (std::vector<NodeId>{2}));
  EXPECT_EQ(g.output(), 3);
  ASSERT_EQ(g.groups().size(), 1u);  // f_inner lost its only node
  EXPECT_EQ(g.groups()[0].function, "f_outer");
  EXPECT_EQ(g.groups()[0].nodes, (std::vector<NodeId>{1, 2}));
  EXPECT_EQ(g.groups()[0].output, 2);
  EXPECT_EQ(g.node(2).group, 0);
  EXPECT_EQ(g.layout().size(), 4u);
  EXPECT_EQ(g.layout().at(2).x, 300.0);  // c kept its position under its new id
  EXPECT_EQ(g.groupLayout().size(), 1u);
  EXPECT_EQ(g.groupLayout().at(0).x, 1.0);
}

TEST(GraphEdits, RemovedInputLeavesAnUnconnectedSlot) {
  Graph g = nestedGroupsSample();
  g.removeNodes({1});  // a: read by b (ReLU) and twice by c (Concat)
  EXPECT_EQ(g.node(1).name, "b");
  EXPECT_EQ(g.node(1).inputs, (std::vector<NodeId>{kNoNode}));
  EXPECT_EQ(g.node(2).inputs, (std::vector<NodeId>{1}));
  EXPECT_EQ(g.groups()[0].nodes, (std::vector<NodeId>{1, 2}));
  EXPECT_EQ(g.groups()[1].nodes, (std::vector<NodeId>{1}));
  EXPECT_EQ(g.groups()[1].parent, 0);
  const auto problems = checkGraph(g);
  ASSERT_FALSE(problems.empty());
  EXPECT_EQ(problems[0].kind, ProblemKind::DanglingInput);
  EXPECT_EQ(problems[0].message,
            "Input 0 of ReLU node 1 \"b\" is not connected; connect a node to it.");
}

TEST(GraphEdits, RemovingOutputsClearsThem) {
  Graph g = nestedGroupsSample();
  g.removeNodes({3, 4});
  EXPECT_EQ(g.output(), kNoNode);
  EXPECT_EQ(g.groups()[0].output, kNoNode);
  EXPECT_EQ(g.groups()[0].nodes, (std::vector<NodeId>{1, 2}));
  g.removeNodes({});  // nothing to do
  EXPECT_EQ(g.nodeCount(), 3u);
  EXPECT_NE(errorOf([&] { g.removeNodes({9}); }).find("no node with id 9"), std::string::npos);
}

TEST(GraphEdits, RemovedParentGroupPassesChildrenToItsParent) {
  Graph g;
  g.addInput(1);
  for (int i = 0; i < 3; ++i) g.addReLU(i);  // nodes 1, 2, 3
  for (int i = 0; i < 3; ++i) {
    Group gr;
    gr.function = std::string("f").append(std::to_string(i));
    gr.parent = i - 1;
    gr.nodes = {i + 1};
    gr.output = i + 1;
    g.addGroupUnchecked(gr);
    g.mutableNode(i + 1).group = i;
  }
  g.groupLayout()[2] = {5, 5};
  g.removeNodes({2});  // group f1 (id 1) is left empty
  ASSERT_EQ(g.groups().size(), 2u);
  EXPECT_EQ(g.groups()[1].function, "f2");
  EXPECT_EQ(g.groups()[1].id, 1);
  EXPECT_EQ(g.groups()[1].parent, 0);
  EXPECT_EQ(g.groups()[1].nodes, (std::vector<NodeId>{2}));
  EXPECT_EQ(g.node(2).group, 1);
  EXPECT_EQ(g.groupLayout().count(1), 1u);
  EXPECT_EQ(g.groupLayout().count(2), 0u);
}

TEST(GraphEdits, ExtractFragmentRenumbersAndCutsOutsideInputs) {
  const Graph g = nestedGroupsSample();
  const Graph f = extractFragment(g, {3, 1, 2, 1});
  ASSERT_EQ(f.nodeCount(), 3u);
  EXPECT_EQ(f.node(0).name, "a");
  EXPECT_EQ(f.node(0).inputs, (std::vector<NodeId>{kNoNode}));  // x is outside
  EXPECT_EQ(f.node(1).inputs, (std::vector<NodeId>{0}));
  EXPECT_EQ(f.node(2).inputs, (std::vector<NodeId>{0, 1, 0}));
  EXPECT_EQ(f.output(), kNoNode);  // d is outside
  ASSERT_EQ(f.groups().size(), 2u);
  EXPECT_EQ(f.groups()[0].nodes, (std::vector<NodeId>{0, 1, 2}));
  EXPECT_EQ(f.groups()[0].output, 2);
  EXPECT_EQ(f.groups()[1].parent, 0);
  EXPECT_TRUE(f.groups()[1].expanded);
  EXPECT_EQ(f.layout().at(2).x, 300.0);
  EXPECT_EQ(f.groupLayout().size(), 2u);

  // Without c, f_outer is incomplete: only f_inner is kept, as a top-level group; a
  // Concat slot reading from outside becomes unconnected too.
  const Graph part = extractFragment(g, {2, 3, 4});
  ASSERT_EQ(part.groups().size(), 1u);
  EXPECT_EQ(part.groups()[0].function, "f_inner");
  EXPECT_EQ(part.groups()[0].parent, kNoGroup);
  EXPECT_EQ(part.node(0).group, 0);
  EXPECT_EQ(part.node(1).group, kNoGroup);
  EXPECT_EQ(part.node(1).inputs, (std::vector<NodeId>{kNoNode, 0, kNoNode}));
  EXPECT_EQ(part.output(), 2);
  EXPECT_EQ(part.groupLayout().size(), 1u);
  EXPECT_EQ(part.groupLayout().at(0).x, 2.0);
}

TEST(GraphEdits, AppendCopiesWithNewIdsAndTruncateUndoesIt) {
  Graph g = nestedGroupsSample();
  const std::string before = text(g);
  const Graph f = extractFragment(g, {1, 2, 3});
  const auto ids = g.append(f);
  EXPECT_EQ(ids, (std::vector<NodeId>{5, 6, 7}));
  ASSERT_EQ(g.nodeCount(), 8u);
  EXPECT_EQ(g.node(5).inputs, (std::vector<NodeId>{kNoNode}));
  EXPECT_EQ(g.node(6).inputs, (std::vector<NodeId>{5}));
  EXPECT_EQ(g.node(7).inputs, (std::vector<NodeId>{5, 6, 5}));
  ASSERT_EQ(g.groups().size(), 4u);
  EXPECT_EQ(g.groups()[2].nodes, (std::vector<NodeId>{5, 6, 7}));
  EXPECT_EQ(g.groups()[2].output, 7);
  EXPECT_EQ(g.groups()[3].parent, 2);
  EXPECT_EQ(g.node(6).group, 3);
  EXPECT_EQ(g.layout().at(7).x, 300.0);
  EXPECT_EQ(g.groupLayout().at(3).x, 2.0);
  EXPECT_EQ(g.output(), 4);  // the fragment's output is not used

  g.truncate(5, 2);
  EXPECT_EQ(text(g), before);
}

TEST(GraphEdits, AppendWithBindingsReusesNodes) {
  Graph g = nestedGroupsSample();
  const Graph f = extractFragment(g, {1, 2, 3});
  const auto ids = g.append(f, {{0, 1}});  // the fragment's "a" is our "a"
  EXPECT_EQ(ids, (std::vector<NodeId>{1, 5, 6}));
  EXPECT_EQ(g.node(5).inputs, (std::vector<NodeId>{1}));
  EXPECT_EQ(g.node(6).inputs, (std::vector<NodeId>{1, 5, 1}));
  EXPECT_EQ(g.groups()[2].nodes, (std::vector<NodeId>{5, 6}));
  EXPECT_EQ(g.layout().at(1).x, 100.0);  // the bound node keeps its own position
  for (const Problem& p : checkGraph(g)) ADD_FAILURE() << p.message;
  EXPECT_NE(errorOf([&] { g.append(f, {{0, 99}}); }).find("no node with id 99"), std::string::npos);
}

TEST(GraphEdits, TruncateCutsReferencesToDroppedNodes) {
  Graph g = nestedGroupsSample();
  g.truncate(3, 1);
  EXPECT_EQ(g.nodeCount(), 3u);
  EXPECT_EQ(g.output(), kNoNode);
  ASSERT_EQ(g.groups().size(), 1u);
  EXPECT_EQ(g.groups()[0].nodes, (std::vector<NodeId>{1, 2}));
  EXPECT_EQ(g.groups()[0].output, kNoNode);
  EXPECT_EQ(g.node(2).group, kNoGroup);  // f_inner was dropped
  EXPECT_EQ(g.layout().size(), 3u);
  EXPECT_EQ(g.groupLayout().size(), 1u);
  g.truncate(10, 10);  // larger than the graph: nothing changes
  EXPECT_EQ(g.nodeCount(), 3u);
}

TEST(GraphEdits, BuildingContinuesAfterEdits) {
  Graph g = nestedGroupsSample();
  g.removeNodes({4});
  const NodeId e = g.addReLU(3);
  EXPECT_EQ(e, 4);
  g.setOutput(e);
  EXPECT_TRUE(checkGraph(g).empty());
}

TEST(GraphEdits, SugarParametersFollowTheRenumbering) {
  Graph g;
  const Var in = Input(g, 2, "in");
  const Var unused = in[0];  // node 1, removed below
  const Var x = in[1];       // node 2 -> 1
  const Var y = in[0] * 2;   // node 4 (after a Slice, 3) -> 3
  const Var out = f_larger(x, y);
  g.setOutput(out.id());
  ASSERT_EQ(unused.id(), 1);
  g.removeNodes({unused.id()});
  // The f_larger group's parameter `key` (groups are replaced by every edit: look again).
  auto param = [&](const std::string& key) {
    for (const Group& gr : g.groups()) {
      if (gr.function != "f_larger") continue;
      for (const auto& [k, v] : gr.params)
        if (k == key) return v;
    }
    return std::string("<missing>");
  };
  EXPECT_EQ(param("x"), "node 1");
  EXPECT_EQ(param("y"), "node 3");
  EXPECT_EQ(param("scale"), "1000");  // not a node reference
  // A removed operand is said to be gone, never another node's id.
  g.removeNodes({1});
  EXPECT_EQ(param("x"), "removed node");
  EXPECT_EQ(param("y"), "node 2");
  // An appended copy names the copies, or the node it is bound to.
  Graph h;
  const Var hin = Input(h, 1);
  const Var hout = f_not(hin);
  h.setOutput(hout.id());
  Graph target;
  const Var third = Input(target, 3)[2];  // node 1
  target.append(h, {{hin.id(), third.id()}});
  EXPECT_EQ(target.groups().back().params.front().second, "node 1");
}

}  // namespace
}  // namespace lsrl
