// Trace files: every program node's value at every step of one or more runs
// (docs/trace-format.md). Exact traces carry exact values in the scalar grammar.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <vector>

#include "core/executor/executor.h"
#include "core/graph/graph.h"

namespace lsrl {

nlohmann::ordered_json tracesToJson(const Graph& g, const std::vector<FloatTrace>& traces);
nlohmann::ordered_json tracesToJson(const Graph& g, const std::vector<ExactTrace>& traces);

}  // namespace lsrl
