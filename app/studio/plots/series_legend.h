// A chart's legend as a list beside it, which scrolls when its entries outgrow the
// chart's height. Qt Charts' own legend drops the entries that do not fit (a Lattice
// with eight slots showed s1…s6; the looped PCA lost tokens 13–15). An entry shows its
// series' colour and name; clicking it hides or shows the series. The chart's own legend
// stays hidden on screen and is shown only while the chart is exported (ExportLegend).
#pragma once

#include <QListWidget>
#include <QPointer>

class QChart;

namespace lsrl::studio {

class SeriesLegend : public QListWidget {
  Q_OBJECT

 public:
  explicit SeriesLegend(QChart* chart, QWidget* parent = nullptr);

  // Lists the chart's named series; call after changing series. The list hides itself
  // when fewer than two entries remain.
  void refresh();
  QSize sizeHint() const override;

 private:
  QPointer<QChart> chart_;
};

// Shows `chart`'s own legend while alive when `legend` lists two entries or more (an
// exported picture carries the legend the screen shows beside it).
class ExportLegend {
 public:
  ExportLegend(QChart* chart, const SeriesLegend* legend);
  ~ExportLegend();
  ExportLegend(const ExportLegend&) = delete;
  ExportLegend& operator=(const ExportLegend&) = delete;

 private:
  QChart* chart_;
  bool wasVisible_;
};

}  // namespace lsrl::studio
