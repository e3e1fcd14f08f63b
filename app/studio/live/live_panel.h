// The Live panel (a dock beside the editor): after every edit of the program, and every
// reload of its watched .py file, it compiles the program again on a worker thread
// (live_compile.h) and shows, token by token on its prompt, the program's outputs beside
// the compiled network's in float64 and fp32 (and a target architecture's when one is
// picked), the tokens where they differ marked; the network's size with its change
// against the last good compile, and the precision certificates' verdicts. A newer edit
// cancels the compile in flight; the event loop never waits for one. A program with
// problems shows them, the last good result greyed out. Above kAutoCompileNodes nodes
// the panel compiles only when asked ("Compile now") and says why.
#pragma once

#include <QFutureWatcher>
#include <QThreadPool>
#include <QWidget>
#include <atomic>
#include <memory>
#include <optional>

#include "app/studio/document/document.h"
#include "app/studio/live/live_compile.h"

class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QTableWidget;

namespace lsrl::studio {

class LivePanel : public QWidget {
  Q_OBJECT

 public:
  // Programs with more live nodes than this are compiled on request only (tok2tok L=10
  // has 2,653 nodes and compiles in about 0.3 s here; L=30 has 7,700 and takes seconds).
  static constexpr int kAutoCompileNodes = 5000;
  // The size above which the panel waits for Compile now (tests lower it).
  void setAutoCompileLimit(int nodes) { autoCompileLimit_ = nodes; }
  static constexpr int kPreferredWidth = 1000;

  explicit LivePanel(Document* doc, QWidget* parent = nullptr);
  ~LivePanel() override;
  QSize sizeHint() const override;

  // ---- what the person sets ----
  QLineEdit* promptField() const { return prompt_; }
  QComboBox* programModeBox() const { return mode_; }
  QComboBox* targetBox() const { return target_; }
  QComboBox* domainBox() const { return domain_; }
  QPushButton* compileNowButton() const { return compileNow_; }
  QPushButton* stepperButton() const { return toStepper_; }
  // The prompt's tokens (throws lsrl::Error naming what does not parse).
  ExactSequence promptTokens() const;

  // ---- what it shows ----
  QTableWidget* table() const { return table_; }
  QLabel* sizeLabel() const { return size_; }
  QLabel* certificateLabel() const { return certificate_; }
  QLabel* statusLabel() const { return status_; }
  // The last result shown (problems included), or null before the first.
  const LiveResult* result() const { return shown_.get(); }
  // The last result that compiled and ran (what the greyed rows show).
  const LiveResult* lastGood() const { return good_.get(); }
  // True when the panel shows the current program and prompt (no compile pending).
  bool isCurrent() const;
  bool isCompiling() const { return running_; }
  // How many results were shown (tests and the benchmark wait for it to grow).
  int updates() const { return updates_; }
  // Processes events until isCurrent(); false on timeout.
  bool waitUntilCurrent(int timeoutMs = 30000);

 public Q_SLOTS:
  // Compiles now, whatever the program's size (the Compile now button).
  void compileNow();

 Q_SIGNALS:
  // A new result is shown.
  void updated();
  // "Run in Token stepper": the prompt's tokens.
  void stepperRequested(const lsrl::ExactSequence& tokens);
  // A compile of the program at document revision `revision` (its replayable history
  // kept), for the Debranching tab.
  void compiled(std::shared_ptr<const lsrl::CompileResult> result, uint64_t revision,
                const QString& what);

 protected:
  void showEvent(QShowEvent* event) override;

 private:
  struct Outcome;
  void onDocumentChanged(const DocumentChange& what);
  void onDocumentReplaced();
  void onPromptEdited();
  // Something the result depends on changed: compile again (or say why not).
  void invalidate();
  void schedule(bool forced);
  void onFinished();
  void apply(std::shared_ptr<const LiveResult> result);
  void showRows(const LiveResult& r);
  void showStale(const QString& why);
  void setFirstPrompt();
  void updateDomainChoice();
  bool tooBig() const;

  Document* doc_;
  QLineEdit* prompt_;
  QLabel* promptNote_;
  QComboBox* mode_;
  QComboBox* target_;
  QComboBox* domain_;
  QPushButton* compileNow_;
  QPushButton* toStepper_;
  QLabel* status_;
  QLabel* size_;
  QLabel* certificate_;
  QLabel* differences_;
  QTableWidget* table_;

  QThreadPool pool_;
  QFutureWatcher<std::shared_ptr<Outcome>> watcher_;
  std::shared_ptr<std::atomic<bool>> cancel_;
  bool running_ = false;
  bool pending_ = false;      // an edit came while running: start again when it ends
  uint64_t wanted_ = 1;       // bumped by every change the result depends on
  uint64_t forcedStamp_ = 0;  // Compile now was pressed for this state
  uint64_t shownStamp_ = 0;
  bool promptTyped_ = false;  // the person typed the prompt: openings keep it
  QString promptSource_;      // the file the prompt was chosen for
  std::shared_ptr<const LiveResult> shown_;
  std::shared_ptr<const LiveResult> good_;
  int updates_ = 0;
  int autoCompileLimit_ = kAutoCompileNodes;
};

}  // namespace lsrl::studio
