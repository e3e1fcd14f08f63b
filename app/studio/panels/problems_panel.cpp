#include "app/studio/panels/problems_panel.h"

#include <QHeaderView>
#include <QLabel>
#include <QStyle>
#include <QTreeWidget>
#include <QVBoxLayout>

#include "app/studio/panels/node_label.h"

namespace lsrl::studio {

namespace {

// Problems past this count are summarised in one row: a broken file can have thousands.
constexpr size_t kMaxRows = 2000;
constexpr int kNodeRole = Qt::UserRole;

}  // namespace

ProblemsPanel::ProblemsPanel(Document* document, QWidget* parent)
    : QWidget(parent), document_(document) {
  auto* layout = new QVBoxLayout(this);
  header_ = new QLabel(this);
  header_->setObjectName(QStringLiteral("problemsHeader"));
  layout->addWidget(header_);
  list_ = new QTreeWidget(this);
  list_->setColumnCount(2);
  list_->setHeaderLabels({tr("Node"), tr("Problem")});
  list_->setRootIsDecorated(false);
  list_->setUniformRowHeights(true);
  list_->setWordWrap(false);
  list_->header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
  list_->header()->setStretchLastSection(true);
  layout->addWidget(list_, 1);

  connect(list_, &QTreeWidget::itemDoubleClicked, this, [this](QTreeWidgetItem* item) {
    const NodeId id = item->data(0, kNodeRole).toInt();
    if (id != kNoNode) Q_EMIT nodeActivated(id);
  });
  connect(document_, &Document::problemsChanged, this, &ProblemsPanel::refresh);
  connect(document_, &Document::documentReplaced, this, &ProblemsPanel::refresh);
  // Renames change how nodes are labelled.
  connect(document_, &Document::nodesChanged, this,
          [this](const std::vector<NodeId>&) { refresh(); });
  refresh();
}

QString ProblemsPanel::headerText() const { return header_->text(); }

void ProblemsPanel::refresh() {
  const std::vector<Problem>& problems = document_->problems();
  header_->setText(problems.empty()       ? tr("No problems")
                   : problems.size() == 1 ? tr("1 problem")
                                          : tr("%1 problems").arg(problems.size()));
  list_->setUpdatesEnabled(false);
  list_->clear();
  const QIcon icon = style()->standardIcon(QStyle::SP_MessageBoxWarning);
  const Graph& g = document_->graph();
  QList<QTreeWidgetItem*> rows;
  for (size_t i = 0; i < problems.size() && i < kMaxRows; ++i) {
    const Problem& p = problems[i];
    auto* item = new QTreeWidgetItem;
    item->setIcon(0, icon);
    item->setText(0, p.node == kNoNode ? tr("(program)") : nodeLabel(g, p.node));
    item->setText(1, QString::fromStdString(p.message));
    item->setToolTip(1, QString::fromStdString(p.message));
    item->setData(0, kNodeRole, p.node);
    rows << item;
  }
  if (problems.size() > kMaxRows) {
    auto* more = new QTreeWidgetItem;
    more->setText(1, tr("... and %1 more").arg(problems.size() - kMaxRows));
    more->setData(0, kNodeRole, kNoNode);
    rows << more;
  }
  list_->addTopLevelItems(rows);
  list_->setUpdatesEnabled(true);
}

}  // namespace lsrl::studio
