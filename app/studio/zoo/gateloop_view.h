// The GateLoop view: the transitions a_t = |a_t| e^{iφ_t} of chosen channels as
// points in the complex plane (the unit circle drawn: inside it the memory decays, the
// angle is the rotation per token; the axes keep one unit equally long both ways, so it
// stays a circle at any size), the point at token t emphasised; beside it |a_t| and
// φ_t over time with the step marker, and the effective memory length −1/log|a_t| at t.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "app/studio/plots/state_series.h"
#include "app/studio/zoo/model_view.h"

class QChart;
class QChartView;
class QComboBox;
class QLabel;
class QListWidget;
class QRectF;
class QScatterSeries;
class QValueAxis;

namespace lsrl::studio {

class StepChart;

class GateLoopView : public ModelView {
  Q_OBJECT

 public:
  static constexpr int kInitialChannels = 4;

  explicit GateLoopView(QWidget* parent = nullptr);

  void setRun(std::shared_ptr<const ModelRun> run) override;
  void setStep(int step) override;
  std::vector<ViewExport> exports() override;

  void setChannels(const std::vector<int>& channels);
  std::vector<int> channels() const;
  void setLayer(int layer);
  int step() const { return step_; }

  QChartView* planeView() const { return plane_; }
  // Per shown channel: all its points, and the point at the current token.
  const std::vector<QScatterSeries*>& pathSeries() const { return paths_; }
  const std::vector<QScatterSeries*>& currentSeries() const { return current_; }
  StepChart* magnitudeChart() const { return magnitude_; }
  StepChart* phaseChart() const { return phase_; }
  QLabel* infoLabel() const { return info_; }

  // The plotted points: per token, re and im of each shown channel.
  StateSeries planePoints() const;

 private:
  void rebuild();
  void showStepData();
  // Sets the axes' ranges for the plot area `plot` so that the unit circle is round.
  void fitPlaneAxes(const QRectF& plot);
  std::string prefix() const;

  std::shared_ptr<const ModelRun> run_;
  int layer_ = 0;
  int step_ = 0;
  int T_ = 0, C_ = 0;
  std::vector<double> mag_, phi_, memory_;  // [T][C] of the shown layer
  QComboBox* layerBox_;
  QListWidget* channelList_;
  QChartView* plane_;
  QChart* planeChart_;
  QValueAxis* re_;
  QValueAxis* im_;
  std::vector<QScatterSeries*> paths_, current_;
  StepChart* magnitude_;
  StepChart* phase_;
  QLabel* info_;
  bool updatingList_ = false;
};

}  // namespace lsrl::studio
