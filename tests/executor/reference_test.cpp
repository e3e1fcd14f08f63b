// Random graphs of every primitive, run by the compiled plan and by a naive reference
// interpreter written straight from docs/spec/language.md §1 (per node, ExactMatrix · ExactVector):
// the exact executor must agree with it on every node at every step, and float64 must
// be close.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <random>

#include "core/executor/executor.h"
#include "core/graph/graph.h"
#include "executor/run_helpers.h"

namespace lsrl {
namespace {

// ForEach, the slow obvious way: every program node's value at every step.
std::vector<std::map<NodeId, ExactVector>> referenceRun(const Graph& g,
                                                        const ExactSequence& tokens) {
  const std::vector<NodeId> order = g.topologicalOrder();
  std::map<NodeId, ExactVector> state;
  for (NodeId id : order) {
    if (g.node(id).op == Op::LinState) state[id] = g.node(id).init;
  }
  std::vector<std::map<NodeId, ExactVector>> steps;
  for (const ExactVector& x : tokens) {
    std::map<NodeId, ExactVector> v;
    for (NodeId id : order) {
      const Node& n = g.node(id);
      ExactVector out;
      switch (n.op) {
        case Op::Input:
          out = x;
          break;
        case Op::Linear:
          out = n.A * v.at(n.inputs[0]);
          for (size_t i = 0; i < out.size(); ++i) out[i] += n.b[i];
          break;
        case Op::ReLU:
          out = v.at(n.inputs[0]);
          for (Exact& e : out) {
            if (e.sign() < 0) e = Exact(0);
          }
          break;
        case Op::LinState: {
          out = n.A * state.at(id);
          const ExactVector bx = n.B * v.at(n.inputs[0]);
          for (size_t i = 0; i < out.size(); ++i) out[i] += bx[i] + n.bias[i];
          state[id] = out;
          break;
        }
        case Op::Concat:
          for (NodeId in : n.inputs) {
            const ExactVector& part = v.at(in);
            out.insert(out.end(), part.begin(), part.end());
          }
          break;
        case Op::Multi: {
          const ExactVector& in = v.at(n.inputs[0]);
          const size_t k = in.size() / 2;
          for (size_t i = 0; i < k; ++i) out.push_back(in[i] * in[k + i]);
          break;
        }
      }
      v[id] = std::move(out);
    }
    steps.push_back(std::move(v));
  }
  return steps;
}

class RandomGraphs {
 public:
  explicit RandomGraphs(uint64_t seed) : rng_(seed) {}

  Exact coef() {
    static const Exact kChoices[] = {Exact(-2),
                                     Exact(-1),
                                     Exact::rational(-1, 2),
                                     Exact(1),
                                     Exact::rational(1, 2),
                                     Exact(2),
                                     Exact(3),
                                     Exact::rational(1, 3),
                                     Exact::rational(-3, 4)};
    return kChoices[pick(std::size(kChoices))];
  }
  size_t pick(size_t n) { return static_cast<size_t>(rng_() % n); }
  bool chance(int percent) { return static_cast<int>(rng_() % 100) < percent; }

  ExactMatrix sparse(int rows, int cols, int density, bool singlePerRow = false) {
    std::vector<ExactMatrix::Entry> e;
    for (int r = 0; r < rows; ++r) {
      if (singlePerRow) {
        if (chance(85)) e.push_back({r, static_cast<int>(pick(cols)), coef()});
        continue;
      }
      for (int c = 0; c < cols; ++c) {
        if (chance(density)) e.push_back({r, c, coef()});
      }
    }
    return ExactMatrix::fromEntries(rows, cols, std::move(e));
  }
  ExactVector vector(int n, int density) {
    ExactVector v(static_cast<size_t>(n));
    for (Exact& x : v) {
      if (chance(density)) x = coef();
    }
    return v;
  }

