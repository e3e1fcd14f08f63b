// The Models tab's zoo panel: pick a seed model (minGRU, minLSTM, GateLoop, Lattice, the
// looped transformer); its trained checkpoint (examples/models) is the default weights,
// "Random" keeps the checkpoint's config with seeded random weights (every key of
// makeSeedModel's config editable as a JSON value), and any weights file can be loaded.
// Choose the input (one of the model's synthetic tasks with a seed, or an IN.json file)
// and the backend, and Run; Train… asks for a training run of the current config.
#pragma once

#include <QStringList>
#include <QWidget>
#include <nlohmann/json_fwd.hpp>

#include "app/studio/zoo/model_run.h"

class QComboBox;
class QLineEdit;
class QPushButton;
class QSpinBox;
class QTableWidget;

namespace lsrl::studio {

class ModelZooPanel : public QWidget {
  Q_OBJECT

 public:
  explicit ModelZooPanel(QWidget* parent = nullptr);

  // Selects a kind (its default config and tasks); false for an unknown kind.
  bool setKind(const QString& kind);
  QString kind() const;
  // Sets one config key to a JSON value text ("4", "\"osr\""); false if the key is not
  // one of the model's.
  bool setConfigValue(const QString& key, const QString& jsonValue);
  bool setTask(const QString& task);
  void setTaskSeed(int seed);
  void setWeightsFile(const QString& path);
  QString weightsFile() const;
  // The shipped trained checkpoint of the current kind (empty when there is none) / seeded
  // random weights of the config shown (the checkpoint's, when one was loaded).
  void useTrainedWeights();
  void useRandomWeights();
  // The kind's default config with seeded random weights: Lattice's shipped checkpoint is a
  // token model, and the geometric demos' tasks (rotating, orthogonal_bursts, …) need the
  // default vector config.
  void useDefaultConfig();
  // The config the form shows, as makeSeedModel takes it. Throws lsrl::Error naming a
  // value that is not JSON.
  nlohmann::json configJson() const;
  QStringList tasks() const;
  void setInputFile(const QString& path);
  bool setBackend(const QString& backend);  // "cpu" or "vulkan"

  // The request the form describes. Throws lsrl::Error naming a config value that is not
  // JSON.
  ModelRunRequest request() const;
  QPushButton* runButton() const { return run_; }
  QPushButton* trainButton() const { return train_; }

 Q_SIGNALS:
  void runRequested();
  void trainRequested();

 private:
  void loadKind();
  // The kind's default config, run with `weights` (empty: random weights).
  void showDefaultConfig(const QString& weights);
  void refreshInputs();
  // Fills the config table (seed in its spin box) from a model's full config.
  void showConfig(const nlohmann::json& config);
  // The task list of the model the form describes; `preferred` selected when offered.
  void refreshTasks(const QString& preferred = {});

  QComboBox* kind_;
  QTableWidget* config_;
  QSpinBox* seed_;
  QLineEdit* weights_;
  QComboBox* task_;
  QSpinBox* taskSeed_;
  QLineEdit* input_;
  QComboBox* backend_;
  QPushButton* run_;
  QPushButton* train_;
  QPushButton* trained_;
  QPushButton* random_;
  QPushButton* default_;
};

}  // namespace lsrl::studio
