// The "lsrl" metadata of a seed-model checkpoint, checked by type when a file is read
// (loadWeights, loadSeedModel) or written (saveSeedModel), so that a reader never meets a
// wrong type it would silently skip: "model" a string, "config" an object, "task" a string
// naming one of the model's tasks, "training" an object whose entries that `lsrl train`
// (app/python/lsrl/torch/train.py) writes and the explorer reads have their types. Entries
// not listed here are kept as they are.
//
//   checkCheckpointMetadata("m.safetensors", meta);  // lsrl::Error naming the key
//   checkCheckpointTask("m.safetensors", meta, model.tasks());
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

namespace lsrl::seed_models {

// Throws lsrl::Error "<file>: metadata \"<key>\": expected ..., got ..." for an entry of the
// wrong type (`meta` itself must be an object).
void checkCheckpointMetadata(const std::string& file, const nlohmann::json& meta);
// Throws lsrl::Error naming the file when meta's "task" is not one of `tasks`.
void checkCheckpointTask(const std::string& file, const nlohmann::json& meta,
                         const std::vector<std::string>& tasks);

}  // namespace lsrl::seed_models
