// The Training view's chart: loss (left axis) and training accuracy (right axis, 0–1)
// against the step, from a training log (core/seed_models/training_log.h), live while a run
// appends points or whole from a checkpoint's log. Exports as PNG and SVG.
#pragma once

#include <QWidget>

#include "core/seed_models/training_log.h"

class QChart;
class QChartView;
class QLineSeries;
class QValueAxis;

namespace lsrl::studio {

class TrainingChart : public QWidget {
  Q_OBJECT

 public:
  explicit TrainingChart(QWidget* parent = nullptr);

  // Draws `log`; the step axis spans its planned steps (the points so far when unknown).
  void setLog(const seed_models::TrainingLog& log);
  void clear();
  int pointCount() const;
  QChartView* chartView() const { return view_; }
  QLineSeries* lossLine() const { return loss_; }
  QLineSeries* accuracyLine() const { return accuracy_; }

  void exportPng(const QString& path) const;
  void exportSvg(const QString& path) const;

 private:
  QChart* chart_;
  QChartView* view_;
  QValueAxis* steps_;
  QValueAxis* lossAxis_;
  QValueAxis* accuracyAxis_;
  QLineSeries* loss_;
  QLineSeries* accuracy_;
};

}  // namespace lsrl::studio
