// Cutting a piece out of a graph (copy, drag out of the editor) so that it can be put
// back with Graph::append (paste).
#pragma once

#include <vector>

#include "core/graph/graph.h"

namespace lsrl {

// The subgraph of nodes `ids` (any order, repeats ignored), renumbered 0.. in id order.
// Inputs from nodes outside the set become kNoNode (unconnected slots, Concat included);
// groups all of whose (one or more) nodes are in the set are kept, renumbered in order,
// with their parent if it is kept too; node and group layouts and the expanded flags go
// along. The output is g's output (renumbered) if it is in the set, else kNoNode.
Graph extractFragment(const Graph& g, const std::vector<NodeId>& ids);

}  // namespace lsrl
