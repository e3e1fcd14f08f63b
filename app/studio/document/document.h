// The explorer's document: one LSRL program graph (core Graph, with its layout and
// group collapse state), the file it came from, and the QUndoStack of every edit made
// to it. Views observe the document through its signals and never own data; every
// edit goes through one of the edit methods below, each a transaction (graph_change.h):
// it either completes as exactly one undo step holding only the records it changed, or
// throws and leaves the document as it was. Node and group ids are stable: deleting
// leaves tombstones (Graph::erase), files are written renumbered (Graph::compacted).
#pragma once

#include <QObject>
#include <QString>
#include <QUndoStack>
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "app/layout/visible_graph.h"
#include "app/studio/document/edit_commands.h"
#include "app/studio/document/graph_change.h"
#include "app/studio/document/sugar_catalog.h"
#include "core/graph/checks.h"
#include "core/graph/graph.h"

namespace lsrl::studio {

// The matrix and vector fields a node may carry (which ones depends on its op).
enum class Field { A, B, b, init, bias };
std::string_view fieldName(Field f);  // "A", "B", "b", "init", "bias"
bool isVectorField(Field f);          // b, init, bias

// One thing the editor shows as a box: a node, or a collapsed sugar group.
struct ItemRef {
  enum class Kind { Node, Group } kind = Kind::Node;
  int id = -1;
  friend bool operator==(const ItemRef&, const ItemRef&) = default;
  friend bool operator<(const ItemRef& a, const ItemRef& b) {
    return a.kind != b.kind ? a.kind < b.kind : a.id < b.id;
  }
};

// What one edit, undo or redo did, for views that update only what changed.
struct DocumentChange {
  std::vector<NodeId> nodes;    // records that changed (appeared, vanished, edited), ascending
  std::vector<NodeId> rewired;  // nodes whose inputs changed, ascending
  std::vector<GroupId> groups;  // group records that changed (expanded, members, ...)
  std::vector<NodeId> movedNodes;
  std::vector<GroupId> movedGroups;
  // Deleted nodes and groups that exist again (an undone deletion): the views select them,
  // as they were selected when deleted.
  std::vector<ItemRef> restored;
  NodeId outputBefore = kNoNode;
  NodeId outputAfter = kNoNode;
  bool structure = false;  // the visible items (boxes) are not the same set as before
  bool replaced = false;   // a whole new graph (open, new, reload): redraw everything
};

class Document : public QObject {
  Q_OBJECT

 public:
  explicit Document(QObject* parent = nullptr);
  ~Document() override;

  // ---- content (read-only views of the data) ----------------------------------------
  const Graph& graph() const { return graph_; }
  const nlohmann::json& metadata() const { return metadata_; }
  QUndoStack* undoStack() { return &undo_; }
  // The file the document was opened from or last saved to; empty when untitled.
  QString filePath() const { return filePath_; }
  // The Python program (.py) the graph was built from, or empty. Such a document has no
  // file path (Save asks for a .json: the .py is never overwritten).
  QString sourcePath() const { return sourcePath_; }
  // File name, or the example's title for an unsaved example ("tok2tok (L=3, direct)").
  QString displayName() const;
  bool isModified() const { return !undo_.isClean() || unsavedSource_; }
  // Bumped by every change; workers (layout) compare it to drop stale results.
  uint64_t revision() const { return revision_; }
  // Bumped only when items or edges appear, vanish or are renumbered (not by moves or
  // value edits): a layout computed for one structure revision fits only that one.
  uint64_t structureRevision() const { return structureRevision_; }

  // Whether `item` is a node or group that exists now (not deleted).
  bool contains(ItemRef item) const;

  // Live validation: checkGraph() of the current graph, recomputed after every edit.
  const std::vector<Problem>& problems() const { return problems_; }
  std::vector<Problem> problemsOf(NodeId id) const;
  // Nodes and collapsed groups as the editor draws them, with the edges between them,
  // cut to the DrawLimits (visible().omittedItems/omittedEdges say what is left out).
  const VisibleGraph& visible() const { return visible_; }
  // Whether the last open collapsed the file's expanded groups to fit the DrawLimits.
  bool collapsedOnOpen() const { return collapsedOnOpen_; }
  // Where an item is drawn (its centre, scene coordinates); nullopt if not placed.
  std::optional<NodePosition> position(ItemRef item) const;

