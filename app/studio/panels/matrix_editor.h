// The matrix editor: a table of one field's entries (MatrixModel), a shape line
// ("A: 3 × 5 (7 non-zero)"), spin boxes that resize the field, a button that fits the
// columns to the input's width, and the reason of the last refused edit.
#pragma once

#include <QWidget>

#include "app/studio/document/document.h"

class QLabel;
class QPushButton;
class QSpinBox;
class QTableView;

namespace lsrl::studio {

class MatrixModel;

class MatrixEditor : public QWidget {
  Q_OBJECT

 public:
  explicit MatrixEditor(Document* document, QWidget* parent = nullptr);
  ~MatrixEditor() override;

  void setTarget(NodeId node, Field field);
  MatrixModel* model() const { return model_; }
  QTableView* table() const { return table_; }
  QSpinBox* rowsSpinBox() const { return rows_; }
  QSpinBox* colsSpinBox() const { return cols_; }
  QPushButton* fitButton() const { return fit_; }
  QString shapeText() const;
  QString errorText() const;
  // Hides a refusal shown for the last edit (another selection, the document changed).
  void clearError() { showError({}); }

 private:
  void refresh();
  // Small matrices: columns as wide as their values; large ones keep a fixed width.
  void fitColumns();
  void showError(const QString& message);
  // New output width (rows): Linear A and b follow; a LinState resizes A, B, init, bias.
  void resizeRows(int rows);
  void resizeCols(int cols);
  // The width of the node's producer, or -1 when its input is not connected.
  int producerWidth() const;

  Document* document_;
  MatrixModel* model_;
  QTableView* table_;
  QLabel* shape_;
  QSpinBox* rows_;
  QSpinBox* cols_;
  QLabel* colsLabel_;
  QPushButton* fit_;
  QLabel* error_;
};

}  // namespace lsrl::studio
