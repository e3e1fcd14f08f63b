// The step history: the graph rebuilt at a step equals a compile stopped at that step.
#include <gtest/gtest.h>

#include <random>

#include "compiler/compile_test_util.h"
#include "core/programs/program_registry.h"

namespace lsrl {
namespace {

void expectSameGraph(const Graph& a, const Graph& b, const std::string& what) {
  ASSERT_EQ(a.nodeCount(), b.nodeCount()) << what;
  EXPECT_EQ(a.output(), b.output()) << what;
  for (NodeId id = 0; id < static_cast<NodeId>(a.nodeCount()); ++id) {
    const Node& x = a.node(id);
    const Node& y = b.node(id);
    EXPECT_EQ(x.op, y.op) << what << " node " << id;
    EXPECT_EQ(x.dim, y.dim) << what << " node " << id;
    EXPECT_EQ(x.inputs, y.inputs) << what << " node " << id;
    EXPECT_EQ(x.slice, y.slice) << what << " node " << id;
    EXPECT_TRUE(x.A == y.A) << what << " node " << id;
    EXPECT_TRUE(x.B == y.B) << what << " node " << id;
    EXPECT_EQ(x.b, y.b) << what << " node " << id;
    EXPECT_EQ(x.init, y.init) << what << " node " << id;
    EXPECT_EQ(x.bias, y.bias) << what << " node " << id;
  }
}

class HistoryTest : public ::testing::TestWithParam<Backend> {};

TEST_P(HistoryTest, GraphAtMatchesAStoppedCompile) {
  Vec2vecParams p;
  p.conditional = Conditional::Multiplicative;
  const Graph program = buildVec2vec(p);
  CompileOptions opt;
  opt.backend = GetParam();
  opt.replayableHistory = true;
  const CompileResult full = compile(program, opt);
  ASSERT_TRUE(full.history);
  ASSERT_EQ(full.history->stepCount(), full.steps.size());
  expectSameGraph(full.history->graphAt(full.steps.size()), full.path, "final");

  std::mt19937_64 rng(5);
  std::vector<size_t> at = {0, 1, full.steps.size() - 1};
  for (int k = 0; k < 5; ++k)
    at.push_back(static_cast<size_t>(uniformInt(rng, 0, static_cast<int>(full.steps.size()))));
  for (size_t k : at) {
    CompileOptions stop = opt;
    stop.replayableHistory = false;
    stop.stopAfterSteps = static_cast<long long>(k);
    const CompileResult partial = compile(program, stop);
    EXPECT_EQ(partial.stepCount, static_cast<long long>(k));
    expectSameGraph(full.history->graphAt(k), partial.path, "step " + std::to_string(k));
  }
  EXPECT_THROW((void)full.history->graphAt(full.steps.size() + 1), Error);
}

INSTANTIATE_TEST_SUITE_P(Backends, HistoryTest, ::testing::Values(Backend::Exact, Backend::Float64),
                         [](const ::testing::TestParamInfo<Backend>& info) {
                           return std::string(backendName(info.param));
                         });

TEST(History, StepsCarryInputListsAndNodeDiffs) {
  const Graph program = buildMoreOnes();
  const CompileResult r = compile(program, {});
  for (const auto& s : r.steps) {
    EXPECT_FALSE(s.rule.empty());
    EXPECT_FALSE(s.nodesAdded.empty() && s.nodesRemoved.empty() && s.inputsSet.empty()) << s.rule;
  }
  EXPECT_FALSE(r.history);  // replayableHistory is off by default
}

}  // namespace
}  // namespace lsrl
