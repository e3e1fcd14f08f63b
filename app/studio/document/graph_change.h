// One edit of the document's graph as data: the records it touched, before and after.
// Node and group ids never change in the editor (deletions leave tombstones, see
// Graph::erase), so an edit is a set of records keyed by id, the two node and group
// counts (appends grow them) and the output; an undo step holds only these, not the
// graph. GraphTransaction records the before-images as an edit touches things and rolls
// them back if the edit throws, so a refused edit leaves the graph as it was.
#pragma once

#include <map>
#include <optional>
#include <vector>

#include "core/graph/graph.h"

namespace lsrl::studio {

struct GraphChange {
  // The touched part of the graph on one side of the edit.
  struct Side {
    size_t nodeCount = 0;
    size_t groupCount = 0;
    NodeId output = kNoNode;
    std::map<NodeId, Node> nodes;  // records of touched ids below nodeCount
    std::map<GroupId, Group> groups;
    // Layout entries of touched ids; nullopt: no entry (not placed).
    std::map<NodeId, std::optional<NodePosition>> layout;
    std::map<GroupId, std::optional<NodePosition>> groupLayout;
  };
  Side before;
  Side after;

  bool empty() const;
  // Appends `next` (a later edit of the same things) to this one: this->before stays,
  // `next.after` wins (a drag in several steps becomes one undo step).
  void mergeWith(const GraphChange& next);
};

// Puts `side` into `g`: counts (truncating or appending records), records, output and
// layout entries. No validation beyond ids in range: the side came from this graph.
void applySide(Graph& g, const GraphChange::Side& side);

// Records before-images while an edit mutates a graph. Touch every node, group and
// layout entry before changing it (records appended past the starting counts need no
// touch); commit() collects the after-images. Destroyed without commit() (an exception
// in the edit), it puts every touched record back.
class GraphTransaction {
 public:
  explicit GraphTransaction(Graph& g);
  ~GraphTransaction();
  GraphTransaction(const GraphTransaction&) = delete;
  GraphTransaction& operator=(const GraphTransaction&) = delete;

  Graph& graph() { return g_; }
  void touchNode(NodeId id);  // its record and its layout entry
  void touchGroup(GroupId id);
  // Every node and group (edits whose reach is not known in advance, e.g. width
  // propagation through the whole graph): costs a copy of the records.
  void touchEverything();

  GraphChange commit();

 private:
  Graph& g_;
  GraphChange::Side before_;
  bool committed_ = false;
};

}  // namespace lsrl::studio
