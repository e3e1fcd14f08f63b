// The Vulkan batch runner against its twin, the fp32 CPU runner: every layer kind and
// recurrence structure, tiling, and the paper's programs compiled exactly and rounded to
// fp32 (with a report of whether fp32 still gives the right answers: fused weights reach
// λμ = 1e13, which fp32 cannot hold — a finding, not a failure).
#include "core/gpu/layer_runner.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <functional>
#include <random>

#include "common/random_paths.h"
#include "core/compiler/compiler.h"
#include "core/executor/executor.h"
#include "core/float_batch/cpu_runner.h"
#include "core/float_batch/target_program.h"
#include "gpu/paper_programs.h"
#include "gpu/vulkan_test_util.h"
#include "targets/arch_helpers.h"

namespace lsrl::gpu {
namespace {

using float_batch::SeriesShape;

// Largest |gpu − cpu| / (1 + |cpu|); fails above `tolerance` (the parity rule's 1e-5 by default).
// With a float64 `reference` of the same model, 4·|cpu − reference| is allowed on top: a
// value that cancels large intermediates (a running sum read through a Linear) keeps
// their absolute rounding error, which fp32 itself shows as its distance to float64 —
// the device and the CPU order their roundings differently (chunked scans, FMA), so they
// may each be that far off, but not much further.
double expectTwins(const std::vector<float>& gpu, const std::vector<float>& cpu,
                   const std::string& what, double tolerance = 1e-5,
                   const std::vector<double>* reference = nullptr) {
  EXPECT_EQ(gpu.size(), cpu.size()) << what;
  double worst = 0;
  for (size_t i = 0; i < std::min(gpu.size(), cpu.size()); ++i) {
    const double fp32Error = reference != nullptr ? std::fabs(cpu[i] - (*reference)[i]) : 0.0;
    const double err =
        std::max(0.0, std::fabs(gpu[i] - cpu[i]) - 4 * fp32Error) / (1 + std::fabs(cpu[i]));
    if (!(err <= tolerance)) {
      ADD_FAILURE() << what << ": value " << i << " gpu " << gpu[i] << " vs cpu " << cpu[i]
                    << (reference != nullptr ? " (float64 " + std::to_string((*reference)[i]) + ")"
                                             : std::string());
      return err;
    }
    worst = std::max(worst, err);
  }
  return worst;
}

// [B][T][width] outputs of a float64 forward pass `run` over the same tokens.
std::vector<double> float64Outputs(const std::function<FloatSequence(const FloatSequence&)>& run,
                                   const SeriesShape& shape, const std::vector<float>& tokens) {
  std::vector<double> out;
  for (int b = 0; b < shape.batch; ++b) {
    FloatSequence seq;
    for (int t = 0; t < shape.steps; ++t) {
      const float* row =
          tokens.data() + (static_cast<size_t>(b) * shape.steps + t) * shape.channels;
      seq.emplace_back(row, row + shape.channels);
    }
    for (const auto& y : run(seq)) out.insert(out.end(), y.begin(), y.end());
  }
  return out;
}

TEST(VulkanLayerRunner, MatchesTheCpuRunnerOnEveryLayerKind) {
  LSRL_VULKAN_DEVICE(dev);
  std::mt19937_64 rng(5);
  const Graph path = testing_paths::everyKindPath(rng);
  const float_batch::LayerProgram p = float_batch::layerProgramFromPath(path);
  LayerRunner runner(dev, p);
  FloatExecutor float64(path);
  for (const SeriesShape shape :
       {SeriesShape{1, 1, 3}, SeriesShape{3, 50, 3}, SeriesShape{7, 301, 3}}) {
    const std::vector<float> tokens = testing_paths::randomTokens(shape, rng);
    const std::vector<float> cpu = float_batch::runLayersCpu(p, shape, tokens);
    const std::vector<double> reference =
        float64Outputs([&](const FloatSequence& s) { return float64.run(s); }, shape, tokens);
    // Fused (path_fusion.h; the default on GPUs), the device sums as the CPU runner does:
    // equal bit for bit (path_fusion_test.cpp). Layer by layer:
    LayerRunOptions fused;
    fused.fusion = PathFusion::On;
    EXPECT_EQ(runner.run(shape, tokens, fused), cpu) << "fused";
    LayerRunTiming timing;
    LayerRunOptions layered;
    layered.fusion = PathFusion::Off;
    const std::vector<float> gpu = runner.run(shape, tokens, layered, &timing);
    EXPECT_FALSE(timing.fused);
    // This path keeps a running sum (a = 1) and a rotation (|a| = 1) whose rounding
    // differences never decay. The sequential kernels round as the CPU twin does, but the
    // chunked scan (the layered default) adds the same terms in another order, so its
    // difference may grow by about an ulp per step: 1e-5 + 5e-7·T relative, and the outputs
    // (which cancel large running sums) within fp32's own distance to float64 beside that.
    const double tolerance = 1e-5 + 5e-7 * shape.steps;
    const double worst = expectTwins(
        gpu, cpu, "B=" + std::to_string(shape.batch) + " T=" + std::to_string(shape.steps),
        tolerance, &reference);
    // Several tiles (a tile of one sequence) and the sequential scan path: the same.
    LayerRunOptions small;
    small.tileBytes = static_cast<size_t>(shape.steps) * 8 * sizeof(float);
    small.scan.path = ScanPath::Sequential;
    LayerRunTiming tiled;
    expectTwins(runner.run(shape, tokens, small, &tiled), cpu, "tiled", 1e-5, &reference);
    EXPECT_EQ(tiled.tiles, shape.batch);
    // Per-layer traces, copied back from the device, match the CPU runner's layer by layer.
    std::vector<std::vector<float>> gpuLayers, cpuLayers;
    float_batch::runLayersCpu(p, shape, tokens, {}, &cpuLayers);
    expectTwins(runner.run(shape, tokens, small, nullptr, &gpuLayers), cpu, "traced", 1e-5,
                &reference);
    ASSERT_EQ(gpuLayers.size(), p.layers.size());
    ASSERT_EQ(cpuLayers.size(), p.layers.size());
    for (size_t k = 0; k < p.layers.size(); ++k)
      expectTwins(gpuLayers[k], cpuLayers[k],
                  "layer " + std::to_string(k) + " " + p.layers[k].source, tolerance);
    std::printf("B=%d T=%d: max rel diff %.2e, kernels %.3f ms\n", shape.batch, shape.steps, worst,
                timing.kernelMs);
  }
  EXPECT_TRUE(dev.validationErrors().empty()) << dev.validationErrors().front();
}

TEST(VulkanLayerRunner, RefusesTokensOfTheWrongShape) {
  LSRL_VULKAN_DEVICE(dev);
  std::mt19937_64 rng(6);
  const float_batch::LayerProgram p =
      float_batch::layerProgramFromPath(testing_paths::everyKindPath(rng));
  LayerRunner runner(dev, p);
  EXPECT_THROW(runner.run({2, 4, 2}, std::vector<float>(16)), Error);
  EXPECT_THROW(runner.run({2, 4, 3}, std::vector<float>(20)), Error);
}

// Every target architecture (core/targets) as an fp32 layer program: the device runs its
// GRU / LSTM cells, ReLU-state recurrences, Hawk's conv, RG-LRU, residual adds and gated
// products like the CPU runner, layer by layer (per-layer traces) and in tiles.
TEST(VulkanLayerRunner, EveryTargetArchitectureMatchesTheCpuRunner) {
  LSRL_VULKAN_DEVICE(dev);
  std::mt19937_64 rng(11);
  const Graph path = testing_paths::everyKindPath(rng);
  const Graph multiFree = testing_paths::multiFreePath(rng);
  const int steps = 23;
  for (const auto& c : testing_arch::allTargetConfigs(steps)) {
    SCOPED_TRACE(c.label);
    const bool noMulti = c.target == Target::LinearRnn || c.target == Target::Rnn;
    const FloatTargetModel model =
        buildTarget(noMulti ? multiFree : path, c.target, c.options).floatModel();
    const float_batch::LayerProgram p = float_batch::layerProgramFromTarget(model);
    const SeriesShape shape{5, steps, p.inputWidth};
    const std::vector<float> tokens = testing_paths::randomTokens(shape, rng);
    std::vector<std::vector<float>> cpuLayers, gpuLayers;
    const std::vector<float> cpu = float_batch::runLayersCpu(p, shape, tokens, {}, &cpuLayers);
    const std::vector<double> reference =
        float64Outputs([&](const FloatSequence& s) { return model.run(s); }, shape, tokens);
    LayerRunner runner(dev, p);
    const double tolerance = 1e-5 + 5e-7 * steps;  // as above: sums that never decay
    const double worst = expectTwins(runner.run(shape, tokens), cpu, "outputs", 1e-5, &reference);
    LayerRunOptions small;
    small.tileBytes =
        static_cast<size_t>(steps) * static_cast<size_t>(p.maxWidth()) * 2 * sizeof(float);
    expectTwins(runner.run(shape, tokens, small, nullptr, &gpuLayers), cpu, "tiled", 1e-5,
                &reference);
    ASSERT_EQ(gpuLayers.size(), p.layers.size());
    for (size_t k = 0; k < p.layers.size(); ++k)
      expectTwins(gpuLayers[k], cpuLayers[k],
                  "layer " + std::to_string(k) + " " + p.layers[k].source, tolerance);
    float largest = 0;
    for (const float v : cpu) largest = std::max(largest, std::fabs(v));
    EXPECT_GT(largest, 0.1f) << "a trivial output proves nothing";
    std::printf("%-30s %3zu layers: outputs up to %8.3g, max rel diff %.2e\n", c.label.c_str(),
                p.layers.size(), largest, worst);
  }
  EXPECT_TRUE(dev.validationErrors().empty()) << dev.validationErrors().front();
}

using testing_vulkan::paperPrograms;
using testing_vulkan::ProgramCase;

TEST(VulkanLayerRunner, PaperProgramsInFp32OnBothRunners) {
  LSRL_VULKAN_DEVICE(dev);
  for (const ProgramCase& c : paperPrograms()) {
    CompileOptions options;
    options.recordHistory = false;
    const Graph path = compile(c.program, options).path;
    const float_batch::LayerProgram p = float_batch::layerProgramFromPath(path);
    const int steps = static_cast<int>(c.inputs.front().size());
    std::vector<float> tokens;
    for (const ExactSequence& s : c.inputs) {
      ASSERT_EQ(static_cast<int>(s.size()), steps) << c.name;
      for (const ExactVector& v : s)
        for (const Exact& e : v) tokens.push_back(static_cast<float>(e.toDouble()));
    }
    const SeriesShape shape{static_cast<int>(c.inputs.size()), steps, p.inputWidth};
    const std::vector<float> cpu = float_batch::runLayersCpu(p, shape, tokens);
    LayerRunner runner(dev, p);
    LayerRunOptions layered, fused;
    layered.fusion = PathFusion::Off;
    fused.fusion = PathFusion::On;
    const std::vector<float> gpu = runner.run(shape, tokens, layered);
    expectTwins(gpu, cpu, c.name);
    EXPECT_EQ(runner.run(shape, tokens, fused), cpu) << c.name << " fused";
    // How far fp32 is from the exact answers (outputs at every step).
    double worst = 0;
    int wrong = 0;
    for (size_t b = 0; b < c.inputs.size(); ++b) {
      Executor<Exact> ex(c.program);
      const ExactSequence want = ex.run(c.inputs[b]);
      for (int t = 0; t < steps; ++t) {
        for (int j = 0; j < p.outputWidth; ++j) {
          const double w = want[static_cast<size_t>(t)][static_cast<size_t>(j)].toDouble();
          const double g = gpu[(b * steps + t) * p.outputWidth + j];
          worst = std::max(worst, std::fabs(g - w));
          wrong += std::lround(g) != std::lround(w) ? 1 : 0;
        }
      }
    }
    std::printf("%-34s fp32 vs exact: max |diff| %.3g, %d of %d outputs round differently\n",
                c.name.c_str(), worst, wrong, shape.batch * steps * p.outputWidth);
  }
}

}  // namespace
}  // namespace lsrl::gpu
