// A Qt Charts line chart of a few named series over steps with a dashed marker at the
// current step: the model views' slot norms, write strengths, transition magnitudes and
// phases, and the looped transformer's step norms. Exports as PNG and SVG.
#pragma once

#include <QString>
#include <QWidget>
#include <vector>

class QChart;
class QChartView;
class QLineSeries;
class QValueAxis;

namespace lsrl::studio {

struct StepCurve {
  QString name;
  std::vector<double> values;  // one per step (non-finite values break the line)
};

class SeriesLegend;

class StepChart : public QWidget {
  Q_OBJECT

 public:
  explicit StepChart(const QString& title, const QString& stepTitle = tr("step"),
                     const QString& valueTitle = {}, QWidget* parent = nullptr);

  // The first step is `firstStep` (1 for quantities defined from loop 1 on).
  void setCurves(const std::vector<StepCurve>& curves, int firstStep = 0);
  void setStep(int step);
  // Curve i in categoricalColour(i), matching other views' colours for slot or channel i.
  void colourCurvesByIndex();
  QChartView* chartView() const { return view_; }
  SeriesLegend* legend() const { return legend_; }
  const std::vector<QLineSeries*>& lines() const { return lines_; }

  void exportPng(const QString& path) const;
  void exportSvg(const QString& path) const;

 private:
  void placeMarker();
  // The value axis over [valueLo_, valueHi_] with nice ticks, as many as fit its height.
  void fitValueAxis();
  // The step axis over [stepLo_, stepHi_] with nice ticks, as many as fit its width.
  void fitStepAxis();

  QChart* chart_;
  QChartView* view_;
  QValueAxis* axisX_;
  QValueAxis* axisY_;
  QLineSeries* marker_;
  SeriesLegend* legend_;
  std::vector<QLineSeries*> lines_;
  int step_ = 0;
  double valueLo_ = 0, valueHi_ = 1;  // the curves' range with a margin
  int valueTicks_ = 0;                // the label count fitValueAxis chose
  int stepLo_ = 0, stepHi_ = 1;       // the steps' range
  int stepTicks_ = 0;                 // the label count fitStepAxis chose
};

}  // namespace lsrl::studio
