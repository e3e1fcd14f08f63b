// The full layered layout of a graph by Graphviz's dot (about 2 s on tok2tok fully
// expanded): run it on a worker thread, never per edit. Thread-safe (calls into
// Graphviz, which is not, are serialised) and silent (nothing on stdout or stderr).
// dot's time grows much faster than the graph and it crashes on some large graphs (a
// 10^5-node cycle): the explorer calls it through full_layout.h, which caps its input
// and runs it in a forked copy with a deadline.
#pragma once

#include <atomic>

#include "app/layout/layout_result.h"
#include "core/graph/graph.h"

namespace lsrl {

// dot (rankdir=LR) of visibleGraph(g) with item_size.h box sizes and one edge per
// connected pair of items; expanded groups become dot clusters. Centres are in scene
// coordinates (pixels, y down, origin at the top-left of the bounding box). Members
// hidden in a collapsed group get layeredPlacement() around the group's box. Throws
// lsrl::Error if Graphviz fails.
LayoutResult dotLayout(const Graph& g);

// The same layout computed in a forked copy of this process (core/util/forked_call.h):
// a crash inside Graphviz throws lsrl::Error naming the signal instead of ending this
// process; after `timeoutMs` the copy is killed and lsrl::Error thrown; `*cancel` set
// kills it and throws lsrl::Cancelled.
LayoutResult dotLayoutIsolated(const Graph& g, int timeoutMs,
                               const std::atomic<bool>* cancel = nullptr);

}  // namespace lsrl
