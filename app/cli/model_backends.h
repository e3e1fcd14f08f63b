// Where `lsrl model run` runs a seed model: its float64 CPU reference (core/models) or its
// fp32 Vulkan kernels (core/vulkan), which record the same trace arrays.
#pragma once

#include <string>

#include "core/models/seed_model.h"

namespace lsrl::cli {

enum class ModelBackend { Cpu, Vulkan };

// "cpu" | "vulkan"; throws lsrl::Error naming the value otherwise.
ModelBackend modelBackendFromName(const std::string& name);

// Throws gpu::VulkanUnavailable (an lsrl::Error) for Vulkan without a device or build.
models::Sequence runSeedModel(const models::SeedModel& model, const models::Sequence& input,
                              ModelBackend backend, models::Trace* trace);

}  // namespace lsrl::cli
