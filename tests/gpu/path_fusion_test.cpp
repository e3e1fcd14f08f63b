// Fused compiled paths (core/gpu/path_fusion.h, shaders/path_fused.comp) and the timeline
// that counts what a run costs (core/gpu/timeline.h): the shared-memory layout never lets
// a live value be overwritten; fused fp32 equals the CPU runner bit for bit and fused fp64
// the layered fp64 runner with sequential scans; a tile is one dispatch where the device has
// no loop budget and ⌈T / stepsPerDispatch⌉ where it has one (lavapipe), and the layered
// twin the dispatches its layers make — a change that splits dispatches again fails here.
#include "core/gpu/path_fusion.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "common/random_paths.h"
#include "core/compiler/compiler.h"
#include "core/float_batch/cpu_runner.h"
#include "core/gpu/kernel_support.h"
#include "core/gpu/layer_runner.h"
#include "core/gpu/timeline.h"
#include "core/programs/prompts.h"
#include "core/programs/vec2vec.h"
#include "gpu/paper_programs.h"
#include "gpu/vulkan_test_util.h"

namespace lsrl::gpu {
namespace {

using float_batch::LayerKind;
using float_batch::SeriesShape;

float_batch::LayerProgram everyKindProgram(uint64_t seed) {
  std::mt19937_64 rng(seed);
  return float_batch::layerProgramFromPath(testing_paths::everyKindPath(rng));
}

struct CompiledCase {
  std::string name;
  Graph path;
  SeriesShape shape;
  std::vector<double> tokens;
};

// The paper's programs compiled exactly, with their 8 inputs each.
std::vector<CompiledCase> compiledPaperPrograms() {
  std::vector<CompiledCase> out;
  for (const testing_vulkan::ProgramCase& c : testing_vulkan::paperPrograms()) {
    CompileOptions options;
    options.recordHistory = false;
    CompiledCase k{c.name, compile(c.program, options).path, {}, {}};
    const int steps = static_cast<int>(c.inputs.front().size());
    for (const ExactSequence& s : c.inputs)
      for (const ExactVector& v : s)
        for (const Exact& e : v) k.tokens.push_back(e.toDouble());
    k.shape = {static_cast<int>(c.inputs.size()), steps,
               static_cast<int>(k.tokens.size() / (c.inputs.size() * steps))};
    out.push_back(std::move(k));
  }
  return out;
}

// Each layer's shared region [offset, offset + width) from the packed descriptors
// (path_fused.comp: 16 uints per layer, D_OUT = 1, D_WIDTH = 2).
struct Region {
  uint32_t offset, width;
  bool overlaps(const Region& o) const {
    return offset < o.offset + o.width && o.offset < offset + width;
  }
};
Region regionOf(const FusedPathLayout& image, size_t layer) {
  return {image.meta[layer * 16 + 1], std::max<uint32_t>(image.meta[layer * 16 + 2], 1)};
}

// No value is overwritten while something still reads it: two layers share memory only
// when the first is dead (its last reader ran) before the second writes, LinStates (whose
// regions carry h_{t−1} from step to step) share with nobody, and the tokens, the scratch
// and the output stay apart from everything live.
template <class Scalar>
void expectSafeLayout(const float_batch::BasicLayerProgram<Scalar>& p, const std::string& what) {
  const FusedPathImage<Scalar> image = fusedPathImage(p);
  const size_t L = p.layers.size();
  std::vector<size_t> lastReader(L);
  for (size_t k = 0; k < L; ++k) lastReader[k] = k;
  for (size_t k = 0; k < L; ++k)
    for (const int in : p.layers[k].inputs)
      if (in != float_batch::kTokens) lastReader[static_cast<size_t>(in)] = k;
  lastReader[L - 1] = L;
  const Region tokens{0, std::max<uint32_t>(image.inWidth, 1)};
  const Region scratch{image.scratchOffset, 1};
  for (size_t j = 0; j < L; ++j) {
    const Region rj = regionOf(image, j);
    EXPECT_LE(rj.offset + rj.width, image.sharedValues) << what << ": layer " << j;
    EXPECT_FALSE(rj.overlaps(tokens)) << what << ": layer " << j << " over the tokens";
    for (size_t k = j + 1; k < L; ++k) {
      if (!rj.overlaps(regionOf(image, k))) continue;
      const bool persistent =
          p.layers[j].kind == LayerKind::LinState || p.layers[k].kind == LayerKind::LinState;
      EXPECT_FALSE(persistent) << what << ": LinState region shared by layers " << j << ", " << k;
      EXPECT_LT(lastReader[j], k) << what << ": layer " << k << " overwrites layer " << j
                                  << ", read until layer " << lastReader[j];
    }
    const bool general = p.layers[j].kind == LayerKind::LinState &&
                         p.layers[j].recurrence == float_batch::Recurrence::General;
    if (general) {
      for (size_t k = 0; k < L; ++k) {
        EXPECT_FALSE((Region{image.scratchOffset, static_cast<uint32_t>(p.layers[j].outWidth)})
                         .overlaps(regionOf(image, k)))
            << what << ": the scratch of layer " << j << " over layer " << k;
      }
    }
  }
  EXPECT_FALSE(scratch.overlaps(tokens)) << what;
  EXPECT_EQ(image.outputOffset, regionOf(image, L - 1).offset) << what;
}

TEST(FusedPathImage, NoLiveValueIsOverwritten) {
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    expectSafeLayout(everyKindProgram(seed), "every kind, seed " + std::to_string(seed));
  }
  for (const CompiledCase& c : compiledPaperPrograms()) {
    expectSafeLayout(float_batch::layerProgramFromPath(c.path), c.name);
    expectSafeLayout(float_batch::layerProgramFromPath<double>(c.path), c.name + " fp64");
  }
}

TEST(FusedPathImage, ReusesTheRegionsOfDeadLayers) {
  // tok2tok L = 3 has dozens of layers: reuse keeps one sequence's values far under the
  // sum of the layers' widths.
  const CompiledCase tok2tok = compiledPaperPrograms().back();
  const float_batch::LayerProgram p = float_batch::layerProgramFromPath(tok2tok.path);
  uint32_t sum = static_cast<uint32_t>(p.inputWidth);
  for (const auto& layer : p.layers) sum += static_cast<uint32_t>(layer.outWidth);
  const FusedPathImage<float> image = fusedPathImage(p);
  EXPECT_LT(image.sharedValues, sum / 2) << tok2tok.name << ": " << p.layers.size() << " layers";
  std::printf("%s: %zu layers, %u shared values (the widths sum to %u), %u state values\n",
              tok2tok.name.c_str(), p.layers.size(), image.sharedValues, sum, image.stateValues);
}

TEST(FusedPathImage, RefusesLayersOfTargetArchitectures) {
  float_batch::LayerProgram p = everyKindProgram(1);
  EXPECT_EQ(fusionObstacle(p), "");
  p.layers[2].kind = LayerKind::Conv1d;  // hawk's causal conv
  p.layers[2].source = "hawk conv";
  const std::string why = fusionObstacle(p);
  EXPECT_NE(why.find("layer 2 (hawk conv) is not a compiled path's layer"), std::string::npos)
      << why;
  EXPECT_THROW(fusedPathImage(p), Error);
}

TEST(Timeline, BusyTimeCountsOverlapsOnceAndSpanRunsFirstToLast) {
  EXPECT_EQ(busyAndSpan({}), std::make_pair(0.0, 0.0));
  // [0, 2] and [1, 3] overlap (busy 3), a gap, then [5, 6]: busy 4 of a span of 6.
  const auto [busy, span] = busyAndSpan({{5, 6}, {0, 2}, {1, 3}});
  EXPECT_DOUBLE_EQ(busy, 4);
  EXPECT_DOUBLE_EQ(span, 6);
  Timeline t;
  t.timed = true;
  t.gpuBusyMs = busy;
  t.gpuSpanMs = span;
  EXPECT_DOUBLE_EQ(t.idleShare(), 1.0 / 3);
  t.timed = false;
  EXPECT_EQ(t.idleShare(), 0);
}

TEST(DeviceLoopBudget, OnlyCpuDriversSplitTime) {
  LSRL_VULKAN_DEVICE(dev);
  DeviceInfo gpu = dev.info();
  gpu.loopIterationBudget = 0;
  EXPECT_EQ(stepsPerDispatch(gpu, 500), kMaxStepsPerDispatch);
  DeviceInfo capped = dev.info();
  capped.loopIterationBudget = 16384;
  EXPECT_EQ(stepsPerDispatch(capped, 500), 32u);
  EXPECT_EQ(stepsPerDispatch(capped, 1u << 20), 1u);
  if (dev.info().type == "cpu") {
    EXPECT_EQ(dev.info().loopIterationBudget, 16384u) << dev.info().name << " caps loops";
  }
}

// A device like the shared one but with `budget` (0: whole tiles, as on a GPU).
std::unique_ptr<Device> deviceWithBudget(uint64_t budget, bool stagingOnly = false) {
  Device::Options o;
  o.validation = true;
  o.loopIterationBudget = budget;
  o.stagingOnly = stagingOnly;
  return Device::open(o);
}

LayerRunOptions withFusion(PathFusion fusion) {
  LayerRunOptions o;
  o.fusion = fusion;
  return o;
}
const LayerRunOptions kFused = withFusion(PathFusion::On);

TEST(FusedPath, EqualsTheCpuRunnerBitForBit) {
  LSRL_VULKAN_DEVICE(dev);
  const std::unique_ptr<Device> whole = deviceWithBudget(0);
  for (uint64_t seed = 1; seed <= 3; ++seed) {
    const float_batch::LayerProgram p = everyKindProgram(seed);
    std::mt19937_64 rng(seed);
    // T = 40 keeps the unsplit run under lavapipe's loop cap; T = 700 runs as several
    // dispatches there, carrying the states between them.
    for (const SeriesShape shape : {SeriesShape{5, 40, p.inputWidth}, SeriesShape{3, 700, 3}}) {
      const std::vector<float> tokens = testing_paths::randomTokens(shape, rng);
      const std::vector<float> cpu = float_batch::runLayersCpu(p, shape, tokens);
      LayerRunTiming timing;
      EXPECT_EQ(LayerRunner(dev, p).run(shape, tokens, kFused, &timing), cpu)
          << "seed " << seed << " T=" << shape.steps;
      EXPECT_TRUE(timing.fused);
      if (shape.steps <= 40) {
        EXPECT_EQ(LayerRunner(*whole, p).run(shape, tokens, kFused), cpu) << "seed " << seed;
      }
    }
  }
  for (const CompiledCase& c : compiledPaperPrograms()) {
    const float_batch::LayerProgram p = float_batch::layerProgramFromPath(c.path);
    const std::vector<float> tokens(c.tokens.begin(), c.tokens.end());
    EXPECT_EQ(LayerRunner(dev, p).run(c.shape, tokens, kFused),
              float_batch::runLayersCpu(p, c.shape, tokens))
        << c.name;
  }
  // The UA job's program (21 layers) over 1,025 tokens: many layers times many steps is
  // where lavapipe's loop cap bites (path_fusion.h's iterationsPerStep must bound it).
  Vec2vecParams params;
  params.n = 2;
  params.m = 1;
  params.conditional = Conditional::Multiplicative;
  CompileOptions options;
  options.recordHistory = false;
  const float_batch::LayerProgram ua =
      float_batch::layerProgramFromPath(compile(buildVec2vec(params), options).path);
  const ExactSequence prompt = vec2vecPromptTokens(2, 1, 32, smoothTestFunction(2, 1, 1));
  std::vector<float> tokens;
  for (const double q : {0.3, 0.8}) {
    for (const Exact& e : vec2vecQueryToken({Exact(q), Exact(1 - q)}, 1))
      tokens.push_back(static_cast<float>(e.toDouble()));
    for (const ExactVector& v : prompt)
      for (const Exact& e : v) tokens.push_back(static_cast<float>(e.toDouble()));
  }
  const SeriesShape shape{2, static_cast<int>(prompt.size()) + 1, ua.inputWidth};
  EXPECT_EQ(LayerRunner(dev, ua).run(shape, tokens, kFused),
            float_batch::runLayersCpu(ua, shape, tokens))
      << "the UA job's program, T = " << shape.steps;
  testing_vulkan::expectNoValidationErrors(dev);
  testing_vulkan::expectNoValidationErrors(*whole);
}

TEST(FusedPath, RunsByDefaultOnGpusOnly) {
  DeviceInfo info;
  info.type = "cpu";  // lavapipe: a barrier per layer and step costs more than it saves
  EXPECT_FALSE(fusesByDefault(info));
  for (const char* type : {"discrete", "integrated", "virtual"}) {
    info.type = type;
    EXPECT_TRUE(fusesByDefault(info)) << type;
  }
}

TEST(FusedPath, Fp64EqualsTheLayeredRunnerWithSequentialScans) {
  LSRL_VULKAN_DEVICE(dev);
  if (!dev.info().shaderFloat64) GTEST_SKIP() << dev.info().name << " has no shaderFloat64";
  LayerRunOptions sequential = withFusion(PathFusion::Off);
  sequential.scan.path = ScanPath::Sequential;
  std::vector<CompiledCase> cases = compiledPaperPrograms();
  std::mt19937_64 rng(9);
  CompiledCase every{"every kind", testing_paths::everyKindPath(rng), {4, 301, 3}, {}};
  for (const float v : testing_paths::randomTokens(every.shape, rng)) every.tokens.push_back(v);
  cases.push_back(every);
  for (const CompiledCase& c : cases) {
    const float_batch::LayerProgram64 p = float_batch::layerProgramFromPath<double>(c.path);
    LayerRunner64 runner(dev, p);
    LayerRunTiming timing;
    const std::vector<double> fused = runner.run(c.shape, c.tokens, kFused, &timing);
    EXPECT_TRUE(timing.fused) << c.name;
    EXPECT_EQ(fused, runner.run(c.shape, c.tokens, sequential)) << c.name;
  }
  testing_vulkan::expectNoValidationErrors(dev);
}

// Dispatches a layered tile makes with whole-tile recurrences and sequential scans: one per
// Linear, ReLU, Multi, Add or Mul, two per LinState (its drive, its recurrence).
size_t layeredDispatchesPerTile(const float_batch::LayerProgram& p) {
  size_t n = 0;
  for (const auto& layer : p.layers) n += layer.kind == LayerKind::LinState ? 2 : 1;
  return n;
}

TEST(FusedPath, TimelineCountsTheDispatchesATileNeeds) {
  LSRL_VULKAN_DEVICE(dev);
  const std::unique_ptr<Device> whole = deviceWithBudget(0);
  const float_batch::LayerProgram p = everyKindProgram(4);
  std::mt19937_64 rng(4);
  const SeriesShape shape{11, 40, p.inputWidth};
  const std::vector<float> tokens = testing_paths::randomTokens(shape, rng);
  // 2 sequences a tile, 6 tiles. Fused tiles hold only the tokens and the outputs.
  LayerRunOptions tiles = kFused;
  tiles.tileBytes =
      2 * size_t(shape.steps) * size_t(std::max(p.inputWidth, p.outputWidth)) * sizeof(float);
  const int tileCount = 6;

  // Fused on a device without a loop budget: one dispatch, barrier and submission a tile.
  LayerRunner fused(*whole, p);
  fused.run(shape, tokens, tiles);  // the resident tiles and the pipeline
  whole->openTimeline();
  LayerRunTiming timing;
  const std::vector<float> out = fused.run(shape, tokens, tiles, &timing);
  const Timeline t = whole->closeTimeline();
  EXPECT_TRUE(timing.fused);
  EXPECT_EQ(timing.tiles, tileCount);
  EXPECT_EQ(t.dispatches, size_t(tileCount));
  EXPECT_EQ(timing.dispatches, size_t(tileCount));
  EXPECT_EQ(t.submissions, size_t(tileCount));
  EXPECT_EQ(t.barriers, size_t(tileCount));
  EXPECT_EQ(t.copies, 0u) << "lavapipe's memory is mapped: no staging copies";
  EXPECT_FALSE(whole->timelineOpen());
  if (whole->info().timestampPeriodNs > 0) {
    EXPECT_TRUE(t.timed);
    EXPECT_GT(t.gpuBusyMs, 0);
    EXPECT_LE(t.gpuBusyMs, t.gpuSpanMs + 1e-9);
    EXPECT_GE(t.idleShare(), 0);
    EXPECT_LT(t.idleShare(), 1);
  }
  for (const double ms : t.hostMs) EXPECT_GE(ms, 0);
  EXPECT_GT(t.host(HostPhase::Pack), 0) << "the tokens were copied in";
  EXPECT_GT(t.host(HostPhase::Unpack), 0) << "the outputs were copied out";
  EXPECT_GT(t.host(HostPhase::Wait), 0);

  // Layer by layer on the same device: the dispatches its layers make, every tile.
  LayerRunOptions layeredTiles = tiles;
  layeredTiles.tileBytes = 2 * size_t(shape.steps) * size_t(p.maxWidth()) * sizeof(float);
  layeredTiles.fusion = PathFusion::Off;
  layeredTiles.scan.path = ScanPath::Sequential;
  LayerRunner byLayer(*whole, p);
  whole->openTimeline();
  EXPECT_EQ(byLayer.run(shape, tokens, layeredTiles), out);
  const Timeline l = whole->closeTimeline();
  EXPECT_EQ(l.dispatches, tileCount * layeredDispatchesPerTile(p)) << p.layers.size() << " layers";
  EXPECT_EQ(l.submissions, size_t(tileCount));

  // Where the device caps loops (lavapipe), ⌈T / stepsPerDispatch⌉ dispatches a tile.
  const FusedPath capped(dev, p);
  dev.openTimeline();
  LayerRunner cappedRunner(dev, p);
  EXPECT_EQ(cappedRunner.run(shape, tokens, tiles), out);
  const Timeline c = dev.closeTimeline();
  EXPECT_EQ(c.dispatches, tileCount * capped.dispatchesFor(2, uint32_t(shape.steps)));
  if (dev.info().loopIterationBudget > 0) {
    EXPECT_EQ(capped.dispatchesFor(2, uint32_t(shape.steps)),
              (uint32_t(shape.steps) + capped.stepsPerDispatch() - 1) / capped.stepsPerDispatch());
  }
  testing_vulkan::expectNoValidationErrors(*whole);
}

TEST(FusedPath, ResidentTilesAndStagingCreateNothingInSteadyState) {
  const std::unique_ptr<Device> staged = deviceWithBudget(0, /*stagingOnly=*/true);
  const float_batch::LayerProgram p = everyKindProgram(6);
  std::mt19937_64 rng(6);
  const SeriesShape shape{9, 30, p.inputWidth};
  const std::vector<float> tokens = testing_paths::randomTokens(shape, rng);
  const std::vector<float> cpu = float_batch::runLayersCpu(p, shape, tokens);
  LayerRunOptions tiles = kFused;
  tiles.tileBytes =
      2 * size_t(shape.steps) * size_t(std::max(p.inputWidth, p.outputWidth)) * sizeof(float);
  LayerRunner runner(*staged, p);
  EXPECT_EQ(runner.run(shape, tokens, tiles), cpu);
  const DeviceCounters before = staged->counters();
  staged->openTimeline();
  EXPECT_EQ(runner.run(shape, tokens, tiles), cpu);
  const Timeline t = staged->closeTimeline();
  const DeviceCounters after = staged->counters();
  EXPECT_EQ(after.buffers, before.buffers);
  EXPECT_EQ(after.descriptorPools, before.descriptorPools);
  EXPECT_EQ(after.commandBuffers, before.commandBuffers);
  // Staged: each tile copies its tokens in and its outputs out inside its submission.
  EXPECT_EQ(t.copies, 2 * t.submissions);
  EXPECT_EQ(t.dispatches, t.submissions);
  testing_vulkan::expectNoValidationErrors(*staged);
}

}  // namespace
}  // namespace lsrl::gpu
