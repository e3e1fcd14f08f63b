#include "app/studio/zoo/looped_view.h"

#include <Q3DCamera>
#include <Q3DScatter>
#include <Q3DScene>
#include <Q3DTheme>
#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QDir>
#include <QFileInfo>
#include <QFontMetrics>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLegendMarker>
#include <QLineSeries>
#include <QScatterSeries>
#include <QSignalBlocker>
#include <QVBoxLayout>
#include <QValueAxis>
#include <algorithm>
#include <cmath>
#include <limits>

#include "app/studio/plots/chart_export.h"
#include "app/studio/plots/colour_map.h"
#include "app/studio/plots/heatmap_widget.h"
#include "app/studio/plots/pca_3d_panel.h"
#include "app/studio/plots/series_legend.h"
#include "app/studio/zoo/inset_axis_ticks.h"
#include "app/studio/zoo/model_scatter_3d.h"
#include "app/studio/zoo/step_chart.h"
#include "core/util/error.h"

namespace lsrl::studio {

namespace {

const char* const kScaleNames[] = {"α₁", "α₂", "γ₁", "γ₂"};

QVector3D scenePoint(const std::vector<double>& p) {
  auto at = [&](size_t k) { return k < p.size() ? static_cast<float>(p[k]) : 0.0f; };
  return QVector3D(at(0), at(2), at(1));  // PC3 up
}

}  // namespace

LoopedView::LoopedView(QWidget* parent) : ModelView(parent) {
  tokenBox_ = new QComboBox;
  headBox_ = new QComboBox;
  scaleBox_ = new QComboBox;
  for (const char* name : kScaleNames) scaleBox_->addItem(QString::fromUtf8(name));
  scaleBox_->setToolTip(
      tr("The timestep scale shown: α multiplies the normalised input of a "
         "branch, γ its output (1 in the plain block)"));
  varianceLabel_ = new QLabel;
  varianceLabel_->setWordWrap(true);  // one long line widened the window past the screen
  auto* controls = new QHBoxLayout;
  controls->addWidget(new QLabel(tr("Tokens")));
  controls->addWidget(tokenBox_);
  controls->addWidget(new QLabel(tr("Head")));
  controls->addWidget(headBox_);
  controls->addWidget(new QLabel(tr("Scale")));
  controls->addWidget(scaleBox_);
  controls->addWidget(varianceLabel_, 1);

  chart_ = new QChart;
  chart_->setTitle(tr("Hidden states across loops (PCA)"));
  chart_->legend()->setAlignment(Qt::AlignRight);
  pc1_ = new QValueAxis;
  pc1_->setTitleText(tr("PC1"));
  pc2_ = new QValueAxis;
  pc2_->setTitleText(tr("PC2"));
  chart_->addAxis(pc1_, Qt::AlignBottom);
  chart_->addAxis(pc2_, Qt::AlignLeft);
  current_ = new QScatterSeries;
  current_->setName(tr("at loop t"));
  current_->setColor(QColor(20, 20, 20));
  current_->setMarkerSize(11);
  chart_->addSeries(current_);
  current_->attachAxis(pc1_);
  current_->attachAxis(pc2_);
  connect(chart_, &QChart::plotAreaChanged, this, [this](const QRectF& area) {
    // Only a changed size needs other ticks (fitPcaAxes moves the plot area itself).
    if (fittingPca_ || area.size().toSize() == pcaArea_) return;
    pcaArea_ = area.size().toSize();
    fitPcaAxes();
  });
  chartView_ = new QChartView(chart_);
  chartView_->setRenderHint(QPainter::Antialiasing);
  chartView_->setMinimumSize(170, 220);
  pcaLegend_ = new SeriesLegend(chart_);
  // The chart and its scrolling legend, one cell of the grid.
  auto* pca = new QWidget;
  auto* pcaLayout = new QHBoxLayout(pca);
  pcaLayout->setContentsMargins(0, 0, 0, 0);
  pcaLayout->setSpacing(0);
  pcaLayout->addWidget(chartView_, 1);
  pcaLayout->addWidget(pcaLegend_);

  if (Pca3dPanel::available()) {
    graph3d_ = newModelScatter3d(80);  // one of four panels: labels need a large font
    graph3d_->axisX()->setTitle(tr("PC1"));
    graph3d_->axisY()->setTitle(tr("PC3"));
    graph3d_->axisZ()->setTitle(tr("PC2"));
    for (QValue3DAxis* axis : {graph3d_->axisX(), graph3d_->axisY(), graph3d_->axisZ()})
      axis->setTitleVisible(true);
    graph3d_->scene()->activeCamera()->setCameraPreset(Q3DCamera::CameraPresetIsometricLeftHigh);
    current3d_ = new QScatter3DSeries;
    current3d_->setItemSize(0.12f);
    current3d_->setBaseColor(QColor(20, 20, 20));
    graph3d_->addSeries(current3d_);
    container3d_ = QWidget::createWindowContainer(graph3d_, this);
    container3d_->setMinimumSize(180, 220);
  }

  attention_ = new HeatmapWidget;
  scales_ = new HeatmapWidget;
  stepNorm_ = new StepChart(tr("Step norm ‖X⁽ᵗ⁾ − X⁽ᵗ⁻¹⁾‖ (convergence)"), tr("loop"));
  for (QWidget* w : {static_cast<QWidget*>(attention_), static_cast<QWidget*>(scales_),
                     static_cast<QWidget*>(stepNorm_)})
    w->setMinimumSize(180, 200);
  info_ = new QLabel;
  info_->setWordWrap(true);
  info_->setTextInteractionFlags(Qt::TextSelectableByMouse);

  auto* grid = new QGridLayout;
  if (container3d_) {
    grid->addWidget(pca, 0, 0);
    grid->addWidget(container3d_, 0, 1);
  } else {
    // Without OpenGL the 2D projection takes the 3D scene's place too.
    grid->addWidget(pca, 0, 0, 1, 2);
    chartView_->setToolTip(tr("3D needs OpenGL on a display (the platform here is not xcb)"));
  }
  grid->addWidget(attention_, 1, 0);
  grid->addWidget(scales_, 1, 1);
  grid->addWidget(stepNorm_, 0, 2);
  grid->setColumnStretch(0, 1);
  grid->setColumnStretch(1, 1);
  grid->setColumnStretch(2, 1);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addLayout(controls);
  layout->addLayout(grid, 1);
  grid->addWidget(info_, 1, 2, Qt::AlignTop);

  connect(tokenBox_, &QComboBox::currentIndexChanged, this, [this](int i) {
    if (i >= 0) setToken(i - 1);
  });
  connect(headBox_, &QComboBox::currentIndexChanged, this, [this](int h) {
    if (h >= 0 && h != head_) setHead(h);
  });
  connect(scaleBox_, &QComboBox::currentIndexChanged, this, [this](int s) {
    if (s >= 0 && s != scale_) setScale(s);
  });
  connect(scales_, &HeatmapWidget::columnClicked, this,
          [this](int column) { Q_EMIT stepRequested(column + 1); });
}

const std::vector<double>& LoopedView::projected(int loop, int token) const {
  return pca_.projected[static_cast<size_t>(loop) * N_ + static_cast<size_t>(token)];
}

void LoopedView::setRun(std::shared_ptr<const ModelRun> run) {
  run_ = std::move(run);
  step_ = 0;
  token_ = -1;
  head_ = 0;
  r_ = N_ = heads_ = d_ = 0;
  pca_ = {};
  if (run_) {
    const Tensor& hidden = viewTraceArray(run_->trace, "looped-transformer", "hidden", 3);
    const Tensor& attention = viewTraceArray(run_->trace, "looped-transformer", "attention", 4);
    viewTraceArray(run_->trace, "looped-transformer", "alpha", 3);
    viewTraceArray(run_->trace, "looped-transformer", "gamma", 3);
    viewTraceArray(run_->trace, "looped-transformer", "step_norm", 1);
    r_ = static_cast<int>(hidden.shape[0]) - 1;
    N_ = static_cast<int>(hidden.shape[1]);
    d_ = static_cast<int>(hidden.shape[2]);
    heads_ = static_cast<int>(attention.shape[1]);
    StateSeries states;
    for (int k = 0; k < d_; ++k) states.labels.push_back("x" + std::to_string(k));
    for (size_t row = 0; row + static_cast<size_t>(d_) <= hidden.data.size();
         row += static_cast<size_t>(d_))
      states.values.emplace_back(hidden.data.begin() + static_cast<std::ptrdiff_t>(row),
                                 hidden.data.begin() + static_cast<std::ptrdiff_t>(row + d_));
    pca_ = computePca(states, 3);
    if (graph3d_) {
      // PC1 → x, PC3 → y (up), PC2 → z, as scenePoint places them.
      QValue3DAxis* axes[3] = {graph3d_->axisX(), graph3d_->axisZ(), graph3d_->axisY()};
      for (size_t k = 0; k < 3; ++k) {
        double lo = 0, hi = 0;
        for (const std::vector<double>& p : pca_.projected)
          if (k < p.size()) lo = std::min(lo, p[k]), hi = std::max(hi, p[k]);
        setInsetAxisRange(axes[k], lo, hi);
      }
    }
  }
  {
    const QSignalBlocker a(tokenBox_), b(headBox_);
    tokenBox_->clear();
    tokenBox_->addItem(tr("all tokens"));
    for (int n = 0; n < N_; ++n) tokenBox_->addItem(tr("token %1").arg(n));
    headBox_->clear();
    for (int h = 0; h < heads_; ++h) headBox_->addItem(QString::number(h));
  }
  varianceLabel_->setText(
      run_ ? tr("%1 tokens × %2 loops; PCA of every (loop, token) state: PC1 %3%, PC2 %4%, PC3 %5%")
                 .arg(N_)
                 .arg(r_)
                 .arg(100 * pca_.explained(0), 0, 'f', 1)
                 .arg(100 * pca_.explained(1), 0, 'f', 1)
                 .arg(100 * pca_.explained(2), 0, 'f', 1)
           : QString());
  std::vector<double> norms;
  if (run_) norms = run_->trace.get("step_norm").data;
  stepNorm_->setCurves({{tr("step norm"), norms}}, 1);
  rebuildPaths();
  showScales();
  showStepData();
}

void LoopedView::rebuildPaths() {
  for (QLineSeries* s : paths_) {
    chart_->removeSeries(s);
    delete s;
  }
  paths_.clear();
  for (QScatter3DSeries* s : paths3d_) {
    graph3d_->removeSeries(s);
    delete s;
  }
  paths3d_.clear();
  double lo1 = 0, hi1 = 0, lo2 = 0, hi2 = 0;
  bool any = false;
  for (int n = 0; n < N_; ++n) {
    if (token_ >= 0 && n != token_) continue;
    auto* path = new QLineSeries;
    path->setName(tr("token %1").arg(n));
    path->setColor(categoricalColour(n));
    path->setPointsVisible(true);
    QList<QPointF> points;
    auto* items = new QScatterDataArray;
    for (int t = 0; t <= r_; ++t) {
      const std::vector<double>& p = projected(t, n);
      const double x = p.empty() ? 0 : p[0], y = p.size() > 1 ? p[1] : 0;
      points.append(QPointF(x, y));
      lo1 = any ? std::min(lo1, x) : x;
      hi1 = any ? std::max(hi1, x) : x;
      lo2 = any ? std::min(lo2, y) : y;
      hi2 = any ? std::max(hi2, y) : y;
      any = true;
      items->append(QScatterDataItem(scenePoint(p)));
    }
    path->replace(points);
    chart_->addSeries(path);
    path->attachAxis(pc1_);
    path->attachAxis(pc2_);
    paths_.push_back(path);
    if (graph3d_) {
      auto* s = new QScatter3DSeries;
      s->setItemSize(0.06f);
      s->setBaseColor(categoricalColour(n));
      s->dataProxy()->resetArray(items);
      graph3d_->addSeries(s);
      paths3d_.push_back(s);
    } else {
      delete items;
    }
  }
  const double pad1 = hi1 > lo1 ? 0.06 * (hi1 - lo1) : 1, pad2 = hi2 > lo2 ? 0.06 * (hi2 - lo2) : 1;
  pcaBounds_ = {lo1 - pad1, hi1 + pad1, lo2 - pad2, hi2 + pad2};
  fitPcaAxes();
  // Drawn last so the current states sit on top of the paths.
  chart_->removeSeries(current_);
  chart_->addSeries(current_);
  current_->attachAxis(pc1_);
  current_->attachAxis(pc2_);
  pcaLegend_->refresh();
}

void LoopedView::fitPcaAxes() {
  // As many labels as the plot has room for (a narrow chart elided "-10.0" to "…"), then
  // round ticks (-20, 0, 20) rather than fractions of the data's span (-35.3, -20.0).
  const QRectF area = chart_->plotArea();
  fittingPca_ = true;
  pc1_->setRange(pcaBounds_[0], pcaBounds_[1]);
  pc2_->setRange(pcaBounds_[2], pcaBounds_[3]);
  pc1_->setTickCount(std::clamp(static_cast<int>(area.width() / 70), 3, 6));
  pc2_->setTickCount(std::clamp(static_cast<int>(area.height() / 40), 3, 6));
  pc1_->applyNiceNumbers();
  pc2_->applyNiceNumbers();
  // Whole steps print without decimals ("-20", not "-20.0"): short labels fit more. A
  // step whose labels are still wider than their spacing is doubled.
  const QFontMetrics metrics(pc1_->labelsFont());
  for (QValueAxis* axis : {pc1_, pc2_}) {
    const double length = axis == pc1_ ? area.width() : area.height();
    double step = (axis->max() - axis->min()) / std::max(1, axis->tickCount() - 1);
    for (int tries = 0; tries < 4 && axis->tickCount() > 2; ++tries) {
      const int decimals = std::min(decimalsForStep(step), 4);
      axis->setLabelFormat(QStringLiteral("%.%1f").arg(decimals));
      const QString widest =
          QString::number(-std::max(std::abs(axis->min()), std::abs(axis->max())), 'f', decimals);
      const int needed = axis == pc1_ ? metrics.horizontalAdvance(widest) + 6 : metrics.height();
      if (length / (axis->tickCount() - 1) >= needed) break;
      step *= 2;
      const double lo = std::floor(axis->min() / step) * step;
      const double hi = std::ceil(axis->max() / step) * step;
      axis->setRange(lo, hi);
      axis->setTickCount(static_cast<int>(std::lround((hi - lo) / step)) + 1);
    }
  }
  fittingPca_ = false;
}

void LoopedView::resizeEvent(QResizeEvent* event) {
  ModelView::resizeEvent(event);
  if (graph3d_ == nullptr) return;
  // Data Visualization scales labels with the scene: a narrow panel needs a larger font
  // for the same label height (80 points read well at 360 pixels).
  const int width = std::max(1, container3d_->width());
  const int points = std::clamp(80 * 360 / width, 60, 160);
  QFont font = graph3d_->activeTheme()->font();
  if (font.pointSize() == points) return;
  font.setPointSize(points);
  graph3d_->activeTheme()->setFont(font);
}

void LoopedView::setToken(int token) {
  token_ = token;
  {
    const QSignalBlocker block(tokenBox_);
    tokenBox_->setCurrentIndex(token + 1);
  }
  rebuildPaths();
  showStepData();
}

void LoopedView::setHead(int head) {
  head_ = head;
  {
    const QSignalBlocker block(headBox_);
    headBox_->setCurrentIndex(head);
  }
  showStepData();
}

void LoopedView::setScale(int which) {
  scale_ = std::clamp(which, 0, 3);
  {
    const QSignalBlocker block(scaleBox_);
    scaleBox_->setCurrentIndex(scale_);
  }
  showScales();
  showStepData();
}

void LoopedView::showScales() {
  if (!run_ || r_ == 0) {
    scales_->setData({});
    return;
  }
  // alpha/gamma are [r][2][d]: loop, branch, channel.
  const Tensor& a = run_->trace.get(scale_ < 2 ? "alpha" : "gamma");
  const int branch = scale_ % 2;
  HeatmapData data;
  data.title = tr("%1 per channel and loop").arg(QString::fromUtf8(kScaleNames[scale_]));
  data.colMin = 0.5;
  data.colMax = r_ + 0.5;
  data.colTitle = tr("loop");
  data.rowTitle = tr("channel");
  data.rowMin = 0;
  data.rowMax = d_ - 1;
  data.values.assign(static_cast<size_t>(d_), std::vector<double>(static_cast<size_t>(r_)));
  for (int t = 0; t < r_; ++t)
    for (int k = 0; k < d_; ++k)
      data.values[static_cast<size_t>(k)][static_cast<size_t>(t)] =
          a.data[(static_cast<size_t>(t) * 2 + static_cast<size_t>(branch)) * d_ +
                 static_cast<size_t>(k)];
  scales_->setData(std::move(data));
}

void LoopedView::setStep(int step) {
  step_ = std::clamp(step, 0, std::max(0, r_));
  showStepData();
}

void LoopedView::showStepData() {
  stepNorm_->setStep(step_);
  scales_->setMarker(step_ >= 1 ? step_ : std::numeric_limits<double>::quiet_NaN());
  QList<QPointF> now;
  auto* items = new QScatterDataArray;
  for (int n = 0; n < N_; ++n) {
    if (token_ >= 0 && n != token_) continue;
    const std::vector<double>& p = projected(step_, n);
    now.append(QPointF(p.empty() ? 0 : p[0], p.size() > 1 ? p[1] : 0));
    items->append(QScatterDataItem(scenePoint(p)));
  }
  current_->replace(now);
  if (current3d_)
    current3d_->dataProxy()->resetArray(items);
  else
    delete items;
  if (!run_ || r_ == 0) {
    attention_->setData({});
    info_->setText(run_ ? tr("No loops.") : QString());
    return;
  }
  // Loop t's attention (t = 0, the input, has none: loop 1's is shown).
  const int loop = std::max(1, step_);
  const Tensor& att = run_->trace.get("attention");
  HeatmapData map;
  map.title = step_ == 0 ? tr("Attention of loop 1, head %1 (X⁽⁰⁾ has none)").arg(head_)
                         : tr("Attention of loop %1, head %2").arg(loop).arg(head_);
  map.range = 1;
  map.colMin = -0.5;
  map.colMax = N_ - 0.5;
  map.colTitle = tr("key token");
  map.rowTitle = tr("query token");
  for (int q = 0; q < N_; ++q) {
    map.rowLabels << tr("q%1").arg(q);
    const size_t at = ((static_cast<size_t>(loop - 1) * heads_ + static_cast<size_t>(head_)) * N_ +
                       static_cast<size_t>(q)) *
                      N_;
    map.values.emplace_back(att.data.begin() + static_cast<std::ptrdiff_t>(at),
                            att.data.begin() + static_cast<std::ptrdiff_t>(at + N_));
  }
  attention_->setData(std::move(map));
  QString text = tr("<b>loop %1 of %2</b>").arg(step_).arg(r_);
  if (step_ >= 1) {
    text += tr(": step norm %1").arg(run_->trace.get("step_norm").data[step_ - 1], 0, 'g', 4);
    if (run_->trace.has("readout")) {
      // Decoding at loop t: each token's largest read-out entry.
      const Tensor& out = run_->trace.get("readout");
      const size_t width = static_cast<size_t>(out.shape[2]);
      QStringList decoded;
      for (int n = 0; n < N_; ++n) {
        const auto first =
            out.data.begin() +
            static_cast<std::ptrdiff_t>((static_cast<size_t>(step_ - 1) * N_ + n) * width);
        decoded << QString::number(
            std::max_element(first, first + static_cast<std::ptrdiff_t>(width)) - first);
      }
      text += tr("<br>read-out argmax per token: %1").arg(decoded.join(QStringLiteral(" ")));
    }
  }
  info_->setText(text);
}

QImage LoopedView::renderImage() {
  QImage image = grab().toImage();
  if (!graph3d_) return image;
  return paintWindowInto(std::move(image), this, container3d_,
                         [this](QSize size) { return graph3d_->renderToImage(0, size); });
}

StateSeries LoopedView::pcaPoints() const {
  StateSeries s;
  s.title = "looped transformer states (PCA)";
  s.labels = {"loop", "token", "PC1", "PC2", "PC3"};
  for (int t = 0; t <= r_; ++t)
    for (int n = 0; n < N_; ++n) {
      const std::vector<double>& p = projected(t, n);
      auto at = [&](size_t k) { return k < p.size() ? p[k] : 0.0; };
      s.values.push_back({static_cast<double>(t), static_cast<double>(n), at(0), at(1), at(2)});
    }
  return s;
}

std::vector<ViewExport> LoopedView::exports() {
  auto csvBeside = [](const QString& png) {
    const QFileInfo info(png);
    return info.dir().filePath(info.completeBaseName() + QStringLiteral(".csv"));
  };
  std::vector<ViewExport> out = {
      {tr("PCA 2D (PNG)"), QStringLiteral(".png"),
       [this](const QString& p) {
         const ExportLegend shown(chart_, pcaLegend_);
         exportChartPng(chartView_, p);
       }},
      {tr("PCA 2D (SVG)"), QStringLiteral(".svg"),
       [this](const QString& p) {
         const ExportLegend shown(chart_, pcaLegend_);
         exportChartSvg(chartView_, p, chart_->title());
       }},
      {tr("PCA points (CSV)"), QStringLiteral(".csv"),
       [this](const QString& p) { exportSeriesCsv(pcaPoints(), p); }},
      {tr("Attention (PNG)"), QStringLiteral(".png"),
       [this](const QString& p) { exportWidgetPng(attention_, p); }},
      {tr("Attention (SVG)"), QStringLiteral(".svg"),
       [this](const QString& p) { exportWidgetSvg(attention_, p, attention_->data().title); }},
      {tr("Timestep scales (PNG)"), QStringLiteral(".png"),
       [this](const QString& p) { exportWidgetPng(scales_, p); }},
      {tr("Timestep scales (SVG)"), QStringLiteral(".svg"),
       [this](const QString& p) { exportWidgetSvg(scales_, p, scales_->data().title); }},
      {tr("Step norms (PNG)"), QStringLiteral(".png"),
       [this](const QString& p) { stepNorm_->exportPng(p); }},
      {tr("Step norms (SVG)"), QStringLiteral(".svg"),
       [this](const QString& p) { stepNorm_->exportSvg(p); }},
  };
  if (graph3d_) {
    out.push_back({tr("PCA 3D (PNG + CSV of the points)"), QStringLiteral(".png"),
                   [this, csvBeside](const QString& p) {
                     exportImagePng(graph3d_->renderToImage(0, QSize(900, 900)), p);
                     exportSeriesCsv(pcaPoints(), csvBeside(p));
                   }});
  }
  return out;
}

}  // namespace lsrl::studio
