#include "app/studio/panels/typed_entry_texts.h"

namespace lsrl::studio {

TypedEntryTexts& TypedEntryTexts::of(Document* document) {
  auto* texts = document->findChild<TypedEntryTexts*>(QString(), Qt::FindDirectChildrenOnly);
  if (texts == nullptr) texts = new TypedEntryTexts(document);
  return *texts;
}

TypedEntryTexts::TypedEntryTexts(Document* document) : QObject(document) {
  // Another file's node ids name other nodes.
  connect(document, &Document::documentReplaced, this, [this] { typed_.clear(); });
}

void TypedEntryTexts::remember(NodeId node, Field field, int row, int col, const QString& typed,
                               const Exact& value) {
  typed_.insert_or_assign(Cell{node, field, row, col}, Typed{typed, value});
}

QString TypedEntryTexts::textFor(NodeId node, Field field, int row, int col,
                                 const Exact& entry) const {
  const auto it = typed_.find(Cell{node, field, row, col});
  if (it == typed_.end() || !(it->second.value == entry)) return {};
  return it->second.text;
}

}  // namespace lsrl::studio
