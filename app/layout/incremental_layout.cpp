#include "app/layout/incremental_layout.h"

#include <algorithm>
#include <optional>
#include <queue>
#include <set>

#include "app/layout/item_size.h"
#include "app/layout/visible_graph.h"

namespace lsrl {

namespace {

bool validNode(const Graph& g, NodeId id) { return g.contains(id); }

// Longest-path layers of `nodes` (sorted, unique) over the edges among them. Kahn's
// algorithm, smallest id first; nodes on a cycle (a broken graph) keep the layer they
// had reached.
std::map<NodeId, int> longestPathLayers(const Graph& g, const std::vector<NodeId>& nodes) {
  std::map<NodeId, int> layer;
  std::map<NodeId, int> pending;
  std::map<NodeId, std::vector<NodeId>> readers;
  for (NodeId id : nodes) {
    layer[id] = 0;
    pending[id] = 0;
  }
  for (NodeId id : nodes) {
    std::set<NodeId> preds;
    for (NodeId p : g.node(id).inputs) {
      if (p != id && layer.count(p)) preds.insert(p);
    }
    for (NodeId p : preds) {
      ++pending[id];
      readers[p].push_back(id);
    }
  }
  std::priority_queue<NodeId, std::vector<NodeId>, std::greater<>> ready;
  for (NodeId id : nodes) {
    if (pending[id] == 0) ready.push(id);
  }
  while (!ready.empty()) {
    const NodeId id = ready.top();
    ready.pop();
    for (NodeId r : readers[id]) {
      layer[r] = std::max(layer[r], layer[id] + 1);
      if (--pending[r] == 0) ready.push(r);
    }
  }
  return layer;
}

struct Box {
  double left, top, right, bottom;
};

Box boxAt(NodePosition c, ItemSize s) {
  return {c.x - s.width / 2, c.y - s.height / 2, c.x + s.width / 2, c.y + s.height / 2};
}

}  // namespace

std::map<NodeId, NodePosition> layeredPlacement(const Graph& g, const std::vector<NodeId>& nodes,
                                                NodePosition centre) {
  std::vector<NodeId> ids;
  for (NodeId id : nodes) {
    if (validNode(g, id)) ids.push_back(id);
  }
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  if (ids.empty()) return {};

  const std::map<NodeId, int> layer = longestPathLayers(g, ids);
  int layers = 0;
  for (const auto& [id, l] : layer) layers = std::max(layers, l + 1);
  std::vector<std::vector<NodeId>> columns(static_cast<size_t>(layers));
  for (NodeId id : ids) columns[static_cast<size_t>(layer.at(id))].push_back(id);

  // Every node box has the same size, so columns are equally wide.
  const ItemSize size = itemSize(g, VisibleItem{VisibleItem::Kind::Node, ids.front()});
  const double totalWidth = layers * size.width + (layers - 1) * kLayerGap;
  std::map<NodeId, NodePosition> out;
  for (size_t c = 0; c < columns.size(); ++c) {
    const auto& column = columns[c];
    const auto count = static_cast<double>(column.size());
    const double height = count * size.height + (count - 1) * kSiblingGap;
    const double x = centre.x - totalWidth / 2 + size.width / 2 +
                     static_cast<double>(c) * (size.width + kLayerGap);
    for (size_t k = 0; k < column.size(); ++k) {
      const double y = centre.y - height / 2 + size.height / 2 +
                       static_cast<double>(k) * (size.height + kSiblingGap);
      out[column[k]] = {x, y};
    }
  }
  return out;
}

std::map<NodeId, NodePosition> placeNewNodes(const Graph& g, const std::vector<NodeId>& newNodes,
                                             NodePosition fallback) {
  const VisibleGraph vg = visibleGraph(g);
  const size_t itemCount = vg.items.size();
  // Placed items: their centre and size (index = item index).
  std::vector<char> placed(itemCount, 0);
  std::vector<NodePosition> centre(itemCount);
  std::vector<ItemSize> size(itemCount);
  for (size_t i = 0; i < itemCount; ++i) {
    const VisibleItem& item = vg.items[i];
    size[i] = itemSize(g, item);
    const auto& positions = item.kind == VisibleItem::Kind::Node ? g.layout() : g.groupLayout();
    if (auto it = positions.find(item.id); it != positions.end()) {
      placed[i] = 1;
      centre[i] = it->second;
    }
  }

  std::vector<NodeId> todo;
  for (NodeId id : newNodes) {
    if (!validNode(g, id) || g.layout().count(id)) continue;
    const int item = vg.itemIndex(VisibleItem::Kind::Node, id);
    if (item >= 0 && !placed[static_cast<size_t>(item)]) todo.push_back(id);
  }
  std::sort(todo.begin(), todo.end());
  todo.erase(std::unique(todo.begin(), todo.end()), todo.end());
  if (todo.empty()) return {};

  // Readers of each new node (only new nodes are asked for).
  std::map<NodeId, std::vector<NodeId>> readers;
  for (NodeId id : todo) readers[id];
  for (const Node& n : g.nodes()) {
    for (NodeId p : n.inputs) {
      if (auto it = readers.find(p); it != readers.end()) it->second.push_back(n.id);
    }
  }

  std::map<NodeId, NodePosition> out;
  for (NodeId id : todo) {
    const auto self = static_cast<size_t>(vg.itemOfNode[static_cast<size_t>(id)]);
    const ItemSize mine = size[self];
    NodePosition at = fallback;
    bool found = false;
    for (NodeId p : g.node(id).inputs) {  // the rightmost placed input
      if (!validNode(g, p)) continue;
      const auto item = static_cast<size_t>(vg.itemOfNode[static_cast<size_t>(p)]);
      if (item == self || !placed[item]) continue;
      const double x = centre[item].x + size[item].width / 2 + kLayerGap + mine.width / 2;
      if (!found || x > at.x) at = {x, centre[item].y};
      found = true;
    }
    bool reader = false;
    for (NodeId r : readers[id]) {  // else the leftmost placed reader
      if (found) break;
      const auto item = static_cast<size_t>(vg.itemOfNode[static_cast<size_t>(r)]);
      if (item == self || !placed[item]) continue;
      const double x = centre[item].x - size[item].width / 2 - kLayerGap - mine.width / 2;
      if (!reader || x < at.x) at = {x, centre[item].y};
      reader = true;
    }

    // Move down past every placed box that overlaps the column band (with gaps).
    std::vector<Box> column;
    for (size_t i = 0; i < itemCount; ++i) {
      if (!placed[i]) continue;
      const Box b = boxAt(centre[i], size[i]);
      if (b.right + kSiblingGap > at.x - mine.width / 2 &&
          b.left - kSiblingGap < at.x + mine.width / 2)
        column.push_back(b);
    }
    std::sort(column.begin(), column.end(),
              [](const Box& a, const Box& b) { return a.top < b.top; });
    for (bool moved = true; moved;) {
      moved = false;
      for (const Box& b : column) {
        const double top = at.y - mine.height / 2;
        const double bottom = at.y + mine.height / 2;
        if (b.bottom + kSiblingGap > top && b.top - kSiblingGap < bottom) {
          at.y = b.bottom + kSiblingGap + mine.height / 2;
          moved = true;
        }
      }
    }
    out[id] = at;
    placed[self] = 1;
    centre[self] = at;
  }
  return out;
}

NodePosition clearingOffset(const Graph& g, const std::vector<NodeId>& newNodes) {
  const VisibleGraph vg = visibleGraph(g);
  const std::map<GroupId, NodePosition> groupBoxes = placeGroupBoxes(g);
  std::vector<char> isNew(vg.items.size(), 0);
  for (NodeId id : newNodes) {
    if (validNode(g, id)) isNew[static_cast<size_t>(vg.itemOfNode[static_cast<size_t>(id)])] = 1;
  }
  std::vector<Box> fresh, old;
  for (size_t i = 0; i < vg.items.size(); ++i) {
    const VisibleItem& item = vg.items[i];
    std::optional<NodePosition> at;
    if (item.kind == VisibleItem::Kind::Node) {
      if (auto it = g.layout().find(item.id); it != g.layout().end()) at = it->second;
    } else if (auto it = g.groupLayout().find(item.id); it != g.groupLayout().end()) {
      at = it->second;
    } else if (auto box = groupBoxes.find(item.id); box != groupBoxes.end()) {
      at = box->second;
    }
    if (!at) continue;
    (isNew[i] ? fresh : old).push_back(boxAt(*at, itemSize(g, item)));
  }
  if (fresh.empty()) return {};
  Box block = fresh.front();
  for (const Box& b : fresh) {
    block = {std::min(block.left, b.left), std::min(block.top, b.top),
             std::max(block.right, b.right), std::max(block.bottom, b.bottom)};
  }
  // Slide the block's bounding box down past whatever it overlaps, a box at a time.
  double dy = 0;
  for (bool moved = true; moved;) {
    moved = false;
    for (const Box& b : old) {
      const bool overlaps =
          b.right + kSiblingGap > block.left && b.left - kSiblingGap < block.right &&
          b.bottom + kSiblingGap > block.top + dy && b.top - kSiblingGap < block.bottom + dy;
      if (overlaps) {
        dy = b.bottom + kSiblingGap - block.top;
        moved = true;
      }
    }
  }
  return NodePosition{0, dy};
}

std::map<GroupId, NodePosition> placeGroupBoxes(const Graph& g) {
  const VisibleGraph vg = visibleGraph(g);
  struct Bounds {
    double left = 0, top = 0, right = 0, bottom = 0;
    bool any = false;
  };
  std::vector<Bounds> bounds(vg.items.size());
  for (const auto& [id, pos] : g.layout()) {
    if (!validNode(g, id)) continue;
    const auto item = static_cast<size_t>(vg.itemOfNode[static_cast<size_t>(id)]);
    if (vg.items[item].kind != VisibleItem::Kind::Group) continue;
    Bounds& b = bounds[item];
    if (!b.any) b = {pos.x, pos.y, pos.x, pos.y, true};
    b.left = std::min(b.left, pos.x);
    b.right = std::max(b.right, pos.x);
    b.top = std::min(b.top, pos.y);
    b.bottom = std::max(b.bottom, pos.y);
  }
  std::map<GroupId, NodePosition> out;
  for (size_t i = 0; i < vg.items.size(); ++i) {
    const VisibleItem& item = vg.items[i];
    if (item.kind != VisibleItem::Kind::Group || !bounds[i].any || g.groupLayout().count(item.id))
      continue;
    out[item.id] = {(bounds[i].left + bounds[i].right) / 2, (bounds[i].top + bounds[i].bottom) / 2};
  }
  return out;
}

}  // namespace lsrl
