#include "app/studio/player/frame_export.h"

#include <QDir>
#include <QGraphicsScene>
#include <QGraphicsView>
#include <QImage>
#include <QPainter>
#include <algorithm>

#include "app/studio/player/debranch_view.h"
#include "app/studio/plots/chart_export.h"
#include "core/util/error.h"

namespace lsrl::studio {

int frameStride(int steps, int maxFrames) {
  if (steps <= maxFrames || maxFrames <= 0) return 1;
  return (steps + maxFrames - 1) / maxFrames;
}

QStringList exportDebranchFrames(DebranchView& view, const QString& dir, FrameRange range,
                                 const std::function<bool(int, int)>& progress) {
  if (!view.hasCompile()) throw Error("no compile to export: compile the program first");
  const int last = range.last < 0 ? view.stepCount() : std::min(range.last, view.stepCount());
  const int first = std::clamp(range.first, 0, last);
  const int every = std::max(1, range.every);
  if (!QDir().mkpath(dir)) throw Error("cannot create the folder " + dir.toStdString());
  const int total = (last - first) / every + 1;
  QStringList written;
  view.showStep(first);
  view.fitToGraph();
  // Framed once: every frame renders the same part of the plane at the same size,
  // whatever the window's layout does meanwhile.
  QGraphicsView* graph = view.graphView();
  const QSize size = graph->viewport()->size().expandedTo(QSize(64, 64));
  const QRectF plane = graph->mapToScene(graph->viewport()->rect()).boundingRect();
  for (int k = first, done = 0; k <= last; k += every) {
    view.showStep(k);
    const QString path =
        QDir(dir).filePath(QStringLiteral("step_%1.png").arg(k, 5, 10, QLatin1Char('0')));
    QImage frame(size, QImage::Format_ARGB32_Premultiplied);
    frame.fill(Qt::white);
    {
      QPainter painter(&frame);
      painter.setRenderHint(QPainter::Antialiasing);
      graph->scene()->render(&painter, QRectF(QPointF(0, 0), QSizeF(size)), plane);
    }
    exportImagePng(frame, path);
    written << path;
    if (progress && !progress(++done, total)) break;
  }
  return written;
}

}  // namespace lsrl::studio
