#include "app/studio/editor/group_item.h"

#include <QFontMetricsF>
#include <QGraphicsSceneMouseEvent>
#include <QPainter>
#include <QStyleOptionGraphicsItem>
#include <algorithm>

#include "app/studio/document/sugar_catalog.h"
#include "app/studio/editor/graph_scene.h"
#include "app/studio/editor/node_style.h"

namespace lsrl::studio {

QString groupParamsText(const Group& group) {
  QStringList parts;
  for (const auto& [key, value] : group.params) {
    if (value.rfind("node ", 0) == 0) continue;  // an input reference, shown by the edges
    parts << QString::fromStdString(key + "=" + value);
  }
  return parts.join(QStringLiteral(", "));
}

QString groupCaption(const Group& group) {
  return QString::fromStdString(group.function) + QLatin1Char('(') + groupParamsText(group) +
         QLatin1Char(')');
}

QString wiredParamsText(const Graph& graph, GroupId id) {
  QStringList parts;
  for (const auto& [key, value] : paramsAsWired(graph, id))
    parts << QString::fromStdString(key + "=" + value);
  return parts.join(QStringLiteral(", "));
}

GroupItem::GroupItem(const Graph& graph, GroupId id, QSizeF size, std::vector<GroupPort> ports)
    : BoxItem(ItemRef{ItemRef::Kind::Group, id}, size), ports_(std::move(ports)) {
  std::vector<bool> connected;
  for (const GroupPort& port : ports_) {
    connected.push_back(port.producer != kNoNode);
    if (port.producer != kNoNode)
      producers_.push_back(port.producer);
    else
      open_.push_back(port.open);
  }
  const Group& group = graph.groups().at(id);
  output_ = group.output;
  QFont bold;
  bold.setPixelSize(13);
  bold.setBold(true);
  QFont small;
  small.setPixelSize(11);
  const double room = boxRect().width() - 22;
  function_ =
      QFontMetricsF(bold).elidedText(QString::fromStdString(group.function), Qt::ElideRight, room);
  const QString params = wiredParamsText(graph, id);
  params_ = QFontMetricsF(small).elidedText(params, Qt::ElideRight, room);
  members_ = QStringLiteral("%1 nodes").arg(group.nodes.size());
  setInputPorts(std::move(connected), false);
  setIsOutput(graph.output() == output_);
  setDescription(QStringLiteral("%1(%2) \u2014 %3 nodes, double-click to expand")
                     .arg(QString::fromStdString(group.function), params)
                     .arg(group.nodes.size()));
}

std::optional<OpenSlot> GroupItem::openSlotOfPort(int port) const {
  if (port < 0 || port >= static_cast<int>(ports_.size())) return std::nullopt;
  const GroupPort& p = ports_[static_cast<size_t>(port)];
  if (p.producer != kNoNode) return std::nullopt;
  return p.open;
}

int GroupItem::portOfProducer(NodeId producer) const {
  if (producer == kNoNode) return -1;
  const auto it = std::find_if(ports_.begin(), ports_.end(),
                               [&](const GroupPort& p) { return p.producer == producer; });
  return it == ports_.end() ? -1 : static_cast<int>(it - ports_.begin());
}

void GroupItem::paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget*) {
  const double lod = option->levelOfDetailFromTransform(painter->worldTransform());
  const QRectF box = boxRect();
  if (lod < kDetailZoom) {
    painter->setPen(outlinePen(lod, groupBorderColor()));
    if (lod < kOutlineZoom && !isSelected() && !hasProblems() && !isOutput())
      painter->setPen(Qt::NoPen);
    painter->setBrush(groupFill().darker(110));
    painter->drawRect(box);
    return;
  }
  // Two offset sheets behind the box say "several nodes in here".
  painter->setPen(QPen(groupBorderColor(), 1));
  painter->setBrush(groupFill().darker(112));
  painter->drawRoundedRect(box.translated(5, 5), 7, 7);
  painter->drawRoundedRect(box.translated(2.5, 2.5), 7, 7);
  painter->setPen(outlinePen(lod, groupBorderColor()));
  painter->setBrush(groupFill());
  painter->drawRoundedRect(box, 7, 7);
  paintPorts(painter);

  const QRectF inner = box.adjusted(11, 4, -11, -4);
  const double line = inner.height() / 3;
  QFont font = painter->font();
  font.setPixelSize(13);
  font.setBold(true);
  painter->setFont(font);
  painter->setPen(textColor());
  painter->drawText(QRectF(inner.left(), inner.top(), inner.width(), line),
                    Qt::AlignLeft | Qt::AlignVCenter, function_);
  font.setPixelSize(11);
  font.setBold(false);
  painter->setFont(font);
  painter->drawText(QRectF(inner.left(), inner.top() + line, inner.width(), line),
                    Qt::AlignLeft | Qt::AlignVCenter, params_);
  painter->setPen(secondaryTextColor());
  painter->drawText(QRectF(inner.left(), inner.top() + 2 * line, inner.width(), line),
                    Qt::AlignRight | Qt::AlignVCenter, members_);
  paintProblemBadge(painter);
}

void GroupItem::mouseDoubleClickEvent(QGraphicsSceneMouseEvent* event) {
  if (auto* s = qobject_cast<GraphScene*>(scene())) s->requestGroupExpanded(groupId(), true);
  event->accept();
}

}  // namespace lsrl::studio
