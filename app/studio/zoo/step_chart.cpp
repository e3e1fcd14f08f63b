#include "app/studio/zoo/step_chart.h"

#include <QChart>
#include <QChartView>
#include <QFontMetrics>
#include <QHBoxLayout>
#include <QLegendMarker>
#include <QLineSeries>
#include <QValueAxis>
#include <algorithm>
#include <cmath>

#include "app/studio/plots/chart_export.h"
#include "app/studio/plots/colour_map.h"
#include "app/studio/plots/heatmap_widget.h"
#include "app/studio/plots/series_legend.h"

namespace lsrl::studio {

StepChart::StepChart(const QString& title, const QString& stepTitle, const QString& valueTitle,
                     QWidget* parent)
    : QWidget(parent) {
  chart_ = new QChart;
  chart_->setTitle(title);
  // Beside the plot, not under it: the charts beside a view are short, and a row of
  // legend would take the height their value labels need. On screen a scrolling list
  // (SeriesLegend) stands in for it; exports show the chart's own.
  chart_->legend()->setAlignment(Qt::AlignRight);
  chart_->setMargins(QMargins(4, 4, 4, 4));
  axisX_ = new QValueAxis;
  axisX_->setTitleText(stepTitle);
  axisX_->setLabelFormat(QStringLiteral("%d"));
  axisY_ = new QValueAxis;
  axisY_->setTitleText(valueTitle);
  chart_->addAxis(axisX_, Qt::AlignBottom);
  chart_->addAxis(axisY_, Qt::AlignLeft);
  marker_ = new QLineSeries;
  marker_->setPen(QPen(QColor(30, 30, 30), 1.5, Qt::DashLine));
  chart_->addSeries(marker_);
  marker_->attachAxis(axisX_);
  marker_->attachAxis(axisY_);
  // A short chart fits fewer value labels: choose them again when the plot area changes.
  connect(chart_, &QChart::plotAreaChanged, this, [this] {
    fitValueAxis();
    fitStepAxis();
  });
  view_ = new QChartView(chart_);
  view_->setRenderHint(QPainter::Antialiasing);
  legend_ = new SeriesLegend(chart_, this);
  legend_->refresh();
  auto* layout = new QHBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(0);
  layout->addWidget(view_, 1);
  layout->addWidget(legend_);
}

void StepChart::setCurves(const std::vector<StepCurve>& curves, int firstStep) {
  for (QLineSeries* line : lines_) {
    chart_->removeSeries(line);
    delete line;
  }
  lines_.clear();
  double lo = 0, hi = 0;
  bool any = false;
  int lastStep = firstStep;
  for (const StepCurve& curve : curves) {
    auto* line = new QLineSeries;
    line->setName(curve.name);
    QList<QPointF> points;
    for (size_t i = 0; i < curve.values.size(); ++i) {
      const double v = curve.values[i];
      const int t = firstStep + static_cast<int>(i);
      lastStep = std::max(lastStep, t);
      if (!std::isfinite(v)) continue;
      points.append(QPointF(t, v));
      lo = any ? std::min(lo, v) : v;
      hi = any ? std::max(hi, v) : v;
      any = true;
    }
    line->replace(points);
    chart_->addSeries(line);
    line->attachAxis(axisX_);
    line->attachAxis(axisY_);
    lines_.push_back(line);
  }
  // Nearly constant curves (slot norms of 1 ± 1e-16) get a readable span around them.
  const double pad =
      std::max({0.05 * (hi - lo), 0.05 * std::max(std::abs(lo), std::abs(hi)), 1e-6});
  valueLo_ = lo - pad;
  valueHi_ = hi + pad;
  valueTicks_ = 0;
  fitValueAxis();
  stepLo_ = firstStep;
  stepHi_ = std::max(firstStep + 1, lastStep);
  stepTicks_ = 0;
  fitStepAxis();
  for (QLegendMarker* m : chart_->legend()->markers(marker_)) m->setVisible(false);
  legend_->refresh();
  placeMarker();
}

namespace {

// The finest nice step (1, 2, 5 × 10^k) that puts at most `fit` ticks in [lo, hi].
std::vector<double> niceTicksAtMost(double lo, double hi, int fit) {
  std::vector<double> ticks;
  for (int target = fit; target >= 1; --target) {
    ticks = niceTicks(lo, hi, target);
    if (static_cast<int>(ticks.size()) <= fit) break;
  }
  return ticks;
}

}  // namespace

void StepChart::fitStepAxis() {
  // As many step labels as fit side by side: a 160-token run in a narrow chart would put
  // "100" "120" "140" closer than their width, and Qt elides them.
  const double width = chart_->plotArea().width();
  const int label =
      QFontMetrics(axisX_->labelsFont()).horizontalAdvance(QString::number(stepHi_)) + 8;
  const int fit = std::clamp(static_cast<int>(width / label) + 1, 2, 8);
  if (fit == stepTicks_) return;
  stepTicks_ = fit;
  const std::vector<double> ticks = niceTicksAtMost(stepLo_, stepHi_, fit);
  axisX_->setTickInterval(stepHi_ - stepLo_);  // see fitValueAxis
  axisX_->setRange(stepLo_, stepHi_);
  axisX_->setTickType(QValueAxis::TicksDynamic);
  axisX_->setTickAnchor(stepLo_);
  axisX_->setTickInterval(ticks.size() > 1 ? std::max(1.0, ticks[1] - ticks[0]) : 1.0);
}

void StepChart::fitValueAxis() {
  // Qt Charts elides a value label to "..." when the axis height divided among the labels
  // is less than a line of text (plus its padding): ask for only as many as fit.
  const double height = chart_->plotArea().height();
  const int line = QFontMetrics(axisY_->labelsFont()).height() + 12;
  const int fit = std::clamp(static_cast<int>(height / line), 2, 6);
  if (fit == valueTicks_) return;
  valueTicks_ = fit;
  const std::vector<double> ticks = niceTicksAtMost(valueLo_, valueHi_, fit);
  // Qt lays the ticks out again on every setRange, with the interval it has: one that spans
  // the new range first, or a range grown from ±1e-6 (no curves) to [0, 1] would first be
  // cut into a million ticks (the GateLoop view hung when a channel was checked again).
  axisY_->setTickInterval(valueHi_ - valueLo_);
  axisY_->setRange(valueLo_, valueHi_);
  axisY_->setTickType(QValueAxis::TicksDynamic);
  axisY_->setTickAnchor(ticks.empty() ? valueLo_ : ticks.front());
  axisY_->setTickInterval(ticks.size() > 1 ? ticks[1] - ticks[0] : valueHi_ - valueLo_);
  placeMarker();
}

void StepChart::colourCurvesByIndex() {
  for (size_t i = 0; i < lines_.size(); ++i)
    lines_[i]->setColor(categoricalColour(static_cast<int>(i)));
  legend_->refresh();  // the swatches show the new colours
}

void StepChart::setStep(int step) {
  if (step == step_) return;
  step_ = step;
  placeMarker();
}

void StepChart::placeMarker() {
  const double t = std::clamp<double>(step_, axisX_->min(), axisX_->max());
  marker_->replace(QList<QPointF>{{t, axisY_->min()}, {t, axisY_->max()}});
  marker_->setVisible(!lines_.empty());
}

void StepChart::exportPng(const QString& path) const {
  const ExportLegend shown(chart_, legend_);
  exportChartPng(view_, path);
}
void StepChart::exportSvg(const QString& path) const {
  const ExportLegend shown(chart_, legend_);
  exportChartSvg(view_, path, chart_->title());
}

}  // namespace lsrl::studio
