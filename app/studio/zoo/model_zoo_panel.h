// The Models tab's zoo panel: pick a seed model (minGRU, minLSTM, GateLoop, Lattice, the
// looped transformer), edit its config (sizes, seed; every key of makeSeedModel's config
// as a JSON value) or load its weights from a safetensors file, choose the input (one of
// the model's synthetic tasks with a seed, or an IN.json file) and the backend, and Run.
#pragma once

#include <QWidget>

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
  void setInputFile(const QString& path);
  bool setBackend(const QString& backend);  // "cpu" or "vulkan"

  // The request the form describes. Throws lsrl::Error naming a config value that is not
  // JSON.
  ModelRunRequest request() const;
  QPushButton* runButton() const { return run_; }

 Q_SIGNALS:
  void runRequested();

 private:
  void loadKind();
  void refreshInputs();

  QComboBox* kind_;
  QTableWidget* config_;
  QSpinBox* seed_;
  QLineEdit* weights_;
  QComboBox* task_;
  QSpinBox* taskSeed_;
  QLineEdit* input_;
  QComboBox* backend_;
  QPushButton* run_;
};

}  // namespace lsrl::studio
