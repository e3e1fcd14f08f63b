// The stepper's token list editor: one token per row, one column per input feature,
// every cell in the exact scalar grammar ("1", "1/3", "sqrt(2)/2"). Malformed cells are
// marked red with the parser's message and make tokens() throw.
#pragma once

#include <QWidget>

#include "core/executor/executor.h"

class QTableWidget;
class QLabel;

namespace lsrl::studio {

class TokenTable : public QWidget {
  Q_OBJECT

 public:
  explicit TokenTable(QWidget* parent = nullptr);

  int tokenWidth() const;
  // Changes the column count (the program's Input width); new cells hold 0.
  void setTokenWidth(int width);
  int rowCount() const;
  // The tokens; throws lsrl::Error naming the row, column and the parser's message.
  ExactSequence tokens() const;
  void setTokens(const ExactSequence& tokens);
  // Marks row t (the stepper's current step), or none for -1.
  void setCurrentRow(int t);

 public Q_SLOTS:
  void addRow();      // after the selected row (or at the end), all zeros
  void removeRows();  // the selected rows

 Q_SIGNALS:
  void tokensEdited();

 private:
  void checkCell(int row, int col);
  void relabel();

  QTableWidget* table_;
  QLabel* status_;
  bool filling_ = false;
};

}  // namespace lsrl::studio
