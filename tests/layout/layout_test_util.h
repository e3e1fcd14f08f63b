// Helpers for the layout tests: item boxes and their overlaps, layouts applied to graphs.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "app/layout/item_size.h"
#include "app/layout/layout_result.h"
#include "app/layout/visible_graph.h"
#include "core/graph/graph.h"

namespace lsrl::testing_layout {

// Stores `r`'s node and group positions as g's layouts.
inline void applyLayout(Graph& g, const LayoutResult& r) {
  g.layout() = r.nodes;
  g.groupLayout() = r.groups;
}

struct PlacedBox {
  std::string what;
  double left, top, right, bottom;
};

inline PlacedBox boxOf(const std::string& what, NodePosition c, ItemSize s) {
  return {what, c.x - s.width / 2, c.y - s.height / 2, c.x + s.width / 2, c.y + s.height / 2};
}

// A ReLU node `id` reading `input` (which may be kNoNode or name no node).
inline Node reluReading(NodeId id, NodeId input) {
  Node n;
  n.id = id;
  n.op = Op::ReLU;
  n.dim = 1;
  n.inputs = {input};
  return n;
}

// The boxes of every visible item that has a position in g's layouts.
inline std::vector<PlacedBox> visibleBoxes(const Graph& g) {
  std::vector<PlacedBox> out;
  for (const VisibleItem& item : visibleGraph(g).items) {
    const bool node = item.kind == VisibleItem::Kind::Node;
    const auto& positions = node ? g.layout() : g.groupLayout();
    auto it = positions.find(item.id);
    if (it == positions.end()) continue;
    out.push_back(boxOf((node ? "node " : "group ") + std::to_string(item.id), it->second,
                        itemSize(g, item)));
  }
  return out;
}

// "node 3 overlaps group 1" for the first overlapping pair, or empty.
inline std::string firstOverlap(const std::vector<PlacedBox>& boxes) {
  for (size_t i = 0; i < boxes.size(); ++i) {
    for (size_t j = i + 1; j < boxes.size(); ++j) {
      const PlacedBox& a = boxes[i];
      const PlacedBox& b = boxes[j];
      if (a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom)
        return a.what + " overlaps " + b.what;
    }
  }
  return {};
}

}  // namespace lsrl::testing_layout
