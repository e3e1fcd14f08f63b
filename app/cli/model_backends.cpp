#include "app/cli/model_backends.h"

#include "core/util/error.h"
#ifdef LSRL_HAVE_VULKAN
#include "core/vulkan/device_models.h"
#endif

namespace lsrl::cli {

ModelBackend modelBackendFromName(const std::string& name) {
  if (name == "cpu") return ModelBackend::Cpu;
  if (name == "vulkan") return ModelBackend::Vulkan;
  throw Error("unknown --backend \"" + name + "\" (cpu, vulkan)");
}

models::Sequence runSeedModel(const models::SeedModel& model, const models::Sequence& input,
                              ModelBackend backend, models::Trace* trace) {
  if (backend == ModelBackend::Cpu) return model.run(input, trace);
#ifdef LSRL_HAVE_VULKAN
  const auto device = gpu::Device::open();
  return gpu::runSeedModelOnDevice(*device, model, input, trace);
#else
  throw Error("this lsrl was built without Vulkan (LSRL_WITH_VULKAN=OFF): use --backend cpu");
#endif
}

}  // namespace lsrl::cli
