// The Lattice slot geometry in 3D (Qt Data Visualization): the unit sphere as a wire of
// points, each slot as an arrow from the origin (after token t; before it, faint), the
// arc it turns through, its trail, the incoming vector's orthogonal part from the old
// tip, and the incoming direction. Arrows are shafts of small points with an arrow-mesh
// tip turned along the vector. The axes reach just past the sphere, so it fills the box;
// orthogonal parts that would stick out are drawn shortened (orthogonalScale()). Like Pca3dPanel it
// needs OpenGL on xcb: create it only when Pca3dPanel::available().
#pragma once

#include <QImage>
#include <QWidget>
#include <vector>

class Q3DScatter;
class QCustom3DLabel;
class QScatter3DSeries;

namespace lsrl::studio {

class LatticeGeometry;

class LatticeSphere3d : public QWidget {
  Q_OBJECT

 public:
  explicit LatticeSphere3d(QWidget* parent = nullptr);

  void setLattice(const LatticeGeometry* geometry);  // not owned
  void setStep(int step);
  // The 3D window's container (QWidget::grab() cannot capture it) and its picture.
  QWidget* container() const { return container_; }
  QImage renderImage(QSize size);
  int seriesCount() const;
  // How far the axes reach from the origin (each runs −reach … reach).
  float axisReach() const;
  // The factor the orthogonal parts are drawn at (1, or less when their tips would leave
  // the box).
  double orthogonalScale() const { return orthogonalScale_; }

 private:
  void rebuildSeries();
  void fitAxes();
  void placeAxes(double range);
  void fill();

  const LatticeGeometry* geometry_ = nullptr;
  int step_ = 0;
  double orthogonalScale_ = 1;
  Q3DScatter* graph_;
  QWidget* container_;
  QScatter3DSeries* sphere_;
  QScatter3DSeries* incomingShaft_;
  QScatter3DSeries* incomingTip_;
  QScatter3DSeries* axisLines_;             // the three axes through the origin
  std::vector<QCustom3DLabel*> axisNames_;  // their names at the +1 ends
  // Per slot: the solid points (shaft after, arc), the arrow tips (after, orthogonal
  // part) and the faint points (shaft before, trail, orthogonal part's shaft).
  std::vector<QScatter3DSeries*> solid_, tips_, faint_;
};

}  // namespace lsrl::studio
