#include "app/studio/player/frame_export.h"

#include <QDir>
#include <QImage>
#include <QPainter>
#include <algorithm>

#include "app/studio/player/debranch_view.h"
#include "app/studio/player/player_graph_view.h"
#include "app/studio/player/player_scene.h"
#include "app/studio/player/step_focus.h"
#include "app/studio/plots/chart_export.h"
#include "core/util/error.h"

namespace lsrl::studio {

namespace {

struct StepRestorer {
  DebranchView& view;
  int step;
  ~StepRestorer() { view.showStep(step); }
};

// The frame's caption: "Step 12 of 57 · fold_linear" (step 0: the program as compiled).
QString frameCaption(int step, int steps, const QString& rule) {
  const QString where = QObject::tr("Step %1 of %2").arg(step).arg(steps);
  return step == 0 ? where + QObject::tr(" · the program as the compiler takes it")
                   : where + QStringLiteral(" · ") + rule;
}

// Draws the caption in a band across the top of the frame, over the graph.
void stampCaption(QPainter& painter, QSize frame, const QString& caption) {
  QFont font = painter.font();
  font.setPointSizeF(12);
  font.setBold(true);
  painter.setFont(font);
  const int height = painter.fontMetrics().height() + 8;
  painter.fillRect(QRect(0, 0, frame.width(), height), QColor(255, 255, 255, 225));
  painter.setPen(QColor(30, 30, 30));
  painter.drawText(QRect(8, 0, frame.width() - 16, height), Qt::AlignLeft | Qt::AlignVCenter,
                   painter.fontMetrics().elidedText(caption, Qt::ElideRight, frame.width() - 16));
}

}  // namespace

int frameStride(int steps, int maxFrames) {
  if (steps <= maxFrames || maxFrames <= 0) return 1;
  return (steps + maxFrames - 1) / maxFrames;
}

std::vector<int> frameSteps(int first, int last, int every) {
  std::vector<int> steps;
  if (last < first) return steps;
  every = std::max(1, every);
  for (int k = first; k <= last; k += every) steps.push_back(k);
  // The stride may step over the end: the last step (the path) is always a frame.
  if (steps.back() != last) steps.push_back(last);
  return steps;
}

QStringList exportDebranchFrames(DebranchView& view, const QString& dir, FrameRange range,
                                 const std::function<bool(int, int)>& progress) {
  if (!view.hasCompile()) throw Error("no compile to export: compile the program first");
  const int last = range.last < 0 ? view.stepCount() : std::min(range.last, view.stepCount());
  const int first = std::clamp(range.first, 0, last);
  if (!QDir().mkpath(dir)) throw Error("cannot create the folder " + dir.toStdString());
  const std::vector<int> steps = frameSteps(first, last, range.every);
  const int total = static_cast<int>(steps.size());
  QStringList written;
  // One size and one zoom for every frame, so that they play as a sequence: the view's
  // size, at the zoom it follows the rewrite with (readable); each frame centred on its
  // step's rewrite as the view frames it.
  PlayerGraphView* graph = view.graphView();
  const QSize size = graph->viewport()->size().expandedTo(QSize(64, 64));
  const double zoom = graph->followZoom();
  // Whatever happens (a frame that cannot be written throws), the reader comes back to
  // the step they were at.
  const StepRestorer restore{view, view.currentStep()};
  view.showStep(first);
  QRectF plane = graph->visibleSceneRect();
  plane.setSize(QSizeF(size) / zoom);
  for (int k : steps) {
    view.showStep(k);
    if (const std::optional<StepFocus> focus = stepFocus(*view.scene(), *view.cursor()))
      plane = framedPlane(*focus, size, zoom);
    const QString path =
        QDir(dir).filePath(QStringLiteral("step_%1.png").arg(k, 5, 10, QLatin1Char('0')));
    // Opaque: a PNG without an alpha channel encodes faster (encoding is most of the time).
    QImage frame(size, QImage::Format_RGB32);
    frame.fill(Qt::white);
    {
      QPainter painter(&frame);
      painter.setRenderHint(QPainter::Antialiasing);
      view.scene()->render(&painter, QRectF(QPointF(0, 0), QSizeF(size)), plane);
      stampCaption(painter, size, frameCaption(k, view.stepCount(), view.ruleOfStep(k)));
    }
    // The same in the PNG's text, for tools that sort or label frames.
    frame.setText(QStringLiteral("Step"), QString::number(k));
    if (k > 0) frame.setText(QStringLiteral("Rule"), view.ruleOfStep(k));
    exportImagePng(frame, path);
    written << path;
    if (progress && !progress(static_cast<int>(written.size()), total)) break;
  }
  return written;
}

}  // namespace lsrl::studio
