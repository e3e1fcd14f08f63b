// The Models tab's Train… dialog: trains the current config of a seed model on one of its
// scored tasks in a subprocess (`lsrl train`'s command, core/seed_models/training_command.h),
// with the live loss and accuracy curves, progress, ETA and Cancel (SIGINT: the script
// saves the step it reached). A run that ends is announced with trained(path), which the
// tab loads; a cancelled one leaves its checkpoint on disk, unloaded.
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
  TrainDialog(const QString& kind, const nlohmann::json& config, const QStringList& tasks,
              const QString& task, QWidget* parent = nullptr);
  ~TrainDialog() override;

  QSpinBox* stepsBox() const { return steps_; }
  QLineEdit* outputEdit() const { return output_; }
  QPushButton* startButton() const { return start_; }
  QPushButton* cancelButton() const { return cancel_; }
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

  QString kind_;
  nlohmann::json config_;
  QString configPath_;  // the config written for the subprocess
  QComboBox* task_;
  QSpinBox* steps_;
  QSpinBox* seed_;
  QDoubleSpinBox* lr_;
  QLineEdit* output_;
  QPushButton* start_;
  QPushButton* cancel_;
  QProgressBar* progress_;
  QLabel* eta_;
  QLabel* status_;
  TrainingChart* chart_;
  QProcess* process_ = nullptr;
  seed_models::TrainingLog log_;
  QByteArray pending_;  // a partial line of the subprocess's output
};

}  // namespace lsrl::studio
