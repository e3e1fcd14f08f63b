#include "app/studio/window/shortcuts_dialog.h"

#include <QAction>
#include <QDialogButtonBox>
#include <QHeaderView>
#include <QMainWindow>
#include <QMenu>
#include <QMenuBar>
#include <QSet>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace lsrl::studio {

namespace {

// An action's or menu's text as a person reads it: no '&' mnemonic, no ellipsis.
QString plainText(QString text) {
  text.remove(QLatin1Char('&'));
  if (text.endsWith(QChar(0x2026))) text.chop(1);
  return text;
}

QString keysOf(const QAction* action) {
  QStringList keys;
  for (const QKeySequence& key : action->shortcuts())
    keys << key.toString(QKeySequence::NativeText);
  return keys.join(QStringLiteral(", "));
}

// Adds a row per action of `menu` (and its submenus) that has a shortcut, under a group
// titled `title`; records the actions listed in `listed`.
void listMenu(QTreeWidget* tree, const QMenu* menu, const QString& title,
              QSet<const QAction*>& listed) {
  QTreeWidgetItem* group = nullptr;
  for (const QAction* action : menu->actions()) {
    if (action->menu() != nullptr) {
      listMenu(tree, action->menu(), title + QStringLiteral(" › ") + plainText(action->text()),
               listed);
      continue;
    }
    if (action->shortcuts().isEmpty() || listed.contains(action)) continue;
    if (group == nullptr) group = new QTreeWidgetItem(tree, {title});
    new QTreeWidgetItem(group, {plainText(action->text()), keysOf(action)});
    listed.insert(action);
  }
}

}  // namespace

ShortcutsDialog::ShortcutsDialog(QMainWindow* window)
    : QDialog(window), window_(window), tree_(new QTreeWidget(this)) {
  setWindowTitle(tr("Keyboard Shortcuts"));
  tree_->setColumnCount(2);
  tree_->setHeaderLabels({tr("Action"), tr("Keys")});
  tree_->setRootIsDecorated(false);
  tree_->setSelectionMode(QAbstractItemView::NoSelection);
  tree_->header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(tree_);
  layout->addWidget(buttons);
  resize(480, 560);
}

void ShortcutsDialog::showEvent(QShowEvent* event) {
  refresh();
  QDialog::showEvent(event);
}

void ShortcutsDialog::refresh() {
  tree_->clear();
  QSet<const QAction*> listed;
  for (const QAction* top : window_->menuBar()->actions()) {
    if (top->menu() != nullptr) listMenu(tree_, top->menu(), plainText(top->text()), listed);
  }
  // Actions bound to keys outside the menus (a view's own, such as the Models tab's step
  // bar) are shortcuts too.
  QTreeWidgetItem* other = nullptr;
  for (const QAction* action : window_->findChildren<QAction*>()) {
    if (action->shortcuts().isEmpty() || listed.contains(action)) continue;
    if (other == nullptr) other = new QTreeWidgetItem(tree_, {tr("Other keys")});
    new QTreeWidgetItem(other, {plainText(action->text()), keysOf(action)});
    listed.insert(action);
  }
  for (int i = 0; i < tree_->topLevelItemCount(); ++i) {
    QTreeWidgetItem* group = tree_->topLevelItem(i);
    QFont bold = group->font(0);
    bold.setBold(true);
    group->setFont(0, bold);
    group->setFirstColumnSpanned(true);
  }
  tree_->expandAll();
}

}  // namespace lsrl::studio
