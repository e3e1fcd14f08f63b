// Help > Keyboard Shortcuts: every key the window's actions answer to, read from the
// actions themselves each time the list opens (so it never falls behind the menus),
// grouped by the menu that offers each action.
#pragma once

#include <QDialog>

class QMainWindow;
class QTreeWidget;

namespace lsrl::studio {

class ShortcutsDialog : public QDialog {
  Q_OBJECT

 public:
  explicit ShortcutsDialog(QMainWindow* window);

  // Reads the window's actions again (texts and keys change: "Undo Add Linear").
  void refresh();

 protected:
  // Each time the list opens it is read afresh.
  void showEvent(QShowEvent* event) override;

 private:
  QMainWindow* window_;
  QTreeWidget* tree_;
};

}  // namespace lsrl::studio
