// How messages name a node of a graph: "node 12 (LinState 'Pass+query')", the op as node
// counts report it (slices as "Slice") and the name when it has one, cut to 80 characters
// so that a long name cannot swamp the message.
#pragma once

#include <string>

#include "core/graph/graph.h"

namespace lsrl {

std::string describeNode(const Node& node);
std::string describeNode(const Graph& graph, NodeId id);

}  // namespace lsrl