  Graph build(int count) {
    Graph g;
    std::vector<NodeId> ids{g.addInput(1 + static_cast<int>(pick(3)))};
    while (static_cast<int>(ids.size()) < count) {
      const NodeId x = ids[pick(ids.size())];
      const int d = g.node(x).dim;
      const int rows = 1 + static_cast<int>(pick(4));
      switch (pick(9)) {
        case 0:
          ids.push_back(g.addLinear(x, sparse(rows, d, 50), vector(rows, 40)));
          break;
        case 1:
          ids.push_back(g.addLinear(x, sparse(rows, d, 0, true), vector(rows, 30)));
          break;
        case 2:
          ids.push_back(g.addLinear(x, ExactMatrix::identity(d, coef()), vector(d, 50)));
          break;
        case 3: {
          const int a = static_cast<int>(pick(static_cast<size_t>(d)));
          ids.push_back(
              g.addSlice(x, a, a + 1 + static_cast<int>(pick(static_cast<size_t>(d - a)))));
          break;
        }
        case 4:
          ids.push_back(g.addReLU(x));
          break;
        case 5: {
          // Diagonal or full A, scaled down so states stay moderate.
          ExactMatrix A = chance(50) ? sparse(rows, rows, 50).scaled(Exact::rational(1, 4))
                                     : ExactMatrix::identity(rows, coef() * Exact::rational(1, 2));
          ids.push_back(
              g.addLinState(x, A, sparse(rows, d, 50), vector(rows, 50), vector(rows, 40)));
          break;
        }
        case 6: {
          std::vector<NodeId> parts;
          const size_t k = 1 + pick(3);
          for (size_t i = 0; i < k; ++i) parts.push_back(ids[pick(ids.size())]);
          if (chance(30)) parts.push_back(parts.front());
          ids.push_back(g.addConcat(parts));
          break;
        }
        case 7:
          ids.push_back(d % 2 == 0 ? g.addMulti(x) : g.addMulti(g.addConcat({x, x})));
          break;
        case 8:
          ids.push_back(g.addLinear(x, ExactMatrix(rows, d), vector(rows, 70)));  // constant
          break;
      }
    }
    // Output: the last node together with a few others, so most of the graph runs.
    std::vector<NodeId> outs{ids.back()};
    for (int i = 0; i < 3; ++i) outs.push_back(ids[pick(ids.size())]);
    g.setOutput(g.addConcat(outs));
    return g;
  }

  ExactSequence tokens(int width, int count) {
    ExactSequence seq;
    for (int t = 0; t < count; ++t) {
      ExactVector x;
      for (int i = 0; i < width; ++i)
        x.push_back(Exact::rational(static_cast<long long>(pick(9)) - 4, 2));
      seq.push_back(std::move(x));
    }
    return seq;
  }

 private:
  std::mt19937_64 rng_;
};

TEST(RunReference, RandomGraphsAgreeWithANaiveInterpreter) {
  int instructions = 0, views = 0, folded = 0;
  for (uint64_t seed = 1; seed <= 150; ++seed) {
    RandomGraphs gen(seed);
    const Graph g = gen.build(6 + static_cast<int>(seed % 25));
    const ExactSequence tokens = gen.tokens(g.node(g.input()).dim, 6);
    const auto expected = referenceRun(g, tokens);

    auto plan = Plan::make(g);
    instructions += plan->stats().instructions;
    views += plan->stats().views;
    folded += plan->stats().folded;
    ExactExecutor ex(plan);
    ExactTrace trace;
    const ExactSequence out = ex.run(tokens, &trace);
    FloatExecutor fx(plan);
    FloatTrace ftrace;
    FloatSequence ftokens;
    for (const ExactVector& t : tokens) ftokens.push_back(testing_run::toDoubles(t));
    fx.run(ftokens, &ftrace);

    ASSERT_EQ(trace.steps(), static_cast<int>(tokens.size()));
    for (size_t t = 0; t < tokens.size(); ++t) {
      EXPECT_EQ(out[t], expected[t].at(g.output())) << "seed " << seed << " step " << t;
      double scale = 1;
      for (const auto& [id, v] : expected[t]) {
        for (const Exact& e : v) scale = std::max(scale, std::abs(e.toDouble()));
      }
      for (const auto& [id, v] : expected[t]) {
        ASSERT_EQ(trace.value(id, static_cast<int>(t)), v)
            << "seed " << seed << " step " << t << " node " << id << " ("
            << g.node(id).countedOpName() << ")";
        const std::vector<double> f = ftrace.value(id, static_cast<int>(t));
        for (size_t i = 0; i < v.size(); ++i) {
          ASSERT_NEAR(f[i], v[i].toDouble(), 1e-9 * scale)
              << "seed " << seed << " step " << t << " node " << id;
        }
      }
    }
  }
  // The generator exercises every path of the plan.
  EXPECT_GT(instructions, 500);
  EXPECT_GT(views, 100);
  EXPECT_GT(folded, 20);
}

}  // namespace
}  // namespace lsrl
