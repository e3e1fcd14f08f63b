#include "app/cli/model_backends.h"

#include <chrono>
#include <sstream>
#include <vector>

#include "core/util/error.h"
#ifdef LSRL_HAVE_VULKAN
#include "app/cli/timeline_report.h"
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
                                       int batch, EvalProfile* profile) {
  if (backend == ModelBackend::Cpu) {
    if (profile != nullptr)
      throw Error("--profile times the Vulkan backend's device work (--backend vulkan)");
    return seed_models::evaluateSeedModel(model, task, seed, samples);
  }
#ifdef LSRL_HAVE_VULKAN
  using Clock = std::chrono::steady_clock;
  auto msSince = [](Clock::time_point t) {
    return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
  };
  const auto start = Clock::now();
  // One device for the whole run (opening one costs more than a batch on it).
  const auto device = gpu::Device::open();
  const double openMs = msSince(start);
  if (profile != nullptr) device->openTimeline();
  const auto evalStart = Clock::now();
  // The weights stay on the device from batch to batch (where the model's layers all run
  // there, core/gpu/device_models.h).
  const std::unique_ptr<gpu::DeviceSeedModel> onDevice = gpu::deviceSeedModel(*device, model);
  const seed_models::Score score = seed_models::evaluateSeedModelInBatches(
      model, task, seed, samples,
      [&](const std::vector<seed_models::Sequence>& inputs) { return onDevice->run(inputs); },
      batch);
  if (profile != nullptr) {
    const double evalMs = msSince(evalStart);
    const gpu::Timeline timeline = device->closeTimeline();
    profile->json = timelineJson(timeline, evalMs);
    profile->json["device_open_ms"] = openMs;
    const double otherMs = std::max(0.0, evalMs - timeline.hostTotalMs());
    profile->json["host_other_ms"] = otherMs;
    std::ostringstream text;
    printTimeline(text, timeline, evalMs, "vulkan timeline");
    text << "    other host work (the model's host side, drawing and scoring samples) " << otherMs
         << " ms; opening the device " << openMs << " ms\n";
    profile->text = text.str();
  }
  return score;
#else
  (void)batch;
  (void)profile;
  noVulkanBuild();
#endif
}

}  // namespace lsrl::cli
