// One node of the program as a box: coloured by op, titled with its name (or op) and
// "#id", with its widths ("3 → 5", "dim 3") on the second line.
#pragma once

#include <QColor>
#include <QString>

#include "app/studio/editor/box_item.h"

namespace lsrl::studio {

class NodeItem : public BoxItem {
 public:
  enum { Type = UserType + 1 };

  NodeItem(const Graph& graph, NodeId id, QSizeF size);
  int type() const override { return Type; }
  NodeId nodeId() const { return ref().id; }
  NodeId outputNode() const override { return nodeId(); }

  // Re-reads the node (name, op, widths, inputs) after an edit.
  void refresh(const Graph& graph);
  void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

 private:
  QColor fill_;
  QString title_;
  QString idText_;
  QString detail_;
};

}  // namespace lsrl::studio
