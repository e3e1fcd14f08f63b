// The common face of the seed architectures (minGRU, minLSTM, GateLoop, Lattice, the looped
// transformer) for the CLI (`lsrl model run`) and the explorer: a float64 CPU reference
// with its config, weights, a forward pass that can record a trace, and its synthetic
// tasks. Each model's own header has its equations, modes and trace arrays.
#pragma once

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/seed_models/model_common.h"

namespace lsrl::seed_models {

class SeedModel {
 public:
  virtual ~SeedModel() = default;

  virtual std::string kind() const = 0;  // "mingru", "minlstm", "gateloop", "lattice", "looped"
  virtual nlohmann::json config() const = 0;  // sizes, seed, mode: what makeSeedModel reads
  virtual std::vector<Tensor> weights() const = 0;
  virtual int inputWidth() const = 0;
  virtual int outputWidth() const = 0;

  // One output row per input row (the looped transformer: per token after the last loop).
  // With `trace`, the arrays the views need are added to it (each model's header lists
  // them). Throws lsrl::Error for a token of the wrong width.
  virtual Sequence run(const Sequence& input, Trace* trace = nullptr) const = 0;

  // The synthetic tasks this model knows (specs: docs/spec/seed-models.md,
  // docs/spec/seed-models.md); the first is its default. taskInput draws one input sequence for a
  // task.
  virtual std::vector<std::string> tasks() const = 0;
  virtual Sequence taskInput(const std::string& task, uint64_t seed) const = 0;
};

}  // namespace lsrl::seed_models

namespace lsrl::seed_models {

// The registry the CLI and the explorer use.
std::vector<std::string> seedModelKinds();  // "mingru", "minlstm", "gateloop", "lattice", "looped"
// A model of `kind` from its config (missing keys: the small default, seed 0). Throws
// lsrl::Error for an unknown kind (listing the known ones) or a bad config.
std::unique_ptr<SeedModel> makeSeedModel(const std::string& kind, const nlohmann::json& config);
// A model of `kind` with `config` and exactly these weights (names and shapes as the
// model's header lists them; lsrl::Error naming a missing or misshaped tensor).
std::unique_ptr<SeedModel> makeSeedModel(const std::string& kind, const nlohmann::json& config,
                                         const std::vector<Tensor>& weights);
// A model from a weights file written by saveSeedModel (its config is in the metadata).
// With `metadata`, also the file's "lsrl" metadata: {"model", "config", and for a trained
// checkpoint "task" (what it was trained on) and "training" (steps, seed, accuracy, ...)}.
// Throws lsrl::Error naming the file for non-finite weights or metadata of the wrong type
// (core/seed_models/checkpoint_metadata.h), "task" included: it must name a task of the model.
std::unique_ptr<SeedModel> loadSeedModel(const std::string& kind, const std::string& path,
                                         nlohmann::json* metadata = nullptr);
// `extra`: more metadata entries (a trained checkpoint's "task" and "training"), checked as
// loadSeedModel checks them.
void saveSeedModel(const SeedModel& model, const std::string& path,
                   const nlohmann::json& extra = nlohmann::json::object());
// One token sequence from IN.json ({"tokens": [[...], ...]}, as lsrl run reads it) as
// float64 rows. Throws lsrl::Error naming the file (a batch file is refused).
Sequence loadSeedModelInput(const std::string& path);

}  // namespace lsrl::seed_models
