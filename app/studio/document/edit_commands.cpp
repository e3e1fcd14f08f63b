#include "app/studio/document/edit_commands.h"

#include "app/studio/document/document.h"

namespace lsrl::studio {

namespace {

// The items a position-only change moves (merging is for repeated moves of the same).
bool sameMovedItems(const GraphChange& a, const GraphChange& b) {
  auto keys = [](const auto& map) {
    std::vector<int> out;
    for (const auto& [id, p] : map) out.push_back(id);
    return out;
  };
  const bool positionsOnly = a.before.nodes.empty() && a.before.groups.empty() &&
                             b.before.nodes.empty() && b.before.groups.empty() &&
                             a.after.nodes.empty() && b.after.nodes.empty() &&
                             a.after.groups.empty() && b.after.groups.empty();
  return positionsOnly && keys(a.after.layout) == keys(b.after.layout) &&
         keys(a.after.groupLayout) == keys(b.after.groupLayout);
}

}  // namespace

ChangeCommand::ChangeCommand(Document* doc, GraphChange change, Merge merge, const QString& text)
    : QUndoCommand(text), doc_(doc), change_(std::move(change)), merge_(merge) {}

int ChangeCommand::id() const {
  switch (merge_) {
    case Merge::SameMoves:
      return 1;
    case Merge::LayoutFollows:
      return 2;
    case Merge::Never:
      break;
  }
  return -1;
}

void ChangeCommand::undo() { doc_->applyChange(change_, false); }

void ChangeCommand::redo() {
  if (applied_) {
    applied_ = false;
    return;
  }
  doc_->applyChange(change_, true);
}

bool ChangeCommand::mergeWith(const QUndoCommand* other) {
  const auto* next = dynamic_cast<const ChangeCommand*>(other);
  if (next == nullptr || next->merge_ != merge_) return false;
  if (merge_ == Merge::SameMoves && !sameMovedItems(change_, next->change_)) return false;
  change_.mergeWith(next->change_);
  if (merge_ == Merge::LayoutFollows) merge_ = Merge::Never;  // one layout follows, no more
  return true;
}

}  // namespace lsrl::studio
