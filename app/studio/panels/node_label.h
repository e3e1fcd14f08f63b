// How the panels name a node: "#12 Linear 'name'" (Slice for sliced Linears).
#pragma once

#include <QString>

#include "core/graph/graph.h"

namespace lsrl::studio {

// "#12 Linear 'name'"; "#12 (no such node)" for an id outside the graph.
QString nodeLabel(const Graph& g, NodeId id);

}  // namespace lsrl::studio
