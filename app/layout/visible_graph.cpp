#include "app/layout/visible_graph.h"

#include <algorithm>

namespace lsrl {

namespace {

bool validGroup(const Graph& g, GroupId id) {
  return id >= 0 && static_cast<size_t>(id) < g.groups().size();
}

// The parent of a group, or kNoGroup; a parent that does not come before its child
// (only in a broken graph) is ignored so that walking up always ends.
GroupId parentOf(const Graph& g, GroupId id) {
  const GroupId p = g.groups()[static_cast<size_t>(id)].parent;
  return validGroup(g, p) && p < id ? p : kNoGroup;
}

}  // namespace

int VisibleGraph::itemIndex(VisibleItem::Kind kind, int id) const {
  if (id < 0) return -1;
  if (kind == VisibleItem::Kind::Group) {
    return static_cast<size_t>(id) < itemOfGroup.size() ? itemOfGroup[static_cast<size_t>(id)] : -1;
  }
  if (static_cast<size_t>(id) >= itemOfNode.size()) return -1;
  const int item = itemOfNode[static_cast<size_t>(id)];
  return item >= 0 && items[static_cast<size_t>(item)].kind == VisibleItem::Kind::Node ? item : -1;
}

VisibleGraph visibleGraph(const Graph& g) {
  const auto& groups = g.groups();
  // The outermost collapsed group on the way up from each group (itself included), or
  // kNoGroup when the group and all its ancestors are expanded. Parents come first, so
  // one pass in id order suffices.
  std::vector<GroupId> outermostCollapsed(groups.size(), kNoGroup);
  for (size_t i = 0; i < groups.size(); ++i) {
    const auto id = static_cast<GroupId>(i);
    const GroupId parent = parentOf(g, id);
    const GroupId above =
        parent == kNoGroup ? kNoGroup : outermostCollapsed[static_cast<size_t>(parent)];
    outermostCollapsed[i] = above != kNoGroup ? above : (groups[i].expanded ? kNoGroup : id);
  }

  VisibleGraph vg;
  vg.itemOfNode.assign(g.nodeCount(), -1);
  vg.itemOfGroup.assign(groups.size(), -1);
  std::vector<GroupId> hiddenIn(g.nodeCount(), kNoGroup);
  for (const Node& n : g.nodes()) {
    if (n.removed) continue;  // an editor tombstone: not drawn
    const GroupId box =
        validGroup(g, n.group) ? outermostCollapsed[static_cast<size_t>(n.group)] : kNoGroup;
    hiddenIn[static_cast<size_t>(n.id)] = box;
    if (box != kNoGroup) continue;
    vg.itemOfNode[static_cast<size_t>(n.id)] = static_cast<int>(vg.items.size());
    vg.items.push_back({VisibleItem::Kind::Node, n.id});
  }
  for (size_t i = 0; i < groups.size(); ++i) {
    if (outermostCollapsed[i] != static_cast<GroupId>(i) || groups[i].removed) continue;
    vg.itemOfGroup[i] = static_cast<int>(vg.items.size());
    vg.items.push_back({VisibleItem::Kind::Group, static_cast<int>(i)});
  }
  for (size_t id = 0; id < hiddenIn.size(); ++id) {
    if (hiddenIn[id] != kNoGroup)
      vg.itemOfNode[id] = vg.itemOfGroup[static_cast<size_t>(hiddenIn[id])];
  }

  for (const Node& n : g.nodes()) {
    const int to = vg.itemOfNode[static_cast<size_t>(n.id)];
    if (to < 0) continue;
    for (size_t slot = 0; slot < n.inputs.size(); ++slot) {
      const NodeId p = n.inputs[slot];
      if (!g.contains(p)) continue;  // unconnected
      const int from = vg.itemOfNode[static_cast<size_t>(p)];
      if (from == to && vg.items[static_cast<size_t>(to)].kind == VisibleItem::Kind::Group)
        continue;
      vg.edges.push_back({from, to, p, n.id, static_cast<int>(slot)});
    }
  }
  return vg;
}

namespace {

// Items in topological order over the edges (Kahn in item order), then the items left on
// cycles in item order.
std::vector<int> topologicalItemOrder(const VisibleGraph& vg) {
  const size_t n = vg.items.size();
  std::vector<std::vector<int>> readers(n);
  std::vector<size_t> pending(n, 0);
  for (const VisibleEdge& e : vg.edges) {
    if (e.from < 0 || e.to < 0 || e.from == e.to) continue;
    readers[static_cast<size_t>(e.from)].push_back(e.to);
    ++pending[static_cast<size_t>(e.to)];
  }
  std::vector<int> order;
  order.reserve(n);
  for (size_t i = 0; i < n; ++i)
    if (pending[i] == 0) order.push_back(static_cast<int>(i));
  for (size_t next = 0; next < order.size(); ++next) {
    for (int r : readers[static_cast<size_t>(order[next])])
      if (--pending[static_cast<size_t>(r)] == 0) order.push_back(r);
  }
  for (size_t i = 0; i < n; ++i)
    if (pending[i] > 0) order.push_back(static_cast<int>(i));
  return order;
}

}  // namespace

bool withinDrawLimits(const VisibleGraph& vg, const DrawLimits& limits) {
  if (vg.items.size() > limits.maxItems || vg.edges.size() > limits.maxEdges) return false;
  std::vector<size_t> into(vg.items.size(), 0);
  for (const VisibleEdge& e : vg.edges)
    if (e.to >= 0 && ++into[static_cast<size_t>(e.to)] > limits.maxEdgesIntoItem) return false;
  return true;
}

void limitForDrawing(VisibleGraph& vg, const DrawLimits& limits) {
  if (withinDrawLimits(vg, limits)) return;
  std::vector<char> kept(vg.items.size(), 0);
  const std::vector<int> order = topologicalItemOrder(vg);
  for (size_t k = 0; k < order.size() && k < limits.maxItems; ++k)
    kept[static_cast<size_t>(order[k])] = 1;
  std::vector<int> newIndex(vg.items.size(), -1);
  std::vector<VisibleItem> items;
  for (size_t i = 0; i < vg.items.size(); ++i) {
    if (!kept[i]) continue;
    newIndex[i] = static_cast<int>(items.size());
    items.push_back(vg.items[i]);
  }
  std::vector<VisibleEdge> edges;
  std::vector<size_t> into(items.size(), 0);
  for (VisibleEdge e : vg.edges) {
    if (e.from < 0 || e.to < 0) continue;
    e.from = newIndex[static_cast<size_t>(e.from)];
    e.to = newIndex[static_cast<size_t>(e.to)];
    if (e.from < 0 || e.to < 0 || edges.size() >= limits.maxEdges ||
        into[static_cast<size_t>(e.to)] >= limits.maxEdgesIntoItem)
      continue;
    ++into[static_cast<size_t>(e.to)];
    edges.push_back(e);
  }
  for (int& item : vg.itemOfNode)
    if (item >= 0) item = newIndex[static_cast<size_t>(item)];
  for (int& item : vg.itemOfGroup)
    if (item >= 0) item = newIndex[static_cast<size_t>(item)];
  vg.omittedItems += vg.items.size() - items.size();
  vg.omittedEdges += vg.edges.size() - edges.size();
  vg.items = std::move(items);
  vg.edges = std::move(edges);
}

}  // namespace lsrl
