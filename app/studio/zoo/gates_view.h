// The minGRU / minLSTM view: a gate as a heat map over time × channel (minGRU:
// z, minLSTM: the normalised f′ and i′, or the raw gates, the candidate h̃), the hidden
// state h_t as a second heat map, and the chosen array's channels as lines, all marked at
// token t; the values at t below. Layers > 1 pick their arrays ("layer1.z"). A trained
// minGRU has 128 channels of which a few hold the data: the rows are ordered so that the
// channels that react to the input come first (docs/models.md, "In the explorer").
#pragma once

#include <memory>
#include <string>

#include "app/studio/zoo/model_view.h"

class QComboBox;
class QLabel;

namespace lsrl::studio {

class HeatmapWidget;
class StepChart;

class GatesView : public ModelView {
  Q_OBJECT

 public:
  explicit GatesView(QWidget* parent = nullptr);

  void setRun(std::shared_ptr<const ModelRun> run) override;
  void setStep(int step) override;
  std::vector<ViewExport> exports() override;

  // The array shown in the first heat map and the chart ("z", "f_prime", ...).
  bool setArray(const QString& name);
  QString array() const;
  // The rows' order: highest off the input's commonest token (noise) relative to on it first
  // (the default), largest standard deviation over the tokens first, or channel index.
  enum class ChannelOrder { kRareTokens = 0, kMostVarying = 1, kIndex = 2 };
  void setChannelOrder(ChannelOrder order);
  ChannelOrder channelOrder() const;
  void setLayer(int layer);
  int step() const { return step_; }

  HeatmapWidget* gateMap() const { return gates_; }
  HeatmapWidget* hiddenMap() const { return hidden_; }
  StepChart* chart() const { return chart_; }
  QLabel* valuesLabel() const { return values_; }

 private:
  void showArrays();
  void showStepData();
  std::string prefix() const;

  std::shared_ptr<const ModelRun> run_;
  int layer_ = 0;
  int step_ = 0;
  QComboBox* layerBox_;
  QComboBox* arrayBox_;
  QComboBox* orderBox_;
  HeatmapWidget* gates_;
  HeatmapWidget* hidden_;
  StepChart* chart_;
  QLabel* values_;
};

}  // namespace lsrl::studio
