#include "app/studio/common/elided_label.h"

#include <QPainter>
#include <QStyle>

namespace lsrl::studio {

QSize ElidedLabel::minimumSizeHint() const {
  // A few characters: the rest is elided.
  return {fontMetrics().averageCharWidth() * 6, QLabel::minimumSizeHint().height()};
}

void ElidedLabel::paintEvent(QPaintEvent*) {
  QPainter painter(this);
  const QRect area = contentsRect();
  const QString shown = fontMetrics().elidedText(text(), Qt::ElideRight, area.width());
  style()->drawItemText(&painter, area, static_cast<int>(alignment()), palette(), isEnabled(),
                        shown, foregroundRole());
}

}  // namespace lsrl::studio
