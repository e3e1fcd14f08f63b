// Where `lsrl model run` and `lsrl model eval` run a seed model: its float64 CPU reference
// (core/models) or its fp32 Vulkan kernels (core/vulkan), which record the same trace arrays.
#pragma once

#include <cstdint>
#include <string>

#include "core/models/model_eval.h"
#include "core/models/seed_model.h"

namespace lsrl::cli {

enum class ModelBackend { Cpu, Vulkan };

// "cpu" | "vulkan"; throws lsrl::Error naming the value otherwise.
ModelBackend modelBackendFromName(const std::string& name);

// Throws gpu::VulkanUnavailable (an lsrl::Error) for Vulkan without a device or build.
models::Sequence runSeedModel(const models::SeedModel& model, const models::Sequence& input,
                              ModelBackend backend, models::Trace* trace);

// Samples seed … seed + samples − 1 of `task` scored on `backend`: the CPU reference one
// sample per thread on all cores (`batch` unused), or one Vulkan device running `batch`
// samples per call (models::evaluateSeedModelInBatches). Throws as runSeedModel.
models::Score evaluateSeedModelOn(ModelBackend backend, const models::SeedModel& model,
                                  const std::string& task, uint64_t seed, int samples, int batch);

}  // namespace lsrl::cli
