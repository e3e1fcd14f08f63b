#include "core/graph/fragment.h"

#include <algorithm>

namespace lsrl {

Graph extractFragment(const Graph& g, const std::vector<NodeId>& ids) {
  std::vector<NodeId> newId(g.nodeCount(), kNoNode);
  for (NodeId id : ids) {
    g.node(id);  // validates
    newId[static_cast<size_t>(id)] = 0;
  }
  NodeId next = 0;
  for (NodeId& id : newId) {
    if (id == 0) id = next++;
  }
  auto mappedNode = [&](NodeId id) {
    if (id < 0 || static_cast<size_t>(id) >= newId.size()) return kNoNode;
    return newId[static_cast<size_t>(id)];
  };

  // A group is kept when it has nodes and all of them are in the set.
  const auto& groups = g.groups();
  std::vector<GroupId> newGroup(groups.size(), kNoGroup);
  GroupId nextGroup = 0;
  for (size_t i = 0; i < groups.size(); ++i) {
    const auto& members = groups[i].nodes;
    const bool kept =
        !members.empty() && std::all_of(members.begin(), members.end(),
                                        [&](NodeId id) { return mappedNode(id) != kNoNode; });
    if (kept) newGroup[i] = nextGroup++;
  }
  auto mappedGroup = [&](GroupId gid) {
    if (gid < 0 || static_cast<size_t>(gid) >= newGroup.size()) return kNoGroup;
    return newGroup[static_cast<size_t>(gid)];
  };
  // A node's innermost kept group: walk up from its own group.
  auto keptAncestor = [&](GroupId gid) {
    for (int guard = 0; gid >= 0 && static_cast<size_t>(gid) < groups.size() && guard < 10000;
         ++guard) {
      if (newGroup[static_cast<size_t>(gid)] != kNoGroup) return newGroup[static_cast<size_t>(gid)];
      gid = groups[static_cast<size_t>(gid)].parent;
    }
    return kNoGroup;
  };

  Graph out;
  for (const Node& src : g.nodes()) {
    if (mappedNode(src.id) == kNoNode) continue;
    Node n = src;
    n.id = mappedNode(src.id);
    for (NodeId& p : n.inputs) p = mappedNode(p);
    n.group = keptAncestor(src.group);
    out.addUnchecked(std::move(n));
  }
  for (size_t i = 0; i < groups.size(); ++i) {
    if (newGroup[i] == kNoGroup) continue;
    Group gr = groups[i];
    gr.parent = mappedGroup(gr.parent);
    for (NodeId& id : gr.nodes) id = mappedNode(id);
    gr.output = mappedNode(gr.output);
    out.addGroupUnchecked(std::move(gr));
  }
  for (const auto& [id, pos] : g.layout()) {
    if (mappedNode(id) != kNoNode) out.layout()[mappedNode(id)] = pos;
  }
  for (const auto& [gid, pos] : g.groupLayout()) {
    if (mappedGroup(gid) != kNoGroup) out.groupLayout()[mappedGroup(gid)] = pos;
  }
  if (mappedNode(g.output()) != kNoNode) out.setOutput(mappedNode(g.output()));
  return out;
}

}  // namespace lsrl
