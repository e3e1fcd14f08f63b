// checkGraph / requireValid on graphs built in memory (builders and addUnchecked):
// every problem is listed, each message names the node, expected and got.
#include "core/graph/checks.h"

#include <gtest/gtest.h>

#include <functional>

#include "common/error_of.h"
#include "core/graph/builder.h"
#include "core/graph/sugar.h"
#include "core/util/error.h"

namespace lsrl {
namespace {

using testing_common::errorOf;

std::string listing(const std::vector<Problem>& ps) {
  std::string all;
  for (const Problem& p : ps) all += "\n  " + p.message;
  return all;
}

// The problem of this kind whose message contains `part`; fails the test if none.
const Problem* find(const std::vector<Problem>& ps, ProblemKind kind, const std::string& part) {
  for (const Problem& p : ps) {
    if (p.kind == kind && p.message.find(part) != std::string::npos) return &p;
  }
  ADD_FAILURE() << "no problem containing \"" << part << "\" among:" << listing(ps);
  return nullptr;
}

Node raw(NodeId id, Op op, int dim, std::vector<NodeId> inputs = {}) {
  Node n;
  n.id = id;
  n.op = op;
  n.dim = dim;
  n.inputs = std::move(inputs);
  return n;
}

Node rawLinear(NodeId id, NodeId x, ExactMatrix A, ExactVector b) {
  Node n = raw(id, Op::Linear, A.rows(), {x});
  n.A = std::move(A);
  n.b = std::move(b);
  return n;
}

TEST(Checks, BuilderGraphsAreValid) {
  Graph g;
  Var x = Input(g, 1, "x");
  Var c = f_modulo_counter(x, 6);
  Var y = f_ifelse(f_larger(c, 2), x, 1 - x);
  g.setOutput(f_ifelse_mul(f_larger(c, 3), y, x).id());
  EXPECT_TRUE(checkGraph(g).empty()) << listing(checkGraph(g));
  EXPECT_NO_THROW(requireValid(g, "prog"));
}

TEST(Checks, EmptyGraph) {
  Graph g;
  const auto ps = checkGraph(g);
  ASSERT_EQ(ps.size(), 2u) << listing(ps);
  EXPECT_EQ(ps[0].kind, ProblemKind::NoInput);
  EXPECT_EQ(ps[0].node, kNoNode);
  EXPECT_EQ(ps[1].kind, ProblemKind::NoOutput);
}

TEST(Checks, SecondInputNamesBoth) {
  Graph g;
  g.addInput(2, "x");
  g.addUnchecked(raw(1, Op::Input, 1));
  Node third = raw(2, Op::Input, 1);
  third.name = "y";
  g.addUnchecked(third);
  g.setOutput(0);
  const auto ps = checkGraph(g);
  ASSERT_EQ(ps.size(), 2u) << listing(ps);
  EXPECT_EQ(ps[0].message,
            "Input node 1 is a second Input; node 0 \"x\" is already the program's Input (a "
            "program has exactly one).");
  EXPECT_EQ(ps[0].node, 1);
  EXPECT_EQ(ps[1].message,
            "Input node 2 \"y\" is a second Input; node 0 \"x\" is already the program's Input (a "
            "program has exactly one).");
}

TEST(Checks, LinearDimensions) {
  Graph g;
  const NodeId x = g.addInput(3);
  g.addUnchecked(rawLinear(1, x, ExactMatrix(2, 2), zerosVector(3)));
  Node n = rawLinear(2, x, ExactMatrix(2, 3), zerosVector(2));
  n.dim = 4;
  n.name = "wide";
  g.addUnchecked(n);
  g.setOutput(2);
  const auto ps = checkGraph(g);
  ASSERT_EQ(ps.size(), 4u) << listing(ps);
  EXPECT_EQ(ps[0].message,
            "Linear node 1: A has 2 columns, expected 3 (the width of its input, node 0).");
  EXPECT_EQ(ps[1].message, "Linear node 1: b has 3 values, expected 2 (the node's width).");
  EXPECT_EQ(ps[2].message, "Linear node 2 \"wide\": A has 2 rows, expected 4 (the node's width).");
  EXPECT_EQ(ps[3].message,
            "Linear node 2 \"wide\": b has 2 values, expected 4 (the node's width).");
  for (const Problem& p : ps) EXPECT_EQ(p.kind, ProblemKind::DimensionMismatch);
}

TEST(Checks, LinStateDimensions) {
  Graph g;
  const NodeId x = g.addInput(2);
  Node s = raw(1, Op::LinState, 3, {x});
  s.A = ExactMatrix(3, 2);
  s.B = ExactMatrix(2, 1);
  s.init = zerosVector(2);
  s.bias = zerosVector(4);
  g.addUnchecked(s);
  g.setOutput(1);
  const auto ps = checkGraph(g);
  ASSERT_EQ(ps.size(), 5u) << listing(ps);
  EXPECT_EQ(ps[0].message,
            "LinState node 1: A is 3x2, expected a square 3x3 matrix (the node's width).");
  EXPECT_EQ(ps[1].message, "LinState node 1: B has 2 rows, expected 3 (the node's width).");
  EXPECT_EQ(ps[2].message,
            "LinState node 1: B has 1 columns, expected 2 (the width of its input, node 0).");
  EXPECT_EQ(ps[3].message,
            "LinState node 1: init_state has 2 values, expected 3 (the node's width).");
  EXPECT_EQ(ps[4].message, "LinState node 1: bias has 4 values, expected 3 (the node's width).");
}

TEST(Checks, ConcatReluMulti) {
  Graph g;
  const NodeId x = g.addInput(3);
  g.addUnchecked(raw(1, Op::Concat, 5, {x, x}));
  g.addUnchecked(raw(2, Op::ReLU, 2, {x}));
  g.addUnchecked(raw(3, Op::Multi, 1, {x}));
  g.addUnchecked(raw(4, Op::Multi, 2, {5}));  // an input later in the list
  g.addUnchecked(raw(5, Op::Concat, 6, {x, x}));
  g.setOutput(5);
  const auto ps = checkGraph(g);
  ASSERT_EQ(ps.size(), 4u) << listing(ps);
  EXPECT_EQ(ps[0].message,
            "Concat node 1 has width 5, expected 6 (the sum of its inputs' widths, 3 + 3).");
  EXPECT_EQ(ps[1].message, "ReLU node 2 has width 2, expected 3 (the width of its input, node 0).");
  EXPECT_EQ(ps[2].kind, ProblemKind::MultiOddWidth);
  EXPECT_EQ(ps[2].message,
            "Multi node 3: its input, node 0, has odd width 3, expected an even width 2k (the two "
            "halves are multiplied).");
  EXPECT_EQ(ps[3].message,
            "Multi node 4 has width 2, expected 3 (half the width 6 of its input, node 5).");
}

TEST(Checks, MultiHalfWidth) {
  Graph g;
  const NodeId x = g.addInput(4);
  g.addUnchecked(raw(1, Op::Multi, 3, {x}));
  g.setOutput(1);
  const auto ps = checkGraph(g);
  ASSERT_EQ(ps.size(), 1u) << listing(ps);
  EXPECT_EQ(ps[0].message,
            "Multi node 1 has width 3, expected 2 (half the width 4 of its input, node 0).");
}

TEST(Checks, SliceTags) {
  Graph g;
  const NodeId x = g.addInput(4, "x");
  const NodeId a = g.addSlice(x, 1, 3);
  const NodeId b = g.addSlice(x, 0, 2, "low");
  const NodeId c = g.addSlice(x, 2, 4);
  g.setOutput(g.addConcat({a, b, c}));
  ASSERT_TRUE(checkGraph(g).empty());
  g.mutableNode(a).slice = SliceTag{3, 5};               // out of range
  g.mutableNode(b).A = ExactMatrix::selection(1, 3, 4);  // tag says [0:2]
  g.mutableNode(c).slice = SliceTag{2, 3};               // width no longer matches
  const auto ps = checkGraph(g);
  ASSERT_EQ(ps.size(), 3u) << listing(ps);
  EXPECT_EQ(ps[0].kind, ProblemKind::SliceOutOfRange);
  EXPECT_EQ(ps[0].message,
            "Slice node 1: range [3:5] is out of range for its input, node 0 \"x\", of width 4 "
            "(need 0 <= start < end <= 4).");
  EXPECT_EQ(ps[1].kind, ProblemKind::SliceOutOfRange);
  EXPECT_EQ(ps[1].message,
            "Slice node 2 \"low\": it is tagged as selecting [0:2] of its input, node 0 \"x\", but "
            "its matrix is not that selection (expected A to be the 2x4 0/1 matrix picking those "
            "rows, and b = 0).");
  EXPECT_EQ(ps[2].kind, ProblemKind::DimensionMismatch);
  EXPECT_EQ(ps[2].message, "Slice node 3 has width 2, expected 1 (the size of its range [2:3]).");
  // A reversed range is out of range too.
  g.mutableNode(a).slice = SliceTag{2, 1};
  EXPECT_NE(find(checkGraph(g), ProblemKind::SliceOutOfRange, "range [2:1] is out of range"),
            nullptr);
}

TEST(Checks, Arity) {
  Graph g;
  const NodeId x = g.addInput(1);
  g.addUnchecked(raw(1, Op::ReLU, 1, {}));
  g.addUnchecked(raw(2, Op::ReLU, 1, {x, x, x}));
  g.addUnchecked(raw(3, Op::Concat, 0, {}));
  Node lin = rawLinear(4, x, ExactMatrix(1, 1), zerosVector(1));
  lin.inputs = {x, 1};
  g.addUnchecked(lin);
  g.setOutput(4);
  const auto ps = checkGraph(g);
  ASSERT_EQ(ps.size(), 5u) << listing(ps);
  EXPECT_EQ(ps[0].message, "ReLU node 1 has no inputs, expected exactly 1.");
  EXPECT_EQ(ps[1].message, "ReLU node 2 has 3 inputs (nodes 0, 0, 0), expected exactly 1.");
  EXPECT_EQ(ps[2].kind, ProblemKind::AbsurdSize);  // width 0
  EXPECT_EQ(ps[2].message, "Concat node 3 has width 0, expected 1..1048576.");
  EXPECT_EQ(ps[3].message, "Concat node 3 has no inputs, expected at least 1.");
  EXPECT_EQ(ps[4].message, "Linear node 4 has 2 inputs (nodes 0, 1), expected exactly 1.");
  for (size_t i : {0u, 1u, 3u, 4u}) EXPECT_EQ(ps[i].kind, ProblemKind::BadArity);
}

TEST(Checks, DanglingInputsAndOutput) {
  Graph g;
  g.addInput(1);
  g.addUnchecked(raw(1, Op::Concat, 2, {0, 7, -1}));
  const auto ps = checkGraph(g);
  ASSERT_EQ(ps.size(), 3u) << listing(ps);
  EXPECT_EQ(ps[0].kind, ProblemKind::NoOutput);
  EXPECT_EQ(ps[1].kind, ProblemKind::DanglingInput);
  EXPECT_EQ(ps[1].node, 1);
  EXPECT_EQ(ps[1].message,
            "Concat node 1 takes node 7 as input, but the graph has no such node (it has 2 nodes, "
            "ids 0..1).");
  // -1 (kNoNode) is an open slot left by the editor.
  EXPECT_EQ(ps[2].kind, ProblemKind::DanglingInput);
  EXPECT_EQ(ps[2].message, "Input 2 of Concat node 1 is not connected; connect a node to it.");
}

TEST(Checks, CyclesNameTheirNodes) {
  Graph g;
  const NodeId x = g.addInput(1);
  g.addUnchecked(raw(1, Op::Concat, 2, {x, 3}));
  Node l = rawLinear(2, 1, ExactMatrix(1, 2), zerosVector(1));
  l.name = "mix";
  g.addUnchecked(l);
  g.addUnchecked(raw(3, Op::ReLU, 1, {2}));
  g.addUnchecked(raw(4, Op::ReLU, 1, {3}));  // downstream of the cycle, not on it
  g.addUnchecked(raw(5, Op::ReLU, 1, {5}));  // a self-loop
  g.setOutput(4);
  const auto ps = checkGraph(g);
  ASSERT_EQ(ps.size(), 2u) << listing(ps);
  EXPECT_EQ(ps[0].kind, ProblemKind::Cycle);
  EXPECT_EQ(ps[0].node, 1);
  EXPECT_EQ(ps[0].message,
            "Nodes 1, 2, 3 form a cycle: Concat node 1 -> Linear node 2 \"mix\" -> ReLU node 3 -> "
            "Concat node 1 (each feeds the next); a node may not depend on its own value.");
  EXPECT_EQ(ps[1].message,
            "ReLU node 5 takes its own value as input (a cycle); a node may not depend on itself.");
  EXPECT_THROW(g.topologicalOrder(), Error);
}

TEST(Checks, LongCycleIsShortened) {
  Graph g;
  g.addInput(1);
  const int n = 50;
  for (int i = 1; i <= n; ++i) g.addUnchecked(raw(i, Op::ReLU, 1, {i == 1 ? n : i - 1}));
  g.setOutput(n);
  const auto ps = checkGraph(g);
  ASSERT_EQ(ps.size(), 1u);
  EXPECT_NE(ps[0].message.find("... (30 more) -> ReLU node 1 (each feeds the next)"),
            std::string::npos)
      << ps[0].message;
  EXPECT_NE(ps[0].message.find("Nodes 1, 2, 3"), std::string::npos);
}

TEST(Checks, DeepChainDoesNotOverflowTheStack) {
  Graph g;
  Var x = Input(g, 1);
  for (int i = 0; i < 200000; ++i) x = ReLU(x);
  g.setOutput(x.id());
  EXPECT_TRUE(checkGraph(g).empty());
}

TEST(Checks, AbsurdSizes) {
  Graph g;
  g.addUnchecked(raw(0, Op::Input, kMaxNodeDim + 1));
  g.addUnchecked(raw(1, Op::ReLU, -4, {0}));
  Node lin = rawLinear(2, 0, ExactMatrix(70000, 70000), {});
  lin.dim = 70000;
  g.addUnchecked(lin);
  g.setOutput(2);
  const auto ps = checkGraph(g);
  ASSERT_EQ(ps.size(), 3u) << listing(ps);
  EXPECT_EQ(ps[0].message, "Input node 0 has width 1048577, expected 1..1048576.");
  EXPECT_EQ(ps[1].message, "ReLU node 1 has width -4, expected 1..1048576.");
  EXPECT_EQ(ps[2].message,
            "Linear node 2: A is 70000x70000 (4900000000 entries when dense), expected at most "
            "268435456 entries with each side at most 1048576.");
  for (const Problem& p : ps) EXPECT_EQ(p.kind, ProblemKind::AbsurdSize);
}

TEST(Checks, RequireValidJoinsEveryProblem) {
  Graph g;
  g.addInput(2, "x");
  g.addUnchecked(raw(1, Op::Input, 1));
  g.addUnchecked(raw(2, Op::Multi, 1, {1}));
  g.setOutput(2);
  const std::string e = errorOf([&] { requireValid(g, "prog.json"); });
  EXPECT_EQ(e,
            "prog.json: Input node 1 is a second Input; node 0 \"x\" is already the program's "
            "Input (a program has exactly one).\n"
            "prog.json: Multi node 2: its input, node 1, has odd width 1, expected an even width "
            "2k (the two halves are multiplied).");
  const std::string bare = errorOf([&] { requireValid(g); });
  EXPECT_EQ(bare.substr(0, 14), "Input node 1 i");
  // Very long lists are cut in the exception (checkGraph keeps them all).
  Graph many;
  many.addInput(1);
  for (int i = 1; i <= 150; ++i) many.addUnchecked(raw(i, Op::ReLU, 2, {0}));
  many.setOutput(150);
  EXPECT_EQ(checkGraph(many).size(), 150u);
  const std::string cut = errorOf([&] { requireValid(many, "m"); });
  EXPECT_NE(cut.find("m: ... and 50 more problems"), std::string::npos);
}

}  // namespace
}  // namespace lsrl
