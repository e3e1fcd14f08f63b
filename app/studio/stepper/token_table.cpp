#include "app/studio/stepper/token_table.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>
#include <set>

#include "core/util/error.h"

namespace lsrl::studio {

TokenTable::TokenTable(QWidget* parent) : QWidget(parent), table_(new QTableWidget(0, 1, this)) {
  auto* add = new QPushButton(tr("Add row"), this);
  auto* remove = new QPushButton(tr("Remove rows"), this);
  status_ = new QLabel(this);
  status_->setWordWrap(true);
  table_->verticalHeader()->setDefaultSectionSize(20);
  table_->horizontalHeader()->setStretchLastSection(true);
  auto* buttons = new QHBoxLayout;
  buttons->addWidget(add);
  buttons->addWidget(remove);
  buttons->addStretch();
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(table_);
  layout->addLayout(buttons);
  layout->addWidget(status_);
  connect(add, &QPushButton::clicked, this, &TokenTable::addRow);
  connect(remove, &QPushButton::clicked, this, &TokenTable::removeRows);
  connect(table_, &QTableWidget::cellChanged, this, [this](int row, int col) {
    if (filling_) return;
    checkCell(row, col);
    Q_EMIT tokensEdited();
  });
}

// Rows are labelled with the step t they feed (0-based, as the stepper counts).
void TokenTable::relabel() {
  QStringList rows, cols;
  for (int r = 0; r < table_->rowCount(); ++r) rows << QString::number(r);
  for (int c = 0; c < table_->columnCount(); ++c) cols << QStringLiteral("x[%1]").arg(c);
  table_->setVerticalHeaderLabels(rows);
  table_->setHorizontalHeaderLabels(cols);
}

int TokenTable::tokenWidth() const { return table_->columnCount(); }
int TokenTable::rowCount() const { return table_->rowCount(); }

void TokenTable::setTokenWidth(int width) {
  const int old = table_->columnCount();
  if (width == old) return;
  filling_ = true;
  table_->setColumnCount(width);
  for (int r = 0; r < table_->rowCount(); ++r)
    for (int c = old; c < width; ++c)
      table_->setItem(r, c, new QTableWidgetItem(QStringLiteral("0")));
  filling_ = false;
  relabel();
  Q_EMIT tokensEdited();
}

void TokenTable::checkCell(int row, int col) {
  QTableWidgetItem* item = table_->item(row, col);
  if (item == nullptr) return;
  try {
    (void)Exact::parse(item->text().trimmed().toStdString());
    item->setBackground(QBrush());
    item->setToolTip({});
    status_->clear();
  } catch (const Error& e) {
    item->setBackground(QColor(255, 200, 200));
    item->setToolTip(QString::fromStdString(e.what()));
    status_->setText(tr("token %1, feature %2: %3").arg(row).arg(col).arg(e.what()));
  }
}

ExactSequence TokenTable::tokens() const {
  ExactSequence out;
  for (int r = 0; r < table_->rowCount(); ++r) {
    ExactVector row;
    for (int c = 0; c < table_->columnCount(); ++c) {
      const QTableWidgetItem* item = table_->item(r, c);
      const std::string text = item ? item->text().trimmed().toStdString() : "0";
      try {
        row.push_back(Exact::parse(text));
      } catch (const Error& e) {
        throw Error("token " + std::to_string(r) + ", feature " + std::to_string(c) + ": " +
                    e.what());
      }
    }
    out.push_back(std::move(row));
  }
  return out;
}

void TokenTable::setTokens(const ExactSequence& tokens) {
  filling_ = true;
  const int width = tokens.empty() ? tokenWidth() : static_cast<int>(tokens.front().size());
  table_->clearContents();
  table_->setColumnCount(width);
  table_->setRowCount(static_cast<int>(tokens.size()));
  for (int r = 0; r < table_->rowCount(); ++r)
    for (int c = 0; c < width; ++c)
      table_->setItem(r, c,
                      new QTableWidgetItem(QString::fromStdString(
                          tokens[static_cast<size_t>(r)][static_cast<size_t>(c)].toString())));
  status_->clear();
  filling_ = false;
  relabel();
  Q_EMIT tokensEdited();
}

void TokenTable::setCurrentRow(int t) {
  if (t < 0 || t >= table_->rowCount()) {
    table_->clearSelection();
    return;
  }
  table_->selectRow(t);
  table_->scrollToItem(table_->item(t, 0));
}

void TokenTable::addRow() {
  const int at = table_->currentRow() >= 0 ? table_->currentRow() + 1 : table_->rowCount();
  filling_ = true;
  table_->insertRow(at);
  for (int c = 0; c < table_->columnCount(); ++c)
    table_->setItem(at, c, new QTableWidgetItem(QStringLiteral("0")));
  filling_ = false;
  relabel();
  Q_EMIT tokensEdited();
}

void TokenTable::removeRows() {
  std::set<int> rows;
  for (const QTableWidgetItem* item : table_->selectedItems()) rows.insert(item->row());
  if (rows.empty() && table_->currentRow() >= 0) rows.insert(table_->currentRow());
  for (auto it = rows.rbegin(); it != rows.rend(); ++it) table_->removeRow(*it);
  relabel();
  if (!rows.empty()) Q_EMIT tokensEdited();
}

}  // namespace lsrl::studio
