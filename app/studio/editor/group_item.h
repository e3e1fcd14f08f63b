// A collapsed sugar group as one box: the function name, its parameters (operands as
// what is wired to them, paramsAsWired), its member count; input ports in the order of
// its members' input slots, one per distinct producer outside it (at its first slot) and
// one per slot still unconnected (a sugar call's operands, wired from here without
// expanding, in their places: x above y), and the group's output port. Double-click
// expands it.
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
// "x=ones, y=open, scale=1000": the parameters as the box shows them, its operands as
// what is wired to them now (paramsAsWired).
QString wiredParamsText(const Graph& graph, GroupId id);

// A member's input slot that nothing feeds yet.
struct OpenSlot {
  NodeId node = kNoNode;
  int slot = 0;
  friend bool operator==(const OpenSlot&, const OpenSlot&) = default;
};

// One input port of a group box: a producer outside the group, or an open member slot.
struct GroupPort {
  NodeId producer = kNoNode;  // kNoNode: the port is `open`
  OpenSlot open;
  friend bool operator==(const GroupPort&, const GroupPort&) = default;
};

class GroupItem : public BoxItem {
 public:
  enum { Type = UserType + 2 };

  // `ports`: its input ports, top to bottom.
  GroupItem(const Graph& graph, GroupId id, QSizeF size, std::vector<GroupPort> ports);
  int type() const override { return Type; }
  GroupId groupId() const { return ref().id; }
  NodeId outputNode() const override { return output_; }
  // The input port that shows the edge from `producer`, or -1.
  int portOfProducer(NodeId producer) const;
  const std::vector<GroupPort>& ports() const { return ports_; }
  const std::vector<NodeId>& producers() const { return producers_; }
  const std::vector<OpenSlot>& openSlots() const { return open_; }
  // The member slot behind input port `port` when it is an open one.
  std::optional<OpenSlot> openSlotOfPort(int port) const;

  void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

 protected:
  void mouseDoubleClickEvent(QGraphicsSceneMouseEvent* event) override;

 private:
  std::vector<GroupPort> ports_;
  std::vector<NodeId> producers_;  // the connected ports' producers, in port order
  std::vector<OpenSlot> open_;     // the open ports' slots, in port order
  NodeId output_ = kNoNode;
  QString function_;
  QString params_;
  QString members_;
};

}  // namespace lsrl::studio
