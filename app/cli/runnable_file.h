// What `lsrl run`, `lsrl info` and `lsrl check` read: a program file (docs/graph-format.md) as it
// is, or the path graph of a compiled model (docs/model-format.md), told apart by the model
// metadata; and what `lsrl run` also reads, a target architecture's weights
// (docs/weights-format.md), told apart by the file name.
#pragma once

#include <string>

#include "core/arch/targets.h"
#include "core/graph/graph.h"

namespace lsrl::cli {

// Throws lsrl::Error when `exact` is asked of a model compiled in float64: its values are
// roundings, so an exact run of them would not be the program's exact result.
Graph loadRunnableGraph(const std::string& path, bool exact);

// A target architecture's weight file (lsrl export --target: .safetensors or .npz).
bool isWeightFile(const std::string& path);
FloatTargetModel loadTargetWeights(const std::string& path);

}  // namespace lsrl::cli
