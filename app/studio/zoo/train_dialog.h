// The Models tab's Train… dialog: trains the current config of a seed model from random
// weights, or fine-tunes the loaded checkpoint, on one of its scored tasks in a subprocess
// (`lsrl train`'s command, core/seed_models/training_command.h), with the live loss and
// accuracy curves (a first point after the first step), progress and ETA after every step,
// Cancel (SIGINT: the script saves the step it reached) and Close. A run that ends is
// announced with trained(path), which the tab loads; a cancelled one leaves its checkpoint
// on disk, unloaded.
#pragma once

#include <QDialog>
#include <QProcess>
#include <nlohmann/json.hpp>

#include "core/seed_models/training_log.h"

class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QSpinBox;

namespace lsrl::studio {

class TrainingChart;

class TrainDialog : public QDialog {
  Q_OBJECT

 public:
  // `tasks`: the config's scored tasks (the first, or `task` when listed, is selected).
  // `loaded`: the checkpoint the tab has loaded (offered for fine-tuning), empty for none.
  TrainDialog(const QString& kind, const nlohmann::json& config, const QStringList& tasks,
              const QString& task, const QString& loaded, QWidget* parent = nullptr);
  ~TrainDialog() override;

  QComboBox* startFromBox() const { return startFrom_; }
  QSpinBox* stepsBox() const { return steps_; }
  QSpinBox* evalSamplesBox() const { return evalSamples_; }
  QLineEdit* outputEdit() const { return output_; }
  QPushButton* startButton() const { return start_; }
  QPushButton* cancelButton() const { return cancel_; }
  QPushButton* closeButton() const { return close_; }
  QProgressBar* progressBar() const { return progress_; }
  TrainingChart* chart() const { return chart_; }
  bool isTraining() const;
  QString statusText() const;
  const seed_models::TrainingLog& log() const { return log_; }

  void startTraining();
  void cancelTraining();

 Q_SIGNALS:
  void trained(const QString& checkpoint);

 protected:
  void closeEvent(QCloseEvent* event) override;

 private:
  void readOutput();
  void finished(int exitCode, QProcess::ExitStatus status);
  void setStatus(const QString& text);
  void showProgress();

  QString kind_;
  nlohmann::json config_;
  QString configPath_;  // the config written for the subprocess
  QComboBox* task_;
  QComboBox* startFrom_;  // item data: the checkpoint to fine-tune, empty for random weights
  QSpinBox* steps_;
  QSpinBox* evalSamples_;
  QSpinBox* seed_;
  QDoubleSpinBox* lr_;
  QLineEdit* output_;
  QPushButton* start_;
  QPushButton* cancel_;
  QPushButton* close_;
  QProgressBar* progress_;
  QLabel* eta_;
  QLabel* status_;
  TrainingChart* chart_;
  QProcess* process_ = nullptr;
  seed_models::TrainingLog log_;
  QByteArray pending_;  // a partial line of the subprocess's output
};

}  // namespace lsrl::studio
