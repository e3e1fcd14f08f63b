#include "app/studio/editor/node_item.h"

#include <QFontMetricsF>
#include <QPainter>
#include <QStyleOptionGraphicsItem>

#include "app/studio/editor/node_style.h"

namespace lsrl::studio {

namespace {

QString arrow() { return QStringLiteral(" \u2192 "); }

int widthOf(const Graph& g, NodeId id) { return g.contains(id) ? g.node(id).dim : -1; }

QString widthText(int w) { return w < 0 ? QStringLiteral("?") : QString::number(w); }

// "3 → 5", "dim 3", "2+3 → 5" for a Concat, "5 → 3 [0:3)" for a Slice.
QString widthsLine(const Graph& g, const Node& n) {
  switch (n.op) {
    case Op::Input:
    case Op::ReLU:
      return QStringLiteral("dim %1").arg(n.dim);
    case Op::Concat: {
      QString parts;
      for (size_t i = 0; i < n.inputs.size(); ++i) {
        if (i) parts += QLatin1Char('+');
        if (i == 4 && n.inputs.size() > 5) {
          parts += QStringLiteral("\u2026");
          break;
        }
        parts += widthText(widthOf(g, n.inputs[i]));
      }
      return (parts.isEmpty() ? QStringLiteral("none") : parts) + arrow() + QString::number(n.dim);
    }
    default:
      break;
  }
  const int in = n.inputs.empty() ? -1 : widthOf(g, n.inputs[0]);
  QString line = widthText(in) + arrow() + QString::number(n.dim);
  if (n.isSlice()) line += QStringLiteral("  [%1:%2)").arg(n.slice->start).arg(n.slice->end);
  return line;
}

const QFont& titleFont() {
  static const QFont font = [] {
    QFont f;
    f.setPixelSize(13);
    f.setBold(true);
    return f;
  }();
  return font;
}

const QFont& smallFont() {
  static const QFont font = [] {
    QFont f;
    f.setPixelSize(11);
    return f;
  }();
  return font;
}

}  // namespace

NodeItem::NodeItem(const Graph& graph, NodeId id, QSizeF size)
    : BoxItem(ItemRef{ItemRef::Kind::Node, id}, size) {
  refresh(graph);
}

void NodeItem::refresh(const Graph& graph) {
  const Node& n = graph.node(nodeId());
  const StyleOp op = styleOpOf(n);
  fill_ = opFill(op);
  idText_ = QStringLiteral("#%1").arg(n.id);
  const QString widths = widthsLine(graph, n);
  if (n.name.empty()) {
    title_ = styleOpName(op);
    detail_ = widths;
  } else {
    title_ = QString::fromStdString(n.name);
    detail_ = styleOpName(op) + QStringLiteral("  ") + widths;
  }
  // Elide once here rather than on every paint.
  const double titleRoom =
      boxRect().width() - 24 - QFontMetricsF(smallFont()).horizontalAdvance(idText_);
  title_ = QFontMetricsF(titleFont()).elidedText(title_, Qt::ElideRight, titleRoom);
  detail_ = QFontMetricsF(smallFont()).elidedText(detail_, Qt::ElideRight, boxRect().width() - 20);

  std::vector<bool> connected;
  for (NodeId in : n.inputs) connected.push_back(graph.contains(in));
  // Every op but Input and Concat has exactly one input slot, shown even when empty.
  if (n.op != Op::Input && n.op != Op::Concat && connected.empty()) connected.push_back(false);
  setInputPorts(std::move(connected), n.op == Op::Concat);
  setIsOutput(graph.output() == n.id);

  QString description = styleOpName(op) + QStringLiteral(" #%1").arg(n.id);
  if (!n.name.empty())
    description += QStringLiteral(" \u201c%1\u201d").arg(QString::fromStdString(n.name));
  description += QStringLiteral(": ") + widths;
  if (n.alwaysPositive) description += QStringLiteral(" (always \u2265 0)");
  if (graph.output() == n.id) description += QStringLiteral(" \u2014 program output");
  if (graph.containsGroup(n.group))
    description +=
        QStringLiteral("\nin ") + QString::fromStdString(graph.groups()[n.group].function);
  setDescription(description);
  update();
}

void NodeItem::paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget*) {
  const double lod = option->levelOfDetailFromTransform(painter->worldTransform());
  const QRectF box = boxRect();
  painter->setPen(outlinePen(lod, boxBorderColor()));
  painter->setBrush(fill_);
  if (lod < kDetailZoom) {
    // Far away: a plain box is all that can be read and keeps 1000 nodes fast.
    if (lod < kOutlineZoom && !isSelected() && !hasProblems() && !isOutput())
      painter->setPen(Qt::NoPen);  // a few pixels wide: the outline would hide the colour
    painter->drawRect(box);
    return;
  }
  painter->drawRoundedRect(box, 6, 6);
  paintPorts(painter);

  painter->setPen(textColor());
  painter->setFont(titleFont());
  const QRectF inner = box.adjusted(10, 4, -10, -4);
  painter->drawText(QRectF(inner.left(), inner.top(), inner.width(), inner.height() / 2),
                    Qt::AlignLeft | Qt::AlignVCenter, title_);
  painter->setFont(smallFont());
  painter->setPen(secondaryTextColor());
  painter->drawText(QRectF(inner.left(), inner.top(), inner.width(), inner.height() / 2),
                    Qt::AlignRight | Qt::AlignVCenter, idText_);
  painter->setPen(textColor());
  painter->drawText(QRectF(inner.left(), inner.center().y(), inner.width(), inner.height() / 2),
                    Qt::AlignLeft | Qt::AlignVCenter, detail_);
  paintProblemBadge(painter);
}

}  // namespace lsrl::studio
