// The pictures of the start page's example cards. Each example is built (buildExample:
// the program and its stored layout) and drawn (graph_thumbnail.h) on a worker thread,
// one at a time, so a window opens at once and the cards fill in as they are ready
// (tok2tok takes ~0.1 s to build). Pictures are kept for the life of the process: later
// windows show them immediately.
#pragma once

#include <QImage>
#include <QObject>
#include <QSize>
#include <QString>
#include <QThreadPool>
#include <map>
#include <set>

namespace lsrl::studio {

class ExampleThumbnails : public QObject {
  Q_OBJECT

 public:
  struct Thumbnail {
    QImage image;
    size_t nodes = 0;
    size_t groups = 0;
    QString error;  // the example could not be built: no picture
  };

  // The process's one instance (a child of the application).
  static ExampleThumbnails* instance();
  // The picture size, in logical pixels.
  static QSize thumbnailSize();

  // The finished thumbnail of exampleEntries()[index], or nullptr while it is being made
  // (the first call starts that; `ready` follows).
  const Thumbnail* thumbnail(int index);
  // Requests still being drawn.
  int pending() const { return pending_; }

 Q_SIGNALS:
  void ready(int index);

 private:
  explicit ExampleThumbnails(QObject* parent);
  ~ExampleThumbnails() override;

  QThreadPool pool_;  // one worker: the UI, dot layouts and compiles keep the other cores
  std::map<int, Thumbnail> done_;
  std::set<int> started_;
  int pending_ = 0;
};

}  // namespace lsrl::studio
