// The paper's programs in all five conditional variants compile to a path graph; in the
// exact backend the path's outputs equal the program's on seeded inputs, and the float64
// compile completes (its outputs may differ: that is the paper's point about λ·μ products).
#include <gtest/gtest.h>

#include <iostream>
#include <random>

#include "compile/compile_test_util.h"
#include "core/programs/program_registry.h"

namespace lsrl {
namespace {

using testing_compile::expectSameExact;

void report(const std::string& what, const CompileResult& r) {
  const GraphSize s = graphSize(r.path);
  std::cout << "[compile] " << what << " " << backendName(r.backend) << ": steps " << r.stepCount
            << " (debranch " << r.debranchSteps << "), nodes " << r.nodesBefore << " -> "
            << r.nodesAfter << ", state dim " << s.stateDim << ", dense params " << s.denseParams
            << ", non-zeros " << s.nonZeroParams << ", " << r.seconds * 1000 << " ms\n";
}

CompileResult compileBoth(const Graph& program, const std::string& what) {
  CompileOptions f;
  f.backend = Backend::Float64;
  const CompileResult rf = compile(program, f);
  report(what, rf);
  EXPECT_TRUE(isPath(rf.path)) << what;
  CompileOptions e;
  e.backend = Backend::Exact;
  CompileResult re = compile(program, e);
  report(what, re);
  EXPECT_TRUE(isPath(re.path)) << what;
  EXPECT_EQ(rf.stepCount, re.stepCount) << what;
  return re;
}

TEST(CompilePrograms, MoreOnes) {
  const Graph program = buildMoreOnes();
  const CompileResult r = compileBoth(program, "more_ones");
  std::vector<ExactSequence> inputs;
  std::mt19937_64 rng(7);
  for (int k = 0; k < 3; ++k) {
    ExactSequence xs;
    for (int t = 0; t < 12; ++t) xs.push_back({Exact(uniformInt(rng, 0, 1))});
    inputs.push_back(xs);
  }
  expectSameExact(program, r.path, inputs);
}

class CompileVariant : public ::testing::TestWithParam<Conditional> {};

TEST_P(CompileVariant, Vec2vec) {
  Vec2vecParams p;
  p.n = 2;
  p.m = 1;
  p.conditional = GetParam();
  const Graph program = buildVec2vec(p);
  const CompileResult r =
      compileBoth(program, "vec2vec " + std::string(conditionalName(GetParam())));
  const int N = 3;
  std::vector<ExactSequence> inputs;
  std::mt19937_64 rng(11);
  for (int k = 0; k < 2; ++k) {
    const auto x = randomValidQuery(2, N, p.mu, rng);
    inputs.push_back(vec2vecInput(x, 2, 1, N, smoothTestFunction(2, 1, 100 + k)));
  }
  expectSameExact(program, r.path, inputs);
}

// L = 3 where the compiled path is small enough for the CPU executor's size checks and a
// fast test (step_optimized, multiplicative, multiplicative_optimized). The direct and
// optimized variants compile, at L = 3, to paths with 3·10^5 and 6·10^4 states (3.2·10^11
// and 1.9·10^10 dense parameters, as the reference compiler), beyond the executor's
// checks: their outputs are checked at L = 1 on the compiler's sparse evaluator, and L = 3
// is compiled in float64 only (exact takes ~20 s).
int outputCheckLength(Conditional c) {
  return (c == Conditional::Direct || c == Conditional::Optimized) ? 1 : 3;
}

TEST_P(CompileVariant, Tok2tok) {
  Tok2tokParams p;
  p.L = outputCheckLength(GetParam());
  p.conditional = GetParam();
  const Graph program = buildTok2tok(p);
  const CompileResult r = compileBoth(
      program, "tok2tok L=" + std::to_string(p.L) + " " + std::string(conditionalName(GetParam())));
  std::vector<ExactSequence> inputs;
  for (uint64_t seed = 1; seed <= 2; ++seed) {
    const Tok2tokCase c = randomDictionary(3, p.L, 5, seed);
    inputs.push_back(tok2tokInput(c.dictionary, c.query, p.L));
  }
  expectSameExact(program, r.path, inputs, /*sparse=*/p.L == 1);
}

TEST_P(CompileVariant, Tok2tokL3Float64) {
  Tok2tokParams p;
  p.L = 3;
  p.conditional = GetParam();
  const Graph program = buildTok2tok(p);
  CompileOptions f;
  f.backend = Backend::Float64;
  const CompileResult r = compile(program, f);
  report("tok2tok L=3 " + std::string(conditionalName(GetParam())), r);
  EXPECT_TRUE(isPath(r.path));
  EXPECT_GT(r.debranchSteps, 0);
}

INSTANTIATE_TEST_SUITE_P(Conditionals, CompileVariant, ::testing::ValuesIn(allConditionals()),
                         [](const ::testing::TestParamInfo<Conditional>& info) {
                           return std::string(conditionalName(info.param));
                         });

}  // namespace
}  // namespace lsrl
