#include "app/studio/panels/matrix_model.h"

#include <QBrush>
#include <QColor>
#include <QPalette>
#include <algorithm>

#include "app/studio/panels/typed_entry_texts.h"
#include "core/util/error.h"

namespace lsrl::studio {

std::vector<Field> fieldsOf(const Node& node) {
  switch (node.op) {
    case Op::Linear:
      return {Field::A, Field::b};
    case Op::LinState:
      return {Field::A, Field::B, Field::init, Field::bias};
    default:
      return {};
  }
}

namespace {

const ExactMatrix& matrixOf(const Node& n, Field f) { return f == Field::B ? n.B : n.A; }

const ExactVector& vectorOf(const Node& n, Field f) {
  if (f == Field::init) return n.init;
  if (f == Field::bias) return n.bias;
  return n.b;
}

quint64 cellKey(int row, int col) {
  return (static_cast<quint64>(static_cast<quint32>(row)) << 32) | static_cast<quint32>(col);
}

}  // namespace

MatrixModel::MatrixModel(Document* document, QObject* parent)
    : QAbstractTableModel(parent), document_(document) {
  connect(document_, &Document::nodesChanged, this, &MatrixModel::documentNodesChanged);
  connect(document_, &Document::structureChanged, this, &MatrixModel::documentStructureChanged);
  connect(document_, &Document::documentReplaced, this, [this] { setTarget(kNoNode, field_); });
}

bool MatrixModel::hasTarget() const {
  // Called for every painted cell: no allocation here.
  if (!document_->graph().contains(node_)) return false;
  switch (document_->graph().node(node_).op) {
    case Op::Linear:
      return field_ == Field::A || field_ == Field::b;
    case Op::LinState:
      return field_ != Field::b;
    default:
      return false;
  }
}

void MatrixModel::setTarget(NodeId node, Field field) {
  beginResetModel();
  node_ = node;
  field_ = field;
  textCache_.clear();
  rows_ = matrixRows();
  cols_ = matrixCols();
  endResetModel();
}

int MatrixModel::matrixRows() const {
  if (!hasTarget()) return 0;
  const Node& n = document_->graph().node(node_);
  if (isVectorField(field_)) return static_cast<int>(vectorOf(n, field_).size());
  return matrixOf(n, field_).rows();
}

int MatrixModel::matrixCols() const {
  if (!hasTarget()) return 0;
  if (isVectorField(field_)) return 1;
  return matrixOf(document_->graph().node(node_), field_).cols();
}

size_t MatrixModel::nonZeros() const {
  if (!hasTarget()) return 0;
  const Node& n = document_->graph().node(node_);
  if (!isVectorField(field_)) return matrixOf(n, field_).nonZeros();
  const ExactVector& v = vectorOf(n, field_);
  return static_cast<size_t>(
      std::count_if(v.begin(), v.end(), [](const Exact& x) { return !x.isZero(); }));
}

int MatrixModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : rows_; }

int MatrixModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : cols_;
}

int MatrixModel::cellColumn(int col) const { return isVectorField(field_) ? 0 : col; }

Exact MatrixModel::entry(int row, int col) const {
  const Node& n = document_->graph().node(node_);
  if (isVectorField(field_)) return vectorOf(n, field_)[static_cast<size_t>(row)];
  return matrixOf(n, field_).at(row, col);
}

const QString& MatrixModel::entryText(int row, int col) const {
  const quint64 key = cellKey(row, col);
  auto it = textCache_.find(key);
  if (it == textCache_.end()) {
    // What the person typed ("sqrt(3)/2") while the entry holds it; else the entry's own
    // text (Exact::toString may name the same number otherwise: "cos(pi/6)").
    const Exact value = entry(row, col);
    QString text =
        TypedEntryTexts::of(document_).textFor(node_, field_, row, cellColumn(col), value);
    if (text.isEmpty()) text = QString::fromStdString(value.toString());
    it = textCache_.insert(key, text);
  }
  return it.value();
}

QVariant MatrixModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rows_ || index.column() >= cols_ || !hasTarget()) {
    return {};
  }
  switch (role) {
    case Qt::DisplayRole:
    case Qt::EditRole:
      return entryText(index.row(), index.column());
    case Qt::ForegroundRole:
      if (entry(index.row(), index.column()).isZero()) return QBrush(QColor(160, 160, 160));
      return {};
    case Qt::ToolTipRole: {
      const Exact v = entry(index.row(), index.column());
      return QStringLiteral("%1[%2, %3] = %4\n≈ %5")
          .arg(QString::fromUtf8(fieldName(field_).data()))
          .arg(index.row())
          .arg(index.column())
          .arg(entryText(index.row(), index.column()))
          .arg(v.toDouble(), 0, 'g', 17);
    }
    case Qt::TextAlignmentRole:
      return int(Qt::AlignRight | Qt::AlignVCenter);
    default:
      return {};
  }
}

bool MatrixModel::setData(const QModelIndex& index, const QVariant& value, int role) {
  if (role != Qt::EditRole || !index.isValid() || !hasTarget()) return false;
  QString text = value.toString().trimmed();
  if (text.isEmpty()) text = QStringLiteral("0");  // clearing a cell means zero
  try {
    const Exact parsed = Exact::parse(text.toStdString());
    const int col = cellColumn(index.column());
    TypedEntryTexts::of(document_).remember(node_, field_, index.row(), col, text, parsed);
    // The document emits nodesChanged, which refreshes the cell.
    document_->setEntry(node_, field_, index.row(), col, parsed);
  } catch (const Error& e) {
    Q_EMIT editRejected(QStringLiteral("%1[%2, %3]: '%4' was not accepted: %5")
                            .arg(QString::fromUtf8(fieldName(field_).data()))
                            .arg(index.row())
                            .arg(index.column())
                            .arg(text, QString::fromUtf8(e.what())));
    return false;
  }
  Q_EMIT editAccepted();
  return true;
}

Qt::ItemFlags MatrixModel::flags(const QModelIndex& index) const {
  if (!index.isValid()) return Qt::NoItemFlags;
  return Qt::ItemIsSelectable | Qt::ItemIsEnabled | Qt::ItemIsEditable;
}

QVariant MatrixModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (role != Qt::DisplayRole) return {};
  if (orientation == Qt::Horizontal && isVectorField(field_)) {
    return QString::fromUtf8(fieldName(field_).data());
  }
  return section;  // 0-based, as node widths and slices count
}

void MatrixModel::refresh() {
  const int rows = matrixRows();
  const int cols = matrixCols();
  textCache_.clear();
  if (rows != rows_ || cols != cols_) {
    beginResetModel();
    rows_ = rows;
    cols_ = cols;
    endResetModel();
  } else if (rows_ > 0 && cols_ > 0) {
    Q_EMIT dataChanged(index(0, 0), index(rows_ - 1, cols_ - 1));
  }
}

void MatrixModel::documentNodesChanged(const std::vector<NodeId>& ids) {
  if (std::find(ids.begin(), ids.end(), node_) != ids.end()) refresh();
}

void MatrixModel::documentStructureChanged() { refresh(); }

}  // namespace lsrl::studio
