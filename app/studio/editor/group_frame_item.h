// An expanded sugar group: a translucent rounded frame behind its members' boxes with a
// title bar ("f_larger(y=1/2, scale=1000)"). Clicking the title's "−" button or
// double-clicking the title collapses the group again; dragging the title moves the
// whole group. Only the title bar takes mouse clicks, so rubber-band selection still
// starts inside the frame.
#pragma once

#include <QGraphicsItem>
#include <QString>

#include "app/layout/item_size.h"
#include "core/graph/graph.h"

namespace lsrl::studio {

class GroupFrameItem : public QGraphicsItem {
 public:
  enum { Type = UserType + 3 };
  static constexpr double kPadding = kFramePadding;
  static constexpr double kTitleHeight = kFrameTitleHeight;

  GroupFrameItem(const Group& group, int depth);
  int type() const override { return Type; }
  GroupId groupId() const { return group_; }
  int depth() const { return depth_; }

  // Fits the frame around `members` (scene rect of the member boxes and inner frames).
  void fitAround(const QRectF& members);
  QRectF frameRect() const { return rect_; }
  // The title bar's "−" that collapses the group (scene coordinates).
  QRectF buttonRect() const;

  QRectF boundingRect() const override { return rect_.adjusted(-1, -1, 1, 1); }
  QPainterPath shape() const override;
  void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

 protected:
  void mousePressEvent(QGraphicsSceneMouseEvent* event) override;
  void mouseMoveEvent(QGraphicsSceneMouseEvent* event) override;
  void mouseDoubleClickEvent(QGraphicsSceneMouseEvent* event) override;

 private:
  QRectF titleRect() const;
  void collapse();

  GroupId group_;
  int depth_;
  QString title_;
  QRectF rect_;
};

}  // namespace lsrl::studio
