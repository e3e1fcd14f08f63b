// Scoring the seed models on Vulkan in batches (core/gpu/device_models.h
// runSeedModelBatchOnDevice, core/seed_models/model_eval.h evaluateSeedModelInBatches): every
// shipped checkpoint scores as its float64 CPU reference does, token for token but for the
// few whose argmax fp32 rounding flips; the batch size changes nothing; sequences of
// several lengths come back in order.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "common/expect_error.h"
#include "core/gpu/device_models.h"
#include "core/seed_models/looped.h"
#include "core/seed_models/model_eval.h"
#include "core/seed_models/seed_model.h"
#include "gpu/vulkan_test_util.h"

namespace lsrl::gpu {
namespace {

using seed_models::Score;
using seed_models::ScoredSample;
using seed_models::SeedModel;
using seed_models::Sequence;
using testing_vulkan::expectNoValidationErrors;

// The device's score over samples seed … seed + samples − 1 in batches of `batch`, with the
// float64 reference run on each sample beside it: its score and how many target tokens the
// two mark differently (right on one side, wrong on the other).
struct Comparison {
  Score gpu, cpu;
  int64_t differing = 0;
};

Comparison scoreOnBoth(DeviceSeedModel& onDevice, const SeedModel& model, const std::string& task,
                       uint64_t seed, int samples, int batch) {
  Comparison c;
  uint64_t next = seed;
  c.gpu = seed_models::evaluateSeedModelInBatches(
      model, task, seed, samples,
      [&](const std::vector<Sequence>& inputs) {
        std::vector<Sequence> outputs = onDevice.run(inputs);
        for (size_t b = 0; b < inputs.size(); ++b) {
          const ScoredSample s = seed_models::scoredSample(model, task, next++);
          EXPECT_EQ(s.input, inputs[b]) << "sample " << next - 1;
          const std::vector<int> gpu = seed_models::tokenMarks(outputs[b], s.targets);
          const std::vector<int> cpu = seed_models::tokenMarks(model.run(inputs[b]), s.targets);
          for (size_t n = 0; n < cpu.size(); ++n) {
            if (cpu[n] < 0) continue;
            ++c.cpu.total;
            c.cpu.right += cpu[n];
            c.differing += gpu[n] != cpu[n] ? 1 : 0;
          }
        }
        return outputs;
      },
      batch);
  return c;
}

// Each shipped checkpoint (examples/models/) on its task: the device's right count is the
// CPU eval's within the tokens whose marks differ, and those are at most 1 in 200 (fp32
// rounding flips an argmax only where two logits nearly tie). The sample counts keep each
// model to about a second on lavapipe.
TEST(SeedModelEval, ShippedCheckpointsScoreOnVulkanAsOnTheCpu) {
  LSRL_VULKAN_DEVICE(dev);
  const std::map<std::string, int> samplesOf = {
      {"mingru", 24}, {"minlstm", 24}, {"gateloop", 48}, {"lattice", 200}, {"looped", 100}};
  for (const auto& [kind, samples] : samplesOf) {
    SCOPED_TRACE(kind);
    nlohmann::json metadata;
    const auto model = seed_models::loadSeedModel(
        kind, std::string(LSRL_SOURCE_DIR) + "/examples/models/" + kind + ".safetensors",
        &metadata);
    const std::string task = metadata.at("task");
    const Score reference = seed_models::evaluateSeedModel(*model, task, 0, samples);
    // The layers around the recurrence on the host, and (minGRU, minLSTM) on the device.
    for (const SeedModelLayers layers : {SeedModelLayers::OnHost, SeedModelLayers::OnDevice}) {
      const auto onDevice = deviceSeedModel(dev, *model, layers);
      const Comparison c = scoreOnBoth(*onDevice, *model, task, 0, samples, 16);
      EXPECT_EQ(c.cpu.right, reference.right);  // what `lsrl model eval --backend cpu` counts
      EXPECT_EQ(c.gpu.total, reference.total);
      EXPECT_LE(std::llabs(c.gpu.right - reference.right), c.differing);
      EXPECT_LE(c.differing * 200, reference.total);
      std::printf(
          "%s (layers on the %s), %d samples: %lld of %lld target tokens marked differently; "
          "right %lld (vulkan) vs %lld (cpu)\n",
          kind.c_str(), layers == SeedModelLayers::OnHost ? "host" : "device where it can", samples,
          static_cast<long long>(c.differing), static_cast<long long>(reference.total),
          static_cast<long long>(c.gpu.right), static_cast<long long>(reference.right));
    }
  }
  expectNoValidationErrors(dev);
}

// Batches of 7 (the last one short) and of 64 score the same samples the same: every kind
// at a small config (lattice with key channels, so that it has assoc_recall).
TEST(SeedModelEval, TheBatchSizeDoesNotChangeTheScore) {
  LSRL_VULKAN_DEVICE(dev);
  const std::map<std::string, nlohmann::json> configs = {
      {"mingru", nlohmann::json::object()},
      {"minlstm", nlohmann::json::object()},
      {"gateloop", nlohmann::json::object()},
      {"lattice", {{"d_in", 12}, {"d", 4}, {"m", 4}}},
      {"looped", nlohmann::json::object()}};
  for (const auto& [kind, config] : configs) {
    SCOPED_TRACE(kind);
    const auto model = seed_models::makeSeedModel(kind, config);
    const std::string task = seed_models::scoredTasks(*model).at(0);
    const auto onDevice = [&](const std::vector<Sequence>& inputs) {
      return runSeedModelBatchOnDevice(dev, *model, inputs);
    };
    const Score seven = seed_models::evaluateSeedModelInBatches(*model, task, 3, 40, onDevice, 7);
    const Score many = seed_models::evaluateSeedModelInBatches(*model, task, 3, 40, onDevice, 64);
    EXPECT_EQ(seven.right, many.right);
    EXPECT_EQ(seven.total, many.total);
    EXPECT_GT(seven.total, 0);
  }
  expectNoValidationErrors(dev);
}

// The looped transformer's edit_distance task draws strings of several lengths: a batch of
// them runs as one batch per length, and each output comes back at its input's place (the
// CPU reference's rows within the fp32 rule |gpu − cpu| ≤ 1e-5·(1 + |cpu|)).
TEST(SeedModelEval, SequencesOfSeveralLengthsComeBackInOrder) {
  LSRL_VULKAN_DEVICE(dev);
  const seed_models::LoopedModel model;
  std::vector<Sequence> inputs;
  std::set<size_t> lengths;
  for (uint64_t seed = 0; seed < 12; ++seed) {
    inputs.push_back(seed_models::scoredSample(model, "edit_distance", seed).input);
    lengths.insert(inputs.back().size());
  }
  ASSERT_GE(lengths.size(), 3u);
  const std::vector<Sequence> outputs = runSeedModelBatchOnDevice(dev, model, inputs);
  ASSERT_EQ(outputs.size(), inputs.size());
  for (size_t b = 0; b < inputs.size(); ++b) {
    const Sequence cpu = model.run(inputs[b]);
    ASSERT_EQ(outputs[b].size(), cpu.size()) << "sequence " << b;
    for (size_t n = 0; n < cpu.size(); ++n)
      for (size_t i = 0; i < cpu[n].size(); ++i)
        EXPECT_NEAR(outputs[b][n][i], cpu[n][i], 1e-5 * (1 + std::fabs(cpu[n][i])))
            << "sequence " << b << " token " << n << " [" << i << "]";
  }
  const Comparison c = scoreOnBoth(*deviceSeedModel(dev, model), model, "edit_distance", 0, 30, 8);
  EXPECT_EQ(c.gpu.total, 30);  // the last token of each
  EXPECT_EQ(c.differing, 0);
  EXPECT_TRUE(runSeedModelBatchOnDevice(dev, model, {}).empty());
  expectNoValidationErrors(dev);
}

TEST(SeedModelEval, AWrongTokenInABatchOfSeveralLengthsIsNamed) {
  LSRL_VULKAN_DEVICE(dev);
  const seed_models::LoopedModel model;
  std::vector<Sequence> inputs = {seed_models::scoredSample(model, "edit_distance", 0).input,
                                  seed_models::scoredSample(model, "edit_distance", 1).input};
  inputs.push_back(Sequence(inputs[0].size() + 1, seed_models::Vector(3, 0.0)));
  testing_common::expectError([&] { runSeedModelBatchOnDevice(dev, model, inputs); },
                              "sequences of " + std::to_string(inputs[2].size()) + " tokens",
                              "the first is input 2");
}

}  // namespace
}  // namespace lsrl::gpu
