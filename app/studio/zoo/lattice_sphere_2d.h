// The Lattice slot geometry in 2D (the fallback for machines without OpenGL, and the
// vector export): the projection onto a chosen pair of axes of the unit sphere's outline,
// each slot's trail, the slots before (faint) and after (solid) token t, the arc each
// slot turns through, the incoming vector's orthogonal part per slot drawn from the old
// slot's tip (dashed, the direction of the turn), and the incoming direction (black).
#pragma once

#include <QColor>
#include <QWidget>

class QPainter;

namespace lsrl::studio {

class LatticeGeometry;

class LatticeSphere2d : public QWidget {
  Q_OBJECT

 public:
  explicit LatticeSphere2d(QWidget* parent = nullptr);

  // Not owned; null clears the view. Keeps the step (clamped).
  void setLattice(const LatticeGeometry* geometry);
  void setStep(int step);
  // The projected axes shown horizontally and vertically (0, 1, 2: x/y/z or PC1/2/3).
  void setAxes(int horizontal, int vertical);
  int horizontalAxis() const { return axisH_; }
  int verticalAxis() const { return axisV_; }
  // Draws the frame into `rect` (the widget's paint, PNG and SVG exports).
  void paintFrame(QPainter& painter, const QRectF& rect) const;
  // Where a projected point (on the chosen axes) lands in a `rect` drawing (tests).
  QPointF mapPoint(double h, double v, const QRectF& rect) const;

  QSize sizeHint() const override { return {520, 520}; }
  QSize minimumSizeHint() const override { return {200, 200}; }

 protected:
  void paintEvent(QPaintEvent* event) override;

 private:
  const LatticeGeometry* geometry_ = nullptr;
  int step_ = 0;
  int axisH_ = 0, axisV_ = 1;
};

}  // namespace lsrl::studio
