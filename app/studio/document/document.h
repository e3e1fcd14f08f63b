// The explorer's document: one LSRL program graph (core Graph, with its layout and
// group collapse state), the file it came from, and the QUndoStack of every edit made
// to it. Views observe the document through its signals and never own data; every
// edit goes through one of the edit methods below, each of which pushes exactly one
// undo command (so undo/redo replays it) and then re-validates the graph.
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

  // Live validation: checkGraph() of the current graph, recomputed after every edit.
  const std::vector<Problem>& problems() const { return problems_; }
  std::vector<Problem> problemsOf(NodeId id) const;
  // Nodes and collapsed groups as the editor draws them, with the edges between them.
  const VisibleGraph& visible() const { return visible_; }
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
  // centre is `at`. Inputs equal to kNoNode stay unconnected. Returns the new ids in
  // fragment order.
  std::vector<NodeId> insertFragment(const Graph& fragment, NodePosition at, const QString& what);
  // Removes nodes (and groups left empty). Ids after them are renumbered; readers of a
  // removed node keep an unconnected input (reported by validation).
  void removeNodes(const std::vector<NodeId>& ids);

  // Why `from` may not feed `to` (into input slot `slot`; -1 = the next free slot, or a
  // new one for Concat), or nullopt if it may: self loops, cycles, Input nodes, missing
  // nodes and slot numbers out of range are refused. Width mismatches are allowed and
  // reported by validation, since the user fixes them by editing the matrix next.
  std::optional<std::string> connectionRefusal(NodeId from, NodeId to, int slot = -1) const;
  void connect(NodeId from, NodeId to, int slot = -1);  // throws the refusal
  // Disconnects input `slot` of `to`: Concat loses the slot, other ops keep it unconnected.
  void disconnect(NodeId to, int slot);
  void setOutput(NodeId id);  // kNoNode clears it

  // Moves items to new centres. Consecutive calls with `merge` true (one drag) become one
  // undo step. Moving a collapsed group moves its hidden members by the same offset.
  void moveItems(const std::vector<std::pair<ItemRef, NodePosition>>& moves, bool merge = false);
  // A whole new layout (from the layout worker or an incremental placement): one undo step.
  void applyLayout(const std::map<NodeId, NodePosition>& nodes,
                   const std::map<GroupId, NodePosition>& groups, const QString& what);

  void rename(NodeId id, const std::string& name);
  void setAlwaysPositive(NodeId id, bool positive);
  // One entry of a matrix (vector fields: col 0). Zero removes a sparse entry.
  void setEntry(NodeId id, Field field, int row, int col, const Exact& value);
  void setMatrix(NodeId id, Field field, ExactMatrix m);  // A or B, any shape
  void setVector(NodeId id, Field field, ExactVector v);  // b, init or bias
  void setInputWidth(NodeId id, int dim);                 // Input nodes only
  void setSliceRange(NodeId id, int start, int end);      // Slice nodes only

  void setGroupExpanded(GroupId id, bool expanded);
  // Every group at once (View > Expand/Collapse all groups): one undo step.
  void setAllGroupsExpanded(bool expanded);

  // ---- used by the undo commands only ------------------------------------------
  // Replace node records wholesale (ids must exist), then re-derive and notify.
  void restoreNodes(const std::vector<Node>& nodes, NodeId output);
  void restorePositions(const std::map<NodeId, NodePosition>& nodes,
                        const std::map<GroupId, NodePosition>& groups);
  void restorePositions(const MoveCommand::Positions& positions);
  void restoreGraph(const Graph& g);  // structural undo: the whole graph
  void restoreGroupsExpanded(const std::vector<GroupId>& ids, bool expanded);
  Graph& mutableGraph() { return graph_; }
  // After a structural change: re-derive widths, visible graph, problems; notify.
  void structureEdited();

 Q_SIGNALS:
  // Nodes or groups were added, removed or renumbered, or a group was collapsed or
  // expanded: views rebuild their items from visible().
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

 private:
  void replaceContent(Graph g, nlohmann::json metadata);
  void revalidate();
  void rebuildVisible();
  void placeUnplacedMembers(GroupId id);
  // The positions after moving these items (with what travels along: hidden members and
  // nested group boxes), and the current positions of the same keys.
  MoveCommand::Positions plannedMoves(
      const std::vector<std::pair<ItemRef, NodePosition>>& moves) const;
  MoveCommand::Positions currentPositions(const MoveCommand::Positions& of) const;
  void bump();
  // Pushes a command replacing the records of `after`'s nodes (before = current).
  void pushNodeEdit(std::vector<Node> after, NodeId output, const QString& text);

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
  VisibleGraph visible_;
};

}  // namespace lsrl::studio
