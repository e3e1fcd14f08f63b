// What `lsrl run`, `lsrl info` and `lsrl check` read: a program file (docs/graph-format.md) as it
// is, or the path graph of a compiled model (docs/model-format.md), told apart by the model
// metadata; and what `lsrl run` also reads, a target architecture's weights
// (docs/weights-format.md), told apart by the file name.
#pragma once

#include <string>

#include "core/graph/graph.h"
#include "core/targets/targets.h"

namespace lsrl::cli {

// Whether loadRunnableGraph refuses an invalid graph (run, export) or hands it over so that
// every problem can be listed (check, info).
enum class Validation { Refuse, Report };

// Throws lsrl::Error when `exact` is asked of a model compiled in float64: its values are
// roundings, so an exact run of them would not be the program's exact result. With
// Validation::Refuse, an invalid graph is refused with `lsrl check`'s messages, located by
// the file (models without the dense-size limit, see requireValidPath).
// `compiled` (when given) tells whether the file was a compiled model: its path graph is
// huge when counted densely but sparse, and is run without the dense-size limit.
Graph loadRunnableGraph(const std::string& path, bool exact,
                        Validation validation = Validation::Refuse, bool* compiled = nullptr);

// A target architecture's weight file (lsrl export --target: .safetensors or .npz).
bool isWeightFile(const std::string& path);
FloatTargetModel loadTargetWeights(const std::string& path);

}  // namespace lsrl::cli
