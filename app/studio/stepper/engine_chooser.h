// Picks what the stepper runs: program or compiled model, exact, float64 or (compiled)
// fp32, the compiler's optimisation, the constants as built or fitted to the tokens'
// domain (docs/precision.md), and the compiled model's form (the path graph, traced node by
// node, or a target architecture from core/targets/targets.h, outputs only).
#pragma once

#include <QWidget>

#include "app/studio/stepper/stepper_run.h"

class QCheckBox;
class QComboBox;

namespace lsrl::studio {

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

  QComboBox* mode_;
  QCheckBox* optimize_;
  QCheckBox* fitted_;
  QComboBox* target_;
};

}  // namespace lsrl::studio