  // ---- files ----------------------------------------------------------------------
  // Each replaces the content and clears the undo stack. Errors throw lsrl::Error and
  // leave the document unchanged.
  void newDocument();
  void openFile(const QString& path);
  // Runs the source program again (it changed on disk) and replaces the graph; throws
  // lsrl::Error (the document unchanged) when the program fails.
  void reloadSource();
  // An in-memory graph (an example, a recovered autosave). `title` names it until it is
  // saved; `modified` marks it as unsaved work (recovery) so closing asks first, and
  // `filePath` (recovery) is the file it belongs to, which Save then writes.
  void setGraph(Graph g, nlohmann::json metadata, const QString& title, bool modified = false,
                const QString& filePath = {});
  // Atomic save (temporary file + rename): on failure the old file is intact and the
  // error (lsrl::Error) says why. On success the document is clean and `path` is its file.
  void saveTo(const QString& path);
  // The document's current text in the graph format (for autosave and copy).
  std::string toText() const;

  // ---- edits: one undo command each ---------------------------------------------
  // Refused edits throw lsrl::Error with the reason and change nothing.
  //
  // A new primitive at `at`, unconnected, `dim` wide (Linear: dim x dim identity;
  // LinState: identity A and B; Slice: rows [0, dim) of its input).
  NodeId addPrimitive(Op op, int dim, NodePosition at, bool slice = false);
  // Appends a graph fragment (paste, a sugar function from the palette): its nodes get
  // new ids, its groups new group ids, its layout is shifted so that its bounding box
  // centre is `at`. Inputs equal to kNoNode stay unconnected, except the slots `wires`
  // connects to nodes of the document (operands given as "node N"; the call's parameter
  // then names that node); a refused wire refuses the whole insertion. Returns the new
  // ids in fragment order.
  std::vector<NodeId> insertFragment(const Graph& fragment, NodePosition at, const QString& what,
                                     const std::vector<FragmentWire>& wires = {});
  // Deletes nodes (and groups left empty). No other id changes; readers of a deleted
  // node keep an unconnected input (reported by validation), except a Concat the user
  // built, which loses the slot (a sugar call's Concat keeps it: it is an operand port).
  void removeNodes(const std::vector<NodeId>& ids);

  // Why `from` may not feed `to` (into input slot `slot`; -1 = the next free slot, or a
  // new one for Concat), or nullopt if it may: self loops, cycles, Input nodes, missing
  // nodes and slot numbers out of range are refused. Width mismatches are allowed and
  // reported by validation, since the user fixes them by editing the matrix next.
  std::optional<std::string> connectionRefusal(NodeId from, NodeId to, int slot = -1) const;
  void connect(NodeId from, NodeId to, int slot = -1);  // throws the refusal
  // Disconnects input `slot` of `to`: it stays, unconnected, except in a Concat the user
  // built, which loses the slot (as removeNodes).
  void disconnect(NodeId to, int slot);
  // Moves the edge into input `readerSlot` of `reader` so that `from` feeds `to` at `slot`
  // instead (an edge dragged to another port): one undo step; refused as a whole.
  void rewire(NodeId reader, int readerSlot, NodeId from, NodeId to, int slot);
  void setOutput(NodeId id);  // kNoNode clears it

  // Moves items to new centres. Consecutive calls with `merge` true (one drag) become one
  // undo step. Moving a collapsed group moves its hidden members by the same offset.
  void moveItems(const std::vector<std::pair<ItemRef, NodePosition>>& moves, bool merge = false);
  // A whole new layout (from the layout worker or an incremental placement): one undo
  // step, or part of the previous one when that asked for a layout to follow (Expand
  // All Groups) and `follows` is true.
  void applyLayout(const std::map<NodeId, NodePosition>& nodes,
                   const std::map<GroupId, NodePosition>& groups, const QString& what,
                   bool follows = false);

  void rename(NodeId id, const std::string& name);
  void setAlwaysPositive(NodeId id, bool positive);
  // One entry of a matrix (vector fields: col 0). Zero removes a sparse entry.
  void setEntry(NodeId id, Field field, int row, int col, const Exact& value);
  void setMatrix(NodeId id, Field field, ExactMatrix m);  // A or B, any shape
  void setVector(NodeId id, Field field, ExactVector v);  // b, init or bias
  void setInputWidth(NodeId id, int dim);                 // Input nodes only
  void setSliceRange(NodeId id, int start, int end);      // Slice nodes only

