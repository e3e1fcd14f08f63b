// Runs the full layout (full_layout.h: dot in a forked copy with a deadline, or layers
// for graphs too big for dot) on a worker thread and applies the result as one
// undoable "Re-layout" step, unless the document's structure changed meanwhile (then
// the stale layout is dropped). Cancelling kills dot's copy at once.
#pragma once

#include <QFutureWatcher>
#include <QObject>
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include "app/layout/layout_result.h"

namespace lsrl::studio {

class Document;

// What the worker hands back: a layout, or why there is none.
struct LayoutOutcome {
  LayoutResult layout;
  std::string note;  // why dot did not lay it out, if it did not
  std::string error;
};

class LayoutRunner : public QObject {
  Q_OBJECT

 public:
  explicit LayoutRunner(Document* doc, QObject* parent = nullptr);
  ~LayoutRunner() override;

  // `undoable` false: part of opening a file without a layout (not an edit). `follows`:
  // the layout completes the edit just made (Expand All Groups) and joins its undo step.
  void start(bool undoable = true, bool follows = false);
  void cancel();
  bool isRunning() const { return watcher_.isRunning(); }
  // Blocks until the running layout is applied or dropped (screenshots, tests).
  void waitForFinished();

 Q_SIGNALS:
  void started();
  // applied: false when cancelled, stale or failed (message says why).
  void finished(bool applied, const QString& message);

 private:
  void onFinished();

  Document* doc_;
  QFutureWatcher<LayoutOutcome> watcher_;
  uint64_t structureRevision_ = 0;
  bool undoable_ = true;
  bool follows_ = false;
  std::shared_ptr<std::atomic<bool>> cancelled_ = std::make_shared<std::atomic<bool>>(false);
};

}  // namespace lsrl::studio
