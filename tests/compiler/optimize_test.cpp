// The size optimisation ("O1 compact", optimize.h): it keeps the function exactly on
// random DAGs, merges equal values, drops unread dimensions, and on the paper's programs
// brings compiled sizes far below the plain algorithm's.
#include <gtest/gtest.h>

#include <random>

#include "compiler/compile_test_util.h"
#include "core/graph/builder.h"
#include "core/programs/program_registry.h"

namespace lsrl {
namespace {

using testing_compile::expectCloseFloat;
using testing_compile::expectSameExact;
using testing_compile::fired;
using testing_compile::randomTokens;

ExactMatrix randomMatrix(std::mt19937_64& rng, int rows, int cols, int zeroPercent) {
  std::vector<ExactMatrix::Entry> e;
  for (int r = 0; r < rows; ++r) {
    for (int c = 0; c < cols; ++c) {
      if (uniformInt(rng, 0, 99) < zeroPercent) continue;
      const int v = uniformInt(rng, -2, 2);
      if (v != 0) e.push_back({r, c, Exact(v)});
    }
  }
  return ExactMatrix::fromEntries(rows, cols, std::move(e));
}

ExactVector randomVector(std::mt19937_64& rng, int n) {
  ExactVector v;
  for (int i = 0; i < n; ++i) v.emplace_back(uniformInt(rng, -2, 2));
  return v;
}

// A random program: each new node reads earlier ones; duplicated rows, repeated reads and
// equal sub-expressions are made likely so that compaction has work to do.
Graph randomProgram(uint64_t seed) {
  std::mt19937_64 rng(seed);
  Graph g;
  std::vector<Var> vars{Input(g, 2)};
  const int count = uniformInt(rng, 3, 9);
  for (int k = 0; k < count; ++k) {
    const Var& x = vars[static_cast<size_t>(uniformInt(rng, 0, static_cast<int>(vars.size()) - 1))];
    const int d = x.dim();
    switch (uniformInt(rng, 0, 5)) {
      case 0: {  // a Linear with a repeated row
        const int rows = uniformInt(rng, 1, 3);
        ExactMatrix A = randomMatrix(rng, rows, d, 40);
        std::vector<ExactMatrix::Entry> e = A.entries();
        for (const auto& en : A.entries()) {
          if (en.row == 0) e.push_back({rows, en.col, en.value});
        }
        ExactVector b = randomVector(rng, rows);
        b.push_back(b[0]);
        vars.push_back(Linear(x, ExactMatrix::fromEntries(rows + 1, d, std::move(e)), b));
        break;
      }
      case 1:
        vars.push_back(ReLU(x));
        break;
      case 2: {
        const int w = uniformInt(rng, 1, 3);
        vars.push_back(LinState(x, randomMatrix(rng, w, w, 50), randomMatrix(rng, w, d, 40),
                                randomVector(rng, w), randomVector(rng, w)));
        break;
      }
      case 3: {
        const Var& y =
            vars[static_cast<size_t>(uniformInt(rng, 0, static_cast<int>(vars.size()) - 1))];
        vars.push_back(Concat({x, y, x}));
        break;
      }
      case 4:
        vars.push_back(Multi(Concat({x, x * 3 - 1})));
        break;
      default:
        vars.push_back(x[uniformInt(rng, 0, d - 1)]);
        break;
    }
  }
  // The output reads the last node and one other, so that branches remain.
  const Var& other =
      vars[static_cast<size_t>(uniformInt(rng, 0, static_cast<int>(vars.size()) - 1))];
  const Var out = Concat({vars.back(), other});
  g.setOutput(out.id());
  return g;
}

std::vector<ExactSequence> inputsFor(const Graph& g, uint64_t seed) {
  const int d = g.node(g.input()).dim;
  return {randomTokens(d, 5, seed), randomTokens(d, 7, seed + 1)};
}

TEST(Compact, KeepsTheFunctionOfRandomProgramsExactly) {
  long long compactions = 0;
  for (uint64_t seed = 1; seed <= 150; ++seed) {
    const Graph program = randomProgram(seed);
    const CompileResult r = compile(program, {});
    ASSERT_TRUE(isPath(r.path)) << "seed " << seed;
    compactions += fired(r, "O1 compact");
    SCOPED_TRACE("seed " + std::to_string(seed));
    expectSameExact(program, r.path, inputsFor(program, seed));
  }
  EXPECT_GT(compactions, 100);  // the programs are built to give it work
}

TEST(Compact, KeepsTheFunctionInFloat64) {
  for (uint64_t seed = 1; seed <= 60; ++seed) {
    const Graph program = randomProgram(seed);
    CompileOptions opt;
    opt.backend = Backend::Float64;
    const CompileResult r = compile(program, opt);
    SCOPED_TRACE("seed " + std::to_string(seed));
    expectCloseFloat(program, r.path, inputsFor(program, seed), 1e-9);
  }
}

TEST(Compact, MergesEqualRowsAndDropsUnreadOnes) {
  Graph g;
  Var x = Input(g, 2);
  // Rows 0 and 2 are equal, row 1 is never read, row 3 is the constant 5.
  Var y = Linear(x,
                 ExactMatrix::fromEntries(4, 2,
                                          {{0, 0, Exact(1)},
                                           {0, 1, Exact(2)},
                                           {1, 1, Exact(7)},
                                           {2, 0, Exact(1)},
                                           {2, 1, Exact(2)}}),
                 {Exact(1), Exact(0), Exact(1), Exact(5)});
  Var r = ReLU(y);
  Var out = Linear(
      r, ExactMatrix::fromEntries(1, 4, {{0, 0, Exact(1)}, {0, 2, Exact(3)}, {0, 3, Exact(1)}}),
      {Exact(0)});
  g.setOutput(out.id());
  const CompileResult on = compile(g, {});
  CompileOptions offOpt;
  offOpt.optimize = false;
  const CompileResult off = compile(g, offOpt);
  EXPECT_EQ(fired(off, "O1 compact"), 0);
  // Off: Linear(4) → ReLU(4) → Linear(1). On: one row survives (x0 + 2x1 + 1).
  const Node& relu = on.path.node(on.path.node(on.path.output()).inputs[0]);
  EXPECT_EQ(relu.op, Op::ReLU);
  EXPECT_EQ(relu.dim, 1);
  EXPECT_LT(graphSize(on.path).denseParams, graphSize(off.path).denseParams);
  expectSameExact(g, on.path, inputsFor(g, 3));
}

TEST(Compact, MergesLinStateRowsThatEvolveAlike) {
  Graph g;
  Var x = Input(g, 1);
  // Rows 0 and 1 start equal, add the same input and each other's mirror image: equal
  // forever. Row 2 is a different counter.
  Var s = LinState(
      x, ExactMatrix::fromEntries(3, 3, {{0, 1, Exact(1)}, {1, 0, Exact(1)}, {2, 2, Exact(2)}}),
      ExactMatrix::fromEntries(3, 1, {{0, 0, Exact(1)}, {1, 0, Exact(1)}, {2, 0, Exact(1)}}),
      {Exact(1), Exact(1), Exact(0)});
  Var out = Linear(
      s, ExactMatrix::fromEntries(1, 3, {{0, 0, Exact(1)}, {0, 1, Exact(1)}, {0, 2, Exact(1)}}),
      {Exact(0)});
  g.setOutput(out.id());
  const CompileResult r = compile(g, {});
  EXPECT_EQ(graphSize(r.path).stateDim, 2);
  expectSameExact(g, r.path, inputsFor(g, 4));
}

TEST(Compact, MultiInputsStayAligned) {
  // Only the first product is read, but the second half's partner is also read alone.
  Graph g;
  Var x = Input(g, 2);
  Var c = Concat({x * 2, x + 1});
  Var m = Multi(c);
  Var out = Concat({m[0], c[3]});
  g.setOutput(out.id());
  const CompileResult r = compile(g, {});
  expectSameExact(g, r.path, inputsFor(g, 5));
}

// The size criterion: exact backend, optimisation on, tok2tok L = 3.
TEST(Compact, Tok2tokSizesMeetTheTargets) {
  for (const char* variant :
       {"direct", "optimized", "step_optimized", "multiplicative", "multiplicative_optimized"}) {
    const Graph program = buildProgram("tok2tok", {{"L", "3"}, {"conditional", variant}});
    const CompileResult r = compile(program, {});
    const GraphSize s = graphSize(r.path);
    EXPECT_LE(s.stateDim, 1500) << variant;
    EXPECT_LE(s.denseParams, 20'000'000) << variant;
    EXPECT_GT(fired(r, "O1 compact"), 0) << variant;
  }
}

}  // namespace
}  // namespace lsrl
