// The undo commands behind Document's edit methods. Each stores what it needs to go
// both ways: node records (before/after) for edits that keep ids, appended nodes for
// additions, whole-graph snapshots for removals (which renumber ids), positions for
// moves. Commands whose edit was already applied when pushed skip their first redo().
#pragma once

#include <QUndoCommand>
#include <map>
#include <vector>

#include "core/graph/graph.h"

namespace lsrl::studio {

class Document;

// Edits that replace the records of existing nodes (values, names, inputs, widths).
class NodeEditCommand : public QUndoCommand {
 public:
  NodeEditCommand(Document* doc, std::vector<Node> before, std::vector<Node> after,
                  NodeId outputBefore, NodeId outputAfter, const QString& text);
  void undo() override;
  void redo() override;

 private:
  Document* doc_;
  std::vector<Node> before_;
  std::vector<Node> after_;
  NodeId outputBefore_;
  NodeId outputAfter_;
  bool applied_ = true;
};

// Nodes and groups appended at the end (new primitive, paste, sugar insertion).
class AppendCommand : public QUndoCommand {
 public:
  // `doc`'s graph already holds the appended nodes past `nodesBefore`/`groupsBefore`.
  AppendCommand(Document* doc, size_t nodesBefore, size_t groupsBefore, const QString& text);
  void undo() override;
  void redo() override;

 private:
  Document* doc_;
  size_t nodesBefore_;
  size_t groupsBefore_;
  std::vector<Node> nodes_;
  std::vector<Group> groups_;
  std::map<NodeId, NodePosition> nodeLayout_;
  std::map<GroupId, NodePosition> groupLayout_;
  bool applied_ = true;
};

// Structural edits that renumber (removal): the whole graph before and after.
class SnapshotCommand : public QUndoCommand {
 public:
  SnapshotCommand(Document* doc, Graph before, Graph after, const QString& text);
  void undo() override;
  void redo() override;

 private:
  Document* doc_;
  Graph before_;
  Graph after_;
  bool applied_ = true;
};

// Positions of nodes and group boxes. Commands pushed with `mergeable` merge with the
// previous mergeable move of the same items (arrow-key nudges, a drag in steps).
class MoveCommand : public QUndoCommand {
 public:
  struct Positions {
    std::map<NodeId, NodePosition> nodes;
    std::map<GroupId, NodePosition> groups;
    // Group boxes that had no stored position (drawn at their members' centre): restoring
    // removes the stored one again, so undo gives back exactly the old file.
    std::vector<GroupId> unsetGroups;
  };
  MoveCommand(Document* doc, Positions before, Positions after, bool mergeable, const QString& text,
              QUndoCommand* parent = nullptr);
  void undo() override;
  void redo() override;
  int id() const override { return mergeable_ ? 1 : -1; }
  bool mergeWith(const QUndoCommand* other) override;

 private:
  Document* doc_;
  Positions before_;
  Positions after_;
  bool mergeable_;
  bool applied_ = true;
};

// Collapsing or expanding sugar groups (one, or all at once).
class GroupExpandCommand : public QUndoCommand {
 public:
  GroupExpandCommand(Document* doc, std::vector<GroupId> groups, bool expanded, const QString& text,
                     QUndoCommand* parent = nullptr);
  void undo() override;
  void redo() override;

 private:
  Document* doc_;
  std::vector<GroupId> groups_;
  bool expanded_;
};

}  // namespace lsrl::studio
