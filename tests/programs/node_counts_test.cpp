// The node-count table of docs/spec/ua-programs.md: every program and conditional variant must
// build exactly the reference implementation's nodes (counted over the program nodes,
// Slice as its own op).
#include <gtest/gtest.h>

#include <array>
#include <map>
#include <string>

#include "core/graph/graph.h"
#include "core/programs/conditional.h"
#include "core/programs/more_ones.h"
#include "core/programs/program_registry.h"
#include "core/programs/tok2tok.h"
#include "core/programs/vec2vec.h"

namespace lsrl {
namespace {

// Linear / ReLU / Concat / LinState / Slice / Multi / Input.
using Counts = std::array<int, 7>;

Counts countOps(const Graph& g) {
  static const std::array<std::string, 7> kOrder = {"Linear", "ReLU",  "Concat", "LinState",
                                                    "Slice",  "Multi", "Input"};
  Counts c{};
  for (NodeId id : g.programNodes()) {
    const std::string op(g.node(id).countedOpName());
    bool found = false;
    for (size_t i = 0; i < kOrder.size(); ++i) {
      if (kOrder[i] == op) {
        ++c[i];
        found = true;
      }
    }
    EXPECT_TRUE(found) << "unexpected op " << op;
  }
  return c;
}

int total(const Counts& c) {
  int t = 0;
  for (int v : c) t += v;
  return t;
}

std::string show(const Counts& c) {
  std::string s;
  for (size_t i = 0; i < c.size(); ++i) s += (i ? " / " : "") + std::to_string(c[i]);
  return s + " = " + std::to_string(total(c));
}

TEST(NodeCounts, MoreOnes) {
  const Graph g = buildMoreOnes();
  EXPECT_EQ(show(countOps(g)), show({6, 2, 2, 2, 0, 0, 1}));
  EXPECT_EQ(total(countOps(g)), 13);
}

struct Row {
  Conditional conditional;
  Counts counts;
};

const Row kVec2vecRows[] = {
    {Conditional::Direct, {75, 25, 27, 3, 6, 0, 1}},
    {Conditional::Optimized, {59, 22, 18, 3, 5, 0, 1}},
    {Conditional::StepOptimized, {81, 29, 23, 3, 4, 0, 1}},
    {Conditional::Multiplicative, {53, 17, 15, 3, 6, 2, 1}},
    {Conditional::MultiplicativeOptimized, {47, 17, 15, 3, 4, 2, 1}},
};

const Row kTok2tokRows[] = {
    {Conditional::Direct, {558, 214, 192, 9, 6, 0, 1}},
    {Conditional::Optimized, {361, 154, 102, 9, 3, 0, 1}},
    {Conditional::StepOptimized, {600, 242, 164, 9, 3, 0, 1}},
    {Conditional::Multiplicative, {404, 158, 108, 9, 6, 14, 1}},
    {Conditional::MultiplicativeOptimized, {362, 158, 108, 9, 3, 14, 1}},
};

TEST(NodeCounts, Vec2vecEveryVariantAndShape) {
  const std::pair<int, int> shapes[] = {{1, 1}, {2, 1}, {2, 2}, {3, 5}, {7, 4}};
  for (const Row& row : kVec2vecRows) {
    for (const auto& [n, m] : shapes) {
      Vec2vecParams p;
      p.n = n;
      p.m = m;
      p.conditional = row.conditional;
      const Graph g = buildVec2vec(p);
      EXPECT_EQ(show(countOps(g)), show(row.counts))
          << "vec2vec " << conditionalName(row.conditional) << " n=" << n << " m=" << m;
      // Nothing is built that does not reach the output.
      EXPECT_EQ(g.programNodes().size(), g.nodeCount());
    }
  }
}

TEST(NodeCounts, Tok2tokEveryVariant) {
  for (const Row& row : kTok2tokRows) {
    Tok2tokParams p;
    p.L = 3;
    p.conditional = row.conditional;
    const Graph g = buildTok2tok(p);
    EXPECT_EQ(show(countOps(g)), show(row.counts))
        << "tok2tok " << conditionalName(row.conditional);
    EXPECT_EQ(g.programNodes().size(), g.nodeCount());
  }
}

TEST(NodeCounts, RegistryBuildsTheSameGraphs) {
  for (const Row& row : kTok2tokRows) {
    const Graph g = buildProgram(
        "tok2tok", {{"L", "3"}, {"conditional", std::string(conditionalName(row.conditional))}});
    EXPECT_EQ(show(countOps(g)), show(row.counts));
  }
  for (const Row& row : kVec2vecRows) {
    const Graph g = buildProgram(
        "vec2vec",
        {{"n", "3"}, {"m", "2"}, {"conditional", std::string(conditionalName(row.conditional))}});
    EXPECT_EQ(show(countOps(g)), show(row.counts));
  }
  EXPECT_EQ(show(countOps(buildProgram("more_ones", {}))), show({6, 2, 2, 2, 0, 0, 1}));
}

}  // namespace
}  // namespace lsrl
