// The seed models (core/seed_models) on the Vulkan device: one entry point over the per-model
// backends (lattice_device.h, gateloop_device.h, min_rnn_device.h, looped_device.h), for the
// CLI's `lsrl model run|eval --backend vulkan` and the explorer.
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include "core/gpu/device.h"
#include "core/seed_models/seed_model.h"

namespace lsrl::gpu {

// The model's forward pass with its recurrence on the device, in fp32, recording the CPU
// reference's trace arrays. Throws lsrl::Error for a model kind without a device backend.
seed_models::Sequence runSeedModelOnDevice(Device& dev, const seed_models::SeedModel& model,
                                           const seed_models::Sequence& input,
                                           seed_models::Trace* trace);

// Many sequences, of any lengths: those of one length run together through the model's
// batched backend (which needs one length), the outputs come back in the inputs' order.
// Throws lsrl::Error as runSeedModelOnDevice; where the lengths differ, an error from one
// length's batch names the length and the first input of that length.
std::vector<seed_models::Sequence> runSeedModelBatchOnDevice(
    Device& dev, const seed_models::SeedModel& model,
    const std::vector<seed_models::Sequence>& inputs);

// Where a model's layers around its recurrence run when it has a backend for both: OnDevice
// (every layer on the device, its weights uploaded once: minGRU, minLSTM,
// min_rnn_resident.h), OnHost (float64 on the host's cores around the device's recurrence,
// as runSeedModelBatchOnDevice), Auto (OnDevice on a GPU, OnHost on a CPU driver: on
// lavapipe the device's dense Linears made a minGRU eval 9× slower, docs/vulkan.md).
enum class SeedModelLayers { Auto, OnDevice, OnHost };

// A seed model kept on one device for many batches (`lsrl model eval --backend vulkan`).
// `model` must outlive it.
class DeviceSeedModel {
 public:
  virtual ~DeviceSeedModel() = default;
  // As runSeedModelBatchOnDevice: sequences of any lengths, outputs in the inputs' order.
  virtual std::vector<seed_models::Sequence> run(
      const std::vector<seed_models::Sequence>& inputs) = 0;
};
// Throws lsrl::Error for a model kind without a device backend.
std::unique_ptr<DeviceSeedModel> deviceSeedModel(Device& dev, const seed_models::SeedModel& model,
                                                 SeedModelLayers layers = SeedModelLayers::Auto);

}  // namespace lsrl::gpu
