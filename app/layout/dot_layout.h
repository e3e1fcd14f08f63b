// The full layered layout of a graph by Graphviz's dot (about 2 s on tok2tok fully
// expanded): run it on a worker thread, never per edit. Thread-safe (calls into
// Graphviz, which is not, are serialised) and silent (nothing on stdout or stderr).
#pragma once

#include <map>

#include "core/graph/graph.h"

namespace lsrl {

struct LayoutResult {
  std::map<NodeId, NodePosition> nodes;    // every node, hidden ones included
  std::map<GroupId, NodePosition> groups;  // the box of every collapsed group drawn
};

// dot (rankdir=LR) of visibleGraph(g) with item_size.h box sizes and one edge per
// connected pair of items; expanded groups become dot clusters. Centres are in scene
// coordinates (pixels, y down, origin at the top-left of the bounding box). Members
// hidden in a collapsed group get layeredPlacement() around the group's box. Throws
// lsrl::Error if Graphviz fails.
LayoutResult dotLayout(const Graph& g);

}  // namespace lsrl
