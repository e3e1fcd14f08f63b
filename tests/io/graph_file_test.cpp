// Graph files (docs/graph-format.md): exact round trips, the saved text, every class
// of malformed input with its message, semantic problems reported by checkGraph after
// loading, and atomic saving.
#include "core/io/graph_file.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <chrono>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

#include "core/graph/builder.h"
#include "core/graph/checks.h"
#include "core/graph/sugar.h"
#include "core/numbers/exact_field.h"
#include "core/programs/tok2tok.h"
#include "core/util/atomic_file.h"
#include "io/io_test_util.h"

namespace lsrl {
namespace {

using nlohmann::json;
using testing_io::errorOf;
using testing_io::graphDifference;
using testing_io::graphLoadError;
using testing_io::TempDir;

Exact q(long long p, long long d) { return Exact::rational(p, d); }

// Every op, irrational and large values, names, flags, nested groups and a layout.
Graph handBuilt() {
  Graph g;
  Var x = Input(g, 2, "x");
  const Exact big = Exact(mpz_class(mpz_class(1) << 60));
  ExactMatrix A = ExactMatrix::fromDense(
      {{Exact::sqrt(3) / Exact(2), q(-1, 2)}, {q(1, 3), Exact(0)}, {big, Exact(-7)}}, 2);
  Var lin = Linear(x, A, {Exact(0), q(1, 2), Exact::sqrt(2)}, "lin");
  Var r = ReLU(lin);
  GroupScope outer(g, "f_outer", {{"mu", "1000"}, {"alpha", "1/3"}});
  GroupScope inner(g, "f_inner", {{"lambda", "10000000000"}});
  ExactMatrix rot = ExactMatrix::fromDense(
      {{Exact::cosPi(1, 6), -Exact::sinPi(1, 6)}, {Exact::sinPi(1, 6), Exact::cosPi(1, 6)}}, 2);
  ExactMatrix B =
      ExactMatrix::fromDense({{Exact(1), Exact(0), q(2, 5)}, {Exact(0), Exact(0), Exact(0)}}, 3);
  Var s = LinState(r, rot, B, {Exact(1), Exact(0)}, {Exact(0), q(1, 7)}, "state");
  inner.finish(s.id());
  Var c = Concat({s, x});
  Var m = Multi(c);
  outer.finish(m.id());
  Var sl = x[1];
  sl.named("second").setAlwaysPositive();
  Var out = Concat({m, sl, sl});
  g.setOutput(out.id());
  g.layout()[0] = {0.5, -1.25};
  g.layout()[3] = {1e-300, 12345.678901234567};
  g.layout()[static_cast<NodeId>(g.nodeCount() - 1)] = {-0.0, 1e300};
  g.mutableGroup(1).expanded = true;
  g.groupLayout()[0] = {-3.5, 7};
  return g;
}

TEST(GraphFile, HandBuiltRoundTripIsIdentical) {
  const Graph g = handBuilt();
  ASSERT_TRUE(checkGraph(g).empty());
  const std::string text = graphToString(g);
  const Graph back = graphFromString(text, "t.json");
  EXPECT_EQ(graphDifference(g, back), "");
  EXPECT_EQ(graphToString(back), text);  // saving again gives the same bytes
  // The in-memory JSON path agrees with the text path.
  EXPECT_EQ(graphDifference(g, graphFromJson(graphToJson(g))), "");
}

TEST(GraphFile, SugarGraphRoundTrip) {
  Graph g;
  Var x = Input(g, 1, "x");
  Var counter = f_modulo_counter(x, 12);
  Var c = f_larger(counter, 5);
  Var y = f_ifelse(c, x, 1 - x);
  Var z = f_ifelse_mul(c, y, x);
  g.setOutput(f_bump(z, q(1, 3), q(2, 3)).id());
  ASSERT_TRUE(checkGraph(g).empty());
  EXPECT_EQ(g.conductor() % 24, 0);
  const Graph back = graphFromString(graphToString(g));
  EXPECT_EQ(graphDifference(g, back), "");
  EXPECT_EQ(back.conductor(), g.conductor());
}

TEST(GraphFile, Tok2tokRoundTripIsFast) {
  const Graph g = buildTok2tok();
  const std::string text = graphToString(g);
  const auto t0 = std::chrono::steady_clock::now();
  const Graph back = graphFromString(text, "tok2tok.json");
  const auto t1 = std::chrono::steady_clock::now();
  const double ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
  EXPECT_EQ(graphDifference(g, back), "");
  EXPECT_TRUE(checkGraph(back).empty());
  std::cout << "tok2tok: " << g.nodeCount() << " nodes, " << text.size() << " bytes, loaded in "
            << ms << " ms\n";
  EXPECT_LT(ms, 1000.0);  // a few ms in Release; generous for sanitizer builds
}

TEST(GraphFile, SavedTextFormat) {
  const Graph g = handBuilt();
  const json doc = graphToJson(g);
  EXPECT_EQ(doc["format"], "lsrl-graph");
  EXPECT_EQ(doc["version"], 2);
  EXPECT_EQ(doc["conductor"], g.conductor());
  const json& lin = doc["nodes"][1];
  EXPECT_EQ(lin["op"], "Linear");
  EXPECT_EQ(lin["A"]["shape"], json::array({3, 2}));
  // Row-major non-zeros; integers stay JSON integers; the rest are scalar strings.
  EXPECT_EQ(lin["A"]["entries"][1], json::array({0, 1, "-1/2"}));
  EXPECT_EQ(lin["A"]["entries"][2], json::array({1, 0, "1/3"}));
  EXPECT_EQ(lin["A"]["entries"][3], json::array({2, 0, "1152921504606846976"}));  // >= 2^53
  EXPECT_EQ(lin["A"]["entries"][4], json::array({2, 1, -7}));
  EXPECT_EQ(lin["A"]["entries"].size(), 5u);  // the zero is not stored
  EXPECT_TRUE(lin["A"]["entries"][0][2].is_string());
  EXPECT_EQ(Exact::parse(lin["A"]["entries"][0][2].get<std::string>()), Exact::sqrt(3) / Exact(2));
  EXPECT_EQ(lin["b"][0], 0);
  EXPECT_EQ(lin["name"], "lin");
  // ReLU: no matrices, no defaults written.
  EXPECT_EQ(doc["nodes"][2],
            json::parse(R"({"id":2,"op":"ReLU","dim":3,"inputs":[1],"always_positive":true})"));
  // All-zero vectors are omitted; a plain Slice is saved without its matrix.
  const json& state = doc["nodes"][3];
  EXPECT_FALSE(state.contains("bias") && state["bias"] == json::array({0, 0}));
  EXPECT_EQ(state["group"], 1);
  const json& slice = doc["nodes"][6];
  EXPECT_EQ(slice, json::parse(R"({"id":6,"op":"Slice","dim":1,"inputs":[0],"name":"second",
                                   "always_positive":true,"slice":[1,2]})"));
  EXPECT_EQ(doc["groups"][0]["params"], json::parse(R"([["mu","1000"],["alpha","1/3"]])"));
  EXPECT_EQ(doc["groups"][1]["parent"], 0);
  EXPECT_FALSE(doc["groups"][0].contains("parent"));
  EXPECT_EQ(doc["layout"]["nodes"]["0"], json::array({0.5, -1.25}));
  EXPECT_EQ(doc["layout"]["groups"]["0"], json::array({-3.5, 7}));
  EXPECT_FALSE(doc["groups"][0].contains("expanded"));  // collapsed is the default
  EXPECT_EQ(doc["groups"][1]["expanded"], true);
  // One node per line, keys in a fixed order.
  const std::string text = graphToString(g);
  EXPECT_CONTAINS(text,
                  "\n    {\"id\": 2, \"op\": \"ReLU\", \"dim\": 3, \"inputs\": [1], "
                  "\"always_positive\": true},\n");
  EXPECT_CONTAINS(text,
                  "\n    {\"id\": 1, \"function\": \"f_inner\", \"params\": [[\"lambda\", "
                  "\"10000000000\"]], \"parent\": 0, \"nodes\": [3], \"output\": 3, "
                  "\"expanded\": true}\n");
  EXPECT_CONTAINS(text, "\n  \"layout\": {\n    \"nodes\": {\n      \"0\": [0.5, -1.25],\n");
  EXPECT_CONTAINS(text, "\n    \"groups\": {\n      \"0\": [-3.5, 7.0]\n    }\n  }\n}\n");
  EXPECT_EQ(text.find("{\n  \"format\": \"lsrl-graph\",\n  \"version\": 2,\n  \"conductor\": 24,\n"
                      "  \"output\": 7,\n  \"nodes\": [\n    {\"id\": 0, \"op\": \"Input\", "
                      "\"name\": \"x\", \"dim\": 2},\n"),
            0u);
}

TEST(GraphFile, SliceWithForeignMatrixKeepsItsMatrix) {
  Graph g;
  Var x = Input(g, 3);
  Var s = x.slice(0, 2);
  g.mutableNode(s.id()).A = ExactMatrix::identity(2).scaled(Exact(3));  // no longer 0/1
  g.mutableNode(s.id()).A = ExactMatrix::hstack({g.node(s.id()).A, ExactMatrix(2, 1)});
  g.setOutput(s.id());
  const json doc = graphToJson(g);
  EXPECT_EQ(doc["nodes"][1]["op"], "Linear");
  EXPECT_EQ(doc["nodes"][1]["slice"], json::array({0, 2}));
  EXPECT_TRUE(doc["nodes"][1].contains("A"));
  const Graph back = graphFromJson(doc);
  EXPECT_EQ(graphDifference(g, back), "");
  const auto problems = checkGraph(back);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0].kind, ProblemKind::SliceOutOfRange);
  EXPECT_CONTAINS(problems[0].message, "Slice node 1: it is tagged as selecting [0:2]");
}

