// Picks what the stepper runs: program or compiled model, exact, float64 or (compiled)
// fp32, the compiler's optimisation, the constants as built or fitted to the tokens'
// domain (docs/precision.md), and the compiled model's form (the path graph, traced node by
// node, or a target architecture from core/targets/targets.h, outputs only); or a weights
// file (exported, or fine-tuned in PyTorch and saved back), chosen with a file dialog.
#pragma once

#include <QWidget>

#include "app/studio/stepper/stepper_run.h"

class QCheckBox;
class QComboBox;
class QPushButton;

namespace lsrl::studio {

class ElidedLabel;

class EngineChooser : public QWidget {
  Q_OBJECT

 public:
  explicit EngineChooser(QWidget* parent = nullptr);
  EngineSpec spec() const;
  void setSpec(const EngineSpec& spec);

 Q_SIGNALS:
  void changed();

 private:
  void updateEnabled();
  // Asks for the weights file to run; a dialog cancelled before any file was chosen goes
  // back to the mode chosen before.
  void askWeightsFile();
  void setWeightsPath(const QString& path);

  QComboBox* mode_;
  QCheckBox* optimize_;
  QCheckBox* fitted_;
  QComboBox* target_;
  ElidedLabel* weightsName_;
  QPushButton* weightsChoose_;
  QString weightsPath_;
  int modeBeforeWeights_ = 0;
};

}  // namespace lsrl::studio
