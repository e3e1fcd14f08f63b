// The driver's incremental choice of the branch node agrees with a full Kahn order
// (smallest id first) at every debranch step of a whole program.
#include "core/compiler/driver.h"

#include <gtest/gtest.h>

#include <set>

#include "compiler/compile_test_util.h"
#include "core/programs/program_registry.h"

namespace lsrl {
namespace {

using compiler::CGraph;
using compiler::Scalars;

// The first node of the full Kahn order (smallest ready id first) with more than one
// distinct successor, computed from scratch.
NodeId firstBranchFromScratch(const CGraph<double>& g) {
  std::vector<NodeId> ids = g.aliveIds();
  std::map<NodeId, int> indegree;
  for (NodeId id : ids) {
    std::set<NodeId> distinct(g.inputs(id).begin(), g.inputs(id).end());
    indegree[id] = static_cast<int>(distinct.size());
  }
  std::set<NodeId> ready;
  for (NodeId id : ids) {
    if (indegree[id] == 0) ready.insert(id);
  }
  while (!ready.empty()) {
    const NodeId u = *ready.begin();
    ready.erase(ready.begin());
    if (g.outDegree(u) > 1) return u;
    for (NodeId v : g.successors(u)) {
      if (--indegree[v] == 0) ready.insert(v);
    }
  }
  return kNoNode;
}

TEST(Driver, BranchNodeIsTheFirstInKahnOrderAtEveryStep) {
  Vec2vecParams p;
  p.conditional = Conditional::Direct;
  const Graph program = buildVec2vec(p);
  CGraph<double> g = compiler::fromGraph(program, Scalars<double>{});
  compiler::Driver<double> driver(g, {});
  g.touchAll();
  driver.fold();
  int steps = 0;
  for (;;) {
    const NodeId expected = firstBranchFromScratch(g);
    ASSERT_EQ(g.firstBranch(), expected) << "before debranch step " << steps;
    if (!driver.debranchOnce()) break;
    driver.fold();
    ++steps;
  }
  EXPECT_GT(steps, 50);
  EXPECT_EQ(firstBranchFromScratch(g), kNoNode);
}

TEST(Driver, TopologicalOrderCoversEveryLiveNode) {
  const Graph program = buildMoreOnes();
  CGraph<double> g = compiler::fromGraph(program, Scalars<double>{});
  EXPECT_EQ(g.topologicalOrder().size(), g.nodeCount());
  compiler::Driver<double> driver(g, {});
  (void)driver.run();
  const std::vector<NodeId> order = g.topologicalOrder();
  EXPECT_EQ(order.size(), g.nodeCount());
  for (size_t k = 0; k + 1 < order.size(); ++k) EXPECT_LE(g.outDegree(order[k]), 1);
}

}  // namespace
}  // namespace lsrl
