// What `lsrl run`, `lsrl info` and `lsrl check` read: a program file (docs/graph-format.md) as it
// is, or the path graph of a compiled model (docs/model-format.md), told apart by the model
// metadata.
#pragma once

#include <string>

#include "core/graph/graph.h"

namespace lsrl::cli {

// Throws lsrl::Error when `exact` is asked of a model compiled in float64: its values are
// roundings, so an exact run of them would not be the program's exact result.
Graph loadRunnableGraph(const std::string& path, bool exact);

}  // namespace lsrl::cli
