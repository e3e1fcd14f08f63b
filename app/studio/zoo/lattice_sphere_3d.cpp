#include "app/studio/zoo/lattice_sphere_3d.h"

#include <Q3DCamera>
#include <Q3DScatter>
#include <Q3DScene>
#include <Q3DTheme>
#include <QCustom3DLabel>
#include <QQuaternion>
#include <QVBoxLayout>
#include <QValue3DAxis>
#include <algorithm>
#include <cmath>
#include <numbers>

#include "app/studio/plots/colour_map.h"
#include "app/studio/zoo/lattice_geometry.h"
#include "app/studio/zoo/model_scatter_3d.h"

namespace lsrl::studio {

namespace {

constexpr int kShaftPoints = 20;

// Data Visualization's y axis is the vertical one: the third coordinate goes up.
QVector3D toScene(const Point3& p) {
  return QVector3D(static_cast<float>(p[0]), static_cast<float>(p[2]), static_cast<float>(p[1]));
}

void addShaft(QScatterDataArray& out, const Point3& from, const Point3& to) {
  const QVector3D a = toScene(from), b = toScene(to);
  for (int k = 1; k < kShaftPoints; ++k)
    out.append(QScatterDataItem(a + (b - a) * (static_cast<float>(k) / kShaftPoints)));
}

void addTip(QScatterDataArray& out, const Point3& from, const Point3& to) {
  const QVector3D a = toScene(from), b = toScene(to);
  const QVector3D d = b - a;
  if (d.length() < 1e-6f) return;
  out.append(QScatterDataItem(b, QQuaternion::rotationTo(QVector3D(0, 1, 0), d.normalized())));
}

QScatter3DSeries* makeSeries(Q3DScatter* graph, QColor colour, float size,
                             QAbstract3DSeries::Mesh mesh = QAbstract3DSeries::MeshSphere) {
  auto* s = new QScatter3DSeries;
  s->setMesh(mesh);
  // Smooth meshes only for the arrow tips: software OpenGL draws every point as a mesh.
  s->setMeshSmooth(mesh == QAbstract3DSeries::MeshArrow);
  s->setItemSize(size);
  s->setBaseColor(colour);
  s->setItemLabelFormat(QString());
  graph->addSeries(s);
  return s;
}

Point3 plus(const Point3& a, const Point3& b) { return {a[0] + b[0], a[1] + b[1], a[2] + b[2]}; }

}  // namespace

LatticeSphere3d::LatticeSphere3d(QWidget* parent) : QWidget(parent) {
  graph_ = newModelScatter3d(48);
  graph_->setAspectRatio(1.0);
  graph_->setHorizontalAspectRatio(1.0);
  graph_->setSelectionMode(QAbstract3DGraph::SelectionNone);
  // The automatic margin leaves room for the largest item (the arrow tips) on every side:
  // a thin one lets the sphere fill the axis box.
  graph_->setMargin(0.05);
  // No box labels: drawn at the box's edges they floated far from the sphere and met at
  // its corners ("-1.1 -1.1"). The sphere carries its own axes instead: a line through
  // the origin per axis, named at its +1 end (see axisLines_, axisNames_).
  for (QValue3DAxis* axis : {graph_->axisX(), graph_->axisY(), graph_->axisZ()}) {
    axis->setTitleVisible(false);
    axis->setSegmentCount(1);
    axis->setLabelFormat(QStringLiteral(" "));
  }
  graph_->activeTheme()->setLabelTextColor(QColor(40, 40, 40));
  graph_->scene()->activeCamera()->setCameraPreset(Q3DCamera::CameraPresetIsometricRightHigh);
  // With no labels outside the box the sphere can fill the view.
  graph_->scene()->activeCamera()->setZoomLevel(250);
  graph_->activeTheme()->setGridEnabled(false);
  axisLines_ = makeSeries(graph_, QColor(110, 110, 110), 0.01f, QAbstract3DSeries::MeshPoint);
  // The axes: lines from -1 to +1 through the origin (the same for every run).
  auto* lines = new QScatterDataArray;
  constexpr int kAxisPoints = 60;
  for (size_t a = 0; a < 3; ++a) {
    for (int k = -kAxisPoints; k <= kAxisPoints; ++k) {
      Point3 p{};
      p[a] = static_cast<double>(k) / kAxisPoints;
      lines->append(QScatterDataItem(toScene(p)));
    }
  }
  axisLines_->dataProxy()->resetArray(lines);
  for (int a = 0; a < 3; ++a) {
    auto* name = new QCustom3DLabel;
    name->setFacingCamera(true);
    name->setBorderEnabled(false);
    name->setBackgroundEnabled(false);
    name->setScaling(QVector3D(0.7f, 0.7f, 0.7f));
    graph_->addCustomItem(name);  // the graph owns it
    axisNames_.push_back(name);
  }
  fitAxes();
  // The wire is many points: GL points (no mesh) keep a frame cheap.
  sphere_ = makeSeries(graph_, QColor(160, 172, 190), 0.02f, QAbstract3DSeries::MeshPoint);
  // The sphere: three great circles and four parallels.
  auto* wire = new QScatterDataArray;
  constexpr int kPoints = 120;
  for (int c = 0; c < 7; ++c) {
    for (int k = 0; k < kPoints; ++k) {
      const double a = 2 * std::numbers::pi * k / kPoints;
      Point3 p{};
      if (c < 3) {
        p[static_cast<size_t>(c)] = std::cos(a);
        p[static_cast<size_t>((c + 1) % 3)] = std::sin(a);
      } else {
        const double lat = (c - 5 + (c >= 5 ? 1 : 0)) * std::numbers::pi / 6;  // ±30°, ±60°
        p = {std::cos(lat) * std::cos(a), std::cos(lat) * std::sin(a), std::sin(lat)};
      }
      wire->append(QScatterDataItem(toScene(p)));
    }
  }
  sphere_->dataProxy()->resetArray(wire);
  incomingShaft_ = makeSeries(graph_, QColor(25, 25, 25), 0.05f);
  incomingTip_ = makeSeries(graph_, QColor(25, 25, 25), 0.18f, QAbstract3DSeries::MeshArrow);
  container_ = QWidget::createWindowContainer(graph_, this);
  container_->setMinimumSize(300, 300);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(container_, 1);
}

int LatticeSphere3d::seriesCount() const { return static_cast<int>(graph_->seriesList().size()); }

void LatticeSphere3d::setLattice(const LatticeGeometry* geometry) {
  geometry_ = geometry;
  rebuildSeries();
  fitAxes();
  fill();
}

float LatticeSphere3d::axisReach() const { return graph_->axisX()->max(); }

void LatticeSphere3d::fitAxes() {
  // Just past the slots and the incoming direction (the unit sphere for d = 3), in tenths
  // so the labels stay short: the sphere fills the box. The orthogonal parts, drawn from
  // the old tips, would need up to √2: they are shortened to end inside the box (the same
  // factor for the whole run) rather than clipped by it.
  const LatticeGeometry::Extent extent =
      geometry_ ? geometry_->extent() : LatticeGeometry::Extent{};
  const double range = std::ceil(extent.sphere * 1.04 * 10) / 10;
  const double room = std::sqrt(std::max(0.0, range * range - extent.sphere * extent.sphere));
  orthogonalScale_ = extent.orthogonal > room ? room / extent.orthogonal : 1.0;
  for (QValue3DAxis* axis : {graph_->axisX(), graph_->axisY(), graph_->axisZ()})
    axis->setRange(static_cast<float>(-range), static_cast<float>(range));
  placeAxes(range);
}

void LatticeSphere3d::placeAxes(double range) {
  // Names just past +1, inside the box (items outside the axis ranges are not drawn).
  for (size_t a = 0; a < 3; ++a) {
    Point3 tip{};
    tip[a] = std::min(1.08, range * 0.98);
    axisNames_[a]->setPosition(toScene(tip));
  }
}

void LatticeSphere3d::setStep(int step) {
  if (step == step_) return;
  step_ = step;
  fill();
}

QImage LatticeSphere3d::renderImage(QSize size) { return graph_->renderToImage(0, size); }

void LatticeSphere3d::rebuildSeries() {
  const int m = geometry_ ? geometry_->slots() : 0;
  while (static_cast<int>(solid_.size()) > m) {
    for (auto* list : {&solid_, &tips_, &faint_}) {
      graph_->removeSeries(list->back());
      delete list->back();
      list->pop_back();
    }
  }
  while (static_cast<int>(solid_.size()) < m) {
    const QColor c = categoricalColour(static_cast<int>(solid_.size()));
    solid_.push_back(makeSeries(graph_, c, 0.055f));
    tips_.push_back(makeSeries(graph_, c, 0.18f, QAbstract3DSeries::MeshArrow));
    faint_.push_back(makeSeries(graph_, c.lighter(150), 0.03f));
  }
  if (geometry_) {
    graph_->axisX()->setTitle(QString::fromStdString(geometry_->axisName(0)));
    graph_->axisZ()->setTitle(QString::fromStdString(geometry_->axisName(1)));
    graph_->axisY()->setTitle(QString::fromStdString(geometry_->axisName(2)));
    for (size_t a = 0; a < 3; ++a)
      axisNames_[a]->setText(QString::fromStdString(geometry_->axisName(static_cast<int>(a))));
  }
}

void LatticeSphere3d::fill() {
  if (geometry_ == nullptr || geometry_->steps() == 0) {
    for (auto* list : {&solid_, &tips_, &faint_})
      for (QScatter3DSeries* s : *list) s->dataProxy()->resetArray(new QScatterDataArray);
    incomingShaft_->dataProxy()->resetArray(new QScatterDataArray);
    incomingTip_->dataProxy()->resetArray(new QScatterDataArray);
    return;
  }
  const LatticeFrame f = geometry_->frame(step_);
  const Point3 origin{0, 0, 0};
  for (int i = 0; i < geometry_->slots(); ++i) {
    const size_t si = static_cast<size_t>(i);
    auto* solid = new QScatterDataArray;
    addShaft(*solid, origin, f.after[si]);
    for (const Point3& q : f.arcs[si]) solid->append(QScatterDataItem(toScene(q)));
    auto* tips = new QScatterDataArray;
    addTip(*tips, origin, f.after[si]);
    const Point3& o = f.orthogonal[si];
    const Point3 orthTip = plus(
        f.before[si], {o[0] * orthogonalScale_, o[1] * orthogonalScale_, o[2] * orthogonalScale_});
    addTip(*tips, f.before[si], orthTip);
    auto* faint = new QScatterDataArray;
    addShaft(*faint, origin, f.before[si]);
    addShaft(*faint, f.before[si], orthTip);
    faint->append(QScatterDataItem(toScene(geometry_->initial(i))));
    for (int t = 0; t <= f.step; ++t)
      faint->append(QScatterDataItem(toScene(geometry_->trail(i)[static_cast<size_t>(t)])));
    solid_[si]->dataProxy()->resetArray(solid);
    tips_[si]->dataProxy()->resetArray(tips);
    faint_[si]->dataProxy()->resetArray(faint);
  }
  auto* shaft = new QScatterDataArray;
  auto* tip = new QScatterDataArray;
  if (f.incomingNorm > 0) {
    addShaft(*shaft, origin, f.incoming);
    addTip(*tip, origin, f.incoming);
  }
  incomingShaft_->dataProxy()->resetArray(shaft);
  incomingTip_->dataProxy()->resetArray(tip);
}

}  // namespace lsrl::studio
