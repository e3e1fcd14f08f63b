// Where `lsrl model run` and `lsrl model eval` run a seed model: its float64 CPU reference
// (core/seed_models) or its fp32 Vulkan kernels (core/gpu), which record the same trace arrays.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "core/seed_models/model_eval.h"
#include "core/seed_models/seed_model.h"

namespace lsrl::cli {

enum class ModelBackend { Cpu, Vulkan };

// "cpu" | "vulkan"; throws lsrl::Error naming the value otherwise.
ModelBackend modelBackendFromName(const std::string& name);

// Throws gpu::VulkanUnavailable (an lsrl::Error) for Vulkan without a device or build.
seed_models::Sequence runSeedModel(const seed_models::SeedModel& model,
                                   const seed_models::Sequence& input, ModelBackend backend,
                                   seed_models::Trace* trace);

// What `lsrl model eval --backend vulkan --profile` reports: the device's timeline over
// the whole eval (app/cli/timeline_report.h's JSON, plus "device_open_ms" and
// "host_other_ms", the wall time neither opening the device nor a host phase of the
// timeline accounts for: the model's host-side work and the scoring), and as text.
struct EvalProfile {
  nlohmann::ordered_json json;
  std::string text;
};

// Samples seed … seed + samples − 1 of `task` scored on `backend`: the CPU reference one
// sample per thread on all cores (`batch` unused), or one Vulkan device running `batch`
// samples per call (seed_models::evaluateSeedModelInBatches). With `profile` (Vulkan only)
// the run is timed on a timeline. Throws as runSeedModel.
seed_models::Score evaluateSeedModelOn(ModelBackend backend, const seed_models::SeedModel& model,
                                       const std::string& task, uint64_t seed, int samples,
                                       int batch, EvalProfile* profile = nullptr);

}  // namespace lsrl::cli
