#include "app/studio/zoo/training_chart.h"

#include <QChart>
#include <QChartView>
#include <QLineSeries>
#include <QVBoxLayout>
#include <QValueAxis>
#include <algorithm>
#include <cmath>

#include "app/studio/plots/chart_export.h"

namespace lsrl::studio {

TrainingChart::TrainingChart(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("TrainingChart"));
  chart_ = new QChart;
  chart_->setTitle(tr("Training"));
  chart_->setMargins(QMargins(4, 4, 4, 4));
  steps_ = new QValueAxis;
  steps_->setTitleText(tr("step"));
  steps_->setLabelFormat(QStringLiteral("%d"));
  lossAxis_ = new QValueAxis;
  lossAxis_->setTitleText(tr("loss (cross-entropy)"));
  accuracyAxis_ = new QValueAxis;
  accuracyAxis_->setTitleText(tr("accuracy"));
  accuracyAxis_->setRange(0, 1);
  chart_->addAxis(steps_, Qt::AlignBottom);
  chart_->addAxis(lossAxis_, Qt::AlignLeft);
  chart_->addAxis(accuracyAxis_, Qt::AlignRight);
  loss_ = new QLineSeries;
  loss_->setName(tr("loss"));
  loss_->setPen(QPen(QColor(9, 105, 218), 2));
  accuracy_ = new QLineSeries;
  accuracy_->setName(tr("accuracy"));
  accuracy_->setPen(QPen(QColor(207, 115, 0), 2));
  for (QLineSeries* line : {loss_, accuracy_}) {
    chart_->addSeries(line);
    line->attachAxis(steps_);
  }
  loss_->attachAxis(lossAxis_);
  accuracy_->attachAxis(accuracyAxis_);
  view_ = new QChartView(chart_);
  view_->setRenderHint(QPainter::Antialiasing);
  view_->setMinimumHeight(220);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(view_);
  clear();
}

void TrainingChart::clear() { setLog(seed_models::TrainingLog{}); }

int TrainingChart::pointCount() const { return static_cast<int>(loss_->count()); }

void TrainingChart::setLog(const seed_models::TrainingLog& log) {
  QList<QPointF> loss, accuracy;
  double hi = 0;
  for (const seed_models::TrainingPoint& p : log.points) {
    if (!std::isfinite(p.loss)) continue;  // a diverged run: the line breaks off
    loss.append(QPointF(p.step, p.loss));
    accuracy.append(QPointF(p.step, p.accuracy));
    hi = std::max(hi, p.loss);
  }
  loss_->replace(loss);
  accuracy_->replace(accuracy);
  // A short log (the first intervals of a live run) shows its points, not only lines.
  for (QLineSeries* line : {loss_, accuracy_}) line->setPointsVisible(loss.size() < 30);
  const int last = log.points.empty() ? 0 : log.points.back().step;
  // At least 0..4: nice numbers then step by whole numbers (0..1 read "0 0 0 0 1" as %d).
  steps_->setRange(0, std::max({4, log.plannedSteps(), last}));
  steps_->applyNiceNumbers();
  lossAxis_->setRange(0, hi > 0 ? hi * 1.05 : 1);
  lossAxis_->applyNiceNumbers();
  if (log.start.is_object()) {
    chart_->setTitle(tr("Training %1 on %2")
                         .arg(QString::fromStdString(log.start.value("model", std::string())),
                              QString::fromStdString(log.start.value("task", std::string()))));
  } else {
    chart_->setTitle(tr("Training"));
  }
}

void TrainingChart::exportPng(const QString& path) const { exportChartPng(view_, path); }

void TrainingChart::exportSvg(const QString& path) const {
  exportChartSvg(view_, path, chart_->title());
}

}  // namespace lsrl::studio
