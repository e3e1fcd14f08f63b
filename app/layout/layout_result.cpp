#include "app/layout/layout_result.h"

#include "app/layout/incremental_layout.h"

namespace lsrl {

LayoutResult layoutFromItemCentres(const Graph& g, const VisibleGraph& vg,
                                   const std::vector<NodePosition>& centres) {
  LayoutResult result;
  std::vector<std::vector<NodeId>> hidden(vg.items.size());
  for (size_t id = 0; id < vg.itemOfNode.size(); ++id) {
    if (vg.itemOfNode[id] < 0) continue;  // a deleted node (an editor tombstone)
    const auto item = static_cast<size_t>(vg.itemOfNode[id]);
    if (vg.items[item].kind == VisibleItem::Kind::Node) {
      result.nodes.emplace_hint(result.nodes.end(), static_cast<NodeId>(id), centres[item]);
    } else {
      hidden[item].push_back(static_cast<NodeId>(id));
    }
  }
  for (size_t i = 0; i < vg.items.size(); ++i) {
    if (vg.items[i].kind != VisibleItem::Kind::Group) continue;
    result.groups[vg.items[i].id] = centres[i];
    for (const auto& [id, pos] : layeredPlacement(g, hidden[i], centres[i])) result.nodes[id] = pos;
  }
  return result;
}

}  // namespace lsrl
