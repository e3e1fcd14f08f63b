// The token stepper: an input panel (token table, prompt builders,
// "Load IN.json"), what runs (engine A, optionally compared with engine B), run / step
// forward / step back / go to step t, the program graph tinted by every node's value at
// t, a watch list, the output at t, and the first divergence of A and B. Runs (and
// compiles) go to a worker thread with progress and cancel. With a weights file as an
// engine, "What training moved…" opens the weights view (weights_change_view.h).
//
// For the trajectory views: currentStepChanged(t) and seriesAvailable() with
// stateSeries(), one series per LinState of run A (program: "name[i]"; compiled path:
// the path LinState's name as the compiler records it, "Pass+reg_0+reg_1[3]").
#pragma once

#include <QFutureWatcher>
#include <QPointer>
#include <QWidget>
#include <atomic>
#include <memory>
#include <optional>
#include <vector>

#include "app/studio/document/document.h"
#include "app/studio/plots/state_series.h"
#include "app/studio/stepper/divergence.h"
#include "app/studio/stepper/stepper_run.h"

class QCheckBox;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QSlider;
class QSpinBox;
class QTimer;
class QTreeWidget;

namespace lsrl::studio {

class EngineChooser;
class PromptBuilder;
class TokenTable;
class ValueGraphView;
class WeightsChangeView;

class StepperView : public QWidget {
  Q_OBJECT

 public:
  explicit StepperView(Document* doc, QWidget* parent = nullptr);
  ~StepperView() override;

  // ---- input ----
  TokenTable* tokenTable() const { return tokens_; }
  PromptBuilder* promptBuilder() const { return builder_; }
  void setTokens(const ExactSequence& tokens);
  // A sequence file (core/io/sequence_file.h; the first sequence of a batch). On failure
  // returns false with the reason in *error and changes nothing.
  bool loadInputFile(const QString& path, QString* error = nullptr);

  // ---- what runs ----
  // Engine A, and B to compare with (nullopt: A alone). Tolerance: see firstDivergence.
  void setEngines(const EngineSpec& a, const std::optional<EngineSpec>& b, double tolerance = 1e-6);
  EngineSpec engineA() const;
  std::optional<EngineSpec> engineB() const;
  void startRun();  // the current tokens and engines, in a worker thread
  void cancelRun();
  bool isRunning() const;
  // Blocks (processing events) until the run ends; false on timeout (tests, screenshots).
  bool waitForRun(int timeoutMs = 600000);

  // ---- results ----
  const StepperRun* runA() const { return runA_.get(); }
  const StepperRun* runB() const { return runB_.get(); }
  const std::optional<Divergence>& divergence() const { return divergence_; }
  QString lastError() const { return lastError_; }
  int stepCount() const;  // tokens of the last run (0 before a run)
  int currentStep() const { return step_; }
  QString outputText() const;  // what the output panel shows at the current step
  // Run A's LinStates over every step, labelled (see the header comment).
  std::vector<StateSeries> stateSeries() const;

  // ---- watch list (program nodes; the output is always there) ----
  void addWatch(NodeId id);
  void removeWatch(NodeId id);
  const std::vector<NodeId>& watched() const { return watched_; }
  ValueGraphView* graphView() const { return graph_; }

  // ---- a fine-tuned weights file (engine B, else A) ----
  // The weights file the "What training moved…" button compares, or empty.
  QString comparedWeightsFile() const;
  // Opens the weights view of comparedWeightsFile() (closing one already open: the view
  // rebuilds from the program as it is now); null when there is no such file.
  WeightsChangeView* showWeightsChange();

  // For --screenshot --view stepper --step T: runs (synchronously) if nothing ran yet,
  // then shows step t. False if the run fails or t is outside 0..stepCount()-1.
  bool showStep(int t);

 public Q_SLOTS:
  void goToStep(int t);
  void stepForward();
  void stepBack();
  void goToDivergence();

 Q_SIGNALS:
  void currentStepChanged(int t);
  // A run finished: stateSeries() holds the new series.
  void seriesAvailable();
  void runFinished(bool ok, const QString& message);

 private:
  struct Outcome;
  struct Progress;
  QWidget* buildInputPanel();
  QWidget* buildRunPanel();
  QWidget* buildResultPanel();
  void onDocumentReplaced();
  void onProgramEdited();
  void onRunFinished();
  void pollProgress();
  void refreshStep();
  void refreshWatch();
  void clearResults(const QString& why);
  void addWatchFromField();
  void prefillPrompt();
  // The program node of the first divergence (kNoNode: none, or not a program node).
  NodeId divergenceProgramNode() const;
  // Frames the output readably.
  void frameGraph();
  void updateWeightsButton();

  Document* doc_;
  TokenTable* tokens_;
  PromptBuilder* builder_;
  QLabel* inputStatus_;
  EngineChooser* engineA_;
  EngineChooser* engineB_;
  QCheckBox* compare_;
  QLineEdit* tolerance_;
  QPushButton* runButton_;
  QPushButton* cancelButton_;
  QProgressBar* progress_;
  QLabel* runStatus_;
  QPushButton* backButton_;
  QPushButton* forwardButton_;
  QSlider* slider_;
  QSpinBox* stepBox_;
  ValueGraphView* graph_;
  QLabel* graphCaption_;
  QLabel* output_;
  QLabel* divergenceLabel_;
  QPushButton* divergenceButton_;
  QPushButton* weightsButton_;
  QPointer<WeightsChangeView> weightsView_;
  QTreeWidget* watch_;
  QLineEdit* watchField_;
  QTimer* pollTimer_;

  QFutureWatcher<std::shared_ptr<Outcome>> watcher_;
  std::shared_ptr<Progress> progressState_;
  std::shared_ptr<StepperRun> runA_, runB_;
  std::optional<Divergence> divergence_;
  QString lastError_;
  std::vector<NodeId> watched_;
  int step_ = -1;
};

}  // namespace lsrl::studio
