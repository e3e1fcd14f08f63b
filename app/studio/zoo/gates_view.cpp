#include "app/studio/zoo/gates_view.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QSignalBlocker>
#include <QSplitter>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "app/studio/plots/chart_export.h"
#include "app/studio/plots/heatmap_widget.h"
#include "app/studio/zoo/step_chart.h"
#include "core/util/error.h"

namespace lsrl::studio {

namespace {

// The arrays a kind offers, the default first; gates (in [0, 1]) colour on a fixed range.
QStringList arraysOf(const std::string& kind) {
  if (kind == "minlstm")
    return {QStringLiteral("f_prime"), QStringLiteral("i_prime"), QStringLiteral("f"),
            QStringLiteral("i"),       QStringLiteral("f_pre"),   QStringLiteral("i_pre"),
            QStringLiteral("h_tilde")};
  return {QStringLiteral("z"), QStringLiteral("z_pre"), QStringLiteral("h_tilde")};
}

bool isGate(const QString& name) {
  return name == QLatin1String("z") || name == QLatin1String("f") || name == QLatin1String("i") ||
         name == QLatin1String("f_prime") || name == QLatin1String("i_prime");
}

// A [T][C] trace array as a heat map: rows are channels, columns tokens.
HeatmapData channelsOverTime(const Tensor& a, const QString& label, const QString& title) {
  const int T = static_cast<int>(a.shape[0]), C = static_cast<int>(a.shape[1]);
  HeatmapData d;
  d.title = title;
  d.colMin = -0.5;
  d.colMax = T - 0.5;
  d.colTitle = QObject::tr("token");
  d.values.assign(static_cast<size_t>(C), std::vector<double>(static_cast<size_t>(T)));
  for (int c = 0; c < C; ++c) {
    d.rowLabels << QStringLiteral("%1[%2]").arg(label).arg(c);
    for (int t = 0; t < T; ++t)
      d.values[static_cast<size_t>(c)][static_cast<size_t>(t)] =
          a.data[static_cast<size_t>(t) * C + static_cast<size_t>(c)];
  }
  return d;
}

}  // namespace

GatesView::GatesView(QWidget* parent) : ModelView(parent) {
  layerBox_ = new QComboBox;
  arrayBox_ = new QComboBox;
  arrayBox_->setToolTip(tr("The gate (or pre-activation, or candidate) to show"));
  gates_ = new HeatmapWidget;
  hidden_ = new HeatmapWidget;
  chart_ = new StepChart(tr("Channels over time"), tr("token"));
  values_ = new QLabel;
  values_->setWordWrap(true);
  values_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  auto* controls = new QHBoxLayout;
  controls->addWidget(new QLabel(tr("Layer")));
  controls->addWidget(layerBox_);
  controls->addWidget(new QLabel(tr("Array")));
  controls->addWidget(arrayBox_);
  controls->addStretch(1);
  auto* maps = new QSplitter(Qt::Vertical);
  maps->addWidget(gates_);
  maps->addWidget(hidden_);
  maps->addWidget(chart_);
  chart_->setMinimumHeight(240);
  for (HeatmapWidget* map : {gates_, hidden_}) map->setMinimumHeight(180);
  maps->setSizes({300, 300, 280});
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addLayout(controls);
  layout->addWidget(maps, 1);
  layout->addWidget(values_);
  connect(layerBox_, &QComboBox::currentIndexChanged, this, [this](int l) {
    if (l >= 0 && l != layer_) setLayer(l);
  });
  connect(arrayBox_, &QComboBox::currentIndexChanged, this, [this] {
    if (run_) showArrays();
  });
  for (HeatmapWidget* map : {gates_, hidden_})
    connect(map, &HeatmapWidget::columnClicked, this, &ModelView::stepRequested);
}

std::string GatesView::prefix() const {
  return layer_ == 0 ? std::string() : "layer" + std::to_string(layer_) + ".";
}

void GatesView::setRun(std::shared_ptr<const ModelRun> run) {
  const std::string previousKind = run_ ? run_->kind : std::string();
  run_ = std::move(run);
  step_ = 0;
  layer_ = 0;
  const int layers = run_ ? run_->config.value("layers", 1) : 1;
  {
    const QSignalBlocker block(layerBox_);
    layerBox_->clear();
    for (int l = 0; l < layers; ++l) layerBox_->addItem(QString::number(l));
    layerBox_->setEnabled(layers > 1);
  }
  if (run_ && run_->kind != previousKind) {
    const QSignalBlocker block(arrayBox_);
    arrayBox_->clear();
    arrayBox_->addItems(arraysOf(run_->kind));
  }
  showArrays();
}

bool GatesView::setArray(const QString& name) {
  const int index = arrayBox_->findText(name);
  if (index < 0) return false;
  arrayBox_->setCurrentIndex(index);
  return true;
}

QString GatesView::array() const { return arrayBox_->currentText(); }

void GatesView::setLayer(int layer) {
  layer_ = layer;
  {
    const QSignalBlocker block(layerBox_);
    layerBox_->setCurrentIndex(layer);
  }
  showArrays();
}

void GatesView::showArrays() {
  if (!run_) {
    gates_->setData({});
    hidden_->setData({});
    chart_->setCurves({});
    values_->clear();
    return;
  }
  const QString name = array();
  const std::string p = prefix();
  const Tensor& gate = viewTraceArray(run_->trace, "gates", p + name.toStdString(), 2);
  const Tensor& hiddenArray = viewTraceArray(run_->trace, "gates", p + "hidden", 2);
  HeatmapData g = channelsOverTime(gate, name, tr("%1 over time (layer %2)").arg(name).arg(layer_));
  if (isGate(name)) g.range = 1;  // gates live in [0, 1]: 1 is full red
  gates_->setData(std::move(g));
  hidden_->setData(channelsOverTime(hiddenArray, QStringLiteral("h"),
                                    tr("hidden state h_t (layer %1)").arg(layer_)));
  std::vector<StepCurve> curves;
  const int T = static_cast<int>(gate.shape[0]), C = static_cast<int>(gate.shape[1]);
  for (int c = 0; c < C; ++c) {
    StepCurve curve{QStringLiteral("%1[%2]").arg(name).arg(c), {}};
    for (int t = 0; t < T; ++t)
      curve.values.push_back(gate.data[static_cast<size_t>(t) * C + static_cast<size_t>(c)]);
    curves.push_back(std::move(curve));
  }
  chart_->setCurves(curves);
  showStepData();
}

void GatesView::setStep(int step) {
  const int T = run_ ? static_cast<int>(run_->input.size()) : 0;
  step_ = T > 0 ? std::clamp(step, 0, T - 1) : 0;
  showStepData();
}

void GatesView::showStepData() {
  gates_->setMarker(step_);
  hidden_->setMarker(step_);
  chart_->setStep(step_);
  const HeatmapData& g = gates_->data();
  if (g.columns() == 0) {
    values_->setText(tr("No tokens."));
    return;
  }
  QStringList parts;
  for (int c = 0; c < g.rows(); ++c)
    parts << QString::number(g.values[static_cast<size_t>(c)][static_cast<size_t>(step_)], 'f', 3);
  values_->setText(
      tr("token %1: %2 = (%3)").arg(step_).arg(array(), parts.join(QStringLiteral(", "))));
}

std::vector<ViewExport> GatesView::exports() {
  auto svgOf = [](HeatmapWidget* map) {
    return [map](const QString& path) { exportWidgetSvg(map, path, map->data().title); };
  };
  return {
      {tr("Gate heat map (PNG)"), QStringLiteral(".png"),
       [this](const QString& p) { exportWidgetPng(gates_, p); }},
      {tr("Gate heat map (SVG)"), QStringLiteral(".svg"), svgOf(gates_)},
      {tr("Hidden state heat map (PNG)"), QStringLiteral(".png"),
       [this](const QString& p) { exportWidgetPng(hidden_, p); }},
      {tr("Hidden state heat map (SVG)"), QStringLiteral(".svg"), svgOf(hidden_)},
      {tr("Channels chart (PNG)"), QStringLiteral(".png"),
       [this](const QString& p) { chart_->exportPng(p); }},
      {tr("Channels chart (SVG)"), QStringLiteral(".svg"),
       [this](const QString& p) { chart_->exportSvg(p); }},
  };
}

}  // namespace lsrl::studio
