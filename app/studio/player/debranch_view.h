// The debranching player: compiles the open program (exact or float64,
// optimisation on or off) on a worker thread with progress and cancel, then plays the
// compile's recorded steps: a timeline (slider, play/pause, speed, step buttons, go to
// step N, next step of a rule, to the end), the rule of each step with a one-line
// explanation, the graph at that step with the branch node highlighted and new nodes
// sliding in, a chart of node and branch counts, and a read-only node inspector. While
// playing, the graph is laid out afresh every second or two (dot on a worker), so that a
// long playback does not end as a pile of incrementally placed boxes. The view follows
// the rewrite: each step's branch node is framed with its neighbours at a readable zoom.
#pragma once

#include <QFutureWatcher>
#include <QWidget>
#include <atomic>
#include <cstdint>
#include <map>
#include <memory>

#include "app/studio/player/step_replay.h"
#include "core/compiler/compiler.h"
#include "core/util/memory_use.h"

class QCheckBox;
class QComboBox;
class QLabel;
class QProgressBar;
class QPushButton;
class QSlider;
class QSpinBox;
class QTimer;
class QToolButton;

namespace lsrl::studio {

class Document;
class NodeInspector;
class PlayerGraphView;
class PlayerScene;
class CompileCountChart;

// What the compile worker hands back.
struct PlayerCompile {
  std::shared_ptr<const CompileResult> result;
  std::shared_ptr<const ReplayData> replay;
  std::map<NodeId, NodePosition> layout;  // the program's, groups expanded
  QString error;                          // empty on success
  bool cancelled = false;
};

// What the layout worker hands back: dot's places for the graph of one step, by IR id.
struct PlayerLayout {
  std::map<NodeId, NodePosition> nodes;
  QString error;  // empty on success (exceptions do not cross QtConcurrent)
};

class DebranchView : public QWidget {
  Q_OBJECT

 public:
  explicit DebranchView(Document* doc, QWidget* parent = nullptr);
  ~DebranchView() override;

  // ---- for the window's --screenshot and the tests -----------------------------------
  // Compiles the document's program and waits (event loop running) until the compile
  // ends; true when it succeeded.
  bool compileAndWait(Backend backend = Backend::Exact, bool optimize = true,
                      int timeoutMs = 120000);
  // A compile of the document at `revision` made elsewhere (the Live panel's, its
  // replayable history kept; `what` names it): the view shows it instead of compiling when
  // it is shown while the document is still at that revision.
  void offerCompile(std::shared_ptr<const CompileResult> result, uint64_t revision,
                    const QString& what);
  // Shows the graph after `k` steps (no animation); false when there is no compile or k
  // is out of range.
  bool showStep(int k);

  int currentStep() const;
  int stepCount() const;
  bool hasCompile() const { return cursor_ != nullptr; }
  // From startCompile until its result (or error) is applied.
  bool isCompiling() const { return compiling_; }
  bool isPlaying() const;
  // From layOut until its places are applied (or dropped).
  bool isLayingOut() const { return layingOut_; }
  // How many layouts requested automatically while playing were applied (not dropped).
  int autoLayoutsApplied() const { return autoLayoutsApplied_; }
  const StepCursor* cursor() const { return cursor_.get(); }
  std::shared_ptr<const CompileResult> compileResult() const { return result_; }
  QString stepText() const;    // "Step 12 of 3000 · 5B stack Linears: ..."
  QString statusText() const;  // compile status: steps so far, errors, "Compile cancelled"
  // The rule step `k` applied (step k turns the graph of k − 1 steps into that of k);
  // empty for step 0 or without a compile.
  QString ruleOfStep(int k) const;
  // A compile stops when the process holds more than this many bytes (default: half of
  // the machine's memory; 0: no limit).
  void setCompileMemoryBudget(size_t bytes) { compileMemoryBudget_ = bytes; }

  PlayerScene* scene() const { return scene_; }
  PlayerGraphView* graphView() const { return graphView_; }
  CompileCountChart* chart() const { return chart_; }
  NodeInspector* inspector() const { return inspector_; }
  QSlider* slider() const { return slider_; }
  QComboBox* backendBox() const { return backend_; }
  QCheckBox* optimizeBox() const { return optimize_; }
  QPushButton* compileButton() const { return compile_; }
  QPushButton* cancelButton() const { return cancel_; }
  QComboBox* ruleBox() const { return rules_; }
  QSpinBox* speedBox() const { return speed_; }
  QPushButton* layOutButton() const { return layOut_; }
  QCheckBox* autoLayoutBox() const { return autoLayout_; }
  QCheckBox* followBox() const { return follow_; }

