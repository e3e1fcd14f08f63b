// Trajectory view, tab 4: the trajectory on its first three principal axes in a Qt Data
// Visualization Q3DScatter. That needs OpenGL on a real display: on other platforms
// (offscreen tests, no display) the panel shows a note instead and creates no 3D view.
#pragma once

#include <QImage>
#include <QWidget>

#include "app/studio/plots/pca.h"

class QLabel;
class Q3DScatter;
class QScatter3DSeries;

namespace lsrl::studio {

// A 3D scatter graph without multisampling: with software OpenGL (Mesa's llvmpipe) the
// samples cost more than the rest of a frame (a Lattice step: 68 -> 41 ms under Xvfb).
Q3DScatter* newScatter3d();

class Pca3dPanel : public QWidget {
  Q_OBJECT

 public:
  explicit Pca3dPanel(QWidget* parent = nullptr);

  // Whether this platform can show the 3D view (xcb).
  static bool available();
  bool hasView() const { return graph_ != nullptr; }
  // The widget that holds the 3D window (null without a view): QWidget::grab() cannot
  // capture it, so screenshots paint renderImage() over it.
  QWidget* container() const { return container_; }

  void setPca(const PcaResult& pca, const QString& title);
  void setStep(int step);
  // The 3D view rendered offscreen by Data Visualization; null without a view.
  QImage renderImage(QSize size = {800, 600});
  // The projected points: PC1..PC3 per step (exported as CSV beside the PNG).
  StateSeries points() const;

 private:
  PcaResult pca_;
  QString title_;
  int step_ = 0;
  Q3DScatter* graph_ = nullptr;
  QWidget* container_ = nullptr;
  QScatter3DSeries* path_ = nullptr;
  QScatter3DSeries* current_ = nullptr;
  QLabel* note_;
};

}  // namespace lsrl::studio
