#include "app/studio/window/layout_runner.h"

#include <QElapsedTimer>
#include <QtConcurrent/QtConcurrentRun>

#include "app/layout/full_layout.h"
#include "app/studio/document/document.h"
#include "core/util/error.h"

namespace lsrl::studio {

LayoutRunner::LayoutRunner(Document* doc, QObject* parent) : QObject(parent), doc_(doc) {
  connect(&watcher_, &QFutureWatcher<LayoutOutcome>::finished, this, &LayoutRunner::onFinished);
}

LayoutRunner::~LayoutRunner() { watcher_.waitForFinished(); }

void LayoutRunner::start(bool undoable, bool follows) {
  if (watcher_.isRunning()) return;
  // A fresh flag per run: a cancelled run still finishing keeps its own.
  cancelled_ = std::make_shared<std::atomic<bool>>(false);
  undoable_ = undoable;
  follows_ = follows;
  structureRevision_ = doc_->structureRevision();
  // The worker gets its own copy: the document keeps changing on the UI thread.
  // Exceptions do not cross QtConcurrent intact (only QException does): the worker
  // returns the error text instead.
  watcher_.setFuture(QtConcurrent::run([g = doc_->graph(), cancel = cancelled_] {
    LayoutOutcome outcome;
    try {
      FullLayout full = fullLayout(g, cancel.get());
      outcome.layout = std::move(full.layout);
      outcome.note = std::move(full.note);
    } catch (const Cancelled&) {
      // cancelled_ says so
    } catch (const std::exception& e) {
      outcome.error = e.what();
    }
    return outcome;
  }));
  Q_EMIT started();
}

void LayoutRunner::cancel() { cancelled_->store(true); }

void LayoutRunner::waitForFinished() {
  if (!watcher_.isRunning() && !watcher_.isFinished()) return;
  watcher_.waitForFinished();
  // Deliver the finished signal now rather than at the next event loop turn.
  if (watcher_.isFinished() && watcher_.future().isValid()) onFinished();
}

void LayoutRunner::onFinished() {
  if (!watcher_.future().isValid()) return;
  const LayoutOutcome outcome = watcher_.result();
  const LayoutResult& result = outcome.layout;
  const QString error = QString::fromStdString(outcome.error);
  const QString applied = outcome.note.empty()
                              ? tr("Layout applied")
                              : tr("Layout applied: %1").arg(QString::fromStdString(outcome.note));
  watcher_.setFuture(QFuture<LayoutOutcome>());  // consumed: a second call is a no-op
  if (!error.isEmpty()) {
    Q_EMIT finished(false, tr("Layout failed: %1").arg(error));
  } else if (cancelled_->load()) {
    Q_EMIT finished(false, tr("Layout cancelled"));
  } else if (doc_->structureRevision() != structureRevision_) {
    Q_EMIT finished(false, tr("The graph changed during the layout; run it again"));
  } else if (undoable_) {
    doc_->applyLayout(result.nodes, result.groups, tr("Re-layout"), follows_);
    Q_EMIT finished(true, applied);
  } else {
    doc_->placeWithoutUndo(result.nodes, result.groups);
    Q_EMIT finished(true, applied);
  }
}

}  // namespace lsrl::studio
