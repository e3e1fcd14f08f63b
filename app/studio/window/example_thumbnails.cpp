#include "app/studio/window/example_thumbnails.h"

#include <QApplication>
#include <QFutureWatcher>
#include <QPointer>
#include <QtConcurrent/QtConcurrentRun>
#include <exception>

#include "app/studio/window/examples_catalog.h"
#include "app/studio/window/graph_thumbnail.h"

namespace lsrl::studio {

namespace {

ExampleThumbnails::Thumbnail drawExample(const ExampleEntry& entry, QSize size, qreal ratio) {
  ExampleThumbnails::Thumbnail out;
  // Exceptions do not cross QtConcurrent (only QException does): the error travels as text.
  try {
    const BuiltExample example = buildExample(entry);
    out.nodes = example.graph.liveNodeCount();
    out.groups = example.graph.groups().size();
    out.image = renderGraphThumbnail(example.graph, size, ratio);
  } catch (const std::exception& e) {
    out.error = QString::fromUtf8(e.what());
  }
  return out;
}

}  // namespace

ExampleThumbnails::ExampleThumbnails(QObject* parent) : QObject(parent) {
  pool_.setMaxThreadCount(1);
  // Quitting does not wait for pictures nobody will see.
  connect(qApp, &QCoreApplication::aboutToQuit, this, [this] { pool_.clear(); });
}

ExampleThumbnails::~ExampleThumbnails() { pool_.clear(); }

ExampleThumbnails* ExampleThumbnails::instance() {
  static QPointer<ExampleThumbnails> one;
  if (one.isNull()) one = new ExampleThumbnails(QCoreApplication::instance());
  return one.data();
}

QSize ExampleThumbnails::thumbnailSize() { return {212, 104}; }

const ExampleThumbnails::Thumbnail* ExampleThumbnails::thumbnail(int index) {
  if (auto it = done_.find(index); it != done_.end()) return &it->second;
  const auto& entries = exampleEntries();
  if (index < 0 || static_cast<size_t>(index) >= entries.size()) return nullptr;
  if (!started_.insert(index).second) return nullptr;
  ++pending_;
  const qreal ratio = qApp != nullptr ? qApp->devicePixelRatio() : 1.0;
  auto* watcher = new QFutureWatcher<Thumbnail>(this);
  connect(watcher, &QFutureWatcher<Thumbnail>::finished, this, [this, watcher, index] {
    done_[index] = watcher->result();
    --pending_;
    watcher->deleteLater();
    Q_EMIT ready(index);
  });
  const ExampleEntry& entry = entries[static_cast<size_t>(index)];
  watcher->setFuture(QtConcurrent::run(
      &pool_, [&entry, ratio] { return drawExample(entry, thumbnailSize(), ratio); }));
  return nullptr;
}

}  // namespace lsrl::studio
