// A full layout of any size in linear time: the visible items in longest-path layers,
// left to right, each layer ordered by where its inputs sit (one barycentre sweep) and
// cut into columns of at most max(kMinColumnItems, 2 sqrt(boxes)) boxes. Not as tidy as dot, but it
// takes ~1 s on 10^6 boxes where dot takes minutes or crashes: the explorer's layout for graphs too
// big for dot (full_layout.h), and its first picture before dot's arrives.
#pragma once

#include <vector>

#include "app/layout/layout_result.h"
#include "app/layout/visible_graph.h"

namespace lsrl {

constexpr size_t kMinColumnItems = 100;

// The centre of each item of vg (= visibleGraph(g)), in scene coordinates (y down,
// origin at the top-left of the bounding box). Items on a cycle (a broken graph) keep
// the layer they had reached.
std::vector<NodePosition> layeredCentres(const Graph& g, const VisibleGraph& vg);

// layeredCentres for visibleGraph(g), hidden members around their group's box.
LayoutResult layeredLayout(const Graph& g);

}  // namespace lsrl
