#include "app/studio/zoo/lattice_view.h"

#include <QComboBox>
#include <QDir>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineSeries>
#include <QPainter>
#include <QSplitter>
#include <QStackedWidget>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <numbers>

#include "app/studio/plots/chart_export.h"
#include "app/studio/plots/colour_map.h"
#include "app/studio/plots/heatmap_widget.h"
#include "app/studio/plots/pca_3d_panel.h"
#include "app/studio/zoo/lattice_geometry.h"
#include "app/studio/zoo/lattice_sphere_2d.h"
#include "app/studio/zoo/lattice_sphere_3d.h"
#include "app/studio/zoo/step_chart.h"
#include "core/seed_models/lattice.h"
#include "core/util/error.h"

namespace lsrl::studio {

namespace {

// The axis pairs of the 2D projection.
const int kAxisPairs[3][2] = {{0, 1}, {0, 2}, {1, 2}};

QString csvBeside(const QString& png) {
  const QFileInfo info(png);
  return info.dir().filePath(info.completeBaseName() + QStringLiteral(".csv"));
}

}  // namespace

LatticeView::LatticeView(QWidget* parent) : ModelView(parent) {
  layerBox_ = new QComboBox;
  layerBox_->setToolTip(tr("The layer whose heads are drawn (a token model's stack)"));
  headBox_ = new QComboBox;
  headBox_->setToolTip(tr("The head whose slots are drawn"));
  showBox_ = new QComboBox;
  if (Pca3dPanel::available()) showBox_->addItem(tr("3D sphere"));
  showBox_->addItem(tr("2D projection"));
  showBox_->setCurrentIndex(0);
  showBox_->setToolTip(Pca3dPanel::available()
                           ? tr("3D (OpenGL) or the projection onto two axes")
                           : tr("3D needs OpenGL on a display; the 2D projection is shown"));
  axesBox_ = new QComboBox;
  axesBox_->setToolTip(tr("The pair of axes the 2D view projects onto"));
  varianceLabel_ = new QLabel;
  // A long header is cut (whole in its tooltip) rather than widening the view past the
  // tab: a wrapped one would make the page scroll.
  varianceLabel_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
  auto* controls = new QHBoxLayout;
  controls->addWidget(new QLabel(tr("Layer")));
  controls->addWidget(layerBox_);
  controls->addWidget(new QLabel(tr("Head")));
  controls->addWidget(headBox_);
  controls->addWidget(new QLabel(tr("View")));
  controls->addWidget(showBox_);
  controls->addWidget(new QLabel(tr("2D axes")));
  controls->addWidget(axesBox_);
  controls->addWidget(varianceLabel_, 1);

  sphereStack_ = new QStackedWidget;
  sphere2d_ = new LatticeSphere2d;
  if (Pca3dPanel::available()) {
    sphere3d_ = new LatticeSphere3d;
    sphereStack_->addWidget(sphere3d_);
  }
  sphereStack_->addWidget(sphere2d_);

  cosines_ = new HeatmapWidget;
  cosines_->setMinimumHeight(170);
  norms_ = new StepChart(tr("Slot norms ‖s_i‖"), tr("token"));
  write_ = new StepChart(tr("Write strengths α_i"), tr("token"));
  for (StepChart* chart : {norms_, write_}) chart->setMinimumHeight(170);
  info_ = new QLabel;
  info_->setWordWrap(true);
  info_->setTextFormat(Qt::RichText);
  info_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  auto* side = new QWidget;
  auto* sideLayout = new QVBoxLayout(side);
  sideLayout->setContentsMargins(0, 0, 0, 0);
  sideLayout->addWidget(cosines_, 3);
  sideLayout->addWidget(norms_, 3);
  sideLayout->addWidget(write_, 3);
  sideLayout->addWidget(info_);
  auto* splitter = new QSplitter;
  splitter->addWidget(sphereStack_);
  splitter->addWidget(side);
  splitter->setStretchFactor(0, 3);
  splitter->setStretchFactor(1, 2);

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addLayout(controls);
  layout->addWidget(splitter, 1);

  connect(layerBox_, &QComboBox::currentIndexChanged, this, [this](int l) {
    if (l >= 0 && l != layer_) setLayer(l);
  });
  connect(headBox_, &QComboBox::currentIndexChanged, this, [this](int h) {
    if (h >= 0 && h != head_) setHead(h);
  });
  connect(showBox_, &QComboBox::currentIndexChanged, this,
          [this](int i) { sphereStack_->setCurrentIndex(i); });
  connect(axesBox_, &QComboBox::currentIndexChanged, this, [this](int i) {
    if (i >= 0) sphere2d_->setAxes(kAxisPairs[i][0], kAxisPairs[i][1]);
  });
}

LatticeView::~LatticeView() = default;

void LatticeView::setRun(std::shared_ptr<const ModelRun> run) {
  run_ = std::move(run);
  layer_ = 0;
  head_ = 0;
  step_ = 0;
  const int heads = run_ ? run_->config.value("heads", 1) : 1;
  // Only a token model stacks layers (docs/spec/seed-models.md §1.8a).
  const bool tokens = run_ && run_->config.value("input", std::string()) == "tokens";
  const int layers = tokens ? run_->config.value("layers", 1) : 1;
  fillIndexBox(layerBox_, layers);
  fillIndexBox(headBox_, heads);
  loadHead();
}

void LatticeView::fillIndexBox(QComboBox* box, int count) {
  const QSignalBlocker block(box);
  box->clear();
  for (int i = 0; i < count; ++i) box->addItem(QString::number(i));
  box->setEnabled(count > 1);
}

void LatticeView::setLayer(int layer) {
  layer_ = layer;
  {
    const QSignalBlocker block(layerBox_);
    layerBox_->setCurrentIndex(layer);
  }
  loadHead();
}

void LatticeView::setHead(int head) {
  head_ = head;
  {
    const QSignalBlocker block(headBox_);
    headBox_->setCurrentIndex(head);
  }
  loadHead();
}

void LatticeView::loadHead() {
  // Detach the views before the geometry they point at goes.
  sphere2d_->setLattice(nullptr);
  if (sphere3d_) sphere3d_->setLattice(nullptr);
  geometry_.reset();
  cosineData_.clear();
  if (!run_) {
    showStepData();
    return;
  }
  geometry_ = std::make_unique<LatticeGeometry>(run_->trace, head_, layer_);
  const std::string p = seed_models::latticeTracePrefix(layer_, head_);
  cosineData_ = run_->trace.get(p + "slot_cosines").data;
  const LatticeGeometry& g = *geometry_;
  {
    const QSignalBlocker block(axesBox_);
    const int keep = std::max(0, axesBox_->currentIndex());
    axesBox_->clear();
    for (const auto& pair : kAxisPairs)
      axesBox_->addItem(QString::fromStdString(g.axisName(pair[0]) + " – " + g.axisName(pair[1])));
    axesBox_->setCurrentIndex(keep);
    sphere2d_->setAxes(kAxisPairs[keep][0], kAxisPairs[keep][1]);
  }
  QString header =
      g.projected() ? tr("d = %1 > 3: uncentred PCA of the slots, %2% / %3% / %4% of their energy")
                          .arg(g.dimension())
                          .arg(100 * g.explained(0), 0, 'f', 1)
                          .arg(100 * g.explained(1), 0, 'f', 1)
                          .arg(100 * g.explained(2), 0, 'f', 1)
                    : tr("d = %1, m = %2 slots: drawn in their own coordinates")
                          .arg(g.dimension())
                          .arg(g.slots());
  auto curves = [&](const std::string& name) {
    const Tensor& a = run_->trace.get(p + name);
    std::vector<StepCurve> out;
    for (int i = 0; i < g.slots(); ++i) {
      StepCurve c{QStringLiteral("s%1").arg(i + 1), {}};
      for (int t = 0; t < g.steps(); ++t)
        c.values.push_back(a.data[static_cast<size_t>(t) * g.slots() + static_cast<size_t>(i)]);
      out.push_back(std::move(c));
    }
    return out;
  };
  norms_->setCurves(curves("slot_norms"));
  norms_->colourCurvesByIndex();
  write_->setCurves(curves("write_strength"));
  write_->colourCurvesByIndex();
  sphere2d_->setLattice(geometry_.get());
  if (sphere3d_) {
    sphere3d_->setLattice(geometry_.get());
    if (sphere3d_->orthogonalScale() < 1)
      header += tr("; 3D draws the orthogonal parts at ×%1 to stay in the box")
                    .arg(sphere3d_->orthogonalScale(), 0, 'f', 2);
  }
  varianceLabel_->setText(header);
  varianceLabel_->setToolTip(header);
  showStepData();
}

void LatticeView::setStep(int step) {
  const int T = geometry_ ? geometry_->steps() : 0;
  step_ = T > 0 ? std::clamp(step, 0, T - 1) : 0;
  showStepData();
}

void LatticeView::showStepData() {
  sphere2d_->setStep(step_);
  if (sphere3d_) sphere3d_->setStep(step_);
  norms_->setStep(step_);
  write_->setStep(step_);
  if (!geometry_ || geometry_->steps() == 0) {
    cosines_->setData({});
    info_->setText(tr("No tokens."));
    return;
  }
  const LatticeGeometry& g = *geometry_;
  const int m = g.slots();
  HeatmapData data;
  data.title = tr("Slot cosines after token %1").arg(step_);
  data.range = 1;
  data.colMin = 0.5;
  data.colMax = m + 0.5;
  for (int i = 0; i < m; ++i) {
    data.rowLabels << QStringLiteral("s%1").arg(i + 1);
    data.colLabels << QStringLiteral("s%1").arg(i + 1);
    const auto first =
        cosineData_.begin() + static_cast<std::ptrdiff_t>((static_cast<size_t>(step_) * m + i) * m);
    data.values.emplace_back(first, first + m);
  }
  cosines_->setData(std::move(data));
  const LatticeFrame f = g.frame(step_);
  QString text =
      tr("<b>token %1</b> &nbsp; ‖h‖ = %2<br>").arg(step_).arg(f.incomingNorm, 0, 'g', 4);
  for (int i = 0; i < m; ++i) {
    const size_t si = static_cast<size_t>(i);
    text += tr("<span style='color:%1'>s%2</span>: α = %3, θ = %4°, ‖h⊥‖/‖h‖ = %5<br>")
                .arg(categoricalColour(i).name())
                .arg(i + 1)
                .arg(f.writeStrength[si], 0, 'g', 3)
                .arg(f.theta[si] * 180 / std::numbers::pi, 0, 'f', 1)
                .arg(f.perpFrac[si], 0, 'f', 3);
  }
  info_->setText(text);
}

void LatticeView::setShow3d(bool on) {
  if (sphere3d_ == nullptr) return;
  showBox_->setCurrentIndex(on ? 0 : 1);
}

bool LatticeView::showing3d() const {
  return sphere3d_ != nullptr && sphereStack_->currentWidget() == sphere3d_;
}

QImage LatticeView::renderImage() {
  QImage image = grab().toImage();
  if (!showing3d()) return image;
  return paintWindowInto(std::move(image), this, sphere3d_->container(),
                         [this](QSize size) { return sphere3d_->renderImage(size); });
}

void LatticeView::exportFramePng(const QString& path) {
  if (!geometry_) throw Error(path.toStdString() + ": no Lattice run to export");
  QImage image;
  if (showing3d()) {
    image = sphere3d_->renderImage(QSize(900, 900));
  } else {
    image = QImage(QSize(900, 900), QImage::Format_ARGB32_Premultiplied);
    image.fill(Qt::white);
    QPainter painter(&image);
    sphere2d_->paintFrame(painter, QRectF(0, 0, 900, 900));
  }
  exportImagePng(image, path);
  exportSeriesCsv(geometry_->framePoints(step_), csvBeside(path));
}

void LatticeView::exportFrameSvg(const QString& path) const {
  exportSvg(path, QSize(700, 700), tr("Lattice slots, token %1").arg(step_),
            [this](QPainter& painter) { sphere2d_->paintFrame(painter, QRectF(0, 0, 700, 700)); });
}

void LatticeView::exportSlotTrajectoriesCsv(const QString& path) const {
  if (!geometry_) throw Error(path.toStdString() + ": no Lattice run to export");
  exportSeriesCsv(geometry_->slotTrajectories(), path);
}

std::vector<ViewExport> LatticeView::exports() {
  auto svgOf = [](QWidget* widget, const QString& title) {
    return [widget, title](const QString& path) { exportWidgetSvg(widget, path, title); };
  };
  return {
      {tr("Slot geometry frame (PNG + CSV of the points)"), QStringLiteral(".png"),
       [this](const QString& p) { exportFramePng(p); }},
      {tr("Slot geometry frame, 2D (SVG)"), QStringLiteral(".svg"),
       [this](const QString& p) { exportFrameSvg(p); }},
      {tr("Slot trajectories (CSV)"), QStringLiteral(".csv"),
       [this](const QString& p) { exportSlotTrajectoriesCsv(p); }},
      {tr("Slot cosines (PNG)"), QStringLiteral(".png"),
       [this](const QString& p) { exportWidgetPng(cosines_, p); }},
      {tr("Slot cosines (SVG)"), QStringLiteral(".svg"), svgOf(cosines_, tr("Slot cosines"))},
      {tr("Slot norms (PNG)"), QStringLiteral(".png"),
       [this](const QString& p) { norms_->exportPng(p); }},
      {tr("Slot norms (SVG)"), QStringLiteral(".svg"),
       [this](const QString& p) { norms_->exportSvg(p); }},
      {tr("Write strengths (PNG)"), QStringLiteral(".png"),
       [this](const QString& p) { write_->exportPng(p); }},
      {tr("Write strengths (SVG)"), QStringLiteral(".svg"),
       [this](const QString& p) { write_->exportSvg(p); }},
  };
}

}  // namespace lsrl::studio
