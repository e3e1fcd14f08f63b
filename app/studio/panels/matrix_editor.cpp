#include "app/studio/panels/matrix_editor.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QTableView>
#include <QVBoxLayout>

#include "app/studio/panels/matrix_model.h"
#include "core/graph/checks.h"
#include "core/util/error.h"

namespace lsrl::studio {

namespace {

// Matrices up to this many cells get columns sized to their contents; larger ones keep
// a fixed width, since sizing to contents visits every cell.
constexpr long long kFitContentsCells = 4096;

ExactMatrix resized(const ExactMatrix& m, int rows, int cols) {
  std::vector<ExactMatrix::Entry> kept;
  for (ExactMatrix::Entry& e : m.entries()) {
    if (e.row < rows && e.col < cols) kept.push_back(std::move(e));
  }
  return ExactMatrix::fromEntries(rows, cols, std::move(kept));
}

}  // namespace

MatrixEditor::MatrixEditor(Document* document, QWidget* parent)
    : QWidget(parent), document_(document), model_(new MatrixModel(document, this)) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 4, 0, 0);

  shape_ = new QLabel(this);
  shape_->setObjectName(QStringLiteral("matrixShape"));
  layout->addWidget(shape_);

  auto* sizeRow = new QHBoxLayout;
  sizeRow->addWidget(new QLabel(tr("Rows"), this));
  rows_ = new QSpinBox(this);
  rows_->setRange(1, kMaxNodeDim);
  rows_->setKeyboardTracking(false);  // one edit on Enter, not one per digit
  sizeRow->addWidget(rows_);
  colsLabel_ = new QLabel(tr("Columns"), this);
  sizeRow->addWidget(colsLabel_);
  cols_ = new QSpinBox(this);
  cols_->setRange(0, kMaxNodeDim);
  cols_->setKeyboardTracking(false);
  sizeRow->addWidget(cols_);
  sizeRow->addStretch(1);
  layout->addLayout(sizeRow);
  // On a row of its own: beside the spin boxes it made the Properties dock (and with it
  // the window) wider than a 1000 px screen allows.
  auto* fitRow = new QHBoxLayout;
  fit_ = new QPushButton(tr("Fit columns to input width"), this);
  fit_->setToolTip(tr("Resize the columns to the width of the node feeding this one"));
  fitRow->addWidget(fit_);
  fitRow->addStretch(1);
  layout->addLayout(fitRow);

  table_ = new QTableView(this);
  table_->setModel(model_);
  table_->setEditTriggers(QAbstractItemView::DoubleClicked | QAbstractItemView::EditKeyPressed |
                          QAbstractItemView::AnyKeyPressed);
  table_->horizontalHeader()->setDefaultSectionSize(72);
  table_->horizontalHeader()->setMinimumSectionSize(40);
  table_->horizontalHeader()->setMaximumSectionSize(320);
  table_->verticalHeader()->setDefaultSectionSize(22);
  table_->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
  table_->setWordWrap(false);
  layout->addWidget(table_, 1);

  error_ = new QLabel(this);
  error_->setObjectName(QStringLiteral("matrixError"));
  error_->setStyleSheet(QStringLiteral("color: #c0392b;"));
  error_->setWordWrap(true);
  error_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  error_->hide();
  layout->addWidget(error_);

  connect(model_, &MatrixModel::editRejected, this, &MatrixEditor::showError);
  connect(model_, &MatrixModel::editAccepted, this, [this] { showError({}); });
  connect(model_, &QAbstractItemModel::modelReset, this, &MatrixEditor::refresh);
  connect(model_, &QAbstractItemModel::dataChanged, this, &MatrixEditor::refresh);
  connect(rows_, &QSpinBox::valueChanged, this, &MatrixEditor::resizeRows);
  connect(cols_, &QSpinBox::valueChanged, this, &MatrixEditor::resizeCols);
  connect(fit_, &QPushButton::clicked, this, [this] {
    if (const int w = producerWidth(); w >= 0) resizeCols(w);
  });
  connect(document_, &Document::edgesChanged, this, &MatrixEditor::refresh);
  connect(document_, &Document::structureChanged, this, &MatrixEditor::refresh);
}

void MatrixEditor::setTarget(NodeId node, Field field) {
  showError({});
  model_->setTarget(node, field);
  refresh();
}

