// The fp32 batch runner (core/float_batch/cpu_runner.h) against the float64 DAG executor on the
// same paths: hand-built ones covering every layer kind and recurrence structure, and the
// paper's compiled vec2vec.
#include "core/float_batch/cpu_runner.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>

#include "common/random_paths.h"
#include "core/compiler/compiler.h"
#include "core/executor/executor.h"
#include "core/programs/prompts.h"
#include "core/programs/vec2vec.h"

namespace lsrl::float_batch {
namespace {

using testing_paths::everyKindPath;
using testing_paths::randomTokens;

// The float64 executor's outputs for each sequence, [b][t][out].
std::vector<double> reference(const Graph& g, const std::vector<float>& tokens,
                              const SeriesShape& shape) {
  std::vector<double> out;
  Executor<double> ex(g);
  for (int b = 0; b < shape.batch; ++b) {
    FloatSequence xs;
    for (int t = 0; t < shape.steps; ++t) {
      FloatVector v;
      for (int c = 0; c < shape.channels; ++c)
        v.push_back(tokens[(static_cast<size_t>(b) * shape.steps + t) * shape.channels + c]);
      xs.push_back(std::move(v));
    }
    for (const FloatVector& y : ex.run(xs)) out.insert(out.end(), y.begin(), y.end());
  }
  return out;
}

TEST(LayerProgram, ClassifiesEveryRecurrence) {
  std::mt19937_64 rng(1);
  const LayerProgram p = layerProgramFromPath(everyKindPath(rng));
  ASSERT_EQ(p.layers.size(), 8u);
  EXPECT_EQ(p.inputWidth, 3);
  EXPECT_EQ(p.outputWidth, 2);
  EXPECT_EQ(p.layers[2].recurrence, Recurrence::Diagonal);
  EXPECT_EQ(p.layers[2].diagonal[3], -0.75f);
  EXPECT_EQ(p.layers[5].recurrence, Recurrence::Blocks2);
  EXPECT_EQ(p.layers[5].blocks[4 + 2], 1.0f / 3);  // block 1, row 1, column 0
  EXPECT_EQ(p.layers[6].recurrence, Recurrence::General);
  EXPECT_EQ(p.layers[4].kind, Layer::Kind::Multi);
  EXPECT_EQ(p.maxWidth(), 8);
}

TEST(LayerProgram, RefusesAGraphThatIsNotAPath) {
  Graph g;
  const NodeId x = g.addInput(2, "x");
  const NodeId a = g.addReLU(x, "a");
  g.setOutput(g.addConcat({a, x}, "both"));
  try {
    layerProgramFromPath(g);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("not a path"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("'both'"), std::string::npos) << e.what();
  }
}

TEST(CpuRunner, MatchesTheFloat64ExecutorOnEveryLayerKind) {
  std::mt19937_64 rng(2);
  const Graph g = everyKindPath(rng);
  const LayerProgram p = layerProgramFromPath(g);
  const SeriesShape shape{5, 37, 3};
  const std::vector<float> tokens = randomTokens(shape, rng);
  const std::vector<double> want = reference(g, tokens, shape);
  // Tiles of one sequence over two threads, and one tile on one thread: the same result.
  const std::vector<float> got = runLayersCpu(p, shape, tokens, {.threads = 2, .tileBytes = 1});
  EXPECT_EQ(got, runLayersCpu(p, shape, tokens, {.threads = 1}));
  ASSERT_EQ(got.size(), want.size());
  double worst = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    const double err = std::fabs(got[i] - want[i]) / (1 + std::fabs(want[i]));
    worst = std::max(worst, err);
    ASSERT_LE(err, 1e-4) << "output value " << i << ": " << got[i] << " vs " << want[i];
  }
  std::printf("every-kind path, 5 × 37 tokens: max |fp32 − float64| / (1 + |float64|) = %.2e\n",
              worst);
  // The per-layer trace: the last layer is the output, and the diagonal LinState's layer
  // is the executor's value of that node.
  std::vector<std::vector<float>> layers;
  runLayersCpu(p, shape, tokens, {.threads = 2, .tileBytes = 1}, &layers);
  ASSERT_EQ(layers.size(), p.layers.size());
  EXPECT_EQ(layers.back(), got);
  const NodeId diag = g.findByName("diag");
  FloatTrace trace;
  FloatSequence first;
  for (int t = 0; t < shape.steps; ++t)
    first.push_back({tokens[3 * t], tokens[3 * t + 1], tokens[3 * t + 2]});
  Executor<double>(g).run(first, &trace);
  for (int t = 0; t < shape.steps; ++t)
    for (int c = 0; c < 6; ++c)
      EXPECT_NEAR(layers[2][6 * t + c], trace.value(diag, t)[c], 1e-4) << "t " << t << " c " << c;
}

TEST(CpuRunner, RefusesTokensOfTheWrongShape) {
  std::mt19937_64 rng(3);
  const LayerProgram p = layerProgramFromPath(everyKindPath(rng));
  EXPECT_THROW(runLayersCpu(p, {2, 4, 2}, std::vector<float>(16)), Error);  // width 2, reads 3
  EXPECT_THROW(runLayersCpu(p, {2, 4, 3}, std::vector<float>(20)), Error);  // 24 values needed
  EXPECT_THROW(runLayersCpu(p, {0, 4, 3}, std::vector<float>()), Error);
}

// The paper's vec2vec compiled exactly, rounded to fp32: does it still interpolate?
TEST(CpuRunner, CompiledVec2vecInFp32) {
  for (const Conditional variant : {Conditional::Direct, Conditional::Multiplicative}) {
    Vec2vecParams params;
    params.n = 2;
    params.m = 1;
    params.conditional = variant;
    const Graph program = buildVec2vec(params);
    CompileOptions options;
    options.recordHistory = false;
    const Graph path = compile(program, options).path;
    const LayerProgram p = layerProgramFromPath(path);
    const int N = 4;
    std::mt19937_64 rng(4);
    const SeriesShape shape{6, 0, p.inputWidth};
    std::vector<float> tokens;
    int steps = 0;
    for (int b = 0; b < shape.batch; ++b) {
      const auto x = randomValidQuery(2, N, params.mu, rng);
      const ExactSequence input = vec2vecInput(x, 2, 1, N, smoothTestFunction(2, 1, 7));
      steps = static_cast<int>(input.size());
      for (const ExactVector& v : input)
        for (const Exact& e : v) tokens.push_back(static_cast<float>(e.toDouble()));
    }
    const SeriesShape s{shape.batch, steps, p.inputWidth};
    const std::vector<float> got = runLayersCpu(p, s, tokens);
    const std::vector<double> want = reference(path, tokens, s);
    double worst = 0;
    for (int b = 0; b < s.batch; ++b) {
      const size_t last = (static_cast<size_t>(b) * steps + steps - 1) * p.outputWidth;
      worst = std::max(worst, std::fabs(got[last] - want[last]));
    }
    std::printf("vec2vec n=2 m=1 %s (N=%d, %d tokens): final output max |fp32 − float64| = %.3g\n",
                std::string(conditionalName(variant)).c_str(), N, steps, worst);
    // A finding, not a bar: fp32 cannot hold λμ = 1e13 products exactly. The outputs must
    // at least be finite.
    for (float v : got) EXPECT_TRUE(std::isfinite(v));
  }
}

}  // namespace
}  // namespace lsrl::float_batch
