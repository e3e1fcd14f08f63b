// What the explorer draws: every node that is not hidden inside a collapsed sugar group,
// plus one box per outermost collapsed group, and the edges between those boxes. The
// layout code places these items; the scene draws them. Qt-free so that it is tested
// and used (dot layouts of the examples) without the GUI.
#pragma once

#include <vector>

#include "core/graph/graph.h"

namespace lsrl {

struct VisibleItem {
  enum class Kind { Node, Group } kind = Kind::Node;
  int id = -1;  // NodeId or GroupId
};

struct VisibleEdge {
  int from = -1;              // item index (the item holding the producing node)
  int to = -1;                // item index (the item holding the consuming node)
  NodeId fromNode = kNoNode;  // the producing node
  NodeId toNode = kNoNode;    // the consuming node
  int slot = 0;               // input slot of toNode
};

struct VisibleGraph {
  std::vector<VisibleItem> items;  // nodes in id order, then groups in id order
  std::vector<VisibleEdge> edges;  // one per (consumer input slot) crossing items
  std::vector<int> itemOfNode;     // per node: the index of the item that shows it
  std::vector<int> itemOfGroup;    // per group: its item if it is a collapsed box, else -1
  size_t omittedItems = 0;         // left out by limitForDrawing
  size_t omittedEdges = 0;
  int itemIndex(VisibleItem::Kind kind, int id) const;  // -1 if not visible
};

// A group is shown as a box when it is collapsed (not Group::expanded) and no ancestor
// group is collapsed. Unconnected inputs (kNoNode) and inputs naming no node make no
// edge; edges inside one collapsed group are dropped.
VisibleGraph visibleGraph(const Graph& g);

// What the explorer can draw and still respond: boxes and edges are Qt items of about a
// kilobyte each, and every full view paints all of them.
struct DrawLimits {
  size_t maxItems = 30000;
  size_t maxEdges = 100000;
  size_t maxEdgesIntoItem = 1000;  // a Concat of 10^5 inputs: its first 1,000 edges
};

bool withinDrawLimits(const VisibleGraph& vg, const DrawLimits& limits = {});

// Cuts `vg` down to `limits`: items are kept in topological order (Kahn's algorithm in
// item order, items on cycles last) while the count allows, edges in their order while
// both ends are kept and the budgets allow. Kept items keep their relative order; the
// others get item index -1 in itemOfNode/itemOfGroup. omittedItems/omittedEdges count
// what was left out. A graph within the limits is left as it is.
void limitForDrawing(VisibleGraph& vg, const DrawLimits& limits = {});

}  // namespace lsrl
