#include "app/studio/editor/zoom_pan_view.h"

#include <QGraphicsItem>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QScrollBar>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>

namespace lsrl::studio {

namespace {
constexpr double kZoomStep = 1.25;        // a key press or a toolbar click
constexpr double kWheelBase = 1.0015;     // per 1/8 degree: one notch (120) = 20 %
constexpr double kFitMarginShare = 0.04;  // of the content's larger side, plus 20 units
}  // namespace

ZoomPanView::ZoomPanView(QWidget* parent) : QGraphicsView(parent) {
  // Zooming around the cursor is done by hand (zoomAround): Qt's AnchorUnderMouse reads
  // the global cursor position, which synthetic and touchpad events do not move.
  setTransformationAnchor(AnchorViewCenter);
  setResizeAnchor(AnchorViewCenter);
  setDragMode(NoDrag);
  setFocusPolicy(Qt::StrongFocus);
}

double ZoomPanView::zoom() const { return transform().m11(); }

void ZoomPanView::setZoomRange(double minZoom, double maxZoom) {
  minZoom_ = std::min(minZoom, maxZoom);
  maxZoom_ = std::max(minZoom, maxZoom);
  fitZoomLimit_ = std::min(fitZoomLimit_, maxZoom_);
  if (zoom() < minZoom_ || zoom() > maxZoom_) setZoom(zoom());
}

QRectF ZoomPanView::contentRect() const {
  return scene() != nullptr ? scene()->itemsBoundingRect() : QRectF();
}

QRectF ZoomPanView::visibleSceneRect() const {
  return mapToScene(viewport()->rect()).boundingRect();
}

QSize ZoomPanView::sizeHint() const { return {480, 320}; }

void ZoomPanView::updateSceneRect() {
  QRectF content = contentRect();
  if (content.isEmpty()) content = QRectF(-200, -150, 400, 300);
  const double z = std::max(zoom(), minZoom_);
  const double mx = viewport()->width() / z;
  const double my = viewport()->height() / z;
  // What is on screen stays reachable: changing the scene rect must not move the view.
  setSceneRect(content.adjusted(-mx, -my, mx, my) | visibleSceneRect());
}

void ZoomPanView::applyZoom(double z) {
  z = std::clamp(z, minZoom_, maxZoom_);
  if (z == zoom()) return;
  setTransform(QTransform::fromScale(z, z));
  updateSceneRect();
  zoomApplied();
  Q_EMIT zoomChanged(z);
  Q_EMIT viewportChanged();
}

void ZoomPanView::setZoom(double z) {
  const QPointF centre = mapToScene(viewport()->rect().center());
  applyZoom(z);
  centerOn(centre);
}

void ZoomPanView::showAt(QPointF centre, double z) {
  applyZoom(z);
  updateSceneRect();
  centerOn(centre);
}

void ZoomPanView::zoomAround(QPoint anchor, double factor) {
  const QPointF before = mapToScene(anchor);
  const double old = zoom();
  applyZoom(old * factor);
  if (zoom() == old) return;
  // Scroll so that the scene point that was under the anchor is there again.
  const QPointF after = mapToScene(anchor);
  const QPointF shift = (before - after) * zoom();
  horizontalScrollBar()->setValue(horizontalScrollBar()->value() + qRound(shift.x()));
  verticalScrollBar()->setValue(verticalScrollBar()->value() + qRound(shift.y()));
}

void ZoomPanView::zoomIn() { setZoom(zoom() * kZoomStep); }
void ZoomPanView::zoomOut() { setZoom(zoom() / kZoomStep); }
void ZoomPanView::resetZoom() { setZoom(1); }

void ZoomPanView::zoomTo(const QRectF& rect) {
  if (rect.isEmpty()) return;
  const QRect vp = viewport()->rect();
  const double fit = std::min(vp.width() / rect.width(), vp.height() / rect.height());
  showAt(rect.center(), std::min(fit, fitZoomLimit_));
}

void ZoomPanView::fitAll() {
  QRectF content = contentRect();
  if (content.isEmpty()) content = QRectF(-200, -150, 400, 300);
  const double margin = kFitMarginShare * std::max(content.width(), content.height()) + 20;
  zoomTo(content.adjusted(-margin, -margin, margin, margin));
}

// ---- events --------------------------------------------------------------------------

void ZoomPanView::wheelEvent(QWheelEvent* event) {
  // Ctrl + wheel zooms as the plain wheel does (the habit of many editors); a sideways
  // wheel or swipe scrolls.
  const int delta = event->angleDelta().y();
  if (delta == 0) {
    QGraphicsView::wheelEvent(event);
    return;
  }
  zoomAround(event->position().toPoint(), std::pow(kWheelBase, delta));
  event->accept();
}

bool ZoomPanView::startsPan(const QMouseEvent* event) const {
  if (event->button() == Qt::MiddleButton) return true;
  if (event->button() != Qt::LeftButton) return false;
  if (spaceHeld_) return true;
  return onBackground(event->pos(), event->button()) &&
         (backgroundDragPans_ || (event->modifiers() & Qt::AltModifier));
}

bool ZoomPanView::onBackground(QPoint pos, Qt::MouseButton button) const {
  // Items of a non-interactive view take no clicks: dragging anywhere pans. Items that
  // take no such click (decorations, edges drawn as big open paths) are background too.
  if (!isInteractive()) return true;
  const QList<QGraphicsItem*> under = items(pos);
  return std::none_of(under.begin(), under.end(), [button](const QGraphicsItem* item) {
    return (item->acceptedMouseButtons() & button) != 0;
  });
}

void ZoomPanView::mousePressEvent(QMouseEvent* event) {
  if (startsPan(event)) {
    panning_ = true;
    lastPanPos_ = event->pos();
    viewport()->setCursor(Qt::ClosedHandCursor);
    event->accept();
    return;
  }
  QGraphicsView::mousePressEvent(event);
}

void ZoomPanView::mouseMoveEvent(QMouseEvent* event) {
  if (panning_) {
    const QPoint delta = event->pos() - lastPanPos_;
    lastPanPos_ = event->pos();
    horizontalScrollBar()->setValue(horizontalScrollBar()->value() - delta.x());
    verticalScrollBar()->setValue(verticalScrollBar()->value() - delta.y());
    event->accept();
    return;
  }
  QGraphicsView::mouseMoveEvent(event);
}

void ZoomPanView::mouseReleaseEvent(QMouseEvent* event) {
  if (panning_) {
    panning_ = false;
    if (spaceHeld_)
      viewport()->setCursor(Qt::OpenHandCursor);
    else
      viewport()->unsetCursor();
    event->accept();
    return;
  }
  QGraphicsView::mouseReleaseEvent(event);
}

void ZoomPanView::keyPressEvent(QKeyEvent* event) {
  // With Ctrl these keys belong to the window's Zoom In / Zoom Out / Fit actions.
  const bool plain = !(event->modifiers() & (Qt::ControlModifier | Qt::AltModifier));
  switch (event->key()) {
    case Qt::Key_Space:
      if (!event->isAutoRepeat()) {
        spaceHeld_ = true;
        if (!panning_) viewport()->setCursor(Qt::OpenHandCursor);
      }
      event->accept();
      return;
    case Qt::Key_Plus:
    case Qt::Key_Equal:
      if (plain) {
        zoomIn();
        event->accept();
        return;
      }
      break;
    case Qt::Key_Minus:
      if (plain) {
        zoomOut();
        event->accept();
        return;
      }
      break;
    case Qt::Key_0:
      if (plain) {
        fitAll();
        event->accept();
        return;
      }
      break;
    default:
      break;
  }
  QGraphicsView::keyPressEvent(event);
}

void ZoomPanView::keyReleaseEvent(QKeyEvent* event) {
  if (event->key() == Qt::Key_Space && !event->isAutoRepeat()) {
    spaceHeld_ = false;
    if (!panning_) viewport()->unsetCursor();
    event->accept();
    return;
  }
  QGraphicsView::keyReleaseEvent(event);
}

void ZoomPanView::scrollContentsBy(int dx, int dy) {
  QGraphicsView::scrollContentsBy(dx, dy);
  Q_EMIT viewportChanged();
}

void ZoomPanView::resizeEvent(QResizeEvent* event) {
  QGraphicsView::resizeEvent(event);
  updateSceneRect();
  Q_EMIT viewportChanged();
}

}  // namespace lsrl::studio
