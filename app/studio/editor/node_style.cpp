#include "app/studio/editor/node_style.h"

#include <QFontMetrics>

namespace lsrl::studio {

StyleOp styleOpOf(const Node& node) {
  switch (node.op) {
    case Op::Input:
      return StyleOp::Input;
    case Op::Linear:
      return node.isSlice() ? StyleOp::Slice : StyleOp::Linear;
    case Op::ReLU:
      return StyleOp::ReLU;
    case Op::LinState:
      return StyleOp::LinState;
    case Op::Concat:
      return StyleOp::Concat;
    case Op::Multi:
      return StyleOp::Multi;
  }
  return StyleOp::Linear;
}

QString styleOpName(StyleOp op) {
  switch (op) {
    case StyleOp::Input:
      return QStringLiteral("Input");
    case StyleOp::Linear:
      return QStringLiteral("Linear");
    case StyleOp::Slice:
      return QStringLiteral("Slice");
    case StyleOp::ReLU:
      return QStringLiteral("ReLU");
    case StyleOp::LinState:
      return QStringLiteral("LinState");
    case StyleOp::Concat:
      return QStringLiteral("Concat");
    case StyleOp::Multi:
      return QStringLiteral("Multi");
  }
  return {};
}

QColor opFill(StyleOp op) {
  // Paul Tol's "light" qualitative scheme.
  switch (op) {
    case StyleOp::Input:
      return QColor(0xBB, 0xCC, 0x33);  // pear
    case StyleOp::Linear:
      return QColor(0x77, 0xAA, 0xDD);  // light blue
    case StyleOp::Slice:
      return QColor(0x99, 0xDD, 0xFF);  // light cyan
    case StyleOp::ReLU:
      return QColor(0xEE, 0x88, 0x66);  // orange
    case StyleOp::LinState:
      return QColor(0xFF, 0xAA, 0xBB);  // pink
    case StyleOp::Concat:
      return QColor(0xEE, 0xDD, 0x88);  // light yellow
    case StyleOp::Multi:
      return QColor(0x44, 0xBB, 0x99);  // mint
  }
  return Qt::lightGray;
}

QColor textColor() { return QColor(0x1A, 0x1A, 0x1A); }
QColor secondaryTextColor() { return QColor(0x3C, 0x3C, 0x46); }
QColor boxBorderColor() { return QColor(0x44, 0x44, 0x50); }
QColor groupFill() { return QColor(0xDD, 0xDD, 0xDD); }
QColor groupBorderColor() { return QColor(0x55, 0x55, 0x66); }
QColor frameFill() { return QColor(0x88, 0x99, 0xBB, 0x2C); }
QColor frameBorderColor() { return QColor(0x66, 0x77, 0x99, 0xB0); }
QColor frameTitleFill() { return QColor(0x88, 0x99, 0xBB, 0x80); }
QColor edgeColor() { return QColor(0x60, 0x60, 0x6A); }
QColor selectionColor() { return QColor(0x11, 0x55, 0xDD); }
QColor errorColor() { return QColor(0xCC, 0x33, 0x11); }
QColor outputColor() { return QColor(0x22, 0x22, 0x22); }
QColor sceneBackground() { return QColor(0xF7, 0xF7, 0xF4); }

namespace {
constexpr int kSwatch = 14;
constexpr int kRow = 20;
constexpr int kPad = 8;
constexpr int kLegendRows = kStyleOpCount + 2;  // ops, group, problem
}  // namespace

QSize legendSize() { return QSize(120, kLegendRows * kRow + 2 * kPad); }

void paintLegend(QPainter* painter, QPointF topLeft) {
  painter->save();
  const QRectF frame(topLeft, legendSize());
  painter->setPen(QPen(boxBorderColor(), 1));
  painter->setBrush(QColor(255, 255, 255, 230));
  painter->drawRoundedRect(frame, 4, 4);
  QFont font = painter->font();
  font.setPointSizeF(9);
  painter->setFont(font);
  auto row = [&](int i, const QColor& fill, const QColor& border, const QString& label) {
    const QPointF p = topLeft + QPointF(kPad, kPad + i * kRow + (kRow - kSwatch) / 2.0);
    painter->setPen(QPen(border, border == errorColor() ? 2 : 1));
    painter->setBrush(fill);
    painter->drawRoundedRect(QRectF(p, QSizeF(kSwatch * 1.6, kSwatch)), 3, 3);
    painter->setPen(textColor());
    painter->drawText(QRectF(p.x() + kSwatch * 1.6 + 8, topLeft.y() + kPad + i * kRow, 80, kRow),
                      Qt::AlignVCenter | Qt::AlignLeft, label);
  };
  for (int i = 0; i < kStyleOpCount; ++i) {
    const auto op = static_cast<StyleOp>(i);
    row(i, opFill(op), boxBorderColor(), styleOpName(op));
  }
  row(kStyleOpCount, groupFill(), groupBorderColor(), QStringLiteral("sugar group"));
  row(kStyleOpCount + 1, Qt::white, errorColor(), QStringLiteral("problem"));
  painter->restore();
}

}  // namespace lsrl::studio
