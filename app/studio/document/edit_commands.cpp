#include "app/studio/document/edit_commands.h"

#include "app/studio/document/document.h"

namespace lsrl::studio {

NodeEditCommand::NodeEditCommand(Document* doc, std::vector<Node> before, std::vector<Node> after,
                                 NodeId outputBefore, NodeId outputAfter, const QString& text)
    : QUndoCommand(text),
      doc_(doc),
      before_(std::move(before)),
      after_(std::move(after)),
      outputBefore_(outputBefore),
      outputAfter_(outputAfter) {}

void NodeEditCommand::undo() { doc_->restoreNodes(before_, outputBefore_); }

void NodeEditCommand::redo() {
  if (applied_) {
    applied_ = false;
    return;
  }
  doc_->restoreNodes(after_, outputAfter_);
}

AppendCommand::AppendCommand(Document* doc, size_t nodesBefore, size_t groupsBefore,
                             const QString& text)
    : QUndoCommand(text), doc_(doc), nodesBefore_(nodesBefore), groupsBefore_(groupsBefore) {
  const Graph& g = doc->graph();
  nodes_.assign(g.nodes().begin() + static_cast<std::ptrdiff_t>(nodesBefore), g.nodes().end());
  groups_.assign(g.groups().begin() + static_cast<std::ptrdiff_t>(groupsBefore), g.groups().end());
  for (const Node& n : nodes_) {
    if (auto it = g.layout().find(n.id); it != g.layout().end()) nodeLayout_.insert(*it);
  }
  for (const Group& gr : groups_) {
    if (auto it = g.groupLayout().find(gr.id); it != g.groupLayout().end()) {
      groupLayout_.insert(*it);
    }
  }
}

void AppendCommand::undo() {
  doc_->mutableGraph().truncate(nodesBefore_, groupsBefore_);
  doc_->structureEdited();
}

void AppendCommand::redo() {
  if (applied_) {
    applied_ = false;
    return;
  }
  Graph& g = doc_->mutableGraph();
  for (const Node& n : nodes_) g.addUnchecked(n);
  for (const Group& gr : groups_) g.addGroupUnchecked(gr);
  for (const auto& [id, pos] : nodeLayout_) g.layout()[id] = pos;
  for (const auto& [id, pos] : groupLayout_) g.groupLayout()[id] = pos;
  doc_->structureEdited();
}

SnapshotCommand::SnapshotCommand(Document* doc, Graph before, Graph after, const QString& text)
    : QUndoCommand(text), doc_(doc), before_(std::move(before)), after_(std::move(after)) {}

void SnapshotCommand::undo() { doc_->restoreGraph(before_); }

void SnapshotCommand::redo() {
  if (applied_) {
    applied_ = false;
    return;
  }
  doc_->restoreGraph(after_);
}

MoveCommand::MoveCommand(Document* doc, Positions before, Positions after, bool mergeable,
                         const QString& text, QUndoCommand* parent)
    : QUndoCommand(text, parent),
      doc_(doc),
      before_(std::move(before)),
      after_(std::move(after)),
      mergeable_(mergeable) {}

void MoveCommand::undo() { doc_->restorePositions(before_); }

void MoveCommand::redo() {
  if (applied_) {
    applied_ = false;
    return;
  }
  doc_->restorePositions(after_);
}

bool MoveCommand::mergeWith(const QUndoCommand* other) {
  const auto* move = dynamic_cast<const MoveCommand*>(other);
  if (move == nullptr || !move->mergeable_) return false;
  // Only a continuation of the same items' move merges.
  auto sameKeys = [](const auto& a, const auto& b) {
    if (a.size() != b.size()) return false;
    for (auto ia = a.begin(), ib = b.begin(); ia != a.end(); ++ia, ++ib) {
      if (ia->first != ib->first) return false;
    }
    return true;
  };
  if (!sameKeys(after_.nodes, move->after_.nodes) ||
      !sameKeys(after_.groups, move->after_.groups)) {
    return false;
  }
  after_ = move->after_;
  return true;
}

GroupExpandCommand::GroupExpandCommand(Document* doc, std::vector<GroupId> groups, bool expanded,
                                       const QString& text, QUndoCommand* parent)
    : QUndoCommand(text, parent), doc_(doc), groups_(std::move(groups)), expanded_(expanded) {}

void GroupExpandCommand::undo() { doc_->restoreGroupsExpanded(groups_, !expanded_); }

void GroupExpandCommand::redo() { doc_->restoreGroupsExpanded(groups_, expanded_); }

}  // namespace lsrl::studio
