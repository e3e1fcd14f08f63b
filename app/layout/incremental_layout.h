// Fast placement for small edits (well under 20 ms on the ~1000-node tok2tok graph), so
// the editor never waits for a full dot layout when a node or a fragment is added.
#pragma once

#include <map>
#include <vector>

#include "core/graph/graph.h"

namespace lsrl {

// Lays `nodes` out left to right in layers (a node's layer is the longest path to it
// from nodes of the set without inputs in the set; inputs outside the set are
// ignored), one column per layer, nodes stacked in id order, boxes sized as node boxes
// (item_size.h) and never overlapping; the bounding box is centred on `centre`.
std::map<NodeId, NodePosition> layeredPlacement(const Graph& g, const std::vector<NodeId>& nodes,
                                                NodePosition centre);

// Positions for those of `newNodes` that have no position yet (g.layout()) and are
// drawn as their own box (not hidden in a collapsed group), placed in id order next to
// already placed boxes of the visible graph (positions from g.layout() and
// g.groupLayout(), plus the ones placed here): one layer right of the rightmost placed
// input, else one layer left of the leftmost placed reader, else at `fallback`; then
// moved down until the box overlaps no placed box.
std::map<NodeId, NodePosition> placeNewNodes(const Graph& g, const std::vector<NodeId>& newNodes,
                                             NodePosition fallback);

// How far to move the boxes showing `newNodes` (already positioned, e.g. a pasted or
// inserted fragment) straight down so that none overlaps a box of the other items:
// (0, 0) when they are clear already. Positions come from g.layout()/g.groupLayout()
// (a group box without one sits at its members' centre).
NodePosition clearingOffset(const Graph& g, const std::vector<NodeId>& newNodes);

// Positions for the boxes of collapsed groups that have none yet (g.groupLayout()): the
// centre of the bounding box of their members' positions (g.layout()); boxes whose
// members have no position either are left out. Covers version 1 files (node positions
// only) and fragments laid out node by node.
std::map<GroupId, NodePosition> placeGroupBoxes(const Graph& g);

}  // namespace lsrl
