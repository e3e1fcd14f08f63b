// The noise-robustness plot (paper Fig. 4) from `lsrl noise` CSVs (docs/noise.md): the
// mean metric per variant over σ, σ on a log axis (Qt Charts QLogValueAxis), one line per
// variant. σ = 0 has no place on a log axis: it is drawn one decade left of the smallest
// positive σ, and the axis title says so.
#pragma once

#include <QWidget>
#include <vector>

#include "core/experiments/noise_experiment.h"

class QChart;
class QChartView;
class QCheckBox;
class QLabel;
class QLineSeries;

namespace lsrl::studio {

class Document;

class NoisePlotView : public QWidget {
  Q_OBJECT

 public:
  explicit NoisePlotView(Document* doc = nullptr, QWidget* parent = nullptr);

  // Reads a CSV written by `lsrl noise` (either program). False with *error (naming the
  // path and the line) on failure; the plot is unchanged then.
  bool loadCsv(const QString& path, QString* error = nullptr);
  const std::vector<NoiseSummaryRow>& summary() const { return summary_; }
  // Where σ = 0 is drawn on the log axis (0 before a load).
  double zeroSigmaPosition() const { return zeroAt_; }
  QChartView* chartView() const { return view_; }
  std::vector<QLineSeries*> lines() const { return lines_; }
  void setLogY(bool logY);

  void exportSvg(const QString& path) const;  // throw lsrl::Error naming the path
  void exportPng(const QString& path) const;

 private:
  void rebuildChart();

  std::vector<NoiseSummaryRow> summary_;
  QString program_, metric_, source_;
  bool optimize_ = true;
  bool percentMetric_ = false;  // tok2tok's % wrong tokens: the axis stops at 100
  double zeroAt_ = 0;
  QChartView* view_;
  QChart* chart_;
  QCheckBox* logY_;
  QLabel* status_;
  std::vector<QLineSeries*> lines_;
};

}  // namespace lsrl::studio
