#include "app/studio/zoo/gateloop_view.h"

#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLegendMarker>
#include <QLineSeries>
#include <QListWidget>
#include <QScatterSeries>
#include <QSignalBlocker>
#include <QSplitter>
#include <QVBoxLayout>
#include <QValueAxis>
#include <algorithm>
#include <cmath>
#include <numbers>

#include "app/studio/plots/chart_export.h"
#include "app/studio/plots/colour_map.h"
#include "app/studio/zoo/step_chart.h"
#include "core/util/error.h"

namespace lsrl::studio {

namespace {

// The shorter side of the plane spans ±kPlaneReach: the unit circle with a little room.
constexpr double kPlaneReach = 1.1;

}  // namespace

GateLoopView::GateLoopView(QWidget* parent) : ModelView(parent) {
  layerBox_ = new QComboBox;
  channelList_ = new QListWidget;
  channelList_->setObjectName(QStringLiteral("ChannelList"));
  channelList_->setToolTip(tr("Channels to plot"));
  channelList_->setMaximumWidth(110);
  planeChart_ = new QChart;
  planeChart_->setTitle(tr("Transitions a_t in the complex plane"));
  planeChart_->legend()->setAlignment(Qt::AlignBottom);
  re_ = new QValueAxis;
  re_->setTitleText(tr("Re a"));
  im_ = new QValueAxis;
  im_->setTitleText(tr("Im a"));
  for (QValueAxis* axis : {re_, im_}) {
    axis->setRange(-kPlaneReach, kPlaneReach);
    // Grid lines at multiples of 0.5 from 0: the lines at ±1 touch the unit circle.
    axis->setTickType(QValueAxis::TicksDynamic);
    axis->setTickAnchor(0);
    axis->setTickInterval(0.5);
    axis->setLabelFormat(QStringLiteral("%.1f"));
    planeChart_->addAxis(axis, axis == re_ ? Qt::AlignBottom : Qt::AlignLeft);
  }
  auto* circle = new QLineSeries;
  circle->setPen(QPen(QColor(150, 150, 150), 1.2, Qt::DashLine));
  for (int k = 0; k <= 180; ++k) {
    const double a = 2 * std::numbers::pi * k / 180;
    circle->append(std::cos(a), std::sin(a));
  }
  planeChart_->addSeries(circle);
  circle->attachAxis(re_);
  circle->attachAxis(im_);
  for (QLegendMarker* m : planeChart_->legend()->markers(circle)) m->setVisible(false);
  plane_ = new QChartView(planeChart_);
  plane_->setRenderHint(QPainter::Antialiasing);
  plane_->setMinimumSize(300, 300);
  magnitude_ = new StepChart(tr("|a_t| (memory kept per token)"), tr("token"));
  phase_ = new StepChart(tr("phase φ_t (radians, unwrapped)"), tr("token"));
  info_ = new QLabel;
  info_->setWordWrap(true);
  info_->setTextFormat(Qt::RichText);

  auto* controls = new QHBoxLayout;
  controls->addWidget(new QLabel(tr("Layer")));
  controls->addWidget(layerBox_);
  controls->addStretch(1);
  auto* left = new QWidget;
  auto* leftLayout = new QHBoxLayout(left);
  leftLayout->setContentsMargins(0, 0, 0, 0);
  leftLayout->addWidget(channelList_);
  leftLayout->addWidget(plane_, 1);
  auto* right = new QSplitter(Qt::Vertical);
  right->addWidget(magnitude_);
  right->addWidget(phase_);
  auto* splitter = new QSplitter;
  splitter->addWidget(left);
  splitter->addWidget(right);
  splitter->setStretchFactor(0, 1);
  splitter->setStretchFactor(1, 1);
  splitter->setSizes({600, 600});
  for (StepChart* chart : {magnitude_, phase_}) chart->setMinimumWidth(260);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addLayout(controls);
  layout->addWidget(splitter, 1);
  layout->addWidget(info_);

  connect(layerBox_, &QComboBox::currentIndexChanged, this, [this](int l) {
    if (l >= 0 && l != layer_) setLayer(l);
  });
  connect(planeChart_, &QChart::plotAreaChanged, this, &GateLoopView::fitPlaneAxes);
  connect(channelList_, &QListWidget::itemChanged, this, [this] {
    if (!updatingList_) rebuild();
  });
}

void GateLoopView::fitPlaneAxes(const QRectF& plot) {
  if (plot.width() <= 0 || plot.height() <= 0) return;
  // One unit is as long on both axes, so |a| = 1 is drawn as a circle in any plot shape.
  const double unitsPerPixel = 2 * kPlaneReach / std::min(plot.width(), plot.height());
  re_->setRange(-unitsPerPixel * plot.width() / 2, unitsPerPixel * plot.width() / 2);
  im_->setRange(-unitsPerPixel * plot.height() / 2, unitsPerPixel * plot.height() / 2);
}

std::string GateLoopView::prefix() const {
  return layer_ == 0 ? std::string() : "layer" + std::to_string(layer_) + ".";
}

void GateLoopView::setRun(std::shared_ptr<const ModelRun> run) {
  run_ = std::move(run);
  layer_ = 0;
  step_ = 0;
  const int layers = run_ ? run_->config.value("layers", 1) : 1;
  {
    const QSignalBlocker block(layerBox_);
    layerBox_->clear();
    for (int l = 0; l < layers; ++l) layerBox_->addItem(QString::number(l));
    layerBox_->setEnabled(layers > 1);
  }
  setLayer(0);
}

void GateLoopView::setLayer(int layer) {
  layer_ = layer;
  {
    const QSignalBlocker block(layerBox_);
    layerBox_->setCurrentIndex(layer);
  }
  mag_.clear();
  phi_.clear();
  memory_.clear();
  T_ = C_ = 0;
  if (run_) {
    const Tensor& mag = viewTraceArray(run_->trace, "GateLoop", prefix() + "a_magnitude", 2);
    const Tensor& phi = viewTraceArray(run_->trace, "GateLoop", prefix() + "a_phase", 2);
    const Tensor& mem = viewTraceArray(run_->trace, "GateLoop", prefix() + "memory_length", 2);
    if (phi.shape != mag.shape || mem.shape != mag.shape)
      throw Error(
          "the GateLoop trace arrays a_magnitude, a_phase and memory_length differ in "
          "shape");
    T_ = static_cast<int>(mag.shape[0]);
    C_ = static_cast<int>(mag.shape[1]);
    mag_ = mag.data;
    phi_ = phi.data;
    memory_ = mem.data;
  }
  const std::vector<int> keep = channels();
  updatingList_ = true;
  channelList_->clear();
  for (int c = 0; c < C_; ++c) {
    auto* item = new QListWidgetItem(QStringLiteral("c%1").arg(c), channelList_);
    item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
    const bool shown =
        keep.empty() ? c < kInitialChannels : std::find(keep.begin(), keep.end(), c) != keep.end();
    item->setCheckState(shown ? Qt::Checked : Qt::Unchecked);
  }
  updatingList_ = false;
  rebuild();
}

void GateLoopView::setChannels(const std::vector<int>& channels) {
  updatingList_ = true;
  for (int c = 0; c < channelList_->count(); ++c)
    channelList_->item(c)->setCheckState(
        std::find(channels.begin(), channels.end(), c) != channels.end() ? Qt::Checked
                                                                         : Qt::Unchecked);
  updatingList_ = false;
  rebuild();
}

std::vector<int> GateLoopView::channels() const {
  std::vector<int> shown;
  for (int c = 0; c < channelList_->count(); ++c)
    if (channelList_->item(c)->checkState() == Qt::Checked) shown.push_back(c);
  return shown;
}

void GateLoopView::rebuild() {
  for (auto* list : {&paths_, &current_}) {
    for (QScatterSeries* s : *list) {
      planeChart_->removeSeries(s);
      delete s;
    }
    list->clear();
  }
  std::vector<StepCurve> mags, phases;
  for (int c : channels()) {
    const QColor colour = categoricalColour(static_cast<int>(paths_.size()));
    auto* path = new QScatterSeries;
    path->setName(QStringLiteral("c%1").arg(c));
    QColor faint = colour;
    faint.setAlpha(120);
    path->setColor(faint);
    path->setBorderColor(faint);
    path->setMarkerSize(6);
    auto* now = new QScatterSeries;
    now->setColor(colour);
    now->setBorderColor(Qt::black);
    now->setMarkerSize(14);
    StepCurve m{QStringLiteral("c%1").arg(c), {}}, p{QStringLiteral("c%1").arg(c), {}};
    QList<QPointF> points;
    for (int t = 0; t < T_; ++t) {
      const size_t i = static_cast<size_t>(t) * C_ + static_cast<size_t>(c);
      points.append(QPointF(mag_[i] * std::cos(phi_[i]), mag_[i] * std::sin(phi_[i])));
      m.values.push_back(mag_[i]);
      p.values.push_back(phi_[i]);
    }
    path->replace(points);
    for (QScatterSeries* s : {path, now}) {
      planeChart_->addSeries(s);
      s->attachAxis(re_);
      s->attachAxis(im_);
    }
    for (QLegendMarker* marker : planeChart_->legend()->markers(now)) marker->setVisible(false);
    paths_.push_back(path);
    current_.push_back(now);
    mags.push_back(std::move(m));
    phases.push_back(std::move(p));
  }
  magnitude_->setCurves(mags);
  phase_->setCurves(phases);
  magnitude_->colourCurvesByIndex();
  phase_->colourCurvesByIndex();
  showStepData();
}

void GateLoopView::setStep(int step) {
  step_ = T_ > 0 ? std::clamp(step, 0, T_ - 1) : 0;
  showStepData();
}

void GateLoopView::showStepData() {
  magnitude_->setStep(step_);
  phase_->setStep(step_);
  const std::vector<int> shown = channels();
  if (T_ == 0) {
    for (QScatterSeries* s : current_) s->clear();
    info_->setText(tr("No tokens."));
    return;
  }
  QString text = tr("<b>token %1</b>").arg(step_);
  if (run_ && static_cast<size_t>(step_) < run_->input.size()) {
    const auto& row = run_->input[static_cast<size_t>(step_)];
    const auto top = std::max_element(row.begin(), row.end());
    if (top != row.end() && *top == 1) text += tr(" (symbol %1)").arg(top - row.begin());
  }
  text += QStringLiteral(": ");
  for (size_t k = 0; k < shown.size() && k < current_.size(); ++k) {
    const size_t i = static_cast<size_t>(step_) * C_ + static_cast<size_t>(shown[k]);
    current_[k]->replace(
        QList<QPointF>{{mag_[i] * std::cos(phi_[i]), mag_[i] * std::sin(phi_[i])}});
    text += tr("<span style='color:%1'>c%2</span> |a| = %3, φ = %4, memory %5 tokens; ")
                .arg(categoricalColour(static_cast<int>(k)).name())
                .arg(shown[k])
                .arg(mag_[i], 0, 'f', 4)
                .arg(phi_[i], 0, 'f', 3)
                .arg(memory_[i], 0, 'g', 4);
  }
  info_->setText(text);
}

StateSeries GateLoopView::planePoints() const {
  StateSeries s;
  s.title = "GateLoop transitions a_t";
  const std::vector<int> shown = channels();
  for (int c : shown) {
    s.labels.push_back("c" + std::to_string(c) + ".re");
    s.labels.push_back("c" + std::to_string(c) + ".im");
  }
  for (int t = 0; t < T_; ++t) {
    std::vector<double> row;
    for (int c : shown) {
      const size_t i = static_cast<size_t>(t) * C_ + static_cast<size_t>(c);
      row.push_back(mag_[i] * std::cos(phi_[i]));
      row.push_back(mag_[i] * std::sin(phi_[i]));
    }
    s.values.push_back(std::move(row));
  }
  return s;
}

std::vector<ViewExport> GateLoopView::exports() {
  return {
      {tr("Complex plane (PNG)"), QStringLiteral(".png"),
       [this](const QString& p) { exportChartPng(plane_, p); }},
      {tr("Complex plane (SVG)"), QStringLiteral(".svg"),
       [this](const QString& p) { exportChartSvg(plane_, p, planeChart_->title()); }},
      {tr("Transition points (CSV)"), QStringLiteral(".csv"),
       [this](const QString& p) { exportSeriesCsv(planePoints(), p); }},
      {tr("Magnitudes (PNG)"), QStringLiteral(".png"),
       [this](const QString& p) { magnitude_->exportPng(p); }},
      {tr("Magnitudes (SVG)"), QStringLiteral(".svg"),
       [this](const QString& p) { magnitude_->exportSvg(p); }},
      {tr("Phases (PNG)"), QStringLiteral(".png"),
       [this](const QString& p) { phase_->exportPng(p); }},
      {tr("Phases (SVG)"), QStringLiteral(".svg"),
       [this](const QString& p) { phase_->exportSvg(p); }},
  };
}

}  // namespace lsrl::studio
