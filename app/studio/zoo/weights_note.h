// What the Models tab says about a run's weights and accuracies, so that two figures are
// never left unexplained: which weights are shown (the shipped checkpoint, a fresh training,
// a fine-tuning of another checkpoint, random), how each accuracy was measured (the one
// input the tab ran vs the held-out score at the end of training), and what training
// reaches for the model (examples/models/<kind>.json: docs/results.md and the paper), so a
// low figure has its context.
#pragma once

#include <QString>

#include "app/studio/zoo/model_run.h"

namespace lsrl::studio {

// " · accuracy 40.0% on this input (task seed 0: 4 of 10 target tokens right)"; empty when
// the run is not scored.
QString inputAccuracyText(const ModelRun& run);
struct WeightsNote {
  // One line: "Weights: fine-tuned from gateloop.safetensors (6 steps) · held-out accuracy
  // 48.6% on 40 samples · training reaches 45.1 ± 2.6% (docs/results.md), the paper 43.0%,
  // chance 2.0%" (the parts that apply).
  QString text;
  QString detail;  // the file, which samples were held out, the figures' sources
};
WeightsNote weightsNote(const ModelRun& run);

}  // namespace lsrl::studio
