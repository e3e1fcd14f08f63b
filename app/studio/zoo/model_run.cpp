#include "app/studio/zoo/model_run.h"

#include <algorithm>
#include <chrono>

#include "core/seed_models/seed_model.h"
#include "core/util/error.h"
#ifdef LSRL_HAVE_VULKAN
#include "core/gpu/device_models.h"
#endif

namespace lsrl::studio {

bool studioHasVulkan() {
#ifdef LSRL_HAVE_VULKAN
  return true;
#else
  return false;
#endif
}

ModelRun runSeedModelRequest(const ModelRunRequest& request) {
  ModelRun run;
  const auto model =
      request.weightsPath.empty()
          ? seed_models::makeSeedModel(request.kind, request.config)
          : seed_models::loadSeedModel(request.kind, request.weightsPath, &run.weightsMeta);
  run.kind = request.kind;
  run.backend = request.backend;
  run.config = model->config();
  if (!request.inputPath.empty()) {
    run.input = seed_models::loadSeedModelInput(request.inputPath);
  } else {
    run.task = request.task.empty() ? model->tasks().at(0) : request.task;
    run.taskSeed = request.taskSeed;
    run.input = model->taskInput(run.task, request.taskSeed);
  }
  const auto start = std::chrono::steady_clock::now();
  if (request.backend == "cpu") {
    run.output = model->run(run.input, &run.trace);
  } else if (request.backend == "vulkan") {
#ifdef LSRL_HAVE_VULKAN
    const auto device = gpu::Device::open();
    run.output = gpu::runSeedModelOnDevice(*device, *model, run.input, &run.trace);
#else
    throw Error("this LSRL Studio was built without Vulkan (LSRL_WITH_VULKAN=OFF): use cpu");
#endif
  } else {
    throw Error("unknown backend \"" + request.backend + "\" (cpu, vulkan)");
  }
  run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  run.weightsPath = request.weightsPath;
  const std::vector<std::string> scored = seed_models::scoredTasks(*model);
  if (!run.task.empty() && std::find(scored.begin(), scored.end(), run.task) != scored.end()) {
    run.targets = seed_models::scoredSample(*model, run.task, request.taskSeed).targets;
    run.marks = seed_models::tokenMarks(run.output, run.targets);
    run.score = seed_models::scoreOutputs(run.output, run.targets);
  }
  return run;
}

std::string modelViewName(const std::string& kind) {
  if (kind == "lattice" || kind == "gateloop" || kind == "looped") return kind;
  if (kind == "mingru" || kind == "minlstm") return "gates";
  return {};
}

int modelRunSteps(const ModelRun& run) {
  if (run.kind == "looped") {
    if (!run.trace.has("hidden")) return 0;
    return static_cast<int>(run.trace.get("hidden").shape.at(0));
  }
  return static_cast<int>(run.input.size());
}

const char* modelStepName(const std::string& kind) { return kind == "looped" ? "loop" : "token"; }

}  // namespace lsrl::studio
