// The Lattice view: the memory slots on the unit sphere at token t — in 3D
// (Qt Data Visualization, on xcb) or projected onto a chosen pair of axes (2D, everywhere)
// — with the incoming vector and its orthogonal part per slot, beside the slot-cosine
// heat map at t and the slot norms and write strengths over time. PCA to 3D when d > 3.
#pragma once

#include <memory>

#include "app/studio/zoo/model_view.h"

class QComboBox;
class QLabel;
class QStackedWidget;

namespace lsrl::studio {

class HeatmapWidget;
class LatticeGeometry;
class LatticeSphere2d;
class LatticeSphere3d;
class StepChart;

class LatticeView : public ModelView {
  Q_OBJECT

 public:
  explicit LatticeView(QWidget* parent = nullptr);
  ~LatticeView() override;

  void setRun(std::shared_ptr<const ModelRun> run) override;
  void setStep(int step) override;
  std::vector<ViewExport> exports() override;
  QImage renderImage() override;

  // Which layer (a token model's) and head's slots are drawn, and 3D or 2D (3D only when
  // available).
  void setLayer(int layer);
  void setHead(int head);
  void setShow3d(bool on);
  bool showing3d() const;
  int step() const { return step_; }

  const LatticeGeometry* geometry() const { return geometry_.get(); }
  QComboBox* layerBox() const { return layerBox_; }
  QComboBox* headBox() const { return headBox_; }
  LatticeSphere2d* sphere2d() const { return sphere2d_; }
  LatticeSphere3d* sphere3d() const { return sphere3d_; }
  HeatmapWidget* cosines() const { return cosines_; }
  StepChart* normsChart() const { return norms_; }
  StepChart* writeChart() const { return write_; }
  QLabel* infoLabel() const { return info_; }

  // The frame as PNG (the 3D picture when shown, else the 2D drawing) with the plotted
  // points as CSV beside it (<path without .png>.csv); the 2D drawing as SVG.
  void exportFramePng(const QString& path);
  void exportFrameSvg(const QString& path) const;
  void exportSlotTrajectoriesCsv(const QString& path) const;

 private:
  static void fillIndexBox(QComboBox* box, int count);  // 0 … count − 1, off for one
  void loadHead();
  void showStepData();

  std::shared_ptr<const ModelRun> run_;
  std::unique_ptr<LatticeGeometry> geometry_;
  std::vector<double> cosineData_;  // [T][m][m] of the shown head
  int layer_ = 0;
  int head_ = 0;
  int step_ = 0;
  QComboBox* layerBox_;
  QComboBox* headBox_;
  QComboBox* showBox_;
  QComboBox* axesBox_;
  QLabel* varianceLabel_;
  QStackedWidget* sphereStack_;
  LatticeSphere2d* sphere2d_;
  LatticeSphere3d* sphere3d_ = nullptr;
  HeatmapWidget* cosines_;
  StepChart* norms_;
  StepChart* write_;
  QLabel* info_;
};

}  // namespace lsrl::studio
