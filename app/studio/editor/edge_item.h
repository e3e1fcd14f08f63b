// One visible edge: a cubic Bézier from the producer's output port to the consumer's
// input port, with an arrow head. Edges take no mouse clicks; they are highlighted
// while either end is selected.
#pragma once

#include <QGraphicsItem>
#include <QPainterPath>

#include "core/graph/graph.h"

namespace lsrl::studio {

class BoxItem;

class EdgeItem : public QGraphicsItem {
 public:
  enum { Type = UserType + 4 };

  // `targetPort`: the input port of `target` the edge ends at; the edge draws input
  // `readerSlot` of node `reader` (which `target` shows, itself or inside a group box).
  EdgeItem(BoxItem* source, BoxItem* target, int targetPort, NodeId reader = kNoNode,
           int readerSlot = -1);
  int type() const override { return Type; }
  BoxItem* source() const { return source_; }
  BoxItem* target() const { return target_; }
  int targetPort() const { return targetPort_; }
  NodeId readerNode() const { return reader_; }
  int readerSlot() const { return readerSlot_; }

  // Recomputes the curve after either end moved.
  void adjust();

  QRectF boundingRect() const override { return bounds_; }
  QPainterPath shape() const override { return QPainterPath(); }
  void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

 private:
  BoxItem* source_;
  BoxItem* target_;
  int targetPort_;
  NodeId reader_;
  int readerSlot_;
  QPointF from_;
  QPointF to_;
  QPainterPath path_;
  QRectF bounds_;
};

// A scene property: while true (the minimap rendering its picture), edges are not drawn.
inline constexpr char kOverviewProperty[] = "lsrlOverview";

// The curve every edge (and the connection being dragged) follows.
QPainterPath edgeCurve(QPointF from, QPointF to);

}  // namespace lsrl::studio
