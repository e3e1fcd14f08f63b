#include "app/studio/window/source_watcher.h"

#include <QFileInfo>
#include <QFileSystemWatcher>
#include <QTimer>

#include "app/studio/document/document.h"

namespace lsrl::studio {

SourceWatcher::SourceWatcher(Document* doc, QObject* parent)
    : QObject(parent),
      doc_(doc),
      watcher_(new QFileSystemWatcher(this)),
      settle_(new QTimer(this)) {
  settle_->setSingleShot(true);
  settle_->setInterval(kSettleMs);
  connect(settle_, &QTimer::timeout, this, [this] {
    const QFileInfo info(file_);
    if (!info.exists()) return;  // mid-replace: the rename's own event comes next
    if (info.lastModified() == modified_ && info.size() == size_) return;
    modified_ = info.lastModified();
    size_ = info.size();
    // A replaced file drops out of the watcher: watch the new one.
    if (!watcher_->files().contains(file_)) watcher_->addPath(file_);
    Q_EMIT sourceChanged();
  });
  connect(watcher_, &QFileSystemWatcher::fileChanged, this, &SourceWatcher::maybeChanged);
  connect(watcher_, &QFileSystemWatcher::directoryChanged, this, &SourceWatcher::maybeChanged);
  connect(doc_, &Document::filePathChanged, this, [this] { follow(doc_->sourcePath()); });
  follow(doc_->sourcePath());
}

void SourceWatcher::follow(const QString& path) {
  if (path == file_) return;
  if (!watcher_->files().isEmpty()) watcher_->removePaths(watcher_->files());
  if (!watcher_->directories().isEmpty()) watcher_->removePaths(watcher_->directories());
  file_ = path;
  if (file_.isEmpty()) return;
  const QFileInfo info(file_);
  modified_ = info.lastModified();
  size_ = info.size();
  watcher_->addPath(file_);
  watcher_->addPath(info.absolutePath());
}

void SourceWatcher::maybeChanged() {
  if (!file_.isEmpty()) settle_->start();
}

}  // namespace lsrl::studio
