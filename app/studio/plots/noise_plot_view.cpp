#include "app/studio/plots/noise_plot_view.h"

#include <QChart>
#include <QChartView>
#include <QCheckBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QMenu>
#include <QMessageBox>
#include <QPushButton>
#include <QToolButton>
#include <QVBoxLayout>
#include <QValueAxis>
#include <algorithm>
#include <cmath>
#include <map>

#include "app/studio/plots/chart_export.h"
#include "app/studio/plots/heatmap_widget.h"
#include "core/experiments/noise_plot.h"
#include "core/util/atomic_file.h"
#include "core/util/error.h"

namespace lsrl::studio {

namespace {

// A linear value axis from min(0, lo) to a nice bound (1, 2 or 5 × 10^k steps) just above
// hi, never above `ceiling` unless the data is: Qt's applyNiceNumbers rounds 105 up to 150.
void setNiceLinearRange(QValueAxis* axis, double lo, double hi, double ceiling) {
  lo = std::min(0.0, lo);
  ceiling = std::max(ceiling, hi);
  const double padded = hi > lo ? std::min(hi + 0.05 * (hi - lo), ceiling) : lo + 1;
  const std::vector<double> ticks = niceTicks(lo, padded, 5);
  const double step = ticks.size() > 1 ? ticks[1] - ticks[0] : padded - lo;
  const double bottom = std::floor(lo / step + 1e-9) * step;
  const double top = std::min(std::ceil(padded / step - 1e-9) * step, std::max(ceiling, padded));
  axis->setRange(bottom, top);
  axis->setTickType(QValueAxis::TicksDynamic);
  axis->setTickAnchor(bottom);
  axis->setTickInterval(step);
  axis->setLabelFormat(QStringLiteral("%.4g"));  // 100, not 100.0
}

}  // namespace

NoisePlotView::NoisePlotView(Document*, QWidget* parent) : QWidget(parent) {
  auto* open = new QPushButton(tr("Open CSV..."));
  open->setToolTip(tr("A CSV written by `lsrl noise` (see docs/noise/)"));
  logY_ = new QCheckBox(tr("log y"));
  auto* exportButton = new QToolButton;
  exportButton->setText(tr("Export"));
  exportButton->setPopupMode(QToolButton::InstantPopup);
  auto* menu = new QMenu(exportButton);
  auto addExport = [this, menu](const QString& text, const QString& filter, bool svg) {
    connect(menu->addAction(text), &QAction::triggered, this, [this, filter, svg] {
      const QString path = QFileDialog::getSaveFileName(this, tr("Export"), QString(), filter);
      if (path.isEmpty()) return;
      try {
        svg ? exportSvg(path) : exportPng(path);
      } catch (const std::exception& e) {
        QMessageBox::warning(this, tr("Export failed"), QString::fromUtf8(e.what()));
      }
    });
  };
  addExport(tr("Chart as SVG..."), tr("SVG (*.svg)"), true);
  addExport(tr("Chart as PNG..."), tr("PNG (*.png)"), false);
  exportButton->setMenu(menu);
  status_ = new QLabel(tr("Open a CSV from `lsrl noise` (docs/noise/*.csv)."));

  chart_ = new QChart;
  chart_->legend()->setAlignment(Qt::AlignRight);
  view_ = new QChartView(chart_);
  view_->setRenderHint(QPainter::Antialiasing);

  auto* bar = new QHBoxLayout;
  bar->addWidget(open);
  bar->addWidget(logY_);
  bar->addWidget(exportButton);
  bar->addWidget(status_, 1);
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(bar);
  layout->addWidget(view_, 1);

  connect(open, &QPushButton::clicked, this, [this] {
    const QString path =
        QFileDialog::getOpenFileName(this, tr("Open noise CSV"), QString(), tr("CSV (*.csv)"));
    QString error;
    if (!path.isEmpty() && !loadCsv(path, &error))
      QMessageBox::warning(this, tr("Cannot open"), error);
  });
  connect(logY_, &QCheckBox::toggled, this, [this] { rebuildChart(); });
}

bool NoisePlotView::loadCsv(const QString& path, QString* error) {
  try {
    const std::string text = readWholeFile(path.toStdString());
    // The program is the first field of the first data row.
    const size_t lineEnd = text.find('\n');
    const size_t comma =
        lineEnd == std::string::npos ? std::string::npos : text.find(',', lineEnd + 1);
    if (comma == std::string::npos) throw Error(path.toStdString() + ": no data rows");
    const NoiseProgram program = parseNoiseProgram(text.substr(lineEnd + 1, comma - lineEnd - 1));
    bool optimize = true;
    const std::vector<NoiseRow> rows = parseNoiseCsv(text, program, optimize);
    summary_ = summarizeNoise(rows);
    program_ = QString::fromUtf8(noiseProgramName(program).data());
    percentMetric_ = program == NoiseProgram::Tok2tok;
    metric_ = percentMetric_ ? tr("% wrong output tokens") : tr("mean |output − f(x)|");
    optimize_ = optimize;
    source_ = QFileInfo(path).fileName();
    // Errors spanning orders of magnitude (vec2vec) read better on a log y axis.
    double lo = HUGE_VAL, hi = 0;
    for (const NoiseSummaryRow& r : summary_)
      if (r.mean > 0 && std::isfinite(r.mean)) lo = std::min(lo, r.mean), hi = std::max(hi, r.mean);
    const QSignalBlocker block(logY_);
    logY_->setChecked(hi > 0 && hi / lo > 1e3);
  } catch (const std::exception& e) {
    if (error)
      *error = QString::fromUtf8(e.what()).startsWith(path)
                   ? QString::fromUtf8(e.what())
                   : path + QStringLiteral(": ") + QString::fromUtf8(e.what());
    return false;
  }
  rebuildChart();
  return true;
}

void NoisePlotView::setLogY(bool logY) { logY_->setChecked(logY); }

void NoisePlotView::rebuildChart() {
  // A fresh chart each time: axes removed from a shown chart leave their items behind
  // in Qt 6.4.
  QChart* old = chart_;
  chart_ = new QChart;
  chart_->legend()->setAlignment(Qt::AlignRight);
  view_->setChart(chart_);
  delete old;
  lines_.clear();
  double smallest = HUGE_VAL;
  for (const NoiseSummaryRow& r : summary_)
    if (r.sigma > 0) smallest = std::min(smallest, r.sigma);
  zeroAt_ = std::isfinite(smallest) ? smallest / 10 : 1e-10;
  const bool logY = logY_->isChecked();

  auto* axisX = new QLogValueAxis;
  axisX->setBase(10);
  axisX->setLabelFormat(QStringLiteral("%.0e"));
  axisX->setTitleText(tr("σ (weight noise); σ = 0 drawn at %1").arg(zeroAt_, 0, 'g', 3));
  QAbstractAxis* axisY = nullptr;
  double yLo = HUGE_VAL, yHi = -HUGE_VAL;
  std::map<Conditional, QLineSeries*> byVariant;
  for (const NoiseSummaryRow& r : summary_) {
    QLineSeries*& line = byVariant[r.variant];
    if (!line) {
      line = new QLineSeries;
      line->setName(QString::fromUtf8(conditionalName(r.variant).data()));
      line->setPointsVisible(true);
    }
    double y = r.mean;
    if (!std::isfinite(y)) continue;
    if (logY && y <= 0) continue;  // no place on a log axis
    line->append(r.sigma > 0 ? r.sigma : zeroAt_, y);
    yLo = std::min(yLo, y), yHi = std::max(yHi, y);
  }
  // A percentage never needs room above 100.
  const double ceiling = percentMetric_ ? 100.0 : HUGE_VAL;
  if (logY) {
    auto* a = new QLogValueAxis;
    a->setBase(10);
    a->setLabelFormat(QStringLiteral("%.0e"));
    if (yHi > 0) a->setRange(yLo / 2, std::max(yHi, std::min(yHi * 2, ceiling)));
    axisY = a;
  } else {
    auto* a = new QValueAxis;
    if (yHi >= yLo)
      setNiceLinearRange(a, yLo, yHi, ceiling);
    else
      setNiceLinearRange(a, 0, 1, ceiling);
    axisY = a;
  }
  axisY->setTitleText(metric_);
  chart_->addAxis(axisX, Qt::AlignBottom);
  chart_->addAxis(axisY, Qt::AlignLeft);
  // Dashes tell apart variants whose lines coincide (as in the CLI's SVG).
  const Qt::PenStyle dashes[] = {Qt::SolidLine, Qt::DashLine, Qt::DotLine, Qt::DashDotLine,
                                 Qt::DashDotDotLine};
  int k = 0;
  for (auto& [variant, line] : byVariant) {
    chart_->addSeries(line);
    line->attachAxis(axisX);
    line->attachAxis(axisY);
    QPen pen = line->pen();
    pen.setWidthF(2);
    pen.setStyle(dashes[k++ % 5]);
    line->setPen(pen);
    lines_.push_back(line);
  }
  double biggest = zeroAt_;
  for (const NoiseSummaryRow& r : summary_) biggest = std::max(biggest, r.sigma);
  axisX->setRange(zeroAt_ / 3, biggest * 3);
  chart_->setTitle(summary_.empty()
                       ? QString()
                       : tr("%1: %2 over weight noise σ (%3, %4)")
                             .arg(program_, metric_,
                                  optimize_ ? tr("optimised") : tr("not optimised"), source_));
  status_->setText(summary_.empty() ? status_->text()
                                    : tr("%1 variants, %2 points from %3")
                                          .arg(lines_.size())
                                          .arg(summary_.size())
                                          .arg(source_));
}

void NoisePlotView::exportSvg(const QString& path) const { exportChartSvg(view_, path); }
void NoisePlotView::exportPng(const QString& path) const { exportChartPng(view_, path); }

}  // namespace lsrl::studio
