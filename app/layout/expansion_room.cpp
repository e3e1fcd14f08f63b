#include "app/layout/expansion_room.h"

#include <algorithm>
#include <optional>

#include "app/layout/incremental_layout.h"
#include "app/layout/item_size.h"

namespace lsrl {

namespace {

struct Rect {
  double left, top, right, bottom;
};

Rect rectAt(NodePosition c, ItemSize s) {
  return {c.x - s.width / 2, c.y - s.height / 2, c.x + s.width / 2, c.y + s.height / 2};
}

bool inside(const Graph& g, GroupId group, GroupId ancestor) {
  for (int guard = 0; group != kNoGroup && guard <= static_cast<int>(g.groups().size()); ++guard) {
    if (group == ancestor) return true;
    group = g.groups()[static_cast<size_t>(group)].parent;
  }
  return false;
}

}  // namespace

std::vector<ItemMove> roomForExpansion(const Graph& g, GroupId id) {
  if (id < 0 || static_cast<size_t>(id) >= g.groups().size()) return {};
  const std::map<GroupId, NodePosition> centres = placeGroupBoxes(g);
  auto positionOf = [&](const VisibleItem& item) -> std::optional<NodePosition> {
    if (item.kind == VisibleItem::Kind::Node) {
      auto it = g.layout().find(item.id);
      if (it != g.layout().end()) return it->second;
      return std::nullopt;
    }
    if (auto it = g.groupLayout().find(item.id); it != g.groupLayout().end()) return it->second;
    if (auto it = centres.find(item.id); it != centres.end()) return it->second;
    return std::nullopt;
  };
  const VisibleItem box{VisibleItem::Kind::Group, id};
  const std::optional<NodePosition> boxCentre = positionOf(box);
  if (!boxCentre) return {};
  const Rect r = rectAt(*boxCentre, itemSize(g, box));

  Graph expanded = g;
  expanded.mutableGroup(id).expanded = true;
  const VisibleGraph vg = visibleGraph(expanded);
  // Members (nodes and nested boxes now drawn) are laid out afresh in layers, as units of
  // their own sizes, inside a frame whose top-left corner is the box's.
  std::vector<size_t> members;
  std::vector<std::pair<VisibleItem, NodePosition>> others;
  std::vector<NodePosition> old(vg.items.size());
  std::vector<int> memberIndex(vg.items.size(), -1);
  for (size_t i = 0; i < vg.items.size(); ++i) {
    const VisibleItem& item = vg.items[i];
    const GroupId owner = item.kind == VisibleItem::Kind::Node
                              ? g.node(item.id).group
                              : g.groups()[static_cast<size_t>(item.id)].parent;
    const std::optional<NodePosition> at = positionOf(item);
    old[i] = at.value_or(*boxCentre);
    if (inside(g, owner, id)) {
      memberIndex[i] = static_cast<int>(members.size());
      members.push_back(i);
    } else if (at) {
      others.emplace_back(item, *at);
    }
  }
  if (members.empty()) return {};
  std::vector<int> layer(members.size(), 0);
  for (size_t pass = 0; pass < members.size(); ++pass) {  // longest path; cycles stop
    bool changed = false;
    for (const VisibleEdge& e : vg.edges) {
      const int a = memberIndex[static_cast<size_t>(e.from)],
                b = memberIndex[static_cast<size_t>(e.to)];
      if (a < 0 || b < 0 || a == b) continue;
      if (layer[static_cast<size_t>(b)] < layer[static_cast<size_t>(a)] + 1) {
        layer[static_cast<size_t>(b)] = layer[static_cast<size_t>(a)] + 1;
        changed = true;
      }
    }
    if (!changed) break;
  }
  const int layers = *std::max_element(layer.begin(), layer.end()) + 1;
  std::vector<std::vector<size_t>> columns(static_cast<size_t>(layers));
  for (size_t k = 0; k < members.size(); ++k)
    columns[static_cast<size_t>(layer[k])].push_back(members[k]);
  std::vector<NodePosition> fresh(vg.items.size());
  double x = r.left + kFramePadding, bottom = r.top;
  for (auto& column : columns) {
    // Keep the members' old top-to-bottom order within a layer.
    std::sort(column.begin(), column.end(),
              [&](size_t a, size_t b) { return old[a].y < old[b].y; });
    double width = 0, y = r.top + kFrameTitleHeight + kFramePadding;
    for (size_t i : column) width = std::max(width, itemSize(g, vg.items[i]).width);
    for (size_t i : column) {
      const ItemSize s = itemSize(g, vg.items[i]);
      fresh[i] = NodePosition{x + width / 2, y + s.height / 2};
      y += s.height + kSiblingGap;
    }
    bottom = std::max(bottom, y - kSiblingGap + kFramePadding);
    x += width + kLayerGap;
  }
  const Rect placed{r.left, r.top, x - kLayerGap + kFramePadding, bottom};
  const double dx = std::max(0.0, placed.right - r.right);
  const double dy = std::max(0.0, placed.bottom - r.bottom);

  std::vector<ItemMove> moves;
  for (size_t i : members) moves.push_back({vg.items[i], fresh[i]});
  for (const auto& [item, at] : others) {
    const Rect b = rectAt(at, itemSize(g, item));
    if (dx > 0 && b.left >= r.right) {
      moves.push_back({item, NodePosition{at.x + dx, at.y}});
    } else if (dy > 0 && b.top >= r.top && b.right > placed.left && b.left < placed.right) {
      moves.push_back({item, NodePosition{at.x, at.y + dy}});
    }
  }
  return moves;
}

}  // namespace lsrl
