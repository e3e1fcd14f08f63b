#include "core/precision/group_rebuild.h"

#include <algorithm>
#include <map>

#include "core/graph/node_reference.h"
#include "core/precision/group_tree.h"
#include "core/util/error.h"

namespace lsrl {

namespace {

// What a sugar call builds from `params`, in a scratch graph whose Input nodes stand
// for the call's node operands.
struct Rebuilt {
  Graph scratch;
  std::map<NodeId, NodeId> operandOf;  // scratch placeholder -> the operand in the program
  std::vector<NodeId> nodes;           // the call's nodes, in creation order
};

Rebuilt rebuild(const Graph& g, const Group& gr, const SugarParams& params) {
  Rebuilt r;
  std::map<NodeId, NodeId> placeholderOf;
  for (const auto& [key, value] : params) {
    const auto id = parseNodeReference(value);
    if (!id || placeholderOf.count(*id)) continue;
    if (!g.contains(*id)) throw Error("it names " + value + ", which does not exist");
    Node n;
    n.id = static_cast<NodeId>(r.scratch.nodeCount());
    n.op = Op::Input;
    n.dim = g.node(*id).dim;
    const NodeId placeholder = r.scratch.addUnchecked(std::move(n));
    placeholderOf[*id] = placeholder;
    r.operandOf[placeholder] = *id;
  }
  replaySugar(r.scratch, gr.function, params,
              [&](NodeId id) { return Var(&r.scratch, placeholderOf.at(id)); });
  for (const Node& n : r.scratch.nodes()) {
    if (!r.operandOf.count(n.id)) r.nodes.push_back(n.id);
  }
  return r;
}

bool sameValues(const Node& a, const Node& b) {
  return a.A == b.A && a.B == b.B && a.b == b.b && a.init == b.init && a.bias == b.bias;
}

// The groups of a call: the group and every group nested in it, in id order.
std::vector<GroupId> callGroups(const Graph& g, GroupId top) {
  std::vector<GroupId> ids;
  for (const Group& gr : g.groups()) {
    if (!gr.removed && withinGroup(g, gr.id, top)) ids.push_back(gr.id);
  }
  return ids;
}

std::vector<NodeId> sortedNodes(const Group& gr) {
  std::vector<NodeId> nodes = gr.nodes;
  std::sort(nodes.begin(), nodes.end());
  return nodes;
}

// Each scratch node's counterpart in the program: placeholders their operands, the call's
// nodes the group's, in creation order (`old`: sortedNodes, of the same size).
std::map<NodeId, NodeId> programIds(const Rebuilt& r, const std::vector<NodeId>& old) {
  std::map<NodeId, NodeId> id = r.operandOf;
  for (size_t i = 0; i < old.size(); ++i) id[r.nodes[i]] = old[i];
  return id;
}

// Checks that `r` has the shape of the group's nodes (same ops, widths and wiring) and,
// with `sameAsBuilt`, the same values; returns the reason when it does not.
std::optional<std::string> mismatch(const Graph& g, const Group& gr, const Rebuilt& r,
                                    bool sameAsBuilt) {
  const std::vector<NodeId> old = sortedNodes(gr);
  if (old.size() != r.nodes.size())
    return "it has " + std::to_string(old.size()) + " nodes where " + gr.function + " builds " +
           std::to_string(r.nodes.size());
  const std::map<NodeId, NodeId> oldOf = programIds(r, old);
  for (size_t i = 0; i < old.size(); ++i) {
    const Node& a = g.node(old[i]);
    const Node& b = r.scratch.node(r.nodes[i]);
    bool same =
        a.op == b.op && a.dim == b.dim && a.slice == b.slice && a.inputs.size() == b.inputs.size();
    for (size_t k = 0; same && k < a.inputs.size(); ++k)
      same = a.inputs[k] == oldOf.at(b.inputs[k]);
    if (!same) return "node " + std::to_string(a.id) + " is not what " + gr.function + " builds";
    if (sameAsBuilt && !sameValues(a, b))
      return "node " + std::to_string(a.id) + " holds other values than " + gr.function +
             " builds from its parameters";
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> differsFromItsCall(const Graph& g, GroupId id) {
  const Group& gr = g.groups()[static_cast<size_t>(id)];
  try {
    return mismatch(g, gr, rebuild(g, gr, gr.params), true);
  } catch (const Error& e) {
    return std::string("it cannot be rebuilt from its parameters: ") + e.what();
  }
}

std::optional<std::string> rebuildInPlace(Graph& g, GroupId top, const SugarParams& params) {
  const Group& gr = g.groups()[static_cast<size_t>(top)];
  if (auto why = differsFromItsCall(g, top)) return why;
  const Rebuilt r = rebuild(g, gr, params);
  if (auto why = mismatch(g, gr, r, false)) return why;
  const std::vector<GroupId> ours = callGroups(g, top);
  const std::vector<Group>& theirs = r.scratch.groups();
  if (ours.size() != theirs.size()) return "its nested calls differ from what it builds";
  // Every check has passed: only now is the program changed.
  const std::vector<NodeId> old = sortedNodes(gr);
  for (size_t i = 0; i < old.size(); ++i) {
    Node& a = g.mutableNode(old[i]);
    const Node& b = r.scratch.node(r.nodes[i]);
    a.A = b.A;
    a.B = b.B;
    a.b = b.b;
    a.init = b.init;
    a.bias = b.bias;
  }
  // The scratch's parameters name scratch nodes: renamed to the program's.
  const std::map<NodeId, NodeId> programId = programIds(r, old);
  for (size_t i = 0; i < ours.size(); ++i) {
    SugarParams params = theirs[i].params;
    for (auto& [key, value] : params) {
      if (const auto id = parseNodeReference(value)) value = nodeReferenceText(programId.at(*id));
    }
    g.mutableGroup(ours[i]).params = std::move(params);
  }
  return std::nullopt;
}

}  // namespace lsrl
