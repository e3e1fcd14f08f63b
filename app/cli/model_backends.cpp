#include "app/cli/model_backends.h"

#include <vector>

#include "core/util/error.h"
#ifdef LSRL_HAVE_VULKAN
#include "core/gpu/device_models.h"
#endif

namespace lsrl::cli {

#ifndef LSRL_HAVE_VULKAN
namespace {

[[noreturn]] void noVulkanBuild() {
  throw Error("this lsrl was built without Vulkan (LSRL_WITH_VULKAN=OFF): use --backend cpu");
}

}  // namespace
#endif

ModelBackend modelBackendFromName(const std::string& name) {
  if (name == "cpu") return ModelBackend::Cpu;
  if (name == "vulkan") return ModelBackend::Vulkan;
  throw Error("unknown --backend \"" + name + "\" (cpu, vulkan)");
}

seed_models::Sequence runSeedModel(const seed_models::SeedModel& model,
                                   const seed_models::Sequence& input, ModelBackend backend,
                                   seed_models::Trace* trace) {
  if (backend == ModelBackend::Cpu) return model.run(input, trace);
#ifdef LSRL_HAVE_VULKAN
  const auto device = gpu::Device::open();
  return gpu::runSeedModelOnDevice(*device, model, input, trace);
#else
  noVulkanBuild();
#endif
}

seed_models::Score evaluateSeedModelOn(ModelBackend backend, const seed_models::SeedModel& model,
                                       const std::string& task, uint64_t seed, int samples,
                                       int batch) {
  if (backend == ModelBackend::Cpu)
    return seed_models::evaluateSeedModel(model, task, seed, samples);
#ifdef LSRL_HAVE_VULKAN
  // One device for the whole run (opening one costs more than a batch on it).
  const auto device = gpu::Device::open();
  return seed_models::evaluateSeedModelInBatches(
      model, task, seed, samples,
      [&](const std::vector<seed_models::Sequence>& inputs) {
        return gpu::runSeedModelBatchOnDevice(*device, model, inputs);
      },
      batch);
#else
  (void)batch;
  noVulkanBuild();
#endif
}

}  // namespace lsrl::cli
