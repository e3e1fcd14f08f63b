#include "app/studio/player/node_inspector.h"

#include <QComboBox>
#include <QHeaderView>
#include <QLabel>
#include <QTableWidget>
#include <QVBoxLayout>

#include "app/studio/editor/node_style.h"
#include "app/studio/player/matrix_conditioning.h"

namespace lsrl::studio {

namespace {

// Bigger fields show their top-left corner: a table of 10^5 cells helps nobody.
constexpr int kMaxShown = 200;

QStringList zeroBasedLabels(int count) {
  QStringList labels;
  labels.reserve(count);
  for (int i = 0; i < count; ++i) labels << QString::number(i);
  return labels;
}

}  // namespace

NodeInspector::NodeInspector(QWidget* parent)
    : QWidget(parent),
      header_(new QLabel(this)),
      field_(new QComboBox(this)),
      shape_(new QLabel(this)),
      conditioning_(new QLabel(this)),
      table_(new QTableWidget(this)) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  header_->setWordWrap(true);
  header_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  layout->addWidget(header_);
  layout->addWidget(field_);
  layout->addWidget(shape_);
  conditioning_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  conditioning_->setWordWrap(true);
  conditioning_->setToolTip(
      tr("How this matrix fares in floating point: fp32 keeps 24 bits, so a row that adds "
         "terms more than 2^24 apart loses the small ones (docs/precision.md)"));
  layout->addWidget(conditioning_);
  layout->addWidget(table_, 1);
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->horizontalHeader()->setDefaultSectionSize(56);
  table_->verticalHeader()->setDefaultSectionSize(20);
  connect(field_, &QComboBox::currentIndexChanged, this, [this] { showField(); });
  inspect(nullptr, kNoNode);
}

QString NodeInspector::headerText() const { return header_->text(); }

QString NodeInspector::conditioningText() const { return conditioning_->text(); }

void NodeInspector::inspect(std::shared_ptr<const CompileHistory> history, NodeId id) {
  id_ = id;
  node_.reset();
  if (history && id != kNoNode) node_ = history->payload(id);
  const QSignalBlocker block(field_);
  field_->clear();
  if (!node_) {
    header_->setText(tr("Click a node to see its matrices at this step."));
    showField();
    return;
  }
  updateHeader();
  if (node_->op == Op::Linear) field_->addItems({QStringLiteral("A"), QStringLiteral("b")});
  if (node_->op == Op::LinState) {
    field_->addItems(
        {QStringLiteral("A"), QStringLiteral("B"), QStringLiteral("init"), QStringLiteral("bias")});
  }
  showField();
}

void NodeInspector::setPresent(bool present) {
  if (present_ == present) return;
  present_ = present;
  updateHeader();
}

void NodeInspector::updateHeader() {
  if (!node_) return;
  QString text =
      tr("#%1 %2, width %3").arg(id_).arg(styleOpName(styleOpOf(*node_))).arg(node_->dim);
  if (!node_->name.empty())
    text += QStringLiteral(" '%1'").arg(QString::fromStdString(node_->name));
  if (!present_) text += tr(" (not in the graph at this step)");
  header_->setText(text);
}

void NodeInspector::showField() {
  table_->clear();
  table_->setRowCount(0);
  table_->setColumnCount(0);
  shape_->clear();
  conditioning_->clear();
  conditioning_->setVisible(false);
  if (!node_ || field_->currentIndex() < 0) return;
  const QString f = field_->currentText();
  const ExactMatrix* m = f == QLatin1String("A")   ? &node_->A
                         : f == QLatin1String("B") ? &node_->B
                                                   : nullptr;
  const ExactVector* v = f == QLatin1String("b")      ? &node_->b
                         : f == QLatin1String("init") ? &node_->init
                         : f == QLatin1String("bias") ? &node_->bias
                                                      : nullptr;
  const int rows = m != nullptr ? m->rows() : static_cast<int>(v->size());
  const int cols = m != nullptr ? m->cols() : 1;
  shape_->setText(
      m != nullptr ? tr("%1: %2 × %3 (%4 non-zero)").arg(f).arg(rows).arg(cols).arg(m->nonZeros())
                   : tr("%1: %2 entries").arg(f).arg(rows));
  if (m != nullptr) {
    conditioning_->setText(conditioningOf(*m).describe());
    conditioning_->setVisible(true);
  }
  table_->setRowCount(std::min(rows, kMaxShown));
  table_->setColumnCount(std::min(cols, kMaxShown));
  // Numbered from 0, as the editor's matrix tables and node widths and slices count; a
  // vector's one column is named after it, as in the editor.
  table_->setVerticalHeaderLabels(zeroBasedLabels(table_->rowCount()));
  table_->setHorizontalHeaderLabels(m != nullptr ? zeroBasedLabels(table_->columnCount())
                                                 : QStringList{f});
  if (m != nullptr) {
    for (const ExactMatrix::Entry& e : m->entries()) {
      if (e.row >= kMaxShown || e.col >= kMaxShown) continue;
      table_->setItem(e.row, e.col,
                      new QTableWidgetItem(QString::fromStdString(e.value.toString())));
    }
  } else {
    for (int r = 0; r < std::min(rows, kMaxShown); ++r) {
      table_->setItem(r, 0, new QTableWidgetItem(QString::fromStdString((*v)[r].toString())));
    }
  }
}

}  // namespace lsrl::studio
