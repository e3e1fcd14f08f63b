// What a person typed into the matrix cells of a document, so that a cell shows
// "sqrt(3)/2" again instead of the same number in the form Exact::toString chooses
// ("cos(pi/6)"). A typed text is shown only while the entry still holds the value it
// was parsed to: an undo, a paste or a resize that changes the entry shows the stored
// value's own text. Kept beside the document (a child of it), so that it outlives the
// matrix editors, which come and go with the selection; forgotten when the document is
// replaced.
#pragma once

#include <QObject>
#include <QString>
#include <map>
#include <tuple>

#include "app/studio/document/document.h"

namespace lsrl::studio {

class TypedEntryTexts : public QObject {
  Q_OBJECT

 public:
  // The texts typed into `document`'s cells (created on first use).
  static TypedEntryTexts& of(Document* document);

  void remember(NodeId node, Field field, int row, int col, const QString& typed,
                const Exact& value);
  // The text typed into the cell when the entry still equals its value, else empty.
  QString textFor(NodeId node, Field field, int row, int col, const Exact& entry) const;

 private:
  explicit TypedEntryTexts(Document* document);

  using Cell = std::tuple<NodeId, Field, int, int>;
  struct Typed {
    QString text;
    Exact value;
  };
  std::map<Cell, Typed> typed_;
};

}  // namespace lsrl::studio