  // A constant parameter of a sugar call ("scale", "large_constant", "y", ...), in the
  // scalar grammar: the call is made again with it (core/precision/group_rebuild.h) and its
  // nodes take the new values, keeping their ids, names and places. Refused (lsrl::Error,
  // nothing changed) when the value does not parse, the key is not a constant of the
  // call, or the new value would change the call's shape (its nodes or wiring).
  void setGroupParameter(GroupId id, const std::string& key, const std::string& value);
  // Whether `key` of group `id` is a constant that setGroupParameter can change (not an
  // operand naming a node, not an omitted branch).
  bool isEditableParameter(GroupId id, const std::string& key) const;

  void setGroupExpanded(GroupId id, bool expanded);
  // Every group at once (View > Expand/Collapse all groups): one undo step.
  void setAllGroupsExpanded(bool expanded);

  // Positions that are not edits (a layout of items that had none, the layout worker's
  // result for a new file): set without an undo step.
  void placeWithoutUndo(const std::map<NodeId, NodePosition>& nodes,
                        const std::map<GroupId, NodePosition>& groups);

  // ---- used by the undo command only ---------------------------------------------
  // Puts one side of `change` into the graph (before when !forward) and notifies. Never
  // throws: an error from an observer is reported by notificationFailed.
  void applyChange(const GraphChange& change, bool forward);

 Q_SIGNALS:
  // Everything one edit, undo or redo did (emitted before the coarser signals below).
  void changed(const DocumentChange& what);
  // Nodes or groups were added or removed, or a group was collapsed or expanded: the
  // set of visible items changed.
  void structureChanged();
  // Only inputs (edges) changed; the set of visible items did not.
  void edgesChanged();
  // Contents of these nodes changed (name, values, width, flags).
  void nodesChanged(const std::vector<NodeId>& ids);
  void positionsChanged();
  void problemsChanged();
  void modifiedChanged(bool modified);
  // A different file or graph was loaded, or the file path changed (save as).
  void documentReplaced();
  void filePathChanged(const QString& path);
  // An observer failed while an undo or redo was being shown (the edit itself is done).
  void notificationFailed(const QString& message);

 private:
  void replaceContent(Graph g, nlohmann::json metadata);
  // Runs `body` as one transaction and pushes its change as one undo step (nothing when
  // it changed nothing). An exception from `body` rolls the graph back and propagates.
  template <class Body>
  void edit(const QString& text, Body&& body, Merge merge = Merge::Never);
  // After the graph changed by `change` (in direction `forward`): re-derives the visible
  // graph and the problems, and says what changed.
  DocumentChange derive(const GraphChange& change, bool forward);
  void emitChange(const DocumentChange& what, bool problemsDiffer);
  void touchForErase(GraphTransaction& t, const std::vector<NodeId>& ids);
  // Connects the wired operands of a fragment just appended (`compactId`: fragment ids to
  // compacted ones, `ids`: compacted ones to the document's).
  void wireFragment(GraphTransaction& t, const std::vector<FragmentWire>& wires,
                    const std::vector<NodeId>& compactId, const std::vector<NodeId>& ids,
                    size_t groupsBefore);
  void placeUnplacedMembers(GraphTransaction& t, GroupId id);
  // The positions after moving these items (with what travels along: hidden members and
  // nested group boxes).
  void planMoves(GraphTransaction& t, const std::vector<std::pair<ItemRef, NodePosition>>& moves);
  // Replaces node `after.id`'s record and re-derives the widths downstream.
  void editNode(GraphTransaction& t, Node after);
  // Node `to` with `from` connected into `slot` (throws the refusal), or with input
  // `slot` taken out.
  Node withInput(NodeId from, NodeId to, int slot) const;
  Node withoutInput(NodeId to, int slot) const;

  Graph graph_;
  nlohmann::json metadata_;
  QUndoStack undo_;
  QString filePath_;
  QString sourcePath_;
  QString title_;
  bool unsavedSource_ = false;  // recovered work never saved since
  uint64_t revision_ = 0;
  uint64_t structureRevision_ = 0;
  std::vector<Problem> problems_;
  bool problemsChanged_ = false;  // set by derive()
  VisibleGraph visible_;
  bool collapsedOnOpen_ = false;

  VisibleGraph drawableGraph() const;
};

}  // namespace lsrl::studio
