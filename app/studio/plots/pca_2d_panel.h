// Trajectory view, tab 3: the state trajectory projected on its first two principal
// axes (Qt Charts): the path, every step as a dot, the current step highlighted.
#pragma once

#include <QWidget>

#include "app/studio/plots/pca.h"

class QChart;
class QChartView;
class QLabel;
class QLineSeries;
class QScatterSeries;
class QValueAxis;

namespace lsrl::studio {

class Pca2dPanel : public QWidget {
  Q_OBJECT

 public:
  explicit Pca2dPanel(QWidget* parent = nullptr);

  void setPca(const PcaResult& pca, const QString& title);
  void setStep(int step);
  QChartView* chartView() const { return view_; }
  QLineSeries* path() const { return path_; }
  QScatterSeries* current() const { return current_; }

 private:
  PcaResult pca_;
  int step_ = 0;
  QChartView* view_;
  QChart* chart_;
  QValueAxis* axisX_;
  QValueAxis* axisY_;
  QLineSeries* path_;
  QScatterSeries* points_;
  QScatterSeries* current_;
  QLabel* note_;
};

}  // namespace lsrl::studio
