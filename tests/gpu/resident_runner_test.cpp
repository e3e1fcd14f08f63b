// The Vulkan runner's resident, pipelined tiles (core/gpu/layer_runner.h): results do
// not depend on how the batch is tiled; another tile or another call of the same shape
// creates no buffers, descriptor pools or command buffers (the device's counters); and on
// a device whose buffers the host cannot map (Device::Options::stagingOnly, the path of a
// discrete GPU) tokens and outputs travel through staging copies inside the submissions.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "common/random_paths.h"
#include "core/gpu/layer_runner.h"
#include "gpu/vulkan_test_util.h"

namespace lsrl::gpu {
namespace {

using float_batch::SeriesShape;

// Options whose tiles hold `sequences` sequences of `shape` for program p, with the
// sequential scan so every tiling rounds alike.
LayerRunOptions tilesOf(int sequences, const SeriesShape& shape,
                        const float_batch::LayerProgram& p) {
  LayerRunOptions o;
  o.tileBytes = static_cast<size_t>(sequences) * static_cast<size_t>(shape.steps) *
                static_cast<size_t>(p.maxWidth()) * sizeof(float);
  o.scan.path = ScanPath::Sequential;
  return o;
}

void expectCreatesNothing(const DeviceCounters& before, const DeviceCounters& after,
                          const std::string& what) {
  EXPECT_EQ(after.buffers, before.buffers) << what;
  EXPECT_EQ(after.descriptorPools, before.descriptorPools) << what;
  EXPECT_EQ(after.queryPools, before.queryPools) << what;
  EXPECT_EQ(after.commandBuffers, before.commandBuffers) << what;
}

void checkResidentRuns(Device& dev, const std::string& label) {
  std::mt19937_64 rng(17);
  const float_batch::LayerProgram p =
      float_batch::layerProgramFromPath(testing_paths::everyKindPath(rng));
  const SeriesShape shape{11, 90, p.inputWidth};
  const std::vector<float> tokens = testing_paths::randomTokens(shape, rng);
  LayerRunner whole(dev, p);
  const std::vector<float> once = whole.run(shape, tokens, tilesOf(shape.batch, shape, p));

  LayerRunner tiled(dev, p);
  const LayerRunOptions twos = tilesOf(2, shape, p);  // 6 tiles, 2 in flight
  const DeviceCounters start = dev.counters();
  LayerRunTiming timing;
  EXPECT_EQ(tiled.run(shape, tokens, twos, &timing), once) << label << ": 6 tiles vs 1";
  EXPECT_EQ(timing.tiles, 6);
  EXPECT_EQ(timing.slots, 2);
  const DeviceCounters first = dev.counters();
  EXPECT_GT(first.buffers, start.buffers) << label;
  // The same shape again: every buffer is resident, every frame reused.
  for (int call = 0; call < 3; ++call)
    EXPECT_EQ(tiled.run(shape, tokens, twos), once) << label << ": call " << call;
  expectCreatesNothing(first, dev.counters(), label + ": repeated calls");
  EXPECT_EQ(dev.counters().submissions, first.submissions + 3 * 6) << label;

  // Tile count does not change what is created: 6 tiles and 3 tiles, fresh runners.
  auto created = [&](int perTile) {
    LayerRunner fresh(dev, p);
    const DeviceCounters before = dev.counters();
    EXPECT_EQ(fresh.run(shape, tokens, tilesOf(perTile, shape, p)), once) << label;
    return dev.counters().buffers - before.buffers;
  };
  EXPECT_EQ(created(2), created(4)) << label << ": buffers per run with 6 vs 3 tiles";

  // Per-layer outputs through the same tiles; then a new shape remakes the tiles.
  std::vector<std::vector<float>> layers;
  EXPECT_EQ(tiled.run(shape, tokens, twos, nullptr, &layers), once) << label;
  EXPECT_EQ(layers.size(), p.layers.size());
  const SeriesShape shorter{5, 40, p.inputWidth};
  const std::vector<float> fewer = testing_paths::randomTokens(shorter, rng);
  EXPECT_EQ(tiled.run(shorter, fewer, tilesOf(2, shorter, p)),
            whole.run(shorter, fewer, tilesOf(shorter.batch, shorter, p)))
      << label;
  EXPECT_TRUE(dev.validationErrors().empty()) << label;
}

TEST(VulkanResidentRunner, TilesAndRepeatedCallsCreateNothingAndAgree) {
  LSRL_VULKAN_DEVICE(dev);
  checkResidentRuns(dev, "mapped");
}

TEST(VulkanResidentRunner, UnmappedDeviceMemoryGoesThroughStagingCopies) {
  LSRL_VULKAN_DEVICE(shared);
  const auto dev =
      Device::open({.index = shared.info().index, .validation = true, .stagingOnly = true});
  auto probe = dev->buffer(64);
  EXPECT_EQ(dev->mapped(*probe), nullptr);
  // upload / download go through the device's one staging buffer.
  const std::vector<float> values{1.5f, -2.0f, 3.25f};
  dev->upload(*probe, values.data(), values.size() * sizeof(float));
  EXPECT_EQ(dev->download<float>(*probe, values.size()), values);
  checkResidentRuns(*dev, "staging only");
}

}  // namespace
}  // namespace lsrl::gpu
