#include "core/precision/group_tree.h"

#include <algorithm>

namespace lsrl {

namespace {

GroupId parentOf(const Graph& g, GroupId id) { return g.groups()[static_cast<size_t>(id)].parent; }

}  // namespace

std::map<NodeId, std::vector<GroupId>> groupsByOutput(const Graph& g) {
  std::map<NodeId, std::vector<GroupId>> byOutput;
  for (const Group& gr : g.groups()) {
    if (!gr.removed && gr.output != kNoNode) byOutput[gr.output].push_back(gr.id);
  }
  for (auto& [node, ids] : byOutput) std::sort(ids.rbegin(), ids.rend());
  return byOutput;
}

GroupId outermostGroup(const Graph& g, GroupId id) {
  while (parentOf(g, id) != kNoGroup) id = parentOf(g, id);
  return id;
}

bool insideCallOf(const Graph& g, const Group& gr, std::string_view function) {
  for (GroupId p = gr.parent; p != kNoGroup; p = parentOf(g, p)) {
    if (g.groups()[static_cast<size_t>(p)].function == function) return true;
  }
  return false;
}

bool withinGroup(const Graph& g, GroupId id, GroupId ancestor) {
  while (id != kNoGroup && id != ancestor) id = parentOf(g, id);
  return id == ancestor && id != kNoGroup;
}

}  // namespace lsrl
