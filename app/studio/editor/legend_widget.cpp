#include "app/studio/editor/legend_widget.h"

#include <QPainter>

#include "app/studio/editor/node_style.h"

namespace lsrl::studio {

LegendWidget::LegendWidget(QWidget* parent) : QWidget(parent) {
  setAttribute(Qt::WA_TransparentForMouseEvents);  // never in the way of the graph
  resize(sizeHint());
}

QSize LegendWidget::sizeHint() const { return legendSize() + QSize(1, 1); }

void LegendWidget::paintEvent(QPaintEvent*) {
  QPainter painter(this);
  painter.setRenderHint(QPainter::Antialiasing);
  paintLegend(&painter, QPointF(0.5, 0.5));
}

}  // namespace lsrl::studio
