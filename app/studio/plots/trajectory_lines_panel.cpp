#include "app/studio/plots/trajectory_lines_panel.h"

#include <QChart>
#include <QChartView>
#include <QHBoxLayout>
#include <QLegendMarker>
#include <QLineSeries>
#include <QListWidget>
#include <QSplitter>
#include <QValueAxis>
#include <algorithm>
#include <cmath>

#include "app/studio/plots/heatmap_widget.h"

namespace lsrl::studio {

TrajectoryLinesPanel::TrajectoryLinesPanel(QWidget* parent) : QWidget(parent) {
  list_ = new QListWidget;
  list_->setToolTip(tr("Components to plot"));
  chart_ = new QChart;
  chart_->legend()->setAlignment(Qt::AlignBottom);
  axisX_ = new QValueAxis;
  axisX_->setTitleText(tr("step"));
  axisX_->setLabelFormat(QStringLiteral("%d"));
  axisY_ = new QValueAxis;
  axisY_->setTitleText(tr("value"));
  chart_->addAxis(axisX_, Qt::AlignBottom);
  chart_->addAxis(axisY_, Qt::AlignLeft);
  marker_ = new QLineSeries;
  marker_->setName(tr("current step"));
  marker_->setPen(QPen(QColor(30, 30, 30), 1.5, Qt::DashLine));
  chart_->addSeries(marker_);
  marker_->attachAxis(axisX_);
  marker_->attachAxis(axisY_);
  view_ = new QChartView(chart_);
  view_->setRenderHint(QPainter::Antialiasing);

  auto* splitter = new QSplitter;
  splitter->addWidget(list_);
  splitter->addWidget(view_);
  splitter->setStretchFactor(1, 1);
  splitter->setSizes({160, 600});
  auto* layout = new QHBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(splitter);

  connect(list_, &QListWidget::itemChanged, this, [this] {
    if (!updatingList_) rebuildChart();
  });
}

void TrajectoryLinesPanel::setSeries(const StateSeries& series) {
  series_ = series;
  updatingList_ = true;
  list_->clear();
  for (int c = 0; c < series_.components(); ++c) {
    auto* item =
        new QListWidgetItem(QString::fromStdString(series_.labels[static_cast<size_t>(c)]), list_);
    item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
    item->setCheckState(c < kInitiallyShown ? Qt::Checked : Qt::Unchecked);
  }
  updatingList_ = false;
  chart_->setTitle(QString::fromStdString(series_.title));
  rebuildChart();
}

void TrajectoryLinesPanel::setShownComponents(const std::vector<int>& components) {
  updatingList_ = true;
  for (int c = 0; c < list_->count(); ++c)
    list_->item(c)->setCheckState(
        std::find(components.begin(), components.end(), c) != components.end() ? Qt::Checked
                                                                               : Qt::Unchecked);
  updatingList_ = false;
  rebuildChart();
}

std::vector<int> TrajectoryLinesPanel::shownComponents() const {
  std::vector<int> shown;
  for (int c = 0; c < list_->count(); ++c)
    if (list_->item(c)->checkState() == Qt::Checked) shown.push_back(c);
  return shown;
}

void TrajectoryLinesPanel::setStep(int step) {
  step_ = step;
  placeMarker();
}

void TrajectoryLinesPanel::rebuildChart() {
  for (QLineSeries* line : lines_) {
    chart_->removeSeries(line);
    delete line;
  }
  lines_.clear();
  double lo = 0, hi = 0;
  bool any = false;
  for (int c : shownComponents()) {
    auto* line = new QLineSeries;
    line->setName(list_->item(c)->text());
    QList<QPointF> points;
    for (int t = 0; t < series_.steps(); ++t) {
      const double v = series_.values[static_cast<size_t>(t)][static_cast<size_t>(c)];
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
  const double pad = hi > lo ? 0.05 * (hi - lo) : 1.0;
  axisY_->setRange(lo - pad, hi + pad);
  axisY_->applyNiceNumbers();
  axisX_->setRange(0, std::max(1, series_.steps() - 1));
  // Ticks on whole steps (1, 2, 5 × 10^k apart), about eight of them.
  const std::vector<double> ticks = niceTicks(0, std::max(1, series_.steps() - 1), 8);
  axisX_->setTickType(QValueAxis::TicksDynamic);
  axisX_->setTickAnchor(0);
  axisX_->setTickInterval(ticks.size() > 1 ? std::max(1.0, ticks[1] - ticks[0]) : 1.0);
  // The marker is an aid, not data: keep it out of the legend.
  for (QLegendMarker* m : chart_->legend()->markers(marker_)) m->setVisible(false);
  placeMarker();
}

void TrajectoryLinesPanel::placeMarker() {
  const double t = std::clamp(step_, 0, std::max(0, series_.steps() - 1));
  marker_->replace(QList<QPointF>{{t, axisY_->min()}, {t, axisY_->max()}});
  marker_->setVisible(series_.steps() > 0);
}

}  // namespace lsrl::studio
