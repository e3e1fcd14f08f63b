#include "app/studio/plots/pca_2d_panel.h"

#include <QChart>
#include <QChartView>
#include <QLabel>
#include <QLegendMarker>
#include <QLineSeries>
#include <QScatterSeries>
#include <QVBoxLayout>
#include <QValueAxis>
#include <algorithm>

namespace lsrl::studio {

Pca2dPanel::Pca2dPanel(QWidget* parent) : QWidget(parent) {
  chart_ = new QChart;
  chart_->legend()->setAlignment(Qt::AlignBottom);
  axisX_ = new QValueAxis;
  axisY_ = new QValueAxis;
  chart_->addAxis(axisX_, Qt::AlignBottom);
  chart_->addAxis(axisY_, Qt::AlignLeft);
  path_ = new QLineSeries;
  path_->setName(tr("trajectory"));
  path_->setPen(QPen(QColor(120, 140, 170), 1.2));
  points_ = new QScatterSeries;
  points_->setName(tr("steps"));
  points_->setMarkerSize(6);
  points_->setColor(QColor(33, 102, 172));
  points_->setBorderColor(QColor(33, 102, 172));
  current_ = new QScatterSeries;
  current_->setName(tr("current step"));
  current_->setMarkerSize(14);
  current_->setColor(QColor(200, 30, 40));
  current_->setBorderColor(Qt::black);
  for (QXYSeries* s : std::initializer_list<QXYSeries*>{path_, points_, current_}) {
    chart_->addSeries(s);
    s->attachAxis(axisX_);
    s->attachAxis(axisY_);
  }
  view_ = new QChartView(chart_);
  view_->setRenderHint(QPainter::Antialiasing);
  note_ = new QLabel;
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(view_, 1);
  layout->addWidget(note_);
}

void Pca2dPanel::setPca(const PcaResult& pca, const QString& title) {
  pca_ = pca;
  chart_->setTitle(title);
  QList<QPointF> pts;
  for (int t = 0; t < static_cast<int>(pca_.projected.size()); ++t)
    pts.append({coord(pca_, t, 0), coord(pca_, t, 1)});
  path_->replace(pts);
  points_->replace(pts);
  double x0 = 0, x1 = 0, y0 = 0, y1 = 0;
  for (const QPointF& p : pts) {
    x0 = std::min(x0, p.x()), x1 = std::max(x1, p.x());
    y0 = std::min(y0, p.y()), y1 = std::max(y1, p.y());
  }
  const double pad = 0.08 * std::max({x1 - x0, y1 - y0, 1e-9});
  axisX_->setRange(x0 - pad, x1 + pad);
  axisY_->setRange(y0 - pad, y1 + pad);
  axisX_->applyNiceNumbers();
  axisY_->applyNiceNumbers();
  axisX_->setTitleText(tr("PC1 (%1% of variance)").arg(100 * pca_.explained(0), 0, 'f', 1));
  axisY_->setTitleText(tr("PC2 (%1% of variance)").arg(100 * pca_.explained(1), 0, 'f', 1));
  QStringList parts;
  for (int k = 0; k < static_cast<int>(pca_.variances.size()); ++k)
    parts << tr("PC%1 %2%").arg(k + 1).arg(100 * pca_.explained(k), 0, 'f', 2);
  note_->setText(pts.isEmpty()
                     ? tr("No trajectory")
                     : tr("Explained variance: %1").arg(parts.join(QStringLiteral(", "))));
  setStep(step_);
}

void Pca2dPanel::setStep(int step) {
  step_ = step;
  const int T = static_cast<int>(pca_.projected.size());
  if (T == 0) {
    current_->clear();
    return;
  }
  const int t = std::clamp(step, 0, T - 1);
  current_->replace(QList<QPointF>{{coord(pca_, t, 0), coord(pca_, t, 1)}});
  current_->setName(tr("step %1").arg(t));
}

}  // namespace lsrl::studio
