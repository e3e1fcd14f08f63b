// The seed models (core/seed_models) on the Vulkan device: one entry point over the per-model
// backends (lattice_device.h, gateloop_device.h, min_rnn_device.h, looped_device.h), for the
// CLI's `lsrl model run|eval --backend vulkan` and the explorer.
#pragma once

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

}  // namespace lsrl::gpu
