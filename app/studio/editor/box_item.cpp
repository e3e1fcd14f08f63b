#include "app/studio/editor/box_item.h"

#include <QCursor>
#include <QGraphicsScene>
#include <QGraphicsSceneHoverEvent>
#include <QPainter>
#include <cmath>

#include "app/studio/editor/edge_item.h"
#include "app/studio/editor/graph_scene.h"
#include "app/studio/editor/node_style.h"

namespace lsrl::studio {

namespace {
constexpr double kPortHitRadius = 9;
constexpr double kBadgeRadius = 8;
}  // namespace

BoxItem::BoxItem(ItemRef ref, QSizeF size)
    : ref_(ref), box_(-size.width() / 2, -size.height() / 2, size.width(), size.height()) {
  setFlags(ItemIsSelectable | ItemIsMovable | ItemSendsGeometryChanges);
  setAcceptHoverEvents(true);
}

QRectF BoxItem::boundingRect() const {
  // Ports stick out of the box by their radius; the badge sits on the top-left corner.
  const double m = std::max(kPortRadius, kBadgeRadius) + 2;
  return box_.adjusted(-m, -m, m, m);
}

QPainterPath BoxItem::shape() const {
  QPainterPath path;
  path.addRect(box_.adjusted(-kPortRadius, 0, kPortRadius, 0));
  return path;
}

void BoxItem::setInputPorts(std::vector<bool> connected, bool appendPort) {
  inputConnected_ = std::move(connected);
  appendPort_ = appendPort;
}

QPointF BoxItem::inputPortPos(int port) const {
  const int slots = inputPortCount() + (appendPort_ ? 1 : 0);
  const double step = box_.height() / (slots + 1);
  return QPointF(box_.left(), box_.top() + step * (port + 1));
}

int BoxItem::inputPortAt(QPointF local) const {
  const int slots = inputPortCount() + (appendPort_ ? 1 : 0);
  if (slots == 0 || std::abs(local.x() - box_.left()) > kPortHitRadius) return -1;
  // Ports may be packed closer than the hit radius: take the nearest one.
  int best = -1;
  double bestDist = kPortHitRadius;
  for (int i = 0; i < slots; ++i) {
    const double d = std::abs(local.y() - inputPortPos(i).y());
    if (d <= bestDist) {
      bestDist = d;
      best = i;
    }
  }
  return best;
}

bool BoxItem::outputPortAt(QPointF local) const {
  const QPointF d = local - outputPortPos();
  return d.x() * d.x() + d.y() * d.y() <= kPortHitRadius * kPortHitRadius;
}

void BoxItem::detachEdge(EdgeItem* edge) { std::erase(edges_, edge); }

void BoxItem::setProblems(const QStringList& messages) {
  if (messages == problems_) return;
  problems_ = messages;
  refreshToolTip();
  update();
}

void BoxItem::setIsOutput(bool output) {
  if (output == output_) return;
  output_ = output;
  update();
}

void BoxItem::setDescription(const QString& text) {
  description_ = text;
  refreshToolTip();
}

void BoxItem::refreshToolTip() {
  QString tip = description_.toHtmlEscaped();
  for (const QString& p : problems_)
    tip += QStringLiteral("<br><span style='color:%1'>&#9888; %2</span>")
               .arg(errorColor().name(), p.toHtmlEscaped());
  setToolTip(tip);
}

QVariant BoxItem::itemChange(GraphicsItemChange change, const QVariant& value) {
  if (change == ItemPositionHasChanged) {
    for (EdgeItem* edge : edges_) edge->adjust();
    if (auto* s = qobject_cast<GraphScene*>(scene())) s->boxMoved(this);
  } else if (change == ItemSelectedHasChanged) {
    for (EdgeItem* edge : edges_) edge->update();
    setZValue(value.toBool() ? 1 : 0);  // a selected box is drawn over its neighbours
  }
  return QGraphicsItem::itemChange(change, value);
}

void BoxItem::hoverMoveEvent(QGraphicsSceneHoverEvent* event) {
  const bool onPort = inputPortAt(event->pos()) >= 0 || outputPortAt(event->pos());
  setCursor(onPort ? Qt::CrossCursor : Qt::ArrowCursor);
}

void BoxItem::hoverLeaveEvent(QGraphicsSceneHoverEvent*) { unsetCursor(); }

QPen BoxItem::outlinePen(double lod, const QColor& normal) const {
  // Cosmetic widths when zoomed out so that selection and errors stay visible.
  const bool cosmetic = lod < kDetailZoom;
  QPen pen;
  if (isSelected()) {
    pen = QPen(selectionColor(), cosmetic ? 2.5 : 3);
  } else if (hasProblems()) {
    pen = QPen(errorColor(), cosmetic ? 2 : 2.5);
  } else if (output_) {
    pen = QPen(outputColor(), cosmetic ? 2 : 3);
  } else {
    pen = QPen(normal, cosmetic ? 0 : 1);
  }
  pen.setCosmetic(cosmetic);
  return pen;
}

void BoxItem::paintPorts(QPainter* painter) const {
  painter->setPen(QPen(boxBorderColor(), 1));
  for (int i = 0; i < inputPortCount(); ++i) {
    painter->setBrush(inputConnected_[i] ? QBrush(edgeColor()) : QBrush(Qt::white));
    painter->drawEllipse(inputPortPos(i), kPortRadius, kPortRadius);
  }
  if (appendPort_) {
    const QPointF c = inputPortPos(inputPortCount());
    painter->setBrush(Qt::white);
    painter->drawEllipse(c, kPortRadius, kPortRadius);
    painter->drawLine(c - QPointF(2.5, 0), c + QPointF(2.5, 0));
    painter->drawLine(c - QPointF(0, 2.5), c + QPointF(0, 2.5));
  }
  const QPointF out = outputPortPos();
  if (output_) {
    // The program output: a larger dark diamond.
    const double r = kPortRadius + 2;
    const QPointF diamond[4] = {out + QPointF(0, -r), out + QPointF(r, 0), out + QPointF(0, r),
                                out + QPointF(-r, 0)};
    painter->setBrush(outputColor());
    painter->drawPolygon(diamond, 4);
  } else {
    painter->setBrush(edgeColor());
    painter->drawEllipse(out, kPortRadius, kPortRadius);
  }
}

void BoxItem::paintProblemBadge(QPainter* painter) const {
  if (!hasProblems()) return;
  const QPointF c = box_.topLeft() + QPointF(2, 2);
  painter->setPen(QPen(Qt::white, 1.5));
  painter->setBrush(errorColor());
  painter->drawEllipse(c, kBadgeRadius, kBadgeRadius);
  QFont font = painter->font();
  font.setBold(true);
  font.setPixelSize(12);
  painter->setFont(font);
  painter->drawText(
      QRectF(c.x() - kBadgeRadius, c.y() - kBadgeRadius, 2 * kBadgeRadius, 2 * kBadgeRadius),
      Qt::AlignCenter, QStringLiteral("!"));
}

}  // namespace lsrl::studio