 public Q_SLOTS:
  void startCompile();
  void cancelCompile();
  void play();
  void pause();
  void stepForward();
  void stepBack();
  // The last step, then layOut().
  void toEnd();
  // Lays the graph of the current step out (dot, on a worker thread) and slides every
  // box to its new place, the branch node staying where it is; later steps keep these
  // places for the nodes that survive.
  void layOut();
  // The next step after the current one whose rule is the rule box's choice.
  void nextStepOfRule();
  // Shows node `id` in the inspector and rings its box (kNoNode: none).
  void inspectNode(NodeId id);
  // Zooms the graph view onto the graph shown (never beyond 1:1).
  void fitToGraph();
  // Frames the current step's branch node (or its new nodes) with its neighbours at a
  // readable zoom, whether or not the view follows the rewrite.
  void focusBranch();

 Q_SIGNALS:
  void compileFinished(bool ok, const QString& message);
  void stepShown(int step);
  void layoutFinished(bool ok, const QString& message);

 protected:
  void showEvent(QShowEvent* event) override;

 private:
  void startCompileOf(std::shared_ptr<const CompileResult> given);
  // Shows the offered compile when it still fits the document.
  void adoptOffered();
  QWidget* buildCompileBar();
  QWidget* buildTimeline();
  void onCompileFinished();
  void onProgressTick();
  void onLayoutFinished();
  // While playing: lays out when the step moved far enough since the last layout.
  void maybeAutoLayout();
  // Steps between automatic layouts at the current speed.
  int autoLayoutInterval() const;
  void requestLayout(bool automatic);
  // The program changed: the compile shown no longer matches it.
  void invalidate();
  void moveTo(int k, bool animate);
  // Frames the step's rewrite when the view follows it (else keeps the view).
  void followRewrite();
  void updateStepLabel();
  void setControlsEnabled(bool on);

  Document* doc_;
  // Compile bar
  QComboBox* backend_;
  QCheckBox* optimize_;
  QPushButton* compile_;
  QProgressBar* progress_;
  QPushButton* cancel_;
  QLabel* status_;
  // Graph and inspector
  PlayerScene* scene_;
  PlayerGraphView* graphView_;
  NodeInspector* inspector_;
  // Timeline
  QSlider* slider_;
  QToolButton* back_;
  QToolButton* play_;
  QToolButton* forward_;
  QSpinBox* speed_;
  QSpinBox* goTo_;
  QComboBox* rules_;
  QPushButton* nextRule_;
  QPushButton* toEnd_;
  QPushButton* layOut_;
  QCheckBox* autoLayout_;
  QCheckBox* follow_;
  QLabel* stepLabel_;
  CompileCountChart* chart_;
  QTimer* playTimer_;
  QTimer* progressTimer_;

  QFutureWatcher<PlayerCompile> watcher_;
  QFutureWatcher<PlayerLayout> layoutWatcher_;
  bool layingOut_ = false;
  // Bumped whenever the graph shown is replaced: a layout of an older one is dropped.
  uint64_t layoutGeneration_ = 0;
  uint64_t layoutRequestGeneration_ = 0;
  int layoutRequestStep_ = -1;
  // Steps the current step may have moved from layoutRequestStep_ for the result to
  // still apply: 0 for a layout asked for while paused, more while playing.
  int layoutTolerance_ = 0;
  bool layoutIsAuto_ = false;
  int lastLayoutStep_ = 0;
  int autoLayoutsApplied_ = 0;
  std::shared_ptr<std::atomic<bool>> cancelFlag_;
  std::shared_ptr<std::atomic<bool>> overBudget_;  // the compile stopped at the budget
  size_t compileMemoryBudget_ = physicalMemoryBytes() / 2;
  std::shared_ptr<std::atomic<long long>> stepsSoFar_;
  std::shared_ptr<const CompileResult> result_;
  std::shared_ptr<const ReplayData> replay_;
  std::unique_ptr<StepCursor> cursor_;
  bool syncingSlider_ = false;
  bool compiling_ = false;
  // The program's expanded layout, reused while the document is unchanged (dot is slow).
  std::map<NodeId, NodePosition> layout_;
  uint64_t layoutRevision_ = ~uint64_t{0};
  uint64_t compiledRevision_ = 0;
  std::shared_ptr<const CompileResult> offered_;
  uint64_t offeredRevision_ = 0;
  QString offeredWhat_;
  bool adopting_ = false;  // the compile in flight is an offered one being laid out
};

}  // namespace lsrl::studio
