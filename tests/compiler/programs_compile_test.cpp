// The paper's programs in all five conditional variants compile to a path graph; in the
// exact backend the path's outputs equal the program's on seeded inputs, and the float64
// compile completes (its outputs may differ: that is the paper's point about λ·μ products).
#include <gtest/gtest.h>

#include <iostream>
#include <random>

#include "compiler/compile_test_util.h"
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

// Float64 and exact; `optimize` false is the plain paper algorithm (`--no-optimize`).
CompileResult compileBoth(const Graph& program, const std::string& what, bool optimize = true) {
  CompileOptions f;
  f.backend = Backend::Float64;
  f.optimize = optimize;
  const CompileResult rf = compile(program, f);
  report(what, rf);
  EXPECT_TRUE(isPath(rf.path)) << what;
  CompileOptions e;
  e.backend = Backend::Exact;
  e.optimize = optimize;
  CompileResult re = compile(program, e);
  report(what, re);
  EXPECT_TRUE(isPath(re.path)) << what;
  EXPECT_EQ(rf.stepCount, re.stepCount) << what;
  return re;
}

TEST(CompilePrograms, MoreOnes) {
  const Graph program = buildMoreOnes();
  std::vector<ExactSequence> inputs;
  std::mt19937_64 rng(7);
  for (int k = 0; k < 3; ++k) {
    ExactSequence xs;
    for (int t = 0; t < 12; ++t) xs.push_back({Exact(uniformInt(rng, 0, 1))});
    inputs.push_back(xs);
  }
  for (const bool optimize : {true, false}) {
    const CompileResult r = compileBoth(program, "more_ones", optimize);
    expectSameExact(program, r.path, inputs);
  }
}

class CompileVariant : public ::testing::TestWithParam<Conditional> {};

TEST_P(CompileVariant, Vec2vec) {
  Vec2vecParams p;
  p.n = 2;
  p.m = 1;
  p.conditional = GetParam();
  const Graph program = buildVec2vec(p);
  const int N = 3;
  std::vector<ExactSequence> inputs;
  std::mt19937_64 rng(11);
  for (int k = 0; k < 2; ++k) {
    const auto x = randomValidQuery(2, N, p.mu, rng);
    inputs.push_back(vec2vecInput(x, 2, 1, N, smoothTestFunction(2, 1, 100 + k)));
  }
  for (const bool optimize : {true, false}) {
    const CompileResult r =
        compileBoth(program, "vec2vec " + std::string(conditionalName(GetParam())), optimize);
    expectSameExact(program, r.path, inputs);
  }
}

TEST_P(CompileVariant, Tok2tok) {
  Tok2tokParams p;
  p.L = 3;
  p.conditional = GetParam();
  const Graph program = buildTok2tok(p);
  const CompileResult r = compileBoth(
      program, "tok2tok L=" + std::to_string(p.L) + " " + std::string(conditionalName(GetParam())));
  std::vector<ExactSequence> inputs;
  for (uint64_t seed = 1; seed <= 2; ++seed) {
    const Tok2tokCase c = randomDictionary(3, p.L, 5, seed);
    inputs.push_back(tok2tokInput(c.dictionary, c.query, p.L));
  }
  expectSameExact(program, r.path, inputs);
}

// The plain algorithm on tok2tok L = 3 builds paths of up to 3·10^5 states and 3.2·10^11
// dense parameters (the reference's sizes): float64 only here (exact takes ~18 s).
TEST_P(CompileVariant, Tok2tokL3PlainFloat64) {
  Tok2tokParams p;
  p.L = 3;
  p.conditional = GetParam();
  const Graph program = buildTok2tok(p);
  CompileOptions f;
  f.backend = Backend::Float64;
  f.optimize = false;
  f.recordHistory = false;
  const CompileResult r = compile(program, f);
  report("tok2tok L=3 plain " + std::string(conditionalName(GetParam())), r);
  EXPECT_EQ(r.ruleCounts.count("O1 compact"), 0u);
  EXPECT_TRUE(isPath(r.path));
  EXPECT_GT(r.debranchSteps, 0);
}

INSTANTIATE_TEST_SUITE_P(Conditionals, CompileVariant, ::testing::ValuesIn(allConditionals()),
                         [](const ::testing::TestParamInfo<Conditional>& info) {
                           return std::string(conditionalName(info.param));
                         });

}  // namespace
}  // namespace lsrl
