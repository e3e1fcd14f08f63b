// Graph's structural edits for the explorer's editor: erase (tombstones, ids kept) and
// its undo (restoreRecord), and the edits that keep ids consecutive: truncate,
// removeNodes, compacted, append. Each keeps every reference (inputs, output, group
// members and outputs, parents, layouts) consistent.
#include <algorithm>
#include <utility>

#include "core/graph/graph.h"
#include "core/graph/node_reference.h"
#include "core/util/error.h"

namespace lsrl {

namespace {

template <typename Id, typename Map>
Map remapKeys(const Map& in, const std::vector<Id>& newId) {
  Map out;
  for (const auto& [id, pos] : in) {
    if (id < 0 || static_cast<size_t>(id) >= newId.size()) continue;
    const Id to = newId[static_cast<size_t>(id)];
    if (to >= 0) out[to] = pos;
  }
  return out;
}

// Applies an old -> new map to an id that may be kNoNode/kNoGroup or out of range
// (an invalid reference stays invalid: it becomes -1).
int mapped(int id, const std::vector<int>& newId) {
  if (id < 0 || static_cast<size_t>(id) >= newId.size()) return -1;
  return newId[static_cast<size_t>(id)];
}

// Sugar groups name their node operands "node N": renumbering rewrites those to the
// new ids, and a removed operand becomes "removed node".
void renumberNodeParams(Group& gr, const std::vector<int>& newId) {
  for (auto& [key, value] : gr.params) {
    const auto id = parseNodeReference(value);
    if (!id) continue;
    const int to = mapped(*id, newId);
    value = to >= 0 ? nodeReferenceText(to) : std::string("removed node");
  }
}

}  // namespace

Group& Graph::mutableGroup(GroupId id) {
  if (id < 0 || static_cast<size_t>(id) >= groups_.size()) {
    throw Error("no group with id " + std::to_string(id) + " (the graph has " +
                std::to_string(groups_.size()) + " groups)");
  }
  return groups_[static_cast<size_t>(id)];
}

void Graph::truncate(size_t nodeCount, size_t groupCount) {
  nodeCount = std::min(nodeCount, nodes_.size());
  groupCount = std::min(groupCount, groups_.size());
  nodes_.resize(nodeCount);
  groups_.resize(groupCount);
  const auto n = static_cast<NodeId>(nodeCount);
  const auto gn = static_cast<GroupId>(groupCount);
  auto keptNode = [n](NodeId id) { return id >= 0 && id < n; };
  for (Node& node : nodes_) {
    for (NodeId& p : node.inputs) {
      if (p >= n) p = kNoNode;
    }
    if (node.group >= gn) node.group = kNoGroup;
  }
  for (Group& gr : groups_) {
    std::erase_if(gr.nodes, [&](NodeId id) { return !keptNode(id); });
    if (gr.output >= n) gr.output = kNoNode;
    if (gr.parent >= gn) gr.parent = kNoGroup;
  }
  if (output_ >= n) output_ = kNoNode;
  std::erase_if(openGroups_, [gn](GroupId g) { return g >= gn; });
  std::erase_if(layout_, [n](const auto& kv) { return kv.first >= n; });
  std::erase_if(groupLayout_, [gn](const auto& kv) { return kv.first >= gn; });
}

std::vector<NodeId> Graph::removeNodes(const std::vector<NodeId>& ids) {
  std::vector<char> removed(nodes_.size(), 0);
  for (NodeId id : ids) {
    node(id);  // validates
    removed[static_cast<size_t>(id)] = 1;
  }
  return renumberWithout(removed);
}

Graph Graph::compacted(std::vector<NodeId>* newIds) const {
  Graph out = *this;
  std::vector<char> drop(nodes_.size(), 0);
  for (const Node& n : nodes_) drop[static_cast<size_t>(n.id)] = n.removed;
  std::vector<NodeId> map = out.renumberWithout(drop);
  for (Node& n : out.nodes_) n.removed = false;
  if (newIds != nullptr) *newIds = std::move(map);
  return out;
}

void Graph::erase(const std::vector<NodeId>& ids) {
  for (NodeId id : ids) node(id);  // validates first: nothing changes on a bad id
  std::vector<char> gone(nodes_.size(), 0);
  for (NodeId id : ids) gone[static_cast<size_t>(id)] = 1;
  auto erased = [&](NodeId id) {
    return id >= 0 && static_cast<size_t>(id) < gone.size() && gone[static_cast<size_t>(id)];
  };
  for (Node& n : nodes_) {
    if (n.removed) continue;
    if (gone[static_cast<size_t>(n.id)]) {
      // The tombstone keeps only its id: undo restores the record from its own copy.
      Node tomb;
      tomb.id = n.id;
      tomb.removed = true;
      n = std::move(tomb);
      layout_.erase(n.id);
      continue;
    }
    if (n.op == Op::Concat) {
      std::erase_if(n.inputs, erased);  // a Concat loses the slot
    } else {
      for (NodeId& p : n.inputs)
        if (erased(p)) p = kNoNode;
    }
  }
  for (Group& gr : groups_) {
    if (gr.removed) continue;
    const size_t before = gr.nodes.size();
    std::erase_if(gr.nodes, erased);
    if (erased(gr.output)) gr.output = kNoNode;
    if (before > 0 && gr.nodes.empty()) {
      gr.removed = true;
      groupLayout_.erase(gr.id);
    }
  }
  if (erased(output_)) output_ = kNoNode;
}

void Graph::restoreRecord(Node n) {
  if (n.id < 0 || static_cast<size_t>(n.id) >= nodes_.size()) {
    throw Error("cannot restore node " + std::to_string(n.id) + ": the graph has ids 0.." +
                std::to_string(static_cast<long long>(nodes_.size()) - 1));
  }
  nodes_[static_cast<size_t>(n.id)] = std::move(n);
}

void Graph::restoreRecord(Group g) {
  if (g.id < 0 || static_cast<size_t>(g.id) >= groups_.size()) {
    throw Error("cannot restore group " + std::to_string(g.id) + ": the graph has ids 0.." +
                std::to_string(static_cast<long long>(groups_.size()) - 1));
  }
  groups_[static_cast<size_t>(g.id)] = std::move(g);
}

std::vector<NodeId> Graph::renumberWithout(const std::vector<char>& removed) {
  std::vector<NodeId> newId(nodes_.size(), kNoNode);
  NodeId next = 0;
  for (size_t i = 0; i < nodes_.size(); ++i) {
    if (!removed[i]) newId[i] = next++;
  }

  // Groups: drop removed members; a group that loses its last member goes away.
  std::vector<GroupId> newGroup(groups_.size(), kNoGroup);
  std::vector<char> groupRemoved(groups_.size(), 0);
  for (size_t g = 0; g < groups_.size(); ++g) {
    Group& gr = groups_[g];
    const size_t before = gr.nodes.size();
    std::erase_if(gr.nodes, [&](NodeId id) {
      return id >= 0 && static_cast<size_t>(id) < removed.size() &&
             removed[static_cast<size_t>(id)];
    });
    groupRemoved[g] = gr.removed || (before > 0 && gr.nodes.empty());
  }
  GroupId nextGroup = 0;
  for (size_t g = 0; g < groups_.size(); ++g) {
    if (!groupRemoved[g]) newGroup[g] = nextGroup++;
  }
  // A removed group's place in the hierarchy passes to its nearest surviving ancestor
  // (parents come before children, so one forward pass resolves chains).
  std::vector<GroupId> survivor(groups_.size(), kNoGroup);
  for (size_t g = 0; g < groups_.size(); ++g) {
    if (!groupRemoved[g]) {
      survivor[g] = static_cast<GroupId>(g);
      continue;
    }
    const GroupId parent = groups_[g].parent;
    if (parent >= 0 && static_cast<size_t>(parent) < g)
      survivor[g] = survivor[static_cast<size_t>(parent)];
  }
  auto mapGroup = [&](GroupId g) {
    const GroupId s = mapped(g, survivor);
    return s == kNoGroup ? kNoGroup : newGroup[static_cast<size_t>(s)];
  };

  std::vector<Node> nodes;
  nodes.reserve(static_cast<size_t>(next));
  for (size_t i = 0; i < nodes_.size(); ++i) {
    if (removed[i]) continue;
    Node n = std::move(nodes_[i]);
    n.id = newId[i];
    std::vector<NodeId> inputs;
    inputs.reserve(n.inputs.size());
    for (NodeId p : n.inputs) {
      const bool gone =
          p >= 0 && static_cast<size_t>(p) < removed.size() && removed[static_cast<size_t>(p)];
      if (gone && n.op == Op::Concat) continue;  // a Concat loses the slot
      // Unconnected (kNoNode) stays so; an id naming no node stays invalid.
      const bool valid = p >= 0 && static_cast<size_t>(p) < removed.size();
      inputs.push_back(valid ? newId[static_cast<size_t>(p)] : p);
    }
    n.inputs = std::move(inputs);
    n.group = mapGroup(n.group);
    nodes.push_back(std::move(n));
  }

  std::vector<Group> groups;
  for (size_t g = 0; g < groups_.size(); ++g) {
    if (groupRemoved[g]) continue;
    Group gr = std::move(groups_[g]);
    gr.id = newGroup[g];
    gr.parent = mapGroup(gr.parent);
    for (NodeId& id : gr.nodes) id = mapped(id, newId);
    gr.output = mapped(gr.output, newId);
    renumberNodeParams(gr, newId);
    groups.push_back(std::move(gr));
  }

  std::vector<GroupId> open;
  for (GroupId g : openGroups_) {
    const GroupId m = mapped(g, newGroup);
    if (m != kNoGroup) open.push_back(m);
  }

  nodes_ = std::move(nodes);
  groups_ = std::move(groups);
  openGroups_ = std::move(open);
  output_ = mapped(output_, newId);
  layout_ = remapKeys(layout_, newId);
  groupLayout_ = remapKeys(groupLayout_, newGroup);
  return newId;
}

std::vector<NodeId> Graph::append(const Graph& fragment, const std::map<NodeId, NodeId>& bind) {
  for (const auto& [from, to] : bind) {
    fragment.node(from);  // validates both ends
    node(to);
  }
  const auto base = static_cast<NodeId>(nodes_.size());
  const auto groupBase = static_cast<GroupId>(groups_.size());
  std::vector<NodeId> newId(fragment.nodeCount(), kNoNode);
  NodeId next = base;
  for (const Node& n : fragment.nodes()) {
    auto b = bind.find(n.id);
    newId[static_cast<size_t>(n.id)] = b != bind.end() ? b->second : next++;
  }
  auto mapGroup = [&](GroupId g) {
    if (g < 0 || static_cast<size_t>(g) >= fragment.groups().size()) return kNoGroup;
    return groupBase + g;
  };

  nodes_.reserve(static_cast<size_t>(next));
  for (const Node& src : fragment.nodes()) {
    if (bind.count(src.id)) continue;
    Node n = src;
    n.id = newId[static_cast<size_t>(src.id)];
    for (NodeId& p : n.inputs) p = mapped(p, newId);
    n.group = mapGroup(n.group);
    nodes_.push_back(std::move(n));
  }
  for (const Group& src : fragment.groups()) {
    Group gr = src;
    gr.id = groupBase + src.id;
    gr.parent = mapGroup(src.parent);
    // Bound nodes belong to this graph already, not to the copied group.
    std::erase_if(gr.nodes, [&](NodeId id) { return bind.count(id) > 0; });
    for (NodeId& id : gr.nodes) id = mapped(id, newId);
    gr.output = mapped(src.output, newId);
    renumberNodeParams(gr, newId);
    groups_.push_back(std::move(gr));
  }
  for (const auto& [id, pos] : fragment.layout()) {
    if (id < 0 || static_cast<size_t>(id) >= newId.size() || bind.count(id)) continue;
    layout_[newId[static_cast<size_t>(id)]] = pos;
  }
  for (const auto& [gid, pos] : fragment.groupLayout()) {
    const GroupId g = mapGroup(gid);
    if (g != kNoGroup) groupLayout_[g] = pos;
  }
  return newId;
}

}  // namespace lsrl