TEST(GraphFile, MetadataRoundTrip) {
  const Graph g = handBuilt();
  const json meta = {{"program", "test"}, {"params", {{"L", 3}}}, {"notes", json::array({1, "x"})}};
  const std::string text = graphToString(g, meta);
  json back;
  const Graph g2 = graphFromJson(json::parse(text), "<memory>", &back);
  EXPECT_EQ(back, meta);
  EXPECT_EQ(graphDifference(g, g2), "");
  json none = 1;
  graphFromJson(graphToJson(g), "<memory>", &none);
  EXPECT_TRUE(none.is_null());
}

// --- Accepted input forms ------------------------------------------------------------

std::string doc(const std::string& nodes, const std::string& rest = R"(, "output": 1)") {
  return R"({"format": "lsrl-graph", "version": 1, "nodes": [)" + nodes + "]" + rest + "}";
}

TEST(GraphFile, AcceptsHandWrittenForms) {
  // Dense matrices, floats (converted exactly as binary doubles), scalar strings,
  // "Slice" written with its range only, "Multiplicative", params as an object.
  const Graph g = graphFromString(doc(
      R"J({"id": 0, "op": "Input", "dim": 2},
         {"id": 1, "op": "Linear", "dim": 2, "inputs": [0], "A": [[0.5, "sqrt(2)"], [0, 1e3]],
          "b": [0.1, "-1e10"]},
         {"id": 2, "op": "Slice", "dim": 1, "inputs": [1], "slice": [1, 2]},
         {"id": 3, "op": "Concat", "dim": 2, "inputs": [2, 2]},
         {"id": 4, "op": "Multiplicative", "dim": 1, "inputs": [3], "group": 0})J",
      R"(, "output": 4, "groups": [{"id": 0, "function": "f_x", "params": {"mu": "1000", "k": 3},
                                   "nodes": [4], "output": 4}])"));
  EXPECT_TRUE(checkGraph(g).empty());
  const Node& lin = g.node(1);
  EXPECT_EQ(lin.A.at(0, 0), q(1, 2));
  EXPECT_EQ(lin.A.at(0, 1), Exact::sqrt(2));
  EXPECT_EQ(lin.A.at(1, 1), Exact(1000));
  EXPECT_EQ(lin.A.nonZeros(), 3u);
  EXPECT_EQ(lin.b[0], Exact(0.1));  // the double nearest 0.1, not 1/10
  EXPECT_NE(lin.b[0], q(1, 10));
  EXPECT_EQ(lin.b[1], Exact(-10000000000LL));
  EXPECT_TRUE(g.node(2).isSlice());
  EXPECT_EQ(g.node(2).A, ExactMatrix::selection(1, 2, 2));
  EXPECT_EQ(g.node(2).b, zerosVector(1));
  EXPECT_EQ(g.node(4).op, Op::Multi);
  EXPECT_EQ(g.groups()[0].params,
            (std::vector<std::pair<std::string, std::string>>{{"k", "3"}, {"mu", "1000"}}));
  // A Slice whose input comes later in the file still gets its matrix.
  const Graph h = graphFromString(doc(
      R"({"id": 0, "op": "Input", "dim": 3},
         {"id": 1, "op": "Slice", "dim": 2, "inputs": [2], "slice": [0, 2]},
         {"id": 2, "op": "ReLU", "dim": 3, "inputs": [0]})"));
  EXPECT_TRUE(checkGraph(h).empty());
  EXPECT_EQ(h.node(1).A, ExactMatrix::selection(0, 2, 3));
  // No output: loads, and checkGraph says so.
  const Graph none = graphFromString(doc(R"({"id": 0, "op": "Input", "dim": 1})", ""));
  EXPECT_EQ(none.output(), kNoNode);
  ASSERT_EQ(checkGraph(none).size(), 1u);
  EXPECT_EQ(checkGraph(none)[0].kind, ProblemKind::NoOutput);
}

