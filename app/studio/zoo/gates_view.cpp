#include "app/studio/zoo/gates_view.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QSignalBlocker>
#include <QSplitter>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <numeric>

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

// The chart draws this many rows (the first ones in the heat map's order): 128 lines are
// unreadable and slow to draw.
constexpr int kChartChannels = 8;
// The values line under the maps names this many rows at the current token.
constexpr int kValueRows = 16;

double valueAt(const Tensor& a, int t, int c) {
  return a.data[static_cast<size_t>(t) * static_cast<size_t>(a.shape[1]) + static_cast<size_t>(c)];
}

// Each token's id: the largest entry of its input row (the rows are one-hot).
std::vector<int> tokenIds(const seed_models::Sequence& input) {
  std::vector<int> ids;
  for (const auto& row : input)
    ids.push_back(static_cast<int>(std::max_element(row.begin(), row.end()) - row.begin()));
  return ids;
}

// Per channel of a [T][C] array, how it sorts (larger first): its standard deviation over the
// tokens (kMostVarying), or its mean off the input's commonest token minus its mean on it
// (kRareTokens: in selective copying, data tokens against noise). Non-finite counts as 0.
std::vector<double> channelKeys(const Tensor& a, GatesView::ChannelOrder order,
                                const std::vector<int>& ids) {
  const int T = static_cast<int>(a.shape[0]), C = static_cast<int>(a.shape[1]);
  std::vector<double> keys(static_cast<size_t>(C), 0.0);
  if (T == 0 || order == GatesView::ChannelOrder::kIndex) return keys;
  std::vector<int> counts;
  for (int id : ids) {
    if (id >= static_cast<int>(counts.size())) counts.resize(static_cast<size_t>(id) + 1, 0);
    ++counts[static_cast<size_t>(id)];
  }
  const int commonest =
      static_cast<int>(std::max_element(counts.begin(), counts.end()) - counts.begin());
  for (int c = 0; c < C; ++c) {
    double key = 0;
    if (order == GatesView::ChannelOrder::kMostVarying) {
      double sum = 0, sumSq = 0;
      for (int t = 0; t < T; ++t) sum += valueAt(a, t, c);
      for (int t = 0; t < T; ++t) sumSq += std::pow(valueAt(a, t, c) - sum / T, 2);
      key = std::sqrt(sumSq / T);
    } else {
      double on = 0, off = 0;
      int nOn = 0;
      for (int t = 0; t < T && t < static_cast<int>(ids.size()); ++t) {
        const bool common = ids[static_cast<size_t>(t)] == commonest;
        (common ? on : off) += valueAt(a, t, c);
        nOn += common ? 1 : 0;
      }
      const int nOff = std::min(T, static_cast<int>(ids.size())) - nOn;
      key = nOn > 0 && nOff > 0 ? off / nOff - on / nOn : 0.0;
    }
    keys[static_cast<size_t>(c)] = std::isfinite(key) ? key : 0.0;
  }
  return keys;
}

// The channels in `order`: largest key first, ties in index order.
std::vector<int> orderedChannels(const Tensor& a, GatesView::ChannelOrder order,
                                 const std::vector<int>& ids) {
  std::vector<int> channels(static_cast<size_t>(a.shape[1]));
  std::iota(channels.begin(), channels.end(), 0);
  const std::vector<double> keys = channelKeys(a, order, ids);
  std::stable_sort(channels.begin(), channels.end(), [&](int x, int y) {
    return keys[static_cast<size_t>(x)] > keys[static_cast<size_t>(y)];
  });
  return channels;
}

// A [T][C] trace array as a heat map: rows are the channels in `order`, columns tokens.
HeatmapData channelsOverTime(const Tensor& a, const std::vector<int>& order, const QString& label,
                             const QString& title) {
  const int T = static_cast<int>(a.shape[0]);
  HeatmapData d;
  d.title = title;
  d.colMin = -0.5;
  d.colMax = T - 0.5;
  d.colTitle = QObject::tr("token");
  d.values.assign(order.size(), std::vector<double>(static_cast<size_t>(T)));
  for (size_t row = 0; row < order.size(); ++row) {
    d.rowLabels << QStringLiteral("%1[%2]").arg(label).arg(order[row]);
    for (int t = 0; t < T; ++t) d.values[row][static_cast<size_t>(t)] = valueAt(a, t, order[row]);
  }
  return d;
}

}  // namespace

GatesView::GatesView(QWidget* parent) : ModelView(parent) {
  layerBox_ = new QComboBox;
  arrayBox_ = new QComboBox;
  arrayBox_->setToolTip(tr("The gate (or pre-activation, or candidate) to show"));
  orderBox_ = new QComboBox;
  orderBox_->setObjectName(QStringLiteral("ChannelOrder"));
  // In ChannelOrder's order.
  orderBox_->addItems(
      {tr("highest off the commonest token first"), tr("most varying first"), tr("channel index")});
  orderBox_->setToolTip(
      tr("Order the channels of the array shown: by their mean on the tokens other than the "
         "input's commonest one (selective copying: data against noise) minus their mean on "
         "it, by their spread over the tokens, or by index. The hidden state follows."));
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
  controls->addWidget(new QLabel(tr("Rows")));
  controls->addWidget(orderBox_);
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
  for (QComboBox* box : {arrayBox_, orderBox_})
    connect(box, &QComboBox::currentIndexChanged, this, [this] {
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

void GatesView::setChannelOrder(ChannelOrder order) {
  orderBox_->setCurrentIndex(static_cast<int>(order));
}

GatesView::ChannelOrder GatesView::channelOrder() const {
  return static_cast<ChannelOrder>(std::max(0, orderBox_->currentIndex()));
}

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
  const std::vector<int> order = orderedChannels(gate, channelOrder(), tokenIds(run_->input));
  HeatmapData g =
      channelsOverTime(gate, order, name, tr("%1 over time (layer %2)").arg(name).arg(layer_));
  if (isGate(name)) g.range = 1;  // gates live in [0, 1]: 1 is full red
  gates_->setData(std::move(g));
  // The hidden state has d_h channels like every array offered here: same rows, same order.
  const bool sameWidth = hiddenArray.shape[1] == gate.shape[1];
  hidden_->setData(channelsOverTime(
      hiddenArray, sameWidth ? order : orderedChannels(hiddenArray, ChannelOrder::kIndex, {}),
      QStringLiteral("h"), tr("hidden state h_t (layer %1)").arg(layer_)));
  std::vector<StepCurve> curves;
  const int T = static_cast<int>(gate.shape[0]);
  for (size_t row = 0; row < order.size() && row < size_t{kChartChannels}; ++row) {
    StepCurve curve{gates_->data().rowLabels[static_cast<qsizetype>(row)], {}};
    for (int t = 0; t < T; ++t) curve.values.push_back(valueAt(gate, t, order[row]));
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
  // The first rows in the maps' order, named: all 128 of a trained layer fill the window.
  QStringList parts;
  for (int row = 0; row < g.rows() && row < kValueRows; ++row)
    parts << QStringLiteral("%1 = %2").arg(
        g.rowLabels[row],
        QString::number(g.values[static_cast<size_t>(row)][static_cast<size_t>(step_)], 'f', 3));
  if (g.rows() > kValueRows) parts << tr("… (%1 more rows)").arg(g.rows() - kValueRows);
  values_->setText(tr("token %1: %2").arg(step_).arg(parts.join(QStringLiteral(", "))));
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
