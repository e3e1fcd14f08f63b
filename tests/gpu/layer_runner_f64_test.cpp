// The Vulkan runner in fp64 (LayerRunner64, docs/vulkan.md "Float64 on the device") against
// the float64 graph executor, the CPU reference of `lsrl run MODEL.json`: every layer kind
// of a compiled path and the paper's programs compiled exactly, to 1e-12 relative
// (|gpu − float64| ≤ 1e-12·(1 + |float64|)), with tok2tok's wrong answers counted against
// fp32's; the refusals (layers without fp64 kernels, a device without shaderFloat64).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <random>
#include <string>

#include "common/random_paths.h"
#include "core/compiler/compiler.h"
#include "core/executor/executor.h"
#include "core/gpu/layer_runner.h"
#include "core/gpu/scan_kernels.h"
#include "gpu/float_parity.h"
#include "gpu/paper_programs.h"
#include "gpu/vulkan_test_util.h"

namespace lsrl::gpu {
namespace {

using float_batch::SeriesShape;
using testing_vulkan::expectFp64Parity;

// [B][T][width] outputs of the float64 executor over [B][T][inputWidth] tokens.
std::vector<double> executorOutputs(const Graph& path, const SeriesShape& shape,
                                    const std::vector<double>& tokens) {
  FloatExecutor ex(path);
  std::vector<double> out;
  for (int b = 0; b < shape.batch; ++b) {
    FloatSequence seq;
    for (int t = 0; t < shape.steps; ++t) {
      const double* row =
          tokens.data() + (static_cast<size_t>(b) * shape.steps + t) * shape.channels;
      seq.emplace_back(row, row + shape.channels);
    }
    for (const auto& y : ex.run(seq)) out.insert(out.end(), y.begin(), y.end());
  }
  return out;
}

TEST(VulkanLayerRunnerF64, MatchesTheFloat64ExecutorOnEveryLayerKind) {
  LSRL_VULKAN_DEVICE(dev);
  if (!dev.info().shaderFloat64) GTEST_SKIP() << dev.info().name << " has no shaderFloat64";
  std::mt19937_64 rng(5);
  const Graph path = testing_paths::everyKindPath(rng);
  const float_batch::LayerProgram64 p = float_batch::layerProgramFromPath<double>(path);
  LayerRunner64 runner(dev, p);
  for (const SeriesShape shape :
       {SeriesShape{1, 1, 3}, SeriesShape{3, 50, 3}, SeriesShape{7, 301, 3}}) {
    const std::vector<float> floats = testing_paths::randomTokens(shape, rng);
    const std::vector<double> tokens(floats.begin(), floats.end());
    const std::vector<double> reference = executorOutputs(path, shape, tokens);
    const std::string at = "B=" + std::to_string(shape.batch) + " T=" + std::to_string(shape.steps);
    const double worst = expectFp64Parity(runner.run(shape, tokens), reference, at);
    // Tiles of one sequence, the sequential scan, per-layer outputs: the same.
    LayerRunOptions small;
    small.tileBytes = static_cast<size_t>(shape.steps) * 8 * sizeof(double);
    small.scan.path = ScanPath::Sequential;
    LayerRunTiming tiled;
    std::vector<std::vector<double>> layers;
    const double sequential = expectFp64Parity(runner.run(shape, tokens, small, &tiled, &layers),
                                               reference, at + " tiled");
    EXPECT_EQ(tiled.tiles, shape.batch);
    ASSERT_EQ(layers.size(), p.layers.size());
    EXPECT_EQ(layers.back(), runner.run(shape, tokens, small));
    std::printf("%s: fp64 vs float64 max rel %.2e (chunked scan), %.2e (sequential)\n", at.c_str(),
                worst, sequential);
  }
  EXPECT_TRUE(dev.validationErrors().empty()) << dev.validationErrors().front();
}

// Outputs whose rounding differs from the exact answer's (tok2tok's outputs are tokens).
int wrongAnswers(const testing_vulkan::ProgramCase& c, const std::vector<double>& outputs,
                 int width) {
  const size_t steps = c.inputs.front().size();
  int wrong = 0;
  for (size_t b = 0; b < c.inputs.size(); ++b) {
    Executor<Exact> ex(c.program);
    const ExactSequence want = ex.run(c.inputs[b]);
    for (size_t t = 0; t < steps; ++t)
      for (int j = 0; j < width; ++j) {
        const double w = want[t][static_cast<size_t>(j)].toDouble();
        const double g = outputs[(b * steps + t) * static_cast<size_t>(width) + j];
        wrong += std::lround(g) != std::lround(w) ? 1 : 0;
      }
  }
  return wrong;
}

// The paper's programs compiled exactly, in fp64 on the device: within 1e-12 of the float64
// executor on the same compiled path, and tok2tok answers as float64 does (0 wrong) where
// fp32 gets 59 of 168 wrong (layer_runner_test.cpp).
TEST(VulkanLayerRunnerF64, PaperProgramsMatchTheFloat64Executor) {
  LSRL_VULKAN_DEVICE(dev);
  if (!dev.info().shaderFloat64) GTEST_SKIP() << dev.info().name << " has no shaderFloat64";
  for (const testing_vulkan::ProgramCase& c : testing_vulkan::paperPrograms()) {
    SCOPED_TRACE(c.name);
    CompileOptions options;
    options.recordHistory = false;
    const Graph path = compile(c.program, options).path;
    const float_batch::LayerProgram64 p = float_batch::layerProgramFromPath<double>(path);
    const int steps = static_cast<int>(c.inputs.front().size());
    std::vector<double> tokens;
    for (const ExactSequence& s : c.inputs) {
      ASSERT_EQ(static_cast<int>(s.size()), steps);
      for (const ExactVector& v : s)
        for (const Exact& e : v) tokens.push_back(e.toDouble());
    }
    const SeriesShape shape{static_cast<int>(c.inputs.size()), steps, p.inputWidth};
    const std::vector<double> reference = executorOutputs(path, shape, tokens);
    const std::vector<double> gpu = LayerRunner64(dev, p).run(shape, tokens);
    const double worst = expectFp64Parity(gpu, reference, c.name);
    LayerRunOptions sequential;
    sequential.scan.path = ScanPath::Sequential;
    const double worstSequential =
        expectFp64Parity(LayerRunner64(dev, p).run(shape, tokens, sequential), reference, c.name);
    // fp32 on the same device, for the wrong-answer counts side by side.
    const std::vector<float> tokens32(tokens.begin(), tokens.end());
    const std::vector<float> fp32 =
        LayerRunner(dev, float_batch::layerProgramFromPath(path)).run(shape, tokens32);
    const int wrong64 = wrongAnswers(c, gpu, p.outputWidth);
    const int wrongFloat64 = wrongAnswers(c, reference, p.outputWidth);
    const int wrong32 =
        wrongAnswers(c, std::vector<double>(fp32.begin(), fp32.end()), p.outputWidth);
    if (c.name.rfind("tok2tok", 0) == 0) {
      EXPECT_EQ(wrong64, wrongFloat64);
    }
    std::printf(
        "%-34s fp64 vs float64 max rel %.2e (sequential scan %.2e); outputs rounding wrongly "
        "of %d: fp64 %d, float64 %d, fp32 %d\n",
        c.name.c_str(), worst, worstSequential, shape.batch * steps * p.outputWidth, wrong64,
        wrongFloat64, wrong32);
  }
  EXPECT_TRUE(dev.validationErrors().empty()) << dev.validationErrors().front();
}

TEST(VulkanLayerRunnerF64, RefusesLayersWithoutFp64KernelsNamingThem) {
  LSRL_VULKAN_DEVICE(dev);
  if (!dev.info().shaderFloat64) GTEST_SKIP() << dev.info().name << " has no shaderFloat64";
  float_batch::LayerProgram64 p;
  p.inputWidth = p.outputWidth = 2;
  float_batch::Layer64 conv;
  conv.kind = float_batch::LayerKind::Conv1d;
  conv.inputs = {float_batch::kTokens};
  conv.inWidth = conv.outWidth = 2;
  conv.source = "conv 0";
  conv.taps = {1, 1};
  conv.bias = {0, 0};
  p.layers.push_back(conv);
  try {
    LayerRunner64 runner(dev, p);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("layer 0 (conv 0) has no fp64 kernels"), std::string::npos) << what;
  }
}

// A device without shaderFloat64 (opened as if it lacked it): every fp64 entry point says
// so naming the device, and fp32 still runs on it.
TEST(VulkanLayerRunnerF64, ADeviceWithoutShaderFloat64RefusesFp64NamingIt) {
  LSRL_VULKAN_DEVICE(shared);
  std::unique_ptr<Device> dev;
  try {
    dev = Device::open({.index = shared.info().index, .validation = true, .withoutFloat64 = true});
  } catch (const VulkanUnavailable& e) {
    FAIL() << e.what();
  }
  ASSERT_FALSE(dev->info().shaderFloat64);
  const std::string want = "device " + dev->info().name +
                           " has no shaderFloat64: use --precision fp32 or the float64 CPU backend";
  std::mt19937_64 rng(3);
  const Graph path = testing_paths::everyKindPath(rng);
  auto expectRefusal = [&](auto f, const char* what) {
    try {
      f();
      ADD_FAILURE() << what << ": no error";
    } catch (const Error& e) {
      EXPECT_EQ(std::string(e.what()), want) << what;
    }
  };
  expectRefusal([&] { LayerRunner64(*dev, float_batch::layerProgramFromPath<double>(path)); },
                "LayerRunner64");
  expectRefusal([&] { ScanKernels(*dev, Real::F64); }, "ScanKernels");
  const SeriesShape shape{2, 5, 3};
  const std::vector<float> tokens = testing_paths::randomTokens(shape, rng);
  const float_batch::LayerProgram p32 = float_batch::layerProgramFromPath(path);
  EXPECT_EQ(LayerRunner(*dev, p32).run(shape, tokens).size(), size_t(10) * p32.outputWidth);
  EXPECT_TRUE(dev->validationErrors().empty()) << dev->validationErrors().front();
}

}  // namespace
}  // namespace lsrl::gpu