TEST(GraphFile, UnsignedAndHugeIntegers) {
  const Graph g = graphFromString(doc(
      R"({"id": 0, "op": "Input", "dim": 1},
         {"id": 1, "op": "Linear", "dim": 1, "inputs": [0],
          "A": {"shape": [1, 1], "entries": [[0, 0, 18446744073709551615]]},
          "b": ["123456789012345678901234567890"]})"));
  EXPECT_EQ(g.node(1).A.at(0, 0), Exact(mpz_class("18446744073709551615")));
  EXPECT_EQ(g.node(1).b[0], Exact(mpz_class("123456789012345678901234567890")));
}

// --- Malformed documents: each error names the file and the JSON path ----------------

TEST(GraphFileErrors, MalformedJsonHasLineAndColumn) {
  const std::string e =
      graphLoadError("{\"format\": \"lsrl-graph\",\n \"version\": 1,\n \"nodes\": [}");
  EXPECT_CONTAINS(e, "t.json: line 3, column 12: malformed JSON: syntax error");
  EXPECT_CONTAINS(graphLoadError("{\"format\": \"lsrl-graph\"} x"), "t.json: line 1, column 26");
  EXPECT_CONTAINS(graphLoadError(""), "t.json: line 1, column 1: malformed JSON");
  // The column agrees with nlohmann's own report.
  try {
    const json unused = json::parse("[1,\n  2,, 3]");
    ADD_FAILURE() << unused;
  } catch (const json::parse_error& e2) {
    EXPECT_CONTAINS(std::string(e2.what()), "line 2, column 5");
  }
  EXPECT_CONTAINS(graphLoadError("[1,\n  2,, 3]"), "line 2, column 5:");
  try {
    graphFromString("{\n}x", "t.json");
    FAIL();
  } catch (const ParseError& p) {
    EXPECT_EQ(p.position(), 4u);
  }
}

TEST(GraphFileErrors, NumberOverflowDuplicateKeysAndNesting) {
  EXPECT_CONTAINS(graphLoadError(doc(R"({"id": 0, "op": "Input", "dim": 1},
    {"id": 1, "op": "Linear", "dim": 1, "inputs": [0], "A": [[1e999]]})")),
                  "t.json: line 2, column 63: the number 1e999 is out of range");
  EXPECT_CONTAINS(graphLoadError(doc(R"({"id": 0, "op": "Input", "dim": 1, "dim": 2})")),
                  "t.json: nodes[0]: duplicate key \"dim\"");
  EXPECT_CONTAINS(graphLoadError(R"({"format": "lsrl-graph", "format": "x"})"),
                  "t.json: the document: duplicate key \"format\"");
  const std::string deep = std::string(300, '[') + std::string(300, ']');
  EXPECT_CONTAINS(
      graphLoadError(doc(R"({"id": 0, "op": "Input", "dim": 1})", ", \"metadata\": " + deep)),
      "nesting deeper than 256 levels");
  // Deep nesting of a huge depth does not crash either.
  const std::string deeper = std::string(200000, '[') + std::string(200000, ']');
  EXPECT_CONTAINS(graphLoadError(deeper), "nesting deeper than");
}

TEST(GraphFileErrors, HeaderAndTopLevel) {
  EXPECT_EQ(graphLoadError("[1, 2]"),
            "t.json: expected a JSON object with \"format\": \"lsrl-graph\", got an array");
  EXPECT_CONTAINS(graphLoadError(R"({"nodes": []})"),
                  "t.json: missing key \"format\"; this is not");
  EXPECT_CONTAINS(graphLoadError(R"({"format": "lsrl-trace", "nodes": {}})"),
                  "t.json: format: expected \"lsrl-graph\", got the string \"lsrl-trace\"");
  EXPECT_CONTAINS(graphLoadError(R"({"format": "lsrl-graph", "nodes": []})"),
                  "t.json: missing key \"version\"");
  EXPECT_EQ(graphLoadError(R"({"format": "lsrl-graph", "version": 3, "nodes": 7, "new": 1})"),
            "t.json: version: this file uses graph format version 3, newer than this build of "
            "LSRL Studio supports (up to 2); update LSRL Studio to open it");
  EXPECT_CONTAINS(graphLoadError(R"({"format": "lsrl-graph", "version": 0, "nodes": []})"),
                  "t.json: version: 0 is not a graph format version");
  EXPECT_CONTAINS(graphLoadError(R"({"format": "lsrl-graph", "version": "1", "nodes": []})"),
                  "t.json: version: expected an integer, got the string \"1\"");
  EXPECT_CONTAINS(
      graphLoadError(doc("", R"(, "outptu": 1)")),
      "t.json: unknown key \"outptu\" in a graph document (valid keys: format, version");
  EXPECT_CONTAINS(graphLoadError(R"({"format": "lsrl-graph", "version": 1})"),
                  "t.json: missing key \"nodes\"");
  EXPECT_CONTAINS(graphLoadError(R"({"format": "lsrl-graph", "version": 1, "nodes": {}})"),
                  "t.json: nodes: expected an array of nodes, got an empty object");
  EXPECT_CONTAINS(graphLoadError(doc(R"({"id": 0, "op": "Input", "dim": 1})", R"(, "output": 9)")),
                  "t.json: output: node 9 does not exist (the graph has 1 node, ids 0..0)");
  EXPECT_CONTAINS(
      graphLoadError(doc(R"({"id": 0, "op": "Input", "dim": 1})", R"(, "conductor": 0)")),
      "t.json: conductor: expected a positive integer");
}

TEST(GraphFileErrors, NodeStructure) {
  const std::string in = R"({"id": 0, "op": "Input", "dim": 1}, )";
  EXPECT_EQ(graphLoadError(doc(in + R"({"id": 1, "op": "ReLU", "inputs": [0]})")),
            "t.json: nodes[1]: missing key \"dim\"");
  EXPECT_EQ(graphLoadError(doc(in + R"({"id": 1, "op": "ReLU", "dim": "1", "inputs": [0]})")),
            "t.json: nodes[1].dim: expected an integer width, got the string \"1\"");
  EXPECT_EQ(graphLoadError(doc(in + R"({"id": 1, "op": "ReLU", "dim": 1.5, "inputs": [0]})")),
            "t.json: nodes[1].dim: expected an integer width, got the number 1.5");
  EXPECT_EQ(graphLoadError(doc(in + R"({"id": 1, "op": "ReLU", "dim": 1})")),
            "t.json: nodes[1]: missing key \"inputs\" (a ReLU node takes its input nodes from it)");
  EXPECT_EQ(graphLoadError(doc(in + R"({"id": 1, "op": "ReLU", "dim": 1, "inputs": 0})")),
            "t.json: nodes[1].inputs: expected an array of node ids, got the number 0");
  EXPECT_EQ(graphLoadError(doc(in + R"({"id": 1, "op": "ReLU", "dim": 1, "inputs": [-2]})")),
            "t.json: nodes[1].inputs[0]: -2 is not a valid node id (expected -1..2147483647)");
  EXPECT_EQ(graphLoadError(doc(in + R"({"id": 1, "op": "Relu", "dim": 1, "inputs": [0]})")),
            "t.json: nodes[1].op: unknown op \"Relu\"; valid ops are Input, Linear, ReLU, "
            "LinState, Concat, Multi, Slice");
  EXPECT_EQ(graphLoadError(doc(in + R"({"id": 1, "op": 3, "dim": 1, "inputs": [0]})")),
            "t.json: nodes[1].op: expected an op name (Input, Linear, ReLU, LinState, Concat, "
            "Multi, Slice), got the number 3");
  EXPECT_CONTAINS(
      graphLoadError(doc(in + R"({"id": 1, "op": "ReLU", "dim": 1, "inputs": [0], "A": []})")),
      "t.json: nodes[1]: unknown key \"A\" in a ReLU node (valid keys: id, op, dim, "
      "inputs, name, always_positive, group)");
  EXPECT_CONTAINS(
      graphLoadError(doc(in + R"({"id": 1, "op": "LinState", "dim": 1, "inputs": [0], "A": [[1]],
                             "B": [[1]], "bais": [1]})")),
      "t.json: nodes[1]: unknown key \"bais\" in a LinState node (valid keys: id, op, dim, inputs, "
      "name, always_positive, group, A, B, init, bias)");
  EXPECT_EQ(graphLoadError(doc(in + R"({"id": 1, "op": "Linear", "dim": 1, "inputs": [0]})")),
            "t.json: nodes[1]: missing key \"A\" (the matrix of a Linear node)");
  EXPECT_EQ(graphLoadError(
                doc(in + R"({"id": 1, "op": "LinState", "dim": 1, "inputs": [0], "A": [[1]]})")),
            "t.json: nodes[1]: missing key \"B\"");
  EXPECT_EQ(
      graphLoadError(doc(in + R"({"id": 1, "op": "Slice", "dim": 1, "inputs": [0]})")),
      "t.json: nodes[1]: missing key \"slice\" (the range [start, end] a Slice node selects)");
  EXPECT_EQ(
      graphLoadError(doc(in + R"({"id": 1, "op": "Slice", "dim": 1, "inputs": [0], "slice": 0})")),
      "t.json: nodes[1].slice: expected [start, end], got the number 0");
  EXPECT_EQ(
      graphLoadError(doc(in + R"({"id": 1, "op": "ReLU", "dim": 1, "inputs": [0], "name": 5})")),
      "t.json: nodes[1].name: expected a string, got the number 5");
  EXPECT_EQ(graphLoadError(doc(in + R"({"id": 1, "op": "ReLU", "dim": 1, "inputs": [0],
                                   "always_positive": "yes"})")),
            "t.json: nodes[1].always_positive: expected true or false, got the string \"yes\"");
  EXPECT_EQ(graphLoadError(doc(R"(7)")),
            "t.json: nodes[0]: expected a node object, got the number 7");
}

TEST(GraphFileErrors, NodeIds) {
  EXPECT_EQ(graphLoadError(doc(R"({"op": "Input", "dim": 1})")),
            "t.json: nodes[0]: missing key \"id\"");
  EXPECT_CONTAINS(graphLoadError(doc(R"({"id": 0, "op": "Input", "dim": 1},
                                   {"id": 0, "op": "ReLU", "dim": 1, "inputs": [0]})")),
                  "t.json: nodes[1].id: duplicate id 0 (nodes[0] already has it)");
  EXPECT_CONTAINS(
      graphLoadError(doc(R"({"id": 0, "op": "Input", "dim": 1},
                                   {"id": 5, "op": "ReLU", "dim": 1, "inputs": [0]})")),
      "t.json: nodes[1].id: expected id 1, got 5; ids must be 0, 1, 2, ... in file order");
  EXPECT_CONTAINS(graphLoadError(doc(R"({"id": "0", "op": "Input", "dim": 1})")),
                  "t.json: nodes[0].id: expected an integer node id, got the string \"0\"");
}

TEST(GraphFileErrors, Values) {
  const std::string in = R"({"id": 0, "op": "Input", "dim": 1}, )";
  auto lin = [&](const std::string& entry) {
    return graphLoadError(doc(in + R"({"id": 1, "op": "Linear", "dim": 1, "inputs": [0],
        "A": {"shape": [1, 1], "entries": [)" +
                              entry + "]}}"));
  };
  const std::string bad = lin(R"([0, 0, "1/+"])");
  EXPECT_CONTAINS(bad, "t.json: nodes[1].A.entries[0][2]: cannot parse \"1/+\" at position ");
  EXPECT_CONTAINS(bad, "expected a number");
  try {
    graphFromString(
        doc(in + R"({"id": 1, "op": "Linear", "dim": 1, "inputs": [0], "A": [["1/+"]]})"));
    FAIL();
  } catch (const ParseError& e) {
    EXPECT_EQ(e.text(), "1/+");  // the scalar's own text and position survive
  }
  EXPECT_CONTAINS(lin(R"([0, 0, "inf"])"),
                  "t.json: nodes[1].A.entries[0][2]: cannot parse \"inf\"");
  EXPECT_CONTAINS(lin(R"([0, 0, "nan"])"),
                  "t.json: nodes[1].A.entries[0][2]: cannot parse \"nan\"");
  EXPECT_CONTAINS(lin(R"([0, 0, "-Infinity"])"), "cannot parse \"-Infinity\"");
  EXPECT_EQ(lin(R"([0, 0, true])"),
            "t.json: nodes[1].A.entries[0][2]: expected a number or a scalar string such as "
            "\"1/3\" or \"sqrt(2)\", got true");
  EXPECT_EQ(lin(R"([0, 0, null])"),
            "t.json: nodes[1].A.entries[0][2]: expected a number or a scalar string such as "
            "\"1/3\" or \"sqrt(2)\", got null");
  EXPECT_CONTAINS(lin(R"J([0, 0, "sqrt(-1)"])J"), "t.json: nodes[1].A.entries[0][2]: ");
  EXPECT_CONTAINS(lin(R"([0, 0, "1/0"])"), "t.json: nodes[1].A.entries[0][2]: ");
  EXPECT_EQ(lin(R"([1, 0, 1])"),
            "t.json: nodes[1].A.entries[0][0]: row 1 is outside the 1x1 matrix (expected an "
            "integer 0..0)");
  EXPECT_EQ(lin(R"([0, -1, 1])"),
            "t.json: nodes[1].A.entries[0][1]: column -1 is outside the 1x1 matrix (expected an "
            "integer 0..0)");
  EXPECT_EQ(lin(R"([0, 0])"),
            "t.json: nodes[1].A.entries[0]: expected [row, col, value], got an array of 2 values");
  EXPECT_EQ(
      lin(R"([0, 0, 1], [0, 0, 2])"),
      "t.json: nodes[1].A.entries[1]: duplicate entry for (0, 0); entries[0] already sets it");
  EXPECT_CONTAINS(graphLoadError(doc(in + R"({"id": 1, "op": "Linear", "dim": 1, "inputs": [0],
                                         "A": [[1]], "b": [1, [2]]})")),
                  "t.json: nodes[1].b[1]: expected a number or a scalar string");
  EXPECT_EQ(graphLoadError(doc(in + R"({"id": 1, "op": "Linear", "dim": 1, "inputs": [0],
                                   "A": [[1]], "b": 0})")),
            "t.json: nodes[1].b: expected an array of values, got the number 0");
  EXPECT_EQ(graphLoadError(doc(in + R"({"id": 1, "op": "Linear", "dim": 1, "inputs": [0],
                                   "A": [[1], [1, 2]]})")),
            "t.json: nodes[1].A[1]: row has 2 values, expected 1 (the width of row 0)");
  EXPECT_CONTAINS(graphLoadError(doc(in + R"({"id": 1, "op": "Linear", "dim": 1, "inputs": [0],
                                         "A": 5})")),
                  "t.json: nodes[1].A: expected a matrix {\"shape\": [rows, cols]");
  EXPECT_CONTAINS(graphLoadError(doc(in + R"({"id": 1, "op": "Linear", "dim": 1, "inputs": [0],
                                         "A": {"entries": []}})")),
                  "t.json: nodes[1].A: missing key \"shape\"");
  EXPECT_CONTAINS(graphLoadError(doc(in + R"({"id": 1, "op": "Linear", "dim": 1, "inputs": [0],
                                         "A": {"shape": [1, 1], "values": []}})")),
                  "t.json: nodes[1].A: unknown key \"values\" in a matrix");
}

TEST(GraphFileErrors, NonFiniteInMemoryValues) {
  json d = json::parse(doc(R"({"id": 0, "op": "Input", "dim": 1},
      {"id": 1, "op": "Linear", "dim": 1, "inputs": [0], "A": [[1]], "b": [0]})"));
  d["nodes"][1]["b"][0] = std::numeric_limits<double>::infinity();
  EXPECT_EQ(errorOf([&] { graphFromJson(d, "mem"); }),
            "mem: nodes[1].b[0]: the number inf is not finite; values must be finite (inf and nan "
            "are not numbers here)");
  d["nodes"][1]["b"][0] = std::nan("");
  EXPECT_CONTAINS(errorOf([&] { graphFromJson(d, "mem"); }), "mem: nodes[1].b[0]: the number");
  EXPECT_CONTAINS(errorOf([&] { graphFromJson(d, "mem"); }), "is not finite");
}

TEST(GraphFileErrors, AbsurdSizesAreRejectedBeforeAllocating) {
  const std::string in = R"({"id": 0, "op": "Input", "dim": 1}, )";
  EXPECT_EQ(graphLoadError(doc(in + R"({"id": 1, "op": "Linear", "dim": 1, "inputs": [0],
      "A": {"shape": [1000000000, 1000000000], "entries": []}})")),
            "t.json: nodes[1].A.shape[0]: 1000000000 is not a valid row count (expected "
            "0..1048576)");
  EXPECT_EQ(graphLoadError(doc(in + R"({"id": 1, "op": "Linear", "dim": 1, "inputs": [0],
      "A": {"shape": [1e9, 1e9], "entries": []}})")),
            "t.json: nodes[1].A.shape[0]: expected an integer row count, got the number "
            "1000000000.0");
  EXPECT_EQ(graphLoadError(doc(in + R"({"id": 1, "op": "Linear", "dim": 1, "inputs": [0],
      "A": {"shape": [100000, 100000], "entries": []}})")),
            "t.json: nodes[1].A.shape: a 100000x100000 matrix is beyond the limit of 268435456 "
            "entries");
  EXPECT_EQ(graphLoadError(doc(in + R"({"id": 1, "op": "Linear", "dim": 1, "inputs": [0],
      "A": {"shape": [-1, 1], "entries": []}})")),
            "t.json: nodes[1].A.shape[0]: -1 is not a valid row count (expected 0..1048576)");
  EXPECT_EQ(
      graphLoadError(doc(in + R"({"id": 1, "op": "ReLU", "dim": 99999999999, "inputs": [0]})")),
      "t.json: nodes[1].dim: 99999999999 is not a valid width (expected "
      "-2147483648..2147483647)");
  // Many wide nodes: the total is bounded before their zero vectors are made.
  std::string many = R"({"id": 0, "op": "Input", "dim": 1})";
  for (int i = 1; i <= 8; ++i) {
    many +=
        R"(, {"id": )" + std::to_string(i) + R"(, "op": "ReLU", "dim": 1048576, "inputs": [0]})";
  }
  EXPECT_CONTAINS(graphLoadError(doc(many)), "the graph is too large to load");
}

TEST(GraphFileErrors, GroupsAndLayout) {
  const std::string nodes = R"({"id": 0, "op": "Input", "dim": 1},
                               {"id": 1, "op": "ReLU", "dim": 1, "inputs": [0], "group": 0})";
  auto withGroups = [&](const std::string& groups) {
    return graphLoadError(doc(nodes, R"(, "output": 1, "groups": )" + groups));
  };
  EXPECT_EQ(withGroups(R"([{"id": 0, "function": "f", "parent": 0}])"),
            "t.json: groups[0].parent: group 0 cannot be the parent: a parent group comes before "
            "its children (expected -1..-1)");
  EXPECT_EQ(withGroups(R"([{"id": 1, "function": "f"}])"),
            "t.json: groups[0].id: expected id 0, got 1; group ids must be 0, 1, 2, ... in file "
            "order");
  EXPECT_EQ(withGroups(R"([{"id": 0}])"), "t.json: groups[0]: missing key \"function\"");
  EXPECT_EQ(withGroups(R"([{"id": 0, "function": "f", "nodes": [0, 7]}])"),
            "t.json: groups[0].nodes[1]: node 7 does not exist (the graph has 2 nodes)");
  EXPECT_EQ(withGroups(R"([{"id": 0, "function": "f", "params": [["mu"]]}])"),
            "t.json: groups[0].params[0]: expected [name, value], got an array");
  EXPECT_EQ(withGroups(R"([])"),
            "t.json: nodes[1].group: group 0 does not exist (the file has 0 groups)");
  EXPECT_EQ(graphLoadError(doc(nodes, R"(, "output": 1, "groups": [{"id": 0, "function": "f"}],
                                    "layout": {"5": [0, 0]})")),
            "t.json: layout: key \"5\" is not the id of a node (the graph has 2 nodes)");
  EXPECT_EQ(graphLoadError(doc(nodes, R"(, "output": 1, "groups": [{"id": 0, "function": "f"}],
                                    "layout": {"1": [0, "a"]})")),
            "t.json: layout.1: expected a position [x, y] of two numbers, got an array");
  EXPECT_EQ(graphLoadError(doc(nodes, R"(, "output": 1, "groups": [{"id": 0, "function": "f"}],
                                    "layout": {"x": [0, 0]})")),
            "t.json: layout: key \"x\" is not the id of a node (the graph has 2 nodes)");
}

// --- Semantic problems: the file loads, checkGraph lists them all -------------------

std::vector<Problem> problemsOf(const std::string& nodes, const std::string& rest) {
  return checkGraph(graphFromString(doc(nodes, rest), "t.json"));
}

bool hasProblem(const std::vector<Problem>& ps, ProblemKind kind, const std::string& part) {
  for (const Problem& p : ps) {
    if (p.kind == kind && p.message.find(part) != std::string::npos) return true;
  }
  std::string all;
  for (const Problem& p : ps) all += "\n  " + p.message;
  ADD_FAILURE() << "no problem containing \"" << part << "\" among:" << all;
  return false;
}

TEST(GraphFileSemantics, EveryProblemOfAFileIsListed) {
  const auto ps = problemsOf(
      R"({"id": 0, "op": "Input", "dim": 2, "name": "x"},
         {"id": 1, "op": "Input", "dim": 1},
         {"id": 2, "op": "Linear", "dim": 2, "inputs": [0], "A": [[1, 0, 0], [0, 1, 0]]},
         {"id": 3, "op": "Multi", "dim": 1, "inputs": [1]},
         {"id": 4, "op": "Slice", "dim": 2, "inputs": [0], "slice": [1, 3]},
         {"id": 5, "op": "ReLU", "dim": 1, "inputs": [6]},
         {"id": 6, "op": "ReLU", "dim": 1, "inputs": [5], "name": "loop"},
         {"id": 7, "op": "ReLU", "dim": 2, "inputs": [0, 0]},
         {"id": 8, "op": "Concat", "dim": 5, "inputs": [0, 2]},
         {"id": 9, "op": "ReLU", "dim": 2, "inputs": [42]},
         {"id": 10, "op": "ReLU", "dim": 2000000, "inputs": [0]},
         {"id": 11, "op": "LinState", "dim": 2, "inputs": [0], "A": [[1, 0]], "B": [[1], [1]],
          "init": [1]})",
      R"(, "output": 8)");
  EXPECT_TRUE(hasProblem(ps, ProblemKind::SecondInput,
                         "Input node 1 is a second Input; node 0 \"x\" is already the program's "
                         "Input"));
  EXPECT_TRUE(hasProblem(ps, ProblemKind::DimensionMismatch,
                         "Linear node 2: A has 3 columns, expected 2 (the width of its input, "
                         "node 0 \"x\")."));
  EXPECT_TRUE(hasProblem(ps, ProblemKind::MultiOddWidth,
                         "Multi node 3: its input, node 1, has odd width 1"));
  EXPECT_TRUE(hasProblem(ps, ProblemKind::SliceOutOfRange,
                         "Slice node 4: range [1:3] is out of range for its input, node 0 \"x\", "
                         "of width 2 (need 0 <= start < end <= 2)."));
  EXPECT_TRUE(hasProblem(ps, ProblemKind::Cycle,
                         "Nodes 5, 6 form a cycle: ReLU node 5 -> ReLU node 6 \"loop\" -> ReLU "
                         "node 5"));
  EXPECT_TRUE(hasProblem(ps, ProblemKind::BadArity,
                         "ReLU node 7 has 2 inputs (nodes 0, 0), expected exactly 1."));
  EXPECT_TRUE(hasProblem(ps, ProblemKind::DimensionMismatch,
                         "Concat node 8 has width 5, expected 4 (the sum of its inputs' widths, 2 "
                         "+ 2)."));
  EXPECT_TRUE(hasProblem(ps, ProblemKind::DanglingInput,
                         "ReLU node 9 takes node 42 as input, but the graph has no such node (it "
                         "has 12 nodes, ids 0..11)."));
  EXPECT_TRUE(hasProblem(ps, ProblemKind::AbsurdSize,
                         "ReLU node 10 has width 2000000, expected 1..1048576."));
  EXPECT_TRUE(hasProblem(ps, ProblemKind::DimensionMismatch,
                         "LinState node 11: A is 1x2, expected a square 2x2 matrix"));
  EXPECT_TRUE(hasProblem(ps, ProblemKind::DimensionMismatch,
                         "LinState node 11: B has 1 columns, expected 2 (the width of its input"));
  EXPECT_TRUE(hasProblem(ps, ProblemKind::DimensionMismatch,
                         "LinState node 11: init_state has 1 value, expected 2"));
  EXPECT_EQ(ps.size(), 12u);
  // requireValid joins them, one per line, each with the source.
  const std::string e = errorOf([&] {
    requireValid(
        graphFromString(doc(R"({"id": 0, "op": "ReLU", "dim": 1, "inputs": [0]})", ""), "t.json"),
        "t.json");
  });
  EXPECT_EQ(e,
            "t.json: The graph has no Input node; a program needs exactly one (the current "
            "token).\n"
            "t.json: The graph has no output node; mark the node whose value the program returns "
            "as its output.\n"
            "t.json: ReLU node 0 takes its own value as input (a cycle); a node may not depend on "
            "itself.");
}

TEST(GraphFileSemantics, NegativeWidthAndEmptyConcat) {
  const auto ps = problemsOf(R"({"id": 0, "op": "Input", "dim": -3},
                                {"id": 1, "op": "Concat", "dim": 1, "inputs": []},
                                {"id": 2, "op": "Input", "dim": 1, "inputs": [0]})",
                             R"(, "output": 1)");
  EXPECT_TRUE(
      hasProblem(ps, ProblemKind::AbsurdSize, "Input node 0 has width -3, expected 1..1048576."));
  EXPECT_TRUE(
      hasProblem(ps, ProblemKind::BadArity, "Concat node 1 has no inputs, expected at least 1."));
  EXPECT_TRUE(
      hasProblem(ps, ProblemKind::BadArity, "Input node 2 has 1 input (node 0), expected none"));
}

// --- Files -----------------------------------------------------------------------------

TEST(GraphFileIo, SaveAndLoad) {
  TempDir dir;
  const std::string path = dir.file("g.json");
  const Graph g = handBuilt();
  saveGraphFile(g, path);
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"g.json"});  // no temporary left
  EXPECT_EQ(graphDifference(g, loadGraphFile(path)), "");
  // Overwriting keeps a single file with the new content.
  Graph small;
  small.setOutput(small.addInput(1));
  saveGraphFile(small, path);
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"g.json"});
  EXPECT_EQ(loadGraphFile(path).nodeCount(), 1u);
  // Errors from files name the path.
  writeFileAtomically(dir.file("bad.json"), "{\"format\": \"lsrl-graph\", \"version\": 1}");
  EXPECT_EQ(errorOf([&] { loadGraphFile(dir.file("bad.json")); }),
            dir.file("bad.json") + ": missing key \"nodes\"");
  EXPECT_EQ(errorOf([&] { loadGraphFile(dir.file("missing.json")); }),
            "cannot read \"" + dir.file("missing.json") + "\": no such file");
}

TEST(GraphFileIo, FailedSaveLeavesOldFileAndNoTemporary) {
  TempDir dir;
  const std::string path = dir.file("g.json");
  saveGraphFile(handBuilt(), path);
  const std::string before = readWholeFile(path);
  // The target is a directory.
  std::filesystem::create_directory(dir.file("sub.json"));
  EXPECT_CONTAINS(errorOf([&] { saveGraphFile(handBuilt(), dir.file("sub.json")); }),
                  "cannot save \"" + dir.file("sub.json") + "\": it is a directory");
  // The folder does not exist.
  EXPECT_CONTAINS(errorOf([&] { saveGraphFile(handBuilt(), dir.file("nope/g.json")); }),
                  "cannot save \"" + dir.file("nope/g.json") +
                      "\": cannot create a temporary file in \"" + dir.file("nope") +
                      "\": No such file or directory");
  EXPECT_EQ((dir.entries()), (std::vector<std::string>{"g.json", "sub.json"}));
  EXPECT_TRUE(std::filesystem::is_empty(dir.file("sub.json")));
  // A read-only folder (root ignores permissions, so this part needs a normal user).
  if (!testing_io::runningAsRoot()) {
    std::filesystem::permissions(
        dir.path(), std::filesystem::perms::owner_read | std::filesystem::perms::owner_exec);
    Graph small;
    small.setOutput(small.addInput(1));
    EXPECT_CONTAINS(errorOf([&] { saveGraphFile(small, path); }), "Permission denied");
    std::filesystem::permissions(dir.path(), std::filesystem::perms::owner_all);
  }
  EXPECT_EQ(readWholeFile(path), before);
  EXPECT_EQ((dir.entries()), (std::vector<std::string>{"g.json", "sub.json"}));
}

}  // namespace
}  // namespace lsrl
