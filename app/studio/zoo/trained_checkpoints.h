// The trained seed models shipped in examples/models/ (docs/results.md says how each was
// trained): the Models tab opens them by default. Beside each checkpoint its record
// (<kind>.json, written by scripts/experiments/run.py ship) holds what training reaches
// for its row, the paper's figure and chance: the context of an accuracy.
#pragma once

#include <QString>
#include <optional>

namespace lsrl::studio {

// examples/models/<kind>.safetensors where an example folder has it (common/example_files.h),
// else empty.
QString trainedCheckpoint(const QString& kind);
// Whether `path` is that shipped checkpoint (the same file, however it is spelled).
bool isTrainedCheckpoint(const QString& kind, const QString& path);

// The "expected" entry of examples/models/<kind>.json.
struct ExpectedAccuracy {
  QString task;     // what the figures score
  double mean = 0;  // held-out accuracy over the row's seeds, 0–1
  double std = 0;   // their standard deviation
  int seeds = 0;
  int steps = 0;         // training steps of each seed
  QString source;        // "docs/results.md, <experiment> ..., row <row>"
  double paper = -1;     // the paper's figure, 0–1; < 0: the paper has none
  QString paperSetting;  // the paper's setting where it differs ("length 1,024")
  double chance = -1;    // < 0: unknown
};
// Empty when the kind ships no record or the record has no (well-formed) "expected".
std::optional<ExpectedAccuracy> expectedAccuracy(const QString& kind);

}  // namespace lsrl::studio
