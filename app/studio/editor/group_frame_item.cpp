#include "app/studio/editor/group_frame_item.h"

#include <QGraphicsSceneMouseEvent>
#include <QPainter>
#include <QStyleOptionGraphicsItem>

#include "app/studio/document/document.h"
#include "app/studio/editor/box_item.h"
#include "app/studio/editor/graph_scene.h"
#include "app/studio/editor/group_item.h"
#include "app/studio/editor/node_style.h"

namespace lsrl::studio {

GroupFrameItem::GroupFrameItem(const Group& group, int depth)
    : group_(group.id), depth_(depth), title_(groupCaption(group)) {
  // Outer frames below inner ones, all below edges (-10) and boxes (0).
  setZValue(-100 + depth);
  setToolTip(QStringLiteral("%1 \u2014 %2 nodes, double-click the title to collapse")
                 .arg(title_)
                 .arg(group.nodes.size()));
}

void GroupFrameItem::fitAround(const QRectF& members) {
  const QRectF r = members.adjusted(-kPadding, -kPadding - kTitleHeight, kPadding, kPadding);
  if (r == rect_) return;
  prepareGeometryChange();
  rect_ = r;
}

QRectF GroupFrameItem::titleRect() const {
  return QRectF(rect_.left(), rect_.top(), rect_.width(), kTitleHeight);
}

QRectF GroupFrameItem::buttonRect() const {
  return QRectF(rect_.left() + 4, rect_.top() + 3, kTitleHeight - 6, kTitleHeight - 6);
}

QPainterPath GroupFrameItem::shape() const {
  QPainterPath path;
  path.addRect(titleRect());
  return path;
}

void GroupFrameItem::paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget*) {
  const double lod = option->levelOfDetailFromTransform(painter->worldTransform());
  QPen border(frameBorderColor(), 1.5);
  border.setCosmetic(lod < kDetailZoom);
  painter->setPen(border);
  painter->setBrush(frameFill());
  painter->drawRoundedRect(rect_, 10, 10);
  // The title bar: the top strip of the same rounded shape.
  painter->save();
  painter->setClipRect(titleRect());
  painter->setBrush(frameTitleFill());
  painter->drawRoundedRect(rect_, 10, 10);
  painter->restore();
  if (lod < kDetailZoom) return;

  const QRectF button = buttonRect();
  painter->setPen(QPen(textColor(), 1));
  painter->setBrush(QColor(255, 255, 255, 200));
  painter->drawRoundedRect(button, 3, 3);
  painter->drawLine(QPointF(button.left() + 4, button.center().y()),
                    QPointF(button.right() - 4, button.center().y()));
  QFont font = painter->font();
  font.setPixelSize(12);
  font.setBold(true);
  painter->setFont(font);
  const QRectF text = titleRect().adjusted(kTitleHeight + 2, 0, -8, 0);
  painter->drawText(
      text, Qt::AlignLeft | Qt::AlignVCenter,
      painter->fontMetrics().elidedText(title_, Qt::ElideRight, static_cast<int>(text.width())));
}

void GroupFrameItem::collapse() {
  if (auto* s = qobject_cast<GraphScene*>(scene())) s->requestGroupExpanded(group_, false);
}

void GroupFrameItem::mousePressEvent(QGraphicsSceneMouseEvent* event) {
  event->accept();
  if (event->button() != Qt::LeftButton) return;
  if (buttonRect().contains(event->pos())) {
    collapse();
    return;
  }
  // Pressing the title selects the members, so that dragging it moves the whole group.
  if (auto* s = qobject_cast<GraphScene*>(scene())) s->selectGroupMembers(group_);
}

void GroupFrameItem::mouseMoveEvent(QGraphicsSceneMouseEvent* event) {
  if (auto* s = qobject_cast<GraphScene*>(scene()))
    s->moveSelectionBy(event->scenePos() - event->lastScenePos());
  event->accept();
}

void GroupFrameItem::mouseDoubleClickEvent(QGraphicsSceneMouseEvent* event) {
  collapse();
  event->accept();
}

}  // namespace lsrl::studio
