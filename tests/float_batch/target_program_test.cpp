// The target architectures as fp32 layer programs (core/float_batch/target_program.h) on the CPU
// batch runner, against the float64 forward passes of core/targets (FloatTargetModel::run):
// every target and variant of a small program with a Multi (and a Multi-free one for
// linear-rnn and rnn). Also the buffer plan the runners share, and the program checks.
#include "core/float_batch/target_program.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "common/expect_error.h"
#include "core/float_batch/cpu_runner.h"
#include "targets/arch_helpers.h"

namespace lsrl::float_batch {
namespace {

using testing_arch::mat;
using testing_arch::vec;

using testing_arch::multiFreePath;
using testing_arch::pathWithMulti;

constexpr int kSteps = 14;

// The largest |fp32 − float64| / max(1, |float64|) over B random sequences, checked against
// `tolerance`: fp32 keeps about 7 digits, and these small models' values stay below ~1e3.
double expectNearFloat64(const FloatTargetModel& model, const LayerProgram& p, unsigned seed,
                         double tolerance) {
  std::mt19937 rng(seed);
  const int B = 3;
  std::vector<FloatSequence> sequences;
  std::vector<float> tokens;
  for (int b = 0; b < B; ++b) {
    sequences.push_back(floatTokens(testing_arch::randomTokens(rng, kSteps, p.inputWidth)));
    for (const auto& row : sequences.back())
      for (const double x : row) tokens.push_back(static_cast<float>(x));
  }
  const std::vector<float> got = runLayersCpu(p, {B, kSteps, p.inputWidth}, tokens);
  double worst = 0;
  for (int b = 0; b < B; ++b) {
    const FloatSequence want = model.run(sequences[static_cast<size_t>(b)]);
    for (int t = 0; t < kSteps; ++t) {
      for (int j = 0; j < p.outputWidth; ++j) {
        const double w = want[static_cast<size_t>(t)][static_cast<size_t>(j)];
        const double g = got[static_cast<size_t>((b * kSteps + t) * p.outputWidth + j)];
        const double err = std::fabs(g - w) / std::max(1.0, std::fabs(w));
        EXPECT_LE(err, tolerance) << "sequence " << b << ", token " << t << ", output " << j
                                  << ": fp32 " << g << " vs float64 " << w;
        worst = std::max(worst, err);
      }
    }
  }
  return worst;
}

TEST(TargetProgram, EveryTargetRunsInFp32LikeItsFloat64ForwardPass) {
  int checked = 0;
  for (const auto& c : testing_arch::allTargetConfigs(kSteps)) {
    SCOPED_TRACE(c.label);
    const bool multiFreeOnly = c.target == Target::LinearRnn || c.target == Target::Rnn;
    const TargetModel built =
        buildTarget(multiFreeOnly ? multiFreePath() : pathWithMulti(), c.target, c.options);
    const FloatTargetModel model = built.floatModel();
    const LayerProgram p = layerProgramFromTarget(model);
    EXPECT_EQ(p.inputWidth, model.inputDim());
    EXPECT_EQ(p.outputWidth, model.outputDim());
    // The shift adds c to a state and takes it off again after the ReLU: what is left has
    // lost about eps·c (docs/spec/targets.md §2.2) — in fp32, eps = 6e-8.
    double shift = 0;
    for (const ExactVector& v : built.shiftC)
      for (const Exact& x : v) shift = std::max(shift, std::fabs(x.toDouble()));
    const double tolerance = 1e-4 + 1e-6 * shift;
    const double worst = expectNearFloat64(model, p, 7, tolerance);
    std::printf("%-30s %3zu layers, shift c up to %-8.3g fp32 vs float64 max rel diff %.2e\n",
                c.label.c_str(), p.layers.size(), shift, worst);
    ++checked;
  }
  EXPECT_GE(checked, 14);
}

TEST(TargetProgram, LayersAreNamedAfterWhatTheyCompute) {
  TargetOptions box;
  box.shift.horizon = kSteps;
  const LayerProgram gru =
      layerProgramFromTarget(buildTarget(pathWithMulti(), Target::Gru, box).floatModel());
  EXPECT_EQ(gru.layers.front().source, "gru layer 0: W_ih");
  EXPECT_EQ(gru.layers.back().source, "readout");
  EXPECT_TRUE(std::any_of(gru.layers.begin(), gru.layers.end(),
                          [](const Layer& l) { return l.kind == Layer::Kind::GruCell; }));
  const LayerProgram hawk =
      layerProgramFromTarget(buildTarget(pathWithMulti(), Target::Hawk, box).floatModel());
  EXPECT_EQ(hawk.layers.front().source, "embed");
  EXPECT_EQ(hawk.maxSteps, kSteps);
  for (const Layer::Kind k :
       {Layer::Kind::Conv1d, Layer::Kind::RgLru, Layer::Kind::Add, Layer::Kind::Mul})
    EXPECT_TRUE(std::any_of(hawk.layers.begin(), hawk.layers.end(),
                            [k](const Layer& l) { return l.kind == k; }));
}

TEST(TargetProgram, HawkRefusesSequencesBeyondItsHorizon) {
  TargetOptions box;
  box.shift.horizon = 4;
  const LayerProgram p =
      layerProgramFromTarget(buildTarget(pathWithMulti(), Target::Hawk, box).floatModel());
  const std::vector<float> tokens(static_cast<size_t>(5 * p.inputWidth), 0.5f);
  testing_common::expectError(
      [&] {
        runLayersCpu(p, {1, 5, p.inputWidth}, tokens);
      },
      "hawk", "5 tokens exceed the horizon T = 4");
}

TEST(TargetProgram, PerLayerTracesEndWithTheOutput) {
  const TargetModel built = buildTarget(pathWithMulti(), Target::Lstm);
  const LayerProgram p = layerProgramFromTarget(built.floatModel());
  std::mt19937 rng(3);
  std::vector<float> tokens;
  for (const auto& row : floatTokens(testing_arch::randomTokens(rng, 9, p.inputWidth)))
    for (const double x : row) tokens.push_back(static_cast<float>(x));
  std::vector<std::vector<float>> layers;
  const std::vector<float> out = runLayersCpu(p, {1, 9, p.inputWidth}, tokens, {}, &layers);
  ASSERT_EQ(layers.size(), p.layers.size());
  EXPECT_EQ(layers.back(), out);
  for (size_t k = 0; k < p.layers.size(); ++k)
    EXPECT_EQ(layers[k].size(), static_cast<size_t>(9 * p.layers[k].outWidth)) << k;
}

// x → Linear a → ReLU (in place on a) → Linear b → Add(b, a') → Linear c.
LayerProgram branching() {
  LayerProgram p;
  p.inputWidth = 2;
  auto linear = [&](int in, int rows, int cols) {
    Layer L;
    L.kind = Layer::Kind::Linear;
    L.inputs = {in};
    L.inWidth = cols;
    L.outWidth = rows;
    for (int r = 0; r < rows; ++r) {
      L.A.col.push_back(static_cast<uint32_t>(r % cols));
      L.A.val.push_back(1.0f + static_cast<float>(r));
      L.A.rowPtr.push_back(static_cast<uint32_t>(L.A.col.size()));
    }
    L.A.rows = rows;
    L.A.cols = cols;
    L.bias.assign(static_cast<size_t>(rows), -1.0f);
    p.layers.push_back(L);
  };
  linear(kTokens, 3, 2);  // 0
  Layer relu;
  relu.kind = Layer::Kind::Relu;
  relu.inputs = {0};
  relu.inWidth = relu.outWidth = 3;
  p.layers.push_back(relu);  // 1
  linear(1, 3, 3);           // 2
  Layer add;
  add.kind = Layer::Kind::Add;
  add.inputs = {2, 1};
  add.inWidth = add.outWidth = 3;
  p.layers.push_back(add);  // 3
  linear(3, 1, 3);          // 4
  p.outputWidth = 1;
  return p;
}

TEST(BufferPlan, ReusesBuffersAndWritesElementwiseLayersInPlace) {
  const LayerProgram p = branching();
  p.validate();
  const BufferPlan plan = planBuffers(p, false);
  EXPECT_TRUE(plan.inPlace(p, 1));                // the ReLU over layer 0, which nothing else reads
  EXPECT_TRUE(plan.inPlace(p, 3));                // the Add over layer 2
  EXPECT_FALSE(plan.inPlace(p, 2));               // a matrix never writes over its input
  EXPECT_NE(plan.bufferOf[2], plan.bufferOf[1]);  // layer 1 is still read by the Add
  EXPECT_EQ(plan.bufferWidth.size(), 2u);
  const BufferPlan traced = planBuffers(p, true);
  EXPECT_EQ(traced.bufferWidth.size(), p.layers.size());
  // Computed by hand: a = relu([x0−1, 2x1−1, 3x0−1]); b = [a0−1, 2a1−1, 3a2−1]; out = (b+a)0·1 − 1.
  const std::vector<float> out = runLayersCpu(p, {1, 1, 2}, std::vector<float>{1.0f, 2.0f});
  const float a0 = 0, b0 = a0 - 1;
  EXPECT_FLOAT_EQ(out.at(0), (b0 + a0) - 1);
}

TEST(LayerProgramChecks, NameTheLayerAndWhatIsWrong) {
  LayerProgram p = branching();
  p.layers[3].inputs = {2, 4};
  testing_common::expectError([&] { p.validate(); }, "layer 3",
                              "reads layer 4, not an earlier layer");
  p = branching();
  p.layers[3].inputs = {2};
  testing_common::expectError([&] { p.validate(); }, "layer 3", "reads 1 inputs, expected 2");
  p = branching();
  p.layers[2].bias.pop_back();
  testing_common::expectError([&] { p.validate(); }, "layer 2", "bias has 2 entries, expected 3");
}

}  // namespace
}  // namespace lsrl::float_batch
