// The undo command behind every Document edit: one GraphChange (the records the edit
// touched, before and after), applied forwards by redo and backwards by undo. The edit
// was already applied when the command is pushed, so its first redo() does nothing.
// Commands may merge with the one before: the steps of one drag (arrow-key nudges) with
// the previous move of the same items, and the layout that follows Expand/Collapse All
// Groups with that command, so that one undo takes back both.
#pragma once

#include <QUndoCommand>

#include "app/studio/document/graph_change.h"

namespace lsrl::studio {

class Document;

enum class Merge {
  Never,
  SameMoves,      // a move step: merges with the previous move of the same items
  LayoutFollows,  // a change whose re-layout follows: the layout merges into it
};

class ChangeCommand : public QUndoCommand {
 public:
  ChangeCommand(Document* doc, GraphChange change, Merge merge, const QString& text);
  void undo() override;
  void redo() override;
  int id() const override;
  bool mergeWith(const QUndoCommand* other) override;
  const GraphChange& change() const { return change_; }

 private:
  Document* doc_;
  GraphChange change_;
  Merge merge_;
  bool applied_ = true;
};

}  // namespace lsrl::studio
