// What every full layout (dot, layered) hands back, and how the positions of the items
// drawn become positions of every node.
#pragma once

#include <map>
#include <vector>

#include "app/layout/visible_graph.h"
#include "core/graph/graph.h"

namespace lsrl {

struct LayoutResult {
  std::map<NodeId, NodePosition> nodes;    // every node, hidden ones included
  std::map<GroupId, NodePosition> groups;  // the box of every collapsed group drawn
};

// From the centre of each item of `vg` (= visibleGraph(g)): drawn nodes sit at their
// item's centre; members hidden in a collapsed group get layeredPlacement() around the
// group's box, so that expanding it later shows them near where it was.
LayoutResult layoutFromItemCentres(const Graph& g, const VisibleGraph& vg,
                                   const std::vector<NodePosition>& centres);

}  // namespace lsrl
