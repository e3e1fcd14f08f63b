// The looped-transformer view. Steps are the states X^(0) … X^(r) across loops
// (step t = after loop t). It shows each token's hidden state moving across the loops
// (a PCA of all (loop, token) states: a 2D chart, and 3D on X), loop t's
// attention map for a chosen head, the timestep scales α₁, α₂, γ₁, γ₂ per channel and
// loop as a heat map, and the step norm ‖X^(t) − X^(t−1)‖ per loop (convergence).
#pragma once

#include <QSize>
#include <array>
#include <memory>
#include <vector>

#include "app/studio/plots/pca.h"
#include "app/studio/zoo/model_view.h"

class QChart;
class QChartView;
class QComboBox;
class QLabel;
class QLineSeries;
class QScatterSeries;
class QValueAxis;
class Q3DScatter;
class QScatter3DSeries;

namespace lsrl::studio {

class HeatmapWidget;
class SeriesLegend;
class StepChart;

class LoopedView : public ModelView {
  Q_OBJECT

 public:
  explicit LoopedView(QWidget* parent = nullptr);

  void setRun(std::shared_ptr<const ModelRun> run) override;
  void setStep(int step) override;
  std::vector<ViewExport> exports() override;
  QImage renderImage() override;

  // -1: every token's path; n: only token n's.
  void setToken(int token);
  void setHead(int head);
  // 0 α₁, 1 α₂, 2 γ₁, 3 γ₂.
  void setScale(int which);
  int step() const { return step_; }

  int loops() const { return r_; }
  int tokens() const { return N_; }
  const PcaResult& pca() const { return pca_; }
  // Token n's path across the loops (PC1, PC2) and the states at the current loop.
  const std::vector<QLineSeries*>& paths() const { return paths_; }
  QScatterSeries* currentPoints() const { return current_; }
  HeatmapWidget* attentionMap() const { return attention_; }
  HeatmapWidget* scalesMap() const { return scales_; }
  StepChart* stepNormChart() const { return stepNorm_; }
  QLabel* infoLabel() const { return info_; }
  bool has3d() const { return graph3d_ != nullptr; }

  // The projected states: a row per (loop, token), columns loop, token, PC1, PC2, PC3.
  StateSeries pcaPoints() const;

 protected:
  void resizeEvent(QResizeEvent* event) override;

 private:
  void rebuildPaths();
  void fitPcaAxes();
  void showScales();
  void showStepData();
  // The projection of token n's state after loop t.
  const std::vector<double>& projected(int loop, int token) const;

  std::shared_ptr<const ModelRun> run_;
  int r_ = 0, N_ = 0, heads_ = 0, d_ = 0;
  int step_ = 0, token_ = -1, head_ = 0, scale_ = 0;
  PcaResult pca_;
  QComboBox* tokenBox_;
  QComboBox* headBox_;
  QComboBox* scaleBox_;
  QLabel* varianceLabel_;
  QChart* chart_;
  QChartView* chartView_;
  SeriesLegend* pcaLegend_;
  std::array<double, 4> pcaBounds_{-1, 1, -1, 1};  // PC1 lo, hi, PC2 lo, hi (padded)
  QSize pcaArea_;                                  // the plot area the ticks were fitted to
  bool fittingPca_ = false;                        // fitPcaAxes is moving the plot area
  QValueAxis* pc1_;
  QValueAxis* pc2_;
  std::vector<QLineSeries*> paths_;
  QScatterSeries* current_;
  Q3DScatter* graph3d_ = nullptr;
  QWidget* container3d_ = nullptr;
  std::vector<QScatter3DSeries*> paths3d_;
  QScatter3DSeries* current3d_ = nullptr;
  HeatmapWidget* attention_;
  HeatmapWidget* scales_;
  StepChart* stepNorm_;
  QLabel* info_;
};

}  // namespace lsrl::studio
