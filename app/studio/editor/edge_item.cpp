#include "app/studio/editor/edge_item.h"

#include <QGraphicsScene>
#include <QPainter>
#include <QStyleOptionGraphicsItem>
#include <cmath>

#include "app/studio/editor/box_item.h"
#include "app/studio/editor/node_style.h"

namespace lsrl::studio {

namespace {
constexpr double kArrowLength = 9;
constexpr double kArrowHalfWidth = 4;
}  // namespace

QPainterPath edgeCurve(QPointF from, QPointF to) {
  // Horizontal tangents at both ends; backward edges bow out further.
  const double dx = to.x() - from.x();
  const double bend = dx > 0 ? std::max(30.0, dx / 2) : std::max(80.0, -dx / 2);
  QPainterPath path(from);
  path.cubicTo(from + QPointF(bend, 0), to - QPointF(bend + kArrowLength, 0),
               to - QPointF(kArrowLength, 0));
  return path;
}

EdgeItem::EdgeItem(BoxItem* source, BoxItem* target, int targetPort, NodeId reader, int readerSlot)
    : source_(source),
      target_(target),
      targetPort_(targetPort),
      reader_(reader),
      readerSlot_(readerSlot) {
  setAcceptedMouseButtons(Qt::NoButton);
  setZValue(-10);
  adjust();
}

void EdgeItem::adjust() {
  const QPointF from = source_->mapToScene(source_->outputPortPos());
  // The arrow stops at the port's rim rather than under the port.
  const QPointF to = target_->mapToScene(target_->inputPortPos(std::max(0, targetPort_)) -
                                         QPointF(kPortRadius, 0));
  if (from == from_ && to == to_ && !path_.isEmpty()) return;
  prepareGeometryChange();
  from_ = from;
  to_ = to;
  path_ = edgeCurve(from, to);
  path_.lineTo(to);
  // Room for the pen and arrow; cosmetic pens are a few pixels wide at any zoom, which
  // at the smallest zooms is more than this margin, but then only a hairline is drawn.
  bounds_ = path_.boundingRect().adjusted(-6, -6, 6, 6);
}

void EdgeItem::paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget*) {
  const double lod = option->levelOfDetailFromTransform(painter->worldTransform());
  const bool highlighted = source_->isSelected() || target_->isSelected();
  QColor color = highlighted ? selectionColor() : edgeColor();
  if (!highlighted && lod < kDetailZoom) color.setAlpha(110);  // let the boxes stand out
  // In the overview (minimap) a thousand edges would be a grey mat: fainter still.
  if (!highlighted && scene() && scene()->property(kOverviewProperty).toBool()) color.setAlpha(70);
  QPen pen(color, highlighted ? 2.2 : 1.2);
  pen.setCosmetic(true);
  painter->setPen(pen);
  painter->setBrush(Qt::NoBrush);
  if (lod < kDetailZoom) {
    // Far away a straight hairline reads as well and costs far less; antialiasing 1000
    // long lines doubled the frame time on tok2tok (editor_test).
    const bool antialiased = painter->testRenderHint(QPainter::Antialiasing);
    painter->setRenderHint(QPainter::Antialiasing, false);
    painter->drawLine(from_, to_);
    painter->setRenderHint(QPainter::Antialiasing, antialiased);
    return;
  }
  painter->drawPath(path_);
  const QPointF tip = to_;
  const QPointF head[3] = {tip, tip - QPointF(kArrowLength, kArrowHalfWidth),
                           tip - QPointF(kArrowLength, -kArrowHalfWidth)};
  painter->setBrush(pen.color());
  painter->drawPolygon(head, 3);
}

}  // namespace lsrl::studio
