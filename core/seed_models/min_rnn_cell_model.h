// The minGRU and minLSTM model types: MinRnnModel (min_rnn_model.h) with its cell fixed, so
// that each is a type of its own (the registry's factories, load, hold) while the two share
// this one declaration. The cells' own code, gates and trace arrays, is in mingru.h and
// minlstm.h; include those, which document the cells.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "core/seed_models/min_rnn_model.h"

namespace lsrl::seed_models {

template <MinRnnCell Cell>
class MinRnnCellModel final : public MinRnnModel {
 public:
  // Config::fromJson for the seed-model registry ("<kind> config: ..." errors).
  struct Config : MinRnnConfig {
    static Config fromJson(const nlohmann::json& json) {
      return {MinRnnConfig::fromJson(json, Cell)};
    }
  };

  // Seeded initialisation.
  explicit MinRnnCellModel(const MinRnnConfig& config = {}) : MinRnnModel(Cell, config) {}
  MinRnnCellModel(const MinRnnConfig& config, const std::vector<Tensor>& weights)
      : MinRnnModel(Cell, config, weights) {}
  static MinRnnCellModel load(const std::string& path) {
    const auto [config, weights] = loadParts(Cell, path);
    return MinRnnCellModel(config, weights);
  }
  // §5.3's hand-set "hold" toy for these task parameters (min_rnn_model.h).
  static MinRnnCellModel hold(const SelectiveCopyParams& task = {}) {
    const auto [config, weights] = holdParts(Cell, task);
    return MinRnnCellModel(config, weights);
  }
};

using MinGruModel = MinRnnCellModel<MinRnnCell::Gru>;
using MinLstmModel = MinRnnCellModel<MinRnnCell::Lstm>;

using MinGruConfig = MinGruModel::Config;
using MinLstmConfig = MinLstmModel::Config;

}  // namespace lsrl::seed_models
