#include "app/cli/model_backends.h"

#include "core/util/error.h"

namespace lsrl::cli {

ModelBackend modelBackendFromName(const std::string& name) {
  if (name == "cpu") return ModelBackend::Cpu;
  if (name == "vulkan") return ModelBackend::Vulkan;
  throw Error("unknown --backend \"" + name + "\" (cpu, vulkan)");
}

models::Sequence runSeedModel(const models::SeedModel& model, const models::Sequence& input,
                              ModelBackend backend, models::Trace* trace) {
  if (backend == ModelBackend::Vulkan)
    throw Error("lsrl model run --backend vulkan: " + model.kind() +
                " has no Vulkan kernels in this build yet");
  return model.run(input, trace);
}

}  // namespace lsrl::cli
