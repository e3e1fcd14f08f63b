// minGRU and minLSTM with every layer on the device (core/gpu/min_rnn_resident.h) against
// their float64 CPU reference: the shipped checkpoints and configs covering every option
// (variant, mode, LayerNorm, skip, layers); the batch buffers kept for the next batch of the
// same shape; device_models.h's DeviceSeedModel over mixed lengths and its choice of where
// the layers run; the errors of the host-layer path.
#include "core/gpu/min_rnn_resident.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "common/expect_error.h"
#include "core/gpu/device_models.h"
#include "core/seed_models/mingru.h"
#include "core/seed_models/minlstm.h"
#include "core/seed_models/seed_model.h"
#include "gpu/trace_parity.h"
#include "gpu/vulkan_test_util.h"

namespace lsrl::gpu {
namespace {

using seed_models::MinRnnModel;
using seed_models::Sequence;

// fp32 through every layer against float64: the cell's gates and scan as on the host-layer
// path (held to trace_parity.h's kParity there), and now also the Linears (64–128 terms),
// LayerNorms and the head, over three layers and 68 steps of a log-space scan. Measured up
// to 1.3e-4 on the shipped checkpoints; what decides a score, the argmax, is held in
// seed_model_eval_test.cpp.
constexpr double kLogitParity = 5e-4;

std::vector<double> flat(const std::vector<Sequence>& seqs) {
  std::vector<double> out;
  for (const Sequence& s : seqs)
    for (const seed_models::Vector& row : s) out.insert(out.end(), row.begin(), row.end());
  return out;
}

// The resident model's logits for `batch` against model.run on each sequence.
double expectLikeTheCpu(Device& dev, const MinRnnModel& model, const std::vector<Sequence>& batch,
                        const std::string& what) {
  MinRnnResident resident(dev, model);
  std::vector<Sequence> cpu;
  for (const Sequence& x : batch) cpu.push_back(model.run(x));
  return testing_vulkan::expectClose(flat(resident.run(batch)), flat(cpu), what, kLogitParity);
}

TEST(VulkanMinRnnResident, ShippedCheckpointsMatchTheCpu) {
  LSRL_VULKAN_DEVICE(dev);
  for (const char* kind : {"mingru", "minlstm"}) {
    const auto model = seed_models::loadSeedModel(
        kind, std::string(LSRL_SOURCE_DIR) + "/examples/models/" + kind + ".safetensors", nullptr);
    const auto& minRnn = dynamic_cast<const MinRnnModel&>(*model);
    std::vector<Sequence> batch;
    for (uint64_t seed = 0; seed < 6; ++seed)
      batch.push_back(minRnn.taskInput("selective_copy", seed));
    const double worst = expectLikeTheCpu(dev, minRnn, batch, kind);
    std::printf("%s: resident logits vs float64, max relative difference %.3g\n", kind, worst);
  }
  testing_vulkan::expectNoValidationErrors(dev);
}

TEST(VulkanMinRnnResident, EveryConfigOptionMatchesTheCpu) {
  LSRL_VULKAN_DEVICE(dev);
  std::mt19937 rng(8);
  const nlohmann::json configs[] = {
      {{"variant", "vanilla"}, {"mode", "parallel"}},
      {{"variant", "log"}, {"mode", "sequential"}, {"layers", 2}},
      {{"layer_norm", false}, {"residual", false}, {"d_h", 5}, {"d_model", 6}},
      {{"mode", "log_space"}, {"d_out", 3}, {"seed", 4}},
  };
  for (const nlohmann::json& json : configs) {
    for (const seed_models::MinRnnCell cell :
         {seed_models::MinRnnCell::Gru, seed_models::MinRnnCell::Lstm}) {
      const seed_models::MinRnnConfig config = seed_models::MinRnnConfig::fromJson(json, cell);
      std::unique_ptr<MinRnnModel> model;
      if (cell == seed_models::MinRnnCell::Gru)
        model = std::make_unique<seed_models::MinGruModel>(config);
      else
        model = std::make_unique<seed_models::MinLstmModel>(config);
      std::vector<Sequence> batch;
      for (int b = 0; b < 3; ++b)
        batch.push_back(testing_vulkan::randomRows(rng, 37, model->inputWidth()));
      expectLikeTheCpu(dev, *model, batch, model->kind() + " " + json.dump());
    }
  }
  testing_vulkan::expectNoValidationErrors(dev);
}

TEST(VulkanMinRnnResident, KeepsItsBuffersForTheNextBatchOfTheShape) {
  LSRL_VULKAN_DEVICE(dev);
  const seed_models::MinGruModel model;
  MinRnnResident resident(dev, model);
  std::vector<Sequence> batch;
  for (uint64_t seed = 0; seed < 4; ++seed)
    batch.push_back(model.taskInput("selective_copy", seed));
  const std::vector<Sequence> first = resident.run(batch);
  const DeviceCounters before = dev.counters();
  EXPECT_EQ(resident.run(batch), first);
  EXPECT_EQ(dev.counters().buffers, before.buffers) << "a second batch of the shape";
}

TEST(VulkanMinRnnResident, DeviceSeedModelRunsMixedLengthsInOrder) {
  LSRL_VULKAN_DEVICE(dev);
  const seed_models::MinLstmModel model;
  std::mt19937 rng(9);
  const std::vector<Sequence> inputs = {testing_vulkan::randomRows(rng, 12, 16),
                                        testing_vulkan::randomRows(rng, 5, 16),
                                        testing_vulkan::randomRows(rng, 12, 16)};
  const auto onDevice = deviceSeedModel(dev, model, SeedModelLayers::OnDevice);
  std::vector<Sequence> cpu;
  for (const Sequence& x : inputs) cpu.push_back(model.run(x));
  testing_vulkan::expectClose(flat(onDevice->run(inputs)), flat(cpu), "mixed lengths",
                              kLogitParity);
  // Auto keeps the layers on the host on a CPU driver (docs/vulkan.md): then it is
  // runSeedModelBatchOnDevice exactly.
  if (isCpuDriver(dev.info())) {
    EXPECT_EQ(deviceSeedModel(dev, model)->run(inputs),
              runSeedModelBatchOnDevice(dev, model, inputs));
  }
}

TEST(VulkanMinRnnResident, RefusesWhatTheHostLayerPathRefuses) {
  LSRL_VULKAN_DEVICE(dev);
  const seed_models::MinGruModel model;
  MinRnnResident resident(dev, model);
  const Sequence x = model.taskInput("selective_copy", 0);
  Sequence narrow = x;
  narrow[3].pop_back();
  testing_common::expectError(
      [&] {
        resident.run({x, x, narrow});
      },
      "mingru on Vulkan", "sequence 2: mingru: token 3 has 15 features, expected 16");
  testing_common::expectError(
      [&] {
        resident.run({x, Sequence(x.begin(), x.end() - 1)});
      },
      "mingru on Vulkan", "sequence 1: 67 tokens, sequence 0 has 68");
  EXPECT_TRUE(resident.run({}).empty());
  const std::vector<Sequence> empty = resident.run({Sequence{}});
  ASSERT_EQ(empty.size(), 1u);
  EXPECT_TRUE(empty[0].empty());
}

}  // namespace
}  // namespace lsrl::gpu
