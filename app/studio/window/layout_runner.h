// Runs Graphviz dot (seconds on tok2tok) on a worker thread and applies the result as
// one undoable "Re-layout" step, unless the document's structure changed meanwhile
// (then the stale layout is dropped). dot cannot be interrupted: cancelling drops the
// result when it arrives.
#pragma once

#include <QFutureWatcher>
#include <QObject>
#include <cstdint>
#include <string>

#include "app/layout/dot_layout.h"

namespace lsrl::studio {

class Document;

// What the worker hands back: a layout, or why there is none.
struct LayoutOutcome {
  LayoutResult layout;
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
  bool cancelled_ = false;
};

}  // namespace lsrl::studio
