#include "app/studio/player/compile_count_chart.h"

#include <QLineSeries>
#include <QList>
#include <QPointF>
#include <QValueAxis>
#include <algorithm>

namespace lsrl::studio {

CompileCountChart::CompileCountChart(QWidget* parent)
    : QChartView(parent),
      nodes_(new QLineSeries),
      branches_(new QLineSeries),
      marker_(new QLineSeries),
      xAxis_(new QValueAxis),
      yAxis_(new QValueAxis) {
  auto* chart = new QChart;
  nodes_->setName(tr("nodes"));
  branches_->setName(tr("branch nodes"));
  marker_->setName(tr("step"));
  marker_->setPen(QPen(QColor(230, 110, 0), 2, Qt::DashLine));
  for (QLineSeries* s : {nodes_, branches_, marker_}) {
    // OpenGL would be faster but does not render offscreen (tests, screenshots).
    chart->addSeries(s);
  }
  chart->addAxis(xAxis_, Qt::AlignBottom);
  chart->addAxis(yAxis_, Qt::AlignLeft);
  for (QLineSeries* s : {nodes_, branches_, marker_}) {
    s->attachAxis(xAxis_);
    s->attachAxis(yAxis_);
  }
  xAxis_->setTitleText(tr("step"));
  xAxis_->setLabelFormat(QStringLiteral("%d"));
  yAxis_->setLabelFormat(QStringLiteral("%d"));
  chart->legend()->setAlignment(Qt::AlignRight);
  chart->setMargins(QMargins(2, 2, 2, 2));
  setChart(chart);
  setRenderHint(QPainter::Antialiasing);
  setCounts({}, {});
}

void CompileCountChart::setCounts(const std::vector<int>& nodeCounts,
                                  const std::vector<int>& branchCounts) {
  QList<QPointF> n, b;
  n.reserve(static_cast<qsizetype>(nodeCounts.size()));
  b.reserve(static_cast<qsizetype>(branchCounts.size()));
  for (size_t k = 0; k < nodeCounts.size(); ++k) n.append(QPointF(double(k), nodeCounts[k]));
  for (size_t k = 0; k < branchCounts.size(); ++k) b.append(QPointF(double(k), branchCounts[k]));
  nodes_->replace(n);
  branches_->replace(b);
  maxCount_ = 1;
  for (int c : nodeCounts) maxCount_ = std::max(maxCount_, c);
  for (int c : branchCounts) maxCount_ = std::max(maxCount_, c);
  // Whole-number labels need at least one unit per tick (an empty chart read "0 0 0 0 1").
  constexpr double kMinRange = 4;
  xAxis_->setRange(0, std::max(kMinRange, double(nodeCounts.size()) - 1));
  yAxis_->setRange(0, std::max(kMinRange, maxCount_ * 1.05));
  yAxis_->applyNiceNumbers();
  setCurrentStep(0);
}

void CompileCountChart::setCurrentStep(int step) {
  marker_step_ = step;
  marker_->replace(QList<QPointF>{QPointF(step, 0), QPointF(step, yAxis_->max())});
}

}  // namespace lsrl::studio
