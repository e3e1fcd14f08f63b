// The LSRL intermediate representation: a DAG of the six primitives (docs/spec/language.md §1).
//
// Node ids are creation order and never reused; they are saved in files, and every
// topological order in the project is Kahn's algorithm taking the smallest id first,
// so builds, runs and compiles are reproducible. The explorer's editor deletes nodes by
// erase(), which leaves a tombstone (Node::removed) so that no other id changes; files
// are written from compacted(), which renumbers. Sugar functions record themselves as
// named groups over the primitives they create (the editor shows them as boxes).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/graph/matrix.h"

namespace lsrl {

using NodeId = int;
using GroupId = int;
constexpr NodeId kNoNode = -1;
constexpr GroupId kNoGroup = -1;

enum class Op : uint8_t { Input, Linear, ReLU, LinState, Concat, Multi };
constexpr int kOpCount = 6;
std::string_view opName(Op op);  // "Input", "Linear", "ReLU", "LinState", "Concat", "Multi"
std::optional<Op> opFromName(std::string_view name);  // also accepts "Multiplicative"

// A Linear that selects rows [start, end) of its input. It is a Linear for every
// purpose of execution, but counts as its own op ("Slice") and keeps its tag until
// a compiler rule fuses it into another Linear.
struct SliceTag {
  int start = 0;
  int end = 0;
  friend bool operator==(const SliceTag&, const SliceTag&) = default;
};

struct Node {
  NodeId id = kNoNode;
  Op op = Op::Input;
  int dim = 0;                  // output width
  std::vector<NodeId> inputs;   // Concat: >= 1 (repeats allowed); Input: none; else 1.
                                // kNoNode marks an unconnected slot (editor; invalid).
  std::string name;             // optional user-visible name
  bool alwaysPositive = false;  // value provably >= 0 in every entry
  GroupId group = kNoGroup;     // innermost sugar group that created the node
  bool removed = false;         // a tombstone left by Graph::erase (editor only)

  std::optional<SliceTag> slice;  // Linear only
  ExactMatrix A;                  // Linear: rows(A) x dim(x); LinState: dim x dim
  ExactMatrix B;                  // LinState: dim x dim(x)
  ExactVector b;                  // Linear offset (dim)
  ExactVector init;               // LinState initial state s_0 (dim)
  ExactVector bias;               // LinState bias (dim)

  bool isSlice() const { return op == Op::Linear && slice.has_value(); }
  // "Slice" for sliced Linears, else opName(op): the op as node counts report it.
  std::string_view countedOpName() const;
};

// A sugar call (f_step, f_ifelse, ...): the nodes it created, its parameters as
// scalar-grammar strings, and its result node. Groups nest (f_larger inside f_and).
struct Group {
  GroupId id = kNoGroup;
  std::string function;
  std::vector<std::pair<std::string, std::string>> params;
  GroupId parent = kNoGroup;
  std::vector<NodeId> nodes;  // every node created while the group was open
  NodeId output = kNoNode;
  bool expanded = false;  // editor state: a collapsed group is drawn as one box
  bool removed = false;   // every member was erased (Graph::erase; editor only)
};

struct NodePosition {
  double x = 0;
  double y = 0;
};

class Graph {
 public:
  // Builders. Each validates its arguments (dimensions, ranges, finite values) and
  // throws lsrl::Error naming the node kind, expected and got.
  NodeId addInput(int dim, std::string name = {});
  NodeId addLinear(NodeId x, ExactMatrix A, ExactVector b, std::string name = {});
  NodeId addSlice(NodeId x, int start, int end, std::string name = {});
  NodeId addReLU(NodeId x, std::string name = {});
  NodeId addLinState(NodeId x, ExactMatrix A, ExactMatrix B, ExactVector init,
                     ExactVector bias = {}, std::string name = {});
  NodeId addConcat(std::vector<NodeId> xs, std::string name = {});
  NodeId addMulti(NodeId x, std::string name = {});
  // Adds a node as given (file loading): ids must be appended in order; nothing is
  // validated here, so that checkGraph() can report every problem of a file.
  NodeId addUnchecked(Node node);

  // Ids in use so far, tombstones included: every id is < nodeCount().
  size_t nodeCount() const { return nodes_.size(); }
  // Nodes that exist (nodeCount() less the tombstones).
  size_t liveNodeCount() const;
  // Whether `id` names a node that exists (in range and not erased).
  bool contains(NodeId id) const;
  bool containsGroup(GroupId id) const;
  // Throws lsrl::Error for an id out of range or erased.
  const Node& node(NodeId id) const;
  Node& mutableNode(NodeId id);
  // Every record, tombstones included (check Node::removed when iterating).
  const std::vector<Node>& nodes() const { return nodes_; }

