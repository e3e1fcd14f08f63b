// Expanding a sugar group turns one box into a frame around its members, usually much
// larger. To keep the frame off its neighbours without a full re-layout, the members are
// laid out in layers (nested collapsed groups as boxes) in a frame whose top-left corner
// is where the box's was, everything to the
// right of the box moves right by the growth in width, and everything below the box in
// the frame's column moves down by the growth in height (layouts run left to right).
#pragma once

#include <vector>

#include "app/layout/visible_graph.h"
#include "core/graph/graph.h"

namespace lsrl {

struct ItemMove {
  VisibleItem item;
  NodePosition to;  // new centre
};

// The moves that make room for expanding group `id` of `g` (collapsed in g), for the
// items drawn once it is expanded; empty if nothing has to move or `id` is no group.
std::vector<ItemMove> roomForExpansion(const Graph& g, GroupId id);

}  // namespace lsrl
