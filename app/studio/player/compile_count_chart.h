// The player's small chart: node count and branch count (nodes with more than one
// reader) after every step, with a vertical marker at the current step.
#pragma once

#include <QChartView>
#include <vector>

class QLineSeries;
class QValueAxis;

namespace lsrl::studio {

class CompileCountChart : public QChartView {
  Q_OBJECT

 public:
  explicit CompileCountChart(QWidget* parent = nullptr);

  // Counts after k = 0..N steps (both the same length); empty clears the chart.
  void setCounts(const std::vector<int>& nodeCounts, const std::vector<int>& branchCounts);
  void setCurrentStep(int step);
  int markerStep() const { return marker_step_; }
  QLineSeries* nodeSeries() const { return nodes_; }
  QLineSeries* branchSeries() const { return branches_; }

 private:
  QLineSeries* nodes_;
  QLineSeries* branches_;
  QLineSeries* marker_;
  QValueAxis* xAxis_;
  QValueAxis* yAxis_;
  int marker_step_ = 0;
  int maxCount_ = 1;
};

}  // namespace lsrl::studio