void MatrixEditor::fitColumns() {
  const long long cells = static_cast<long long>(model_->rowCount()) * model_->columnCount();
  if (cells > 0 && cells <= kFitContentsCells) table_->resizeColumnsToContents();
}

QString MatrixEditor::shapeText() const { return shape_->text(); }

QString MatrixEditor::errorText() const { return error_->isHidden() ? QString() : error_->text(); }

void MatrixEditor::showError(const QString& message) {
  error_->setText(message);
  error_->setVisible(!message.isEmpty());
}

int MatrixEditor::producerWidth() const {
  if (!model_->hasTarget()) return -1;
  const Graph& g = document_->graph();
  const Node& n = g.node(model_->node());
  if (n.inputs.empty()) return -1;
  const NodeId p = n.inputs[0];
  if (!g.contains(p)) return -1;
  return g.node(p).dim;
}

void MatrixEditor::refresh() {
  fitColumns();
  const bool has = model_->hasTarget();
  const bool vector = isVectorField(model_->field());
  const int rows = model_->matrixRows();
  const int cols = model_->matrixCols();
  const QString name = QString::fromUtf8(fieldName(model_->field()).data());
  if (!has) {
    shape_->setText(tr("No matrix"));
  } else if (vector) {
    shape_->setText(
        tr("%1: vector of %2 (%3 non-zero)").arg(name).arg(rows).arg(model_->nonZeros()));
  } else {
    shape_->setText(
        tr("%1: %2 × %3 (%4 non-zero)").arg(name).arg(rows).arg(cols).arg(model_->nonZeros()));
  }
  const bool linState = has && document_->graph().node(model_->node()).op == Op::LinState;
  // LinState's A is square (the state width): only its rows are resized.
  const bool colsEditable = has && !vector && !(linState && model_->field() == Field::A);
  {
    const QSignalBlocker blockRows(rows_);
    const QSignalBlocker blockCols(cols_);
    rows_->setValue(std::max(rows, 1));
    cols_->setValue(cols);
  }
  rows_->setEnabled(has);
  cols_->setVisible(!vector);
  colsLabel_->setVisible(!vector);
  cols_->setEnabled(colsEditable);
  const int width = producerWidth();
  fit_->setVisible(!vector);
  fit_->setEnabled(colsEditable && width >= 0 && width != cols);
  fit_->setToolTip(width >= 0 ? tr("Resize to %1 columns, the width of the input").arg(width)
                              : tr("The input is not connected"));
}

void MatrixEditor::resizeRows(int rows) {
  if (!model_->hasTarget() || rows == model_->matrixRows()) return;
  const NodeId id = model_->node();
  const Node& n = document_->graph().node(id);
  bool inMacro = false;
  try {
    if (n.op == Op::Linear) {
      // b follows A's rows (the document re-derives offset vectors).
      document_->setMatrix(id, Field::A, resized(n.A, rows, n.A.cols()));
    } else if (n.op == Op::LinState) {
      QUndoStack* undo = document_->undoStack();
      undo->beginMacro(tr("Resize the state of node %1 to %2").arg(id).arg(rows));
      inMacro = true;
      const ExactMatrix B = resized(n.B, rows, n.B.cols());
      document_->setMatrix(id, Field::A, resized(n.A, rows, rows));
      document_->setMatrix(id, Field::B, B);
      inMacro = false;
      undo->endMacro();
    }
    showError({});
  } catch (const Error& e) {
    if (inMacro) document_->undoStack()->endMacro();
    showError(QString::fromUtf8(e.what()));
    refresh();
  }
}

void MatrixEditor::resizeCols(int cols) {
  if (!model_->hasTarget() || cols == model_->matrixCols()) return;
  const NodeId id = model_->node();
  const Node& n = document_->graph().node(id);
  const Field field = model_->field();
  try {
    const ExactMatrix& m = field == Field::B ? n.B : n.A;
    document_->setMatrix(id, field, resized(m, m.rows(), cols));
    showError({});
  } catch (const Error& e) {
    showError(QString::fromUtf8(e.what()));
    refresh();
  }
}

MatrixEditor::~MatrixEditor() {
  // Destroying the child widgets may emit (a focused line edit's editingFinished) after
  // this object's members are gone: cut those connections first.
  for (QObject* child : findChildren<QObject*>())
    QObject::disconnect(child, nullptr, this, nullptr);
}

}  // namespace lsrl::studio
