#include "app/studio/editor/minimap.h"

#include <QMouseEvent>
#include <QPainter>
#include <QStyleOptionGraphicsItem>

#include "app/studio/editor/box_item.h"
#include "app/studio/editor/edge_item.h"
#include "app/studio/editor/graph_scene.h"
#include "app/studio/editor/graph_view.h"
#include "app/studio/editor/group_frame_item.h"
#include "app/studio/editor/node_style.h"

namespace lsrl::studio {

Minimap::Minimap(GraphView* mainView, QWidget* parent) : QWidget(parent), main_(mainView) {
  setToolTip(tr("Overview: click or drag to move the view"));
  setCursor(Qt::PointingHandCursor);
  refresh_.setSingleShot(true);
  refresh_.setInterval(150);  // coalesces the many small changes of a drag
  connect(&refresh_, &QTimer::timeout, this, &Minimap::refit);
  // Every change of the scene (an edit, a rename, a selection) redraws the picture soon
  // after; the timer coalesces the steps of a drag.
  connect(main_->graphScene(), &QGraphicsScene::changed, this, &Minimap::scheduleRefit);
  connect(main_->graphScene(), &GraphScene::rebuilt, this, &Minimap::scheduleRefit);
  connect(main_->graphScene(), &QGraphicsScene::selectionChanged, this, &Minimap::scheduleRefit);
  connect(main_, &GraphView::viewportChanged, this, qOverload<>(&QWidget::update));
  refit();
}

void Minimap::scheduleRefit() {
  // Changes in quick succession (a drag, a fast hand) keep restarting the timer: the
  // picture still follows at least every kMaxStaleMs.
  if (!refresh_.isActive()) pendingSince_.start();
  if (pendingSince_.isValid() && pendingSince_.elapsed() > kMaxStaleMs) {
    refit();
    return;
  }
  refresh_.start();
}

void Minimap::refit() {
  refresh_.stop();
  pendingSince_.invalidate();
  const QSize size = this->size() * devicePixelRatioF();
  GraphScene* scene = main_->graphScene();
  QRectF content = scene->contentRect();
  if (content.isEmpty() || size.isEmpty()) {
    picture_ = QPixmap();
    update();
    return;
  }
  content.adjust(-20, -20, 20, 20);
  // Fit with the aspect ratio kept, centred.
  const double scale = std::min(width() / content.width(), height() / content.height());
  const QPointF offset((width() - content.width() * scale) / 2,
                       (height() - content.height() * scale) / 2);
  toWidget_ = QTransform::fromTranslate(-content.left(), -content.top()) *
              QTransform::fromScale(scale, scale) *
              QTransform::fromTranslate(offset.x(), offset.y());
  picture_ = QPixmap(size);
  picture_.setDevicePixelRatio(devicePixelRatioF());
  picture_.fill(sceneBackground());
  QPainter painter(&picture_);
  painter.setRenderHint(QPainter::Antialiasing);
  // Each item paints itself at the overview's scale (plain rectangles and hairlines), in
  // the scene's stacking order: frames (outer first), edges, boxes. Asking the scene to
  // render instead collects and sorts every item through its index: minutes and
  // gigabytes on 10^5 items.
  const QSignalBlocker blocker(&refresh_);
  scene->setProperty(kOverviewProperty, true);
  QStyleOptionGraphicsItem option;
  const auto paintItem = [&](QGraphicsItem* item) {
    if (!item->isVisible()) return;
    painter.setTransform(item->sceneTransform() * toWidget_);
    option.exposedRect = item->boundingRect();
    item->paint(&painter, &option, nullptr);
  };
  const auto& frames = scene->framesInnermostFirst();
  for (auto it = frames.rbegin(); it != frames.rend(); ++it) paintItem(*it);
  for (EdgeItem* edge : scene->edgeItems()) paintItem(edge);
  for (BoxItem* box : scene->boxes()) paintItem(box);
  scene->setProperty(kOverviewProperty, false);
  update();
}

void Minimap::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  refit();
}

void Minimap::paintEvent(QPaintEvent*) {
  QPainter painter(this);
  if (picture_.isNull()) {
    painter.fillRect(rect(), sceneBackground());
    return;
  }
  painter.drawPixmap(0, 0, picture_);
  // The main view's visible area.
  const QPolygonF visible = main_->mapToScene(main_->viewport()->rect());
  const QRectF r =
      toWidget_.map(visible).boundingRect().intersected(QRectF(rect()).adjusted(1, 1, -1, -1));
  QColor fill = selectionColor();
  fill.setAlpha(30);
  painter.setPen(QPen(selectionColor(), 1.5));
  painter.setBrush(fill);
  painter.drawRect(r);
  painter.setPen(QPen(boxBorderColor(), 1));
  painter.setBrush(Qt::NoBrush);
  painter.drawRect(QRectF(rect()).adjusted(0.5, 0.5, -0.5, -0.5));
}

void Minimap::mousePressEvent(QMouseEvent* event) {
  if (event->button() != Qt::LeftButton) return;
  dragging_ = true;
  main_->centerOnScene(toScene(event->position()));
  event->accept();
}

void Minimap::mouseMoveEvent(QMouseEvent* event) {
  if (dragging_) main_->centerOnScene(toScene(event->position()));
  event->accept();
}

void Minimap::mouseReleaseEvent(QMouseEvent* event) {
  dragging_ = false;
  event->accept();
}

}  // namespace lsrl::studio