  void setOutput(NodeId id);  // kNoNode clears it
  NodeId output() const { return output_; }
  // The Input node (the first one if a malformed graph has several); kNoNode if none.
  NodeId input() const;

  // Successor lists (deduplicated, ascending), computed on demand.
  std::vector<std::vector<NodeId>> successors() const;
  // The program proper: ancestors of the output (and the output), ascending ids.
  // Nodes that cannot reach the output are kept in the graph but never run.
  std::vector<NodeId> programNodes() const;
  // Kahn's algorithm, smallest id first, over programNodes(). Throws on a cycle.
  std::vector<NodeId> topologicalOrder() const;

  // Sugar groups. While a group is open, every added node joins it.
  GroupId openGroup(std::string function,
                    std::vector<std::pair<std::string, std::string>> params = {});
  void closeGroup(GroupId id, NodeId output);
  const std::vector<Group>& groups() const { return groups_; }
  GroupId addGroupUnchecked(Group group);  // file loading

  void setName(NodeId id, std::string name);
  // The node with this name, or kNoNode. Names are not required to be unique; the
  // lowest id wins.
  NodeId findByName(std::string_view name) const;

  // lcm of the conductors of every stored value: the field exact execution uses.
  int conductor() const;

  std::map<NodeId, NodePosition>& layout() { return layout_; }
  const std::map<NodeId, NodePosition>& layout() const { return layout_; }
  // Centres of the boxes of (collapsed) groups.
  std::map<GroupId, NodePosition>& groupLayout() { return groupLayout_; }
  const std::map<GroupId, NodePosition>& groupLayout() const { return groupLayout_; }
  Group& mutableGroup(GroupId id);

  // ---- the explorer's editor: deletions that keep ids, and their undo ---------------
  // Erases nodes, leaving tombstones: no other id changes. Readers of an erased node
  // keep an unconnected slot (kNoNode), except a Concat, which loses the slot; groups
  // lose erased members, and a group left without members is marked removed (its id
  // stays); an erased output clears the output; layout entries of erased nodes and
  // removed groups go. Throws (changing nothing) for an id that names no live node.
  void erase(const std::vector<NodeId>& ids);
  // The same graph without tombstones and removed groups, renumbered in id order (the
  // form files are written in). `newIds`, if given, maps every old id to its new one
  // (kNoNode for tombstones).
  Graph compacted(std::vector<NodeId>* newIds = nullptr) const;
  // Puts a record back as it was (undo): `n.id` < nodeCount(), tombstone or not.
  void restoreRecord(Node n);
  void restoreRecord(Group g);

  // ---- structural edits that renumber (each keeps ids consecutive) -------------------
  // Keeps the first `nodeCount` nodes and `groupCount` groups (the undo of an append).
  // Layout entries of dropped items are erased; the output, group outputs and inputs
  // naming a dropped node become kNoNode; member lists and open groups lose them.
  void truncate(size_t nodeCount, size_t groupCount);
  // Removes nodes and renumbers the rest in their order. Returns the old -> new id map
  // (kNoNode for removed ids). A reader of a removed node keeps an unconnected slot
  // (kNoNode), except a Concat, which loses the slot. Groups lose removed members; a
  // group left without nodes is removed and later group ids move down (a child of a
  // removed group moves to that group's parent). Layouts follow the new ids.
  std::vector<NodeId> removeNodes(const std::vector<NodeId>& ids);
  // Copies `fragment` to the end of this graph: every fragment node not in `bind` gets a
  // new id (in fragment order), inputs are remapped through `bind` and the new ids
  // (kNoNode stays unconnected), groups get new ids (nodes, parent, output remapped),
  // and node and group layouts follow. The fragment's output is not used. Returns, per
  // fragment node id, its id in this graph (bound nodes give their bound id).
  std::vector<NodeId> append(const Graph& fragment, const std::map<NodeId, NodeId>& bind = {});

 private:
  NodeId appendNode(Node node);
  // removeNodes without validation: drops the nodes marked in `removed` (and groups that
  // are removed or lose every member), renumbering the rest; returns old -> new ids.
  std::vector<NodeId> renumberWithout(const std::vector<char>& removed);

  std::vector<Node> nodes_;
  std::vector<Group> groups_;
  std::vector<GroupId> openGroups_;
  NodeId output_ = kNoNode;
  std::map<NodeId, NodePosition> layout_;
  std::map<GroupId, NodePosition> groupLayout_;
};

// RAII helper for sugar functions: opens a group, closes it with the result.
class GroupScope {
 public:
  GroupScope(Graph& g, std::string function,
             std::vector<std::pair<std::string, std::string>> params = {});
  ~GroupScope();
  NodeId finish(NodeId output);  // closes the group; returns output

 private:
  Graph& g_;
  GroupId id_;
  bool done_ = false;
};

}  // namespace lsrl
