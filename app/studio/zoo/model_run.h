// A seed model's run for the explorer's Models tab: what the model zoo panel
// asks for (a model of a kind, its sizes and seed or a weights file, a synthetic task or
// an input file, a backend) and what the model views show (input, output and the
// model's trace of named arrays, core/seed_models/*.h). Qt-free so it runs on a worker.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "core/seed_models/model_common.h"
#include "core/seed_models/scored_tasks.h"

namespace lsrl::studio {

struct ModelRunRequest {
  std::string kind = "lattice";  // "mingru", "minlstm", "gateloop", "lattice", "looped"
  nlohmann::json config = nlohmann::json::object();  // makeSeedModel's keys (sizes, seed)
  std::string weightsPath;      // non-empty: the model from this file (its config is inside)
  std::string task;             // empty: the model's default task (unless inputPath is set)
  uint64_t taskSeed = 0;        // the task input's seed
  std::string inputPath;        // one token sequence {"tokens": [[...], ...]} instead of a task
  std::string backend = "cpu";  // "cpu" (float64) or "vulkan" (fp32, when built with it)
};

struct ModelRun {
  std::string kind, task, backend;  // task empty for an input file
  uint64_t taskSeed = 0;            // the task input's seed
  nlohmann::json config;            // the model's full config (defaults filled in)
  seed_models::Sequence input, output;
  seed_models::Trace trace;
  double seconds = 0;  // the forward pass's wall time
  // For a scored task (core/seed_models/scored_tasks.h): the target class per token (−1: none),
  // per token 1 right / 0 wrong / −1 not scored, and the total. Empty otherwise.
  std::vector<int> targets, marks;
  seed_models::Score score;
  std::string weightsPath;  // the checkpoint the model came from; empty for random weights
  // The checkpoint's metadata (seed_models::loadSeedModel: "task", "training"); null for
  // random weights.
  nlohmann::json weightsMeta;
};

// Builds the model and runs it with a trace. Throws lsrl::Error naming what is wrong (an
// unknown kind or task, a bad config key, an unreadable file, a missing Vulkan device).
ModelRun runSeedModelRequest(const ModelRunRequest& request);

// Whether this build can run models on Vulkan.
bool studioHasVulkan();

// The view that draws a model kind: "lattice", "gateloop", "gates" (minGRU, minLSTM) or
// "looped"; empty for an unknown kind.
std::string modelViewName(const std::string& kind);
// The steps a model's view walks: its tokens, or the looped transformer's states
// X^(0) … X^(r) across loops.
int modelRunSteps(const ModelRun& run);
// "token" or "loop".
const char* modelStepName(const std::string& kind);

}  // namespace lsrl::studio
