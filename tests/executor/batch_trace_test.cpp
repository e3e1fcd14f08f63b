// Traces (every program node at every step) and batches (many sequences, many threads).
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "core/executor/executor.h"
#include "core/graph/builder.h"
#include "core/util/error.h"
#include "executor/run_helpers.h"

namespace lsrl {
namespace {

using testing_run::mat;
using testing_run::scalarTokens;
using testing_run::vec;

struct Program {
  Graph g;
  NodeId state = kNoNode;
  NodeId slice = kNoNode;
  NodeId concat = kNoNode;
  NodeId relu = kNoNode;
  NodeId dead = kNoNode;
};

// s_t = s_{t−1} + [x_t; 2x_t], out = [ReLU(s[1] − 3), s[0], x].
Program tracedProgram() {
  Program p;
  Var x = Input(p.g, 1);
  Var s = LinState(x, ExactMatrix::identity(2), mat({{1}, {2}}), vec({0, 0}));
  Var sl = s[1];
  Var r = ReLU(sl - 3);
  Var c = Concat({r, s[0], x});
  p.dead = ReLU(x).id();
  p.g.setOutput(c.id());
  p.state = s.id();
  p.slice = sl.id();
  p.concat = c.id();
  p.relu = r.id();
  return p;
}

TEST(RunTrace, RecordsEveryProgramNodeAtEveryStep) {
  const Program p = tracedProgram();
  FloatExecutor fx(p.g);
  FloatTrace trace;
  const FloatSequence out = fx.run(scalarTokens({1, 2, -1}), &trace);
  EXPECT_EQ(trace.steps(), 3);
  EXPECT_EQ(trace.nodes(), p.g.topologicalOrder());
  EXPECT_EQ(trace.trajectory(p.state), (FloatSequence{{1, 2}, {3, 6}, {2, 4}}));
  EXPECT_EQ(trace.trajectory(p.slice), (FloatSequence{{2}, {6}, {4}}));
  EXPECT_EQ(trace.trajectory(p.relu), (FloatSequence{{0}, {3}, {1}}));
  EXPECT_EQ(trace.trajectory(p.g.input()), (FloatSequence{{1}, {2}, {-1}}));
  EXPECT_EQ(trace.trajectory(p.concat), out);
  EXPECT_EQ(trace.value(p.state, 1), (std::vector<double>{3, 6}));
  EXPECT_EQ(trace.width(p.concat), 3);
  EXPECT_FALSE(trace.contains(p.dead));
  EXPECT_THROW(trace.trajectory(p.dead), Error);
  EXPECT_THROW(trace.value(p.state, 3), Error);

  // Raw layout: row-major, nodes in topological order.
  ASSERT_EQ(trace.data().size(), 3 * trace.rowWidth());
  EXPECT_EQ(trace.data()[trace.rowWidth() + trace.offset(p.state) + 1], 6.0);

  // A second run replaces the trace.
  fx.run(scalarTokens({5}), &trace);
  EXPECT_EQ(trace.steps(), 1);
  EXPECT_EQ(trace.trajectory(p.state), (FloatSequence{{5, 10}}));
}

TEST(RunTrace, ExactTraceAndStepwiseRecording) {
  const Program p = tracedProgram();
  ExactExecutor ex(p.g);
  ExactTrace trace;
  ex.run({{Exact::rational(1, 3)}, {2}}, &trace);
  EXPECT_EQ(trace.trajectory(p.state),
            (ExactSequence{{Exact::rational(1, 3), Exact::rational(2, 3)},
                           {Exact::rational(7, 3), Exact::rational(14, 3)}}));
  EXPECT_EQ(trace.value(p.relu, 1), vec({Exact::rational(5, 3)}));

  // The same through step() + record().
  ExactTrace manual;
  ex.reset();
  ex.step({Exact::rational(1, 3)});
  ex.record(manual);
  ex.step({Exact(2)});
  ex.record(manual);
  EXPECT_EQ(manual.data(), trace.data());
  EXPECT_EQ(ex.value(p.slice), vec({Exact::rational(14, 3)}));
}

std::vector<FloatSequence> randomSequences(int count, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<FloatSequence> out;
  for (int i = 0; i < count; ++i) {
    FloatSequence seq;
    const int len = static_cast<int>(rng() % 12);  // includes empty sequences
    for (int t = 0; t < len; ++t) seq.push_back({static_cast<double>(rng() % 9) - 4.0});
    out.push_back(std::move(seq));
  }
  return out;
}

TEST(RunBatch, EqualsIndividualRunsForAnyThreadCount) {
  const Program p = tracedProgram();
  auto plan = Plan::make(p.g);
  const std::vector<FloatSequence> seqs = randomSequences(37, 3);
  FloatExecutor single(plan);
  std::vector<FloatSequence> expected;
  for (const FloatSequence& s : seqs) expected.push_back(single.run(s));
  for (int threads : {1, 2, 3, 8, 0}) {
    BatchOptions o;
    o.threads = threads;
    EXPECT_EQ(runBatch(plan, seqs, o), expected) << threads << " threads";
  }
}

TEST(RunBatch, ExactBatchEqualsIndividualRuns) {
  const Program p = tracedProgram();
  auto plan = Plan::make(p.g);
  std::vector<ExactSequence> seqs;
  for (const FloatSequence& s : randomSequences(9, 5)) seqs.push_back(exactTokens(s));
  ExactExecutor single(plan);
  std::vector<ExactSequence> expected;
  for (const ExactSequence& s : seqs) expected.push_back(single.run(s));
  for (int threads : {1, 4}) {
    BatchOptions o;
    o.threads = threads;
    EXPECT_EQ(runBatch(plan, seqs, o), expected) << threads << " threads";
  }
}

TEST(RunBatch, ReportsTheFirstFailingSequence) {
  const Program p = tracedProgram();
  auto plan = Plan::make(p.g);
  std::vector<FloatSequence> seqs = {{{1}}, {{1}, {2}}, {{1}, {2, 3}}, {{}}};
  for (int threads : {1, 4}) {
    BatchOptions o;
    o.threads = threads;
    try {
      runBatch(plan, seqs, o);
      FAIL() << "expected an error";
    } catch (const Error& e) {
      EXPECT_STREQ(e.what(), "sequence 2: token 1 has width 2, the program's Input expects 1");
    }
  }
  EXPECT_TRUE(runBatch(plan, std::vector<FloatSequence>{}).empty());
}

TEST(RunBatch, ExactBatchNeedsTheExactPath) {
  const Program p = tracedProgram();
  PlanOptions o;
  o.exact = false;
  auto plan = Plan::make(p.g, o);
  EXPECT_THROW(runBatch(plan, std::vector<ExactSequence>{{{Exact(1)}}}), Error);
}

}  // namespace
}  // namespace lsrl
