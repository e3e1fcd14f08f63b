// What NodeItem and GroupItem share: a box centred on its position, input ports on the
// left edge, one output port on the right edge, the edges attached to it, and the
// problem marking (red outline, "!" badge, problem tooltip).
#pragma once

#include <QGraphicsItem>
#include <QStringList>
#include <vector>

#include "app/studio/document/document.h"

namespace lsrl::studio {

class EdgeItem;

class BoxItem : public QGraphicsItem {
 public:
  BoxItem(ItemRef ref, QSizeF size);

  ItemRef ref() const { return ref_; }
  QRectF boxRect() const { return box_; }
  QRectF boundingRect() const override;
  QPainterPath shape() const override;

  // The node a connection dragged out of the output port starts from.
  virtual NodeId outputNode() const = 0;

  // Input ports, top to bottom; Concat boxes have one more "append" port after them.
  int inputPortCount() const { return static_cast<int>(inputConnected_.size()); }
  bool hasAppendPort() const { return appendPort_; }
  // Local position of input port `port` (port == inputPortCount() is the append port).
  QPointF inputPortPos(int port) const;
  QPointF outputPortPos() const { return QPointF(box_.right(), 0); }
  // The port under `local`: an input port index (inputPortCount() for append), or -1.
  int inputPortAt(QPointF local) const;
  bool outputPortAt(QPointF local) const;

  void attachEdge(EdgeItem* edge) { edges_.push_back(edge); }
  void detachEdge(EdgeItem* edge);
  void detachEdges() { edges_.clear(); }
  const std::vector<EdgeItem*>& edges() const { return edges_; }
  void setProblems(const QStringList& messages);
  bool hasProblems() const { return !problems_.isEmpty(); }
  void setIsOutput(bool output);
  bool isOutput() const { return output_; }

 protected:
  void setInputPorts(std::vector<bool> connected, bool appendPort);
  QVariant itemChange(GraphicsItemChange change, const QVariant& value) override;
  void hoverMoveEvent(QGraphicsSceneHoverEvent* event) override;
  void hoverLeaveEvent(QGraphicsSceneHoverEvent* event) override;
  // Shared painting: the box outline state, the ports, the problem badge.
  QPen outlinePen(double lod, const QColor& normal) const;
  void paintPorts(QPainter* painter) const;
  void paintProblemBadge(QPainter* painter) const;
  // The tooltip: a description line plus the problems, if any.
  void setDescription(const QString& text);

 private:
  void refreshToolTip();

  ItemRef ref_;
  QRectF box_;
  std::vector<bool> inputConnected_;
  bool appendPort_ = false;
  std::vector<EdgeItem*> edges_;
  QStringList problems_;
  QString description_;
  bool output_ = false;
};

// Below this zoom, boxes are drawn as plain coloured rectangles (no text, no ports).
constexpr double kDetailZoom = 0.4;
// Below this zoom (the minimap), unmarked boxes are drawn without an outline.
constexpr double kOutlineZoom = 0.08;
constexpr double kPortRadius = 4.5;

}  // namespace lsrl::studio
