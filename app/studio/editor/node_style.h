// The editor's colours: one fill per op (Tol's "light" palette: distinct for the
// common colour-vision deficiencies, light enough for dark text), plus the colours
// of groups, frames, edges, selection and errors, and a small legend painter.
#pragma once

#include <QColor>
#include <QPainter>
#include <QSize>
#include <QString>

#include "core/graph/graph.h"

namespace lsrl::studio {

// The ops as the editor distinguishes them: a Slice is drawn apart from Linear.
enum class StyleOp { Input, Linear, Slice, ReLU, LinState, Concat, Multi };
constexpr int kStyleOpCount = 7;

StyleOp styleOpOf(const Node& node);
QString styleOpName(StyleOp op);
QColor opFill(StyleOp op);

QColor textColor();
QColor secondaryTextColor();
QColor boxBorderColor();
QColor groupFill();
QColor groupBorderColor();
QColor frameFill();
QColor frameBorderColor();
QColor frameTitleFill();
QColor edgeColor();
QColor selectionColor();
QColor errorColor();
QColor outputColor();
QColor sceneBackground();

// The legend: one swatch per op plus group and error, in a column.
QSize legendSize();
void paintLegend(QPainter* painter, QPointF topLeft);

}  // namespace lsrl::studio
