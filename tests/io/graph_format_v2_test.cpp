// Graph format version 2 (docs/graph-format.md, "Versions"): group "expanded" flags,
// group box positions, unconnected inputs, the migration of version 1 files, and a
// graph hash that ignores editor state.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/graph/builder.h"
#include "core/graph/checks.h"
#include "core/graph/sugar.h"
#include "core/io/graph_file.h"
#include "core/io/graph_hash.h"
#include "io/io_test_util.h"

namespace lsrl {
namespace {

using nlohmann::json;
using testing_io::errorOf;
using testing_io::graphDifference;
using testing_io::graphLoadError;

std::string fixture(const std::string& name) {
  return std::string(LSRL_TEST_DATA_DIR) + "/graph/" + name;
}

std::string v2(const std::string& rest) {
  return R"({"format": "lsrl-graph", "version": 2, "nodes": [{"id": 0, "op": "Input", "dim": 1},
            {"id": 1, "op": "ReLU", "dim": 1, "inputs": [0], "group": 0}], "output": 1,
            "groups": [{"id": 0, "function": "f", "nodes": [1], "output": 1}])" +
         rest + "}";
}

TEST(GraphFormatV2, Version1FileLoadsAndMigrates) {
  const std::string path = fixture("version1_layout.json");
  const Graph g = loadGraphFile(path);
  ASSERT_EQ(g.nodeCount(), 3u);
  EXPECT_TRUE(checkGraph(g).empty());
  ASSERT_EQ(g.layout().size(), 2u);
  EXPECT_EQ(g.layout().at(0).y, 10.0);
  EXPECT_EQ(g.layout().at(2).x, 300.5);
  EXPECT_TRUE(g.groupLayout().empty());
  EXPECT_FALSE(g.groups()[0].expanded);
  // Saved again it is version 2 with the positions under "nodes", and reads back the same.
  const json doc = graphToJson(g);
  EXPECT_EQ(doc["version"], 2);
  EXPECT_EQ(doc["layout"], json::parse(R"({"nodes": {"0": [0.0, 10.0], "2": [300.5, -4.0]}})"));
  EXPECT_EQ(graphDifference(g, graphFromJson(doc)), "");
}

TEST(GraphFormatV2, GroupLayoutAndExpandedRoundTrip) {
  const Graph g = graphFromString(
      v2(R"(, "layout": {"nodes": {"1": [1, 2]}, "groups": {"0": [-5.25, 8]}})"), "t.json");
  EXPECT_EQ(g.layout().at(1).y, 2.0);
  EXPECT_EQ(g.groupLayout().at(0).x, -5.25);
  Graph h = g;
  h.mutableGroup(0).expanded = true;
  const Graph back = graphFromString(graphToString(h));
  EXPECT_TRUE(back.groups()[0].expanded);
  EXPECT_EQ(graphDifference(h, back), "");
  EXPECT_NE(graphDifference(g, back), "");  // the flag is compared
}

TEST(GraphFormatV2, NewerVersionIsRefusedNamingTheFile) {
  EXPECT_EQ(graphLoadError(R"({"format": "lsrl-graph", "version": 7, "nodes": []})"),
            "t.json: version: this file uses graph format version 7, newer than this build of "
            "LSRL Studio supports (up to 2); update LSRL Studio to open it");
}

TEST(GraphFormatV2, LayoutErrors) {
  EXPECT_EQ(graphLoadError(v2(R"(, "layout": {"0": [0, 0]})")),
            "t.json: layout: unknown key \"0\" in the layout (valid keys: nodes, groups)");
  EXPECT_EQ(graphLoadError(v2(R"(, "layout": [])")),
            "t.json: layout: expected an object {\"nodes\": {\"<node id>\": [x, y]}, \"groups\": "
            "{\"<group id>\": [x, y]}}, got an empty array");
  EXPECT_EQ(graphLoadError(v2(R"(, "layout": {"groups": {"1": [0, 0]}})")),
            "t.json: layout.groups: key \"1\" is not the id of a group (the graph has 1 groups)");
  EXPECT_EQ(graphLoadError(v2(R"(, "layout": {"nodes": {"2": [0, 0]}})")),
            "t.json: layout.nodes: key \"2\" is not the id of a node (the graph has 2 nodes)");
  EXPECT_EQ(graphLoadError(v2(R"(, "layout": {"groups": {"0": [0]}})")),
            "t.json: layout.groups.0: expected a position [x, y] of two numbers, got an array");
  EXPECT_EQ(graphLoadError(v2(R"(, "layout": {"nodes": 3})")),
            "t.json: layout.nodes: expected an object {\"<node id>\": [x, y]}, got the number 3");
  const std::string badFlag =
      R"({"format": "lsrl-graph", "version": 2, "nodes": [{"id": 0, "op": "Input", "dim": 1}],
          "groups": [{"id": 0, "function": "f", "expanded": 1}]})";
  EXPECT_EQ(graphLoadError(badFlag),
            "t.json: groups[0].expanded: expected true or false, got the number 1");
}

TEST(GraphFormatV2, UnconnectedInputsRoundTripAndAreReported) {
  Graph g;
  const NodeId x = g.addInput(2, "x");
  const NodeId r = g.addReLU(x);
  const NodeId c = g.addConcat({x, r});
  g.setOutput(c);
  g.mutableNode(r).inputs[0] = kNoNode;
  g.mutableNode(c).inputs[1] = kNoNode;
  const std::string text = graphToString(g);
  EXPECT_NE(text.find("\"inputs\": [0, -1]"), std::string::npos) << text;
  const Graph back = graphFromString(text);
  EXPECT_EQ(graphDifference(g, back), "");
  const auto problems = checkGraph(back);
  ASSERT_EQ(problems.size(), 2u);
  EXPECT_EQ(problems[0].kind, ProblemKind::DanglingInput);
  EXPECT_EQ(problems[0].node, r);
  EXPECT_EQ(problems[0].message, "Input 0 of ReLU node 1 is not connected; connect a node to it.");
  EXPECT_EQ(problems[1].message,
            "Input 1 of Concat node 2 is not connected; connect a node to it.");
  // Running refuses it with the same sentence.
  EXPECT_NE(errorOf([&] { requireValid(back); }).find("Input 0 of ReLU node 1 is not connected"),
            std::string::npos);
}

TEST(GraphFormatV2, HashIgnoresLayoutAndExpandedButNotContent) {
  Graph g;
  Var x = Input(g, 1, "x");
  g.setOutput(f_larger(x, 5).id());
  const std::string base = graphHash(g);
  Graph moved = g;
  moved.layout()[0] = {10, 20};
  moved.groupLayout()[0] = {1, 2};
  moved.mutableGroup(0).expanded = true;
  EXPECT_EQ(graphHash(moved), base);
  Graph renamed = g;
  renamed.setName(0, "y");
  EXPECT_NE(graphHash(renamed), base);
}

}  // namespace
}  // namespace lsrl
