// A collapsed sugar group as one box: the function name, its parameters, its member
// count; input ports for the distinct producers outside it that feed its members, then
// one open port per member input still unconnected (a sugar call's operands, wired
// from here without expanding), and the group's output port. Double-click expands it.
#pragma once

#include <QString>
#include <optional>
#include <vector>

#include "app/studio/editor/box_item.h"

namespace lsrl::studio {

// "scale=1000, y=1/2": the group's parameters except references to nodes ("node 4").
QString groupParamsText(const Group& group);
// "f_larger(y=1/2, scale=1000)": the title drawn on boxes and frames; unlike the layout's
// groupTitle() it leaves out operands that are nodes (the edges show those).
QString groupCaption(const Group& group);

// A member's input slot that nothing feeds yet.
struct OpenSlot {
  NodeId node = kNoNode;
  int slot = 0;
  friend bool operator==(const OpenSlot&, const OpenSlot&) = default;
};

class GroupItem : public BoxItem {
 public:
  enum { Type = UserType + 2 };

  // `producers`: the nodes outside the group feeding it, one connected input port each;
  // `open`: the members' unconnected input slots, one open port each after those.
  GroupItem(const Graph& graph, GroupId id, QSizeF size, std::vector<NodeId> producers,
            std::vector<OpenSlot> open);
  int type() const override { return Type; }
  GroupId groupId() const { return ref().id; }
  NodeId outputNode() const override { return output_; }
  // The input port that shows the edge from `producer`, or -1.
  int portOfProducer(NodeId producer) const;
  const std::vector<NodeId>& producers() const { return producers_; }
  const std::vector<OpenSlot>& openSlots() const { return open_; }
  // The member slot behind input port `port` when it is an open one.
  std::optional<OpenSlot> openSlotOfPort(int port) const;

  void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

 protected:
  void mouseDoubleClickEvent(QGraphicsSceneMouseEvent* event) override;

 private:
  std::vector<NodeId> producers_;
  std::vector<OpenSlot> open_;
  NodeId output_ = kNoNode;
  QString function_;
  QString params_;
  QString members_;
};

}  // namespace lsrl::studio
