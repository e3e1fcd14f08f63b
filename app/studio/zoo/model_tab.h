// The explorer's Models tab: the model zoo panel on the left; on the right the run's status
// (progress, Cancel, the task accuracy on this input), which weights run and how each
// accuracy shown was measured (weights_note.h), the tokens marked right or wrong,
// and two pages: the step bar with the view of the model's kind (Lattice slot geometry,
// GateLoop transitions, minGRU/minLSTM gates, looped transformer), and Training, the loss
// and accuracy curves of the checkpoint's training log. Train… opens the training dialog,
// whose finished run (trained from scratch or fine-tuned from the loaded checkpoint) is
// loaded and run here. Runs go
// to a worker thread; the newest request wins (Cancel or a new Run drops an older one's
// result: a forward pass cannot be interrupted, it finishes in the background).
#pragma once

#include <QFutureWatcher>
#include <QMap>
#include <QWidget>
#include <functional>
#include <memory>
#include <string>

#include "app/studio/zoo/model_run.h"

class QLabel;
class QProgressBar;
class QPushButton;
class QStackedWidget;
class QTabWidget;
class QToolButton;

namespace lsrl::studio {

class ModelView;
class ModelZooPanel;
class StepBar;
class TokenMarks;
class TrainDialog;
class TrainingChart;

class ModelTab : public QWidget {
  Q_OBJECT

 public:
  explicit ModelTab(QWidget* parent = nullptr);
  ~ModelTab() override;

  ModelZooPanel* zoo() const { return zoo_; }
  StepBar* stepBar() const { return stepBar_; }
  TokenMarks* tokenMarks() const { return marks_; }
  TrainingChart* trainingChart() const { return trainingChart_; }
  QTabWidget* pages() const { return tabs_; }
  // Opens (or raises) the Train… dialog for the zoo panel's current config.
  TrainDialog* openTrainDialog();
  TrainDialog* trainDialog() const { return trainDialog_; }

  // Runs the zoo panel's request (or `request`) in the worker.
  void startRun();
  void startRun(const ModelRunRequest& request);
  void cancelRun();
  bool isRunning() const;
  // Processes events until the run ends (tests, screenshots); false on timeout.
  bool waitForRun(int timeoutMs = 120000);

  std::shared_ptr<const ModelRun> run() const { return run_; }
  // The view drawing the current run (null before the first run).
  ModelView* currentView() const;
  // The view named "lattice", "gateloop", "gates" or "looped".
  ModelView* view(const QString& name) const;
  QString statusText() const;
  // Which weights the run used, their held-out accuracy and the model's expected one.
  QString weightsText() const;
  QString lastError() const { return lastError_; }

  // Goes to step `step` (the step bar follows). False if there is no run or no such step.
  bool showStep(int step);
  // Runs the export labelled `label` of the current view; false with *error on failure.
  bool exportView(const QString& label, const QString& path, QString* error = nullptr);
  // The current run's trace: one array as CSV, or all of it as .npz (throw lsrl::Error).
  void exportTraceCsv(const QString& array, const QString& path) const;
  void exportTraceNpz(const QString& path) const;

 Q_SIGNALS:
  void runFinished(bool ok);

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  void finishRun(uint64_t id);
  void showRun(std::shared_ptr<const ModelRun> run);
  void fillExportMenu();
  // Asks where to write an export (proposing <kind>-<stem><suffix> in the folder of the
  // last export); the path ends in `suffix`, empty when the person cancels.
  QString askExportPath(const QString& title, const QString& stem, const QString& suffix);
  // Runs `write`; the status line says what was written where, or the error.
  void writeExport(const QString& what, const QString& path, const std::function<void()>& write);
  void reportError(const QString& what);
  // The Training page: the log beside the run's checkpoint, if there is one.
  void showTrainingLog();

  ModelZooPanel* zoo_;
  StepBar* stepBar_;
  TokenMarks* marks_;
  QTabWidget* tabs_;
  TrainingChart* trainingChart_;
  QLabel* trainingNote_;
  TrainDialog* trainDialog_ = nullptr;
  QStackedWidget* stack_;
  QLabel* placeholder_;
  QMap<QString, ModelView*> views_;
  QMap<ModelView*, QWidget*> pages_;  // the scroll area each view is shown in
  QProgressBar* progress_;
  QPushButton* cancel_;
  QLabel* status_;
  QLabel* weightsNote_;
  QToolButton* export_;
  struct RunOutcome {
    std::shared_ptr<ModelRun> run;
    std::string error;
  };
  std::shared_ptr<const ModelRun> run_;
  QFutureWatcher<RunOutcome>* watcher_ = nullptr;
  uint64_t runId_ = 0;
  QString lastError_;
  QString exportDir_;  // where the last export went
};

}  // namespace lsrl::studio
