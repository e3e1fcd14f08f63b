// Trajectory view, tab 1: chosen components of a state over the steps as lines (Qt
// Charts), picked in a list of checkable components, with a marker at the current step.
#pragma once

#include <QWidget>
#include <vector>

#include "app/studio/plots/state_series.h"

class QChart;
class QChartView;
class QLineSeries;
class QListWidget;
class QValueAxis;

namespace lsrl::studio {

class TrajectoryLinesPanel : public QWidget {
  Q_OBJECT

 public:
  // Components shown when a series arrives (the first few).
  static constexpr int kInitiallyShown = 6;

  explicit TrajectoryLinesPanel(QWidget* parent = nullptr);

  void setSeries(const StateSeries& series);
  void setStep(int step);
  void setShownComponents(const std::vector<int>& components);
  std::vector<int> shownComponents() const;
  QChartView* chartView() const { return view_; }
  // The lines drawn (one per shown component), for exports and tests.
  std::vector<QLineSeries*> lines() const { return lines_; }

 private:
  void rebuildChart();
  void placeMarker();

  StateSeries series_;
  int step_ = 0;
  QListWidget* list_;
  QChartView* view_;
  QChart* chart_;
  QValueAxis* axisX_;
  QValueAxis* axisY_;
  QLineSeries* marker_;
  std::vector<QLineSeries*> lines_;
  bool updatingList_ = false;
};

}  // namespace lsrl::studio
