#include "core/seed_models/seed_model.h"

#include <functional>
#include <map>
#include <nlohmann/json.hpp>

#include "core/io/sequence_file.h"
#include "core/seed_models/checkpoint_metadata.h"
#include "core/seed_models/gateloop.h"
#include "core/seed_models/lattice.h"
#include "core/seed_models/looped.h"
#include "core/seed_models/mingru.h"
#include "core/seed_models/minlstm.h"
#include "core/util/error.h"
#include "core/util/quote_input.h"

namespace lsrl::seed_models {

namespace {

struct Factory {
  std::function<std::unique_ptr<SeedModel>(const nlohmann::json&)> fromConfig;
  std::function<std::unique_ptr<SeedModel>(const LoadedWeights&)> fromWeights;
};

// Every model class has Config::fromJson, Model(config) (seeded random init) and
// Model(config, weights).
template <class Model, class Config>
Factory factoryOf() {
  return {[](const nlohmann::json& config) -> std::unique_ptr<SeedModel> {
            return std::make_unique<Model>(Config::fromJson(config));
          },
          [](const LoadedWeights& w) -> std::unique_ptr<SeedModel> {
            return std::make_unique<Model>(Config::fromJson(w.config), w.tensors);
          }};
}

const std::map<std::string, Factory>& factories() {
  static const std::map<std::string, Factory> table = {
      {"gateloop", factoryOf<GateLoopModel, GateLoopConfig>()},
      {"lattice", factoryOf<LatticeModel, LatticeConfig>()},
      {"looped", factoryOf<LoopedModel, LoopedConfig>()},
      {"mingru", factoryOf<MinGruModel, MinGruConfig>()},
      {"minlstm", factoryOf<MinLstmModel, MinLstmConfig>()},
  };
  return table;
}

const Factory& factory(const std::string& kind) {
  const auto& table = factories();
  const auto it = table.find(kind);
  if (it == table.end()) {
    std::string known;
    for (const auto& [name, f] : table) known += (known.empty() ? "" : ", ") + name;
    throw Error("unknown model " + quoteInput(kind) + " (known: " + known + ")");
  }
  return it->second;
}

}  // namespace

std::vector<std::string> seedModelKinds() {
  std::vector<std::string> out;
  for (const auto& [name, f] : factories()) out.push_back(name);
  return out;
}

std::unique_ptr<SeedModel> makeSeedModel(const std::string& kind, const nlohmann::json& config) {
  return factory(kind).fromConfig(config.is_null() ? nlohmann::json::object() : config);
}

std::unique_ptr<SeedModel> makeSeedModel(const std::string& kind, const nlohmann::json& config,
                                         const std::vector<Tensor>& weights) {
  LoadedWeights given;
  given.config = config.is_null() ? nlohmann::json::object() : config;
  given.tensors = weights;
  given.where = kind + " weights";
  return factory(kind).fromWeights(given);
}

std::unique_ptr<SeedModel> loadSeedModel(const std::string& kind, const std::string& path,
                                         nlohmann::json* metadata) {
  const LoadedWeights weights = loadWeights(path, kind);
  std::unique_ptr<SeedModel> model;
  try {
    model = factory(kind).fromWeights(weights);
  } catch (const Error& e) {  // the config's and the tensors' errors, which know no file
    throw Error(path + ": " + e.what());
  }
  checkCheckpointTask(path, weights.metadata, model->tasks());
  if (metadata) *metadata = weights.metadata;
  return model;
}

void saveSeedModel(const SeedModel& model, const std::string& path, const nlohmann::json& extra) {
  if (!extra.is_null()) {  // what is written must load again
    checkCheckpointMetadata(path, extra);
    checkCheckpointTask(path, extra, model.tasks());
  }
  saveWeights(path, model.kind(), model.config(), model.weights(), extra);
}

Sequence loadSeedModelInput(const std::string& path) {
  const SequenceBatch batch = loadSequenceFile(path);
  if (batch.isBatch) throw Error(path + ": a model runs one sequence ({\"tokens\": ...})");
  Sequence seq;
  for (const ExactVector& row : batch.sequences.at(0)) {
    Vector v;
    for (const Exact& x : row) v.push_back(x.toDouble());
    seq.push_back(std::move(v));
  }
  return seq;
}

}  // namespace lsrl::seed_models
