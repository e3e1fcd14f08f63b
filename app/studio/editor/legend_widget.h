// The colour legend (paintLegend) as a small widget the graph view keeps in the
// bottom-left corner of its viewport.
#pragma once

#include <QWidget>

namespace lsrl::studio {

class LegendWidget : public QWidget {
  Q_OBJECT

 public:
  explicit LegendWidget(QWidget* parent = nullptr);
  QSize sizeHint() const override;

 protected:
  void paintEvent(QPaintEvent* event) override;
};

}  // namespace lsrl::studio
