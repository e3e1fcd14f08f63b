// A table model over one matrix or vector field of one node of the document: every
// entry shown exactly (the scalar grammar), zeros in grey, the float value in the
// tooltip; a value typed in is shown as typed while the entry holds it (typed_entry_texts.h).
// Edits are parsed with Exact::parse; a malformed value is refused with the
// parser's message, an accepted one is one undo step (Document::setEntry).
#pragma once

#include <QAbstractTableModel>
#include <QHash>
#include <QString>

#include "app/studio/document/document.h"

namespace lsrl::studio {

// The matrix and vector fields a node carries, in tab order (Linear: A, b; LinState: A,
// B, init, bias; others none).
std::vector<Field> fieldsOf(const Node& node);

class MatrixModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  explicit MatrixModel(Document* document, QObject* parent = nullptr);

  // The field shown; kNoNode (or a node without that field) shows nothing.
  void setTarget(NodeId node, Field field);
  NodeId node() const { return node_; }
  Field field() const { return field_; }
  // The current shape (vectors are one column) and number of non-zero entries.
  int matrixRows() const;
  int matrixCols() const;
  size_t nonZeros() const;
  bool hasTarget() const;

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  bool setData(const QModelIndex& index, const QVariant& value, int role = Qt::EditRole) override;
  Qt::ItemFlags flags(const QModelIndex& index) const override;
  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override;

 Q_SIGNALS:
  // A value was refused: the parser's (or the document's) message.
  void editRejected(const QString& message);
  // A value was accepted and stored.
  void editAccepted();

 private:
  Exact entry(int row, int col) const;
  // The entry's column in the document (vectors: 0).
  int cellColumn(int col) const;
  // Exact::toString is costly for irrational values: cache per cell until the next change.
  const QString& entryText(int row, int col) const;
  void documentNodesChanged(const std::vector<NodeId>& ids);
  void documentStructureChanged();
  void refresh();

  Document* document_;
  NodeId node_ = kNoNode;
  Field field_ = Field::A;
  int rows_ = 0;
  int cols_ = 0;
  mutable QHash<quint64, QString> textCache_;
};

}  // namespace lsrl::studio
