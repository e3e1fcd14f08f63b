// The scenario tests' hands: a person's mouse and keyboard on the explorer's real
// widgets, through QTest events only. Helpers find *where* to click (a widget, a port of
// a box in the graph view, a menu entry) by reading the widgets, never act by calling
// Document or view methods. Every flow starts from an empty window (Session) and saves
// a screenshot at each checkpoint.
#pragma once

#include <gtest/gtest.h>

#include <QAbstractButton>
#include <QAbstractItemView>
#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QCompleter>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDir>
#include <QElapsedTimer>
#include <QFileDialog>
#include <QGraphicsItem>
#include <QGraphicsView>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QPointer>
#include <QPushButton>
#include <QScreen>
#include <QStyle>
#include <QStyleOptionButton>
#include <QTabBar>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QTreeWidget>
#include <QWidget>
#include <functional>
#include <memory>

#include "app/studio/window/guarded_application.h"
#include "app/studio/window/main_window.h"
#include "studio/studio_test_util.h"

namespace lsrl::studio::scenario {

using test::waitUntil;

// Lets pending events (repaints, queued edits, timers) run for `ms` milliseconds.
inline void settle(int ms = 50) { QTest::qWait(ms); }

// ---- the window --------------------------------------------------------------------

// A fresh explorer as a person starts it: no file, 1600x1000, shown and exposed,
// recovery files in a private folder. Interactive: dialogs appear and the scenario
// answers them (see answerDialog).
struct Session {
  Session() {
    GuardedApplication::resetCaught();
    MainWindow::Options options;
    options.interactive = true;
    options.recoveryDir = recovery.path();
    window = std::make_unique<MainWindow>(options);
    window->resize(1600, 1000);
    window->show();
    EXPECT_TRUE(QTest::qWaitForWindowExposed(window.get()));
    window->activateWindow();
    settle(100);
  }
  ~Session() {
    // No handler may have let an exception reach the event loop's guard.
    EXPECT_EQ(GuardedApplication::caughtCount(), 0)
        << "an exception escaped an event handler: "
        << GuardedApplication::lastCaught().toStdString();
    // A person's unsaved edits would ask; the test has checked what it wanted by now.
    if (window) window->document()->undoStack()->setClean();
  }
  MainWindow& operator*() { return *window; }
  MainWindow* operator->() { return window.get(); }

  QTemporaryDir recovery;
  QTemporaryDir files;  // where the scenario saves and exports
  std::unique_ptr<MainWindow> window;
};

// Saves the whole window as <screenshots>/<name>.png (the checkpoint pictures).
inline QString checkpoint(QWidget& window, const QString& name) {
  settle(200);  // delayed redraws (the Overview) catch up, as they would for a person
  return test::saveScreenshot(window, name);
}

// ---- finding things ------------------------------------------------------------------

// The first descendant of `root` of type T whose objectName is `name` (any name if empty)
// and that is visible.
template <class T>
T* findVisible(QWidget* root, const QString& name = {}) {
  for (T* w : root->findChildren<T*>()) {
    auto* widget = qobject_cast<QWidget*>(w);
    if ((name.isEmpty() || w->objectName() == name) && (!widget || widget->isVisible())) return w;
  }
  return nullptr;
}

// The visible button (push or tool button) of `root` whose text, with '&' removed, is `text`.
inline QAbstractButton* button(QWidget* root, const QString& text) {
  for (QAbstractButton* b : root->findChildren<QAbstractButton*>()) {
    if (b->isVisible() && b->text().remove(QLatin1Char('&')) == text) return b;
  }
  return nullptr;
}

// ---- mouse -------------------------------------------------------------------------

// Makes `w`'s window the active one, as a window manager does when the person clicks or
// types into it. Xvfb runs no window manager, so after a dialog or a popup closes nobody
// gives the main window its focus back, and its shortcuts (Ctrl+Z) would go nowhere.
inline void activate(QWidget* w) {
  QWidget* window = w->window();
  if (window->isActiveWindow() || (window->windowFlags() & Qt::Popup) == Qt::Popup) return;
  window->activateWindow();
  (void)QTest::qWaitForWindowActive(window, 2000);
}

inline void click(QWidget* w, QPoint at = {}, Qt::MouseButton b = Qt::LeftButton,
                  Qt::KeyboardModifiers mods = {}) {
  ASSERT_NE(w, nullptr);
  activate(w);
  if (at.isNull()) at = w->rect().center();
  QTest::mouseClick(w, b, mods, at);
  settle(20);
}

// A person's double-click: a click, then the second press that Qt reports as a double-click.
inline void doubleClick(QWidget* w, QPoint at = {}) {
  ASSERT_NE(w, nullptr);
  activate(w);
  if (at.isNull()) at = w->rect().center();
  QTest::mouseClick(w, Qt::LeftButton, {}, at);
  QTest::mouseDClick(w, Qt::LeftButton, {}, at);
  settle(20);
}

// Clicks a check box on its box (a wide check box's centre may lie past its text, where a
// click does nothing).
inline void toggle(QCheckBox* box) {
  ASSERT_NE(box, nullptr);
  QStyleOptionButton option;
  option.initFrom(box);
  const QRect indicator = box->style()->subElementRect(QStyle::SE_CheckBoxIndicator, &option, box);
  click(box, indicator.center());
}

// Presses at `from`, moves in `steps` steps to `to` with the button held, releases there.
inline void drag(QWidget* w, QPoint from, QPoint to, Qt::MouseButton b = Qt::LeftButton,
                 int steps = 8) {
  ASSERT_NE(w, nullptr);
  activate(w);
  QTest::mousePress(w, b, {}, from);
  for (int i = 1; i <= steps; ++i) {
    const QPoint p = from + (to - from) * i / steps;
    QTest::mouseMove(w, p);
    QApplication::processEvents();
  }
  QTest::mouseRelease(w, b, {}, to);
  settle(20);
}

// Turns the wheel `notches` times (positive: away from the user) over `at`.
inline void wheel(QWidget* w, QPoint at, int notches, Qt::KeyboardModifiers mods = {}) {
  for (int i = 0; i < std::abs(notches); ++i) {
    const QPoint delta(0, notches > 0 ? 120 : -120);
    QWheelEvent event(at, w->mapToGlobal(at), QPoint(), delta, Qt::NoButton, mods,
                      Qt::NoScrollPhase, false);
    QApplication::sendEvent(w, &event);
  }
  settle(20);
}

// Clicks the item of a tree (the palette) whose text in column 0 is `text`; double:
// double-clicks it (the palette adds the entry).
inline void clickTreeItem(QTreeWidget* tree, const QString& text, bool dbl = false) {
  ASSERT_NE(tree, nullptr);
  activate(tree);
  const auto found = tree->findItems(text, Qt::MatchExactly | Qt::MatchRecursive);
  ASSERT_FALSE(found.isEmpty()) << "no tree item " << text.toStdString();
  tree->scrollToItem(found.front());
  const QPoint at = tree->visualItemRect(found.front()).center();
  if (dbl) {
    // A person's double-click is a click then a double-click event.
    QTest::mouseClick(tree->viewport(), Qt::LeftButton, {}, at);
    QTest::mouseDClick(tree->viewport(), Qt::LeftButton, {}, at);
  } else {
    QTest::mouseClick(tree->viewport(), Qt::LeftButton, {}, at);
  }
  settle(30);
}

// The first visible combo box under `root` that offers `text`.
inline QComboBox* comboOffering(QWidget* root, const QString& text) {
  for (QComboBox* box : root->findChildren<QComboBox*>())
    if (box->isVisible() && box->findText(text) >= 0) return box;
  return nullptr;
}

// Opens a combo box with a click and clicks the entry `text` in its list, as a person
// chooses. Returns the list (a popup of its own) while it was open, for callers that
// check how it was drawn; fails the test when the entry is missing.
inline void chooseInCombo(QComboBox* box, const QString& text,
                          const std::function<void(QWidget* list)>& whileOpen = {}) {
  ASSERT_NE(box, nullptr);
  click(box);
  QAbstractItemView* list = box->view();
  ASSERT_TRUE(waitUntil([&] { return list->isVisible(); }, 3000)) << "the list opens";
  if (whileOpen) whileOpen(list->window());
  const int row = box->findText(text);
  ASSERT_GE(row, 0) << "no entry " << text.toStdString();
  const QModelIndex index = list->model()->index(row, 0);
  list->scrollTo(index);
  const QPoint at = list->visualRect(index).center();
  settle(QApplication::doubleClickInterval());  // a release right after opening is ignored
  QTest::mouseMove(list->viewport(), at);
  QTest::mouseClick(list->viewport(), Qt::LeftButton, {}, at);
  ASSERT_TRUE(waitUntil([&] { return !list->isVisible(); }, 3000)) << "the list closes";
  ASSERT_EQ(box->currentText(), text);
}

// Clicks the tab titled `title` of the first visible tab widget in `root` that has one.
inline void clickTab(QWidget* root, const QString& title) {
  for (QTabBar* bar : root->findChildren<QTabBar*>()) {
    if (!bar->isVisible()) continue;
    for (int i = 0; i < bar->count(); ++i) {
      if (bar->tabText(i).remove(QLatin1Char('&')) == title) {
        click(bar, bar->tabRect(i).center());
        return;
      }
    }
  }
  ADD_FAILURE() << "no visible tab " << title.toStdString();
}

// ---- graph views: where a scene point is on screen -------------------------------------

// Scrolls `view` (with the scroll bars, as a person would) until `scenePos` is inside the
// viewport, then returns its viewport coordinates.
inline QPoint onScreen(QGraphicsView* view, QPointF scenePos) {
  view->ensureVisible(QRectF(scenePos, QSizeF(1, 1)), 60, 60);
  QApplication::processEvents();
  return view->mapFromScene(scenePos);
}

// ---- keyboard and menus ---------------------------------------------------------------

inline void key(QWidget* w, Qt::Key k, Qt::KeyboardModifiers mods = {}) {
  ASSERT_NE(w, nullptr);
  activate(w);
  QTest::keyClick(w, k, mods);
  settle(20);
}

inline void type(QWidget* w, const QString& text) {
  ASSERT_NE(w, nullptr);
  activate(w);
  QTest::keyClicks(w, text);
  settle(20);
}

// Walks the menu bar down by clicking, as a person does: `path` = {"File", "Examples",
// "tok2tok", "tok2tok (L=3, direct)"}. Each entry after the first is the one whose text
// (without '&' and a trailing ellipsis) is the path's word, else the first that starts
// with it. Fails the test if a step is missing or the last entry is disabled.
inline void menuPath(QMainWindow& window, const QStringList& path) {
  ASSERT_GE(path.size(), 2);
  QMenuBar* bar = window.menuBar();
  QAction* top = nullptr;
  for (QAction* a : bar->actions())
    if (a->text().remove(QLatin1Char('&')) == path.front()) top = a;
  ASSERT_NE(top, nullptr) << "no menu " << path.front().toStdString();
  click(bar, bar->actionGeometry(top).center());
  QMenu* open = top->menu();
  ASSERT_TRUE(waitUntil([&] { return open->isVisible(); }, 2000));
  auto plain = [](const QAction* a) {
    QString t = a->text().remove(QLatin1Char('&'));
    if (t.endsWith(QChar(0x2026))) t.chop(1);
    if (t.endsWith(QLatin1String("..."))) t.chop(3);
    return t;
  };
  for (qsizetype i = 1; i < path.size(); ++i) {
    QAction* entry = nullptr;
    for (QAction* a : open->actions())
      if (entry == nullptr && plain(a) == path[i]) entry = a;
    for (QAction* a : open->actions())
      if (entry == nullptr && plain(a).startsWith(path[i])) entry = a;
    ASSERT_NE(entry, nullptr) << "no menu entry " << path[i].toStdString();
    ASSERT_TRUE(entry->isEnabled()) << "menu entry disabled: " << path[i].toStdString();
    const QPoint at = open->actionGeometry(entry).center();
    QTest::mouseMove(open, at);
    QTest::mouseClick(open, Qt::LeftButton, {}, at);
    settle(30);
    if (i + 1 < path.size()) {
      open = entry->menu();
      ASSERT_NE(open, nullptr) << path[i].toStdString() << " is no submenu";
      ASSERT_TRUE(waitUntil([&] { return open->isVisible(); }, 2000));
    }
  }
}

// Menu `title`, entry `entry` (through `submenu` when given): menuPath's short form.
inline void menu(QMainWindow& window, const QString& title, const QString& entry,
                 const QString& submenu = {}) {
  menuPath(window,
           submenu.isEmpty() ? QStringList{title, entry} : QStringList{title, submenu, entry});
}

// ---- dialogs ---------------------------------------------------------------------------

// Arranges for `answer` to run on the next modal dialog of type D that opens (within
// `timeoutMs`, generous: a loaded machine opens menus slowly, and a dialog nobody answers
// hangs the test), as a person answers it; a dialog's exec() blocks the scenario, so the
// answer is scheduled before the action that opens it. `*answered` turns true once done.
template <class D>
void answerDialog(std::function<void(D*)> answer, std::shared_ptr<bool> answered = {},
                  int timeoutMs = 60000) {
  auto timer = std::make_shared<QElapsedTimer>();
  timer->start();
  auto poll = std::make_shared<std::function<void()>>();
  *poll = [answer, answered, timer, timeoutMs, poll] {
    if (auto* d = qobject_cast<D*>(QApplication::activeModalWidget()); d && d->isVisible()) {
      answer(d);
      if (answered) *answered = true;
      return;
    }
    if (timer->elapsed() < timeoutMs) QTimer::singleShot(20, *poll);
  };
  QTimer::singleShot(20, *poll);
}

// Answers the next message box by clicking its button with text `buttonText`; its text is
// stored in `*seen` when given.
inline void answerMessageBox(const QString& buttonText, std::shared_ptr<QString> seen = {},
                             std::shared_ptr<bool> answered = {}) {
  answerDialog<QMessageBox>(
      [buttonText, seen](QMessageBox* box) {
        if (seen) *seen = box->text();
        for (QAbstractButton* b : box->buttons()) {
          if (b->text().remove(QLatin1Char('&')) == buttonText) {
            QTest::mouseClick(b, Qt::LeftButton);
            return;
          }
        }
        box->reject();
      },
      std::move(answered));
}

// ---- layout checks -----------------------------------------------------------------

// Whether `w` is shown whole inside `window` (not cut off by a scroll area or the window
// edge): every ancestor up to the window contains its rectangle.
inline bool wholeInWindow(QWidget* w, QWidget* window) {
  if (w == nullptr || !w->isVisible()) return false;
  for (QWidget* p = w; p != window && p->parentWidget() != nullptr; p = p->parentWidget()) {
    const QRect inParent(w->mapTo(p->parentWidget(), QPoint(0, 0)), w->size());
    if (!p->parentWidget()->rect().contains(inParent)) return false;
  }
  return true;
}

// Answers the next file dialog (open, save or folder) with `path` as a person does: clicks
// into the name field, types it, dismisses the field's completer (Enter would land in its
// popup, which opens late as the folder is read), then clicks the accept button (Save,
// Open or Choose) once it is enabled. A field that does not hold `path` by then cancels
// the dialog instead, so that nothing is written elsewhere.
inline void answerFileDialog(const QString& path, std::shared_ptr<bool> answered = {}) {
  answerDialog<QFileDialog>(
      [path](QFileDialog* d) {
        auto* name = d->findChild<QLineEdit*>(QStringLiteral("fileNameEdit"));
        auto* buttons = d->findChild<QDialogButtonBox*>();
        QAbstractButton* accept = nullptr;
        if (buttons != nullptr) {
          accept =
              buttons->button(d->acceptMode() == QFileDialog::AcceptSave ? QDialogButtonBox::Save
                                                                         : QDialogButtonBox::Open);
        }
        if (name == nullptr || accept == nullptr) {
          ADD_FAILURE() << "not a file dialog with a name field";
          d->reject();
          return;
        }
        const bool folder = d->fileMode() == QFileDialog::Directory;
        auto holdsPath = [&] {
          return folder ? QDir(name->text()) == QDir(path) : name->text() == path;
        };
        // A window manager would make the dialog active; without one (Xvfb) the field has
        // no focus, and the dialog then keeps every folder the typed path passes through
        // selected ("/", "/tmp", ...), which disables the accept button.
        auto typePath = [&] {
          d->activateWindow();
          (void)QTest::qWaitForWindowActive(d, 2000);
          QTest::mouseClick(name, Qt::LeftButton);
          QTest::keyClick(name, Qt::Key_A, Qt::ControlModifier);
          QTest::keyClicks(name, path, Qt::NoModifier, 5);
          settle(300);
          if (QWidget* popup = name->completer() ? name->completer()->popup() : nullptr;
              popup != nullptr && popup->isVisible())
            QTest::keyClick(popup, Qt::Key_Escape);
          settle(50);
        };
        typePath();
        // Seldom, under load, the field loses the focus while the path is typed: a person
        // would click it and type again.
        if (!holdsPath() || !waitUntil([accept] { return accept->isEnabled(); }, 1000)) typePath();
        if (!holdsPath() || !waitUntil([accept] { return accept->isEnabled(); }, 3000)) {
          ADD_FAILURE() << "the file dialog's field holds " << name->text().toStdString()
                        << ", its accept button is " << (accept->isEnabled() ? "on" : "off");
          d->reject();
          return;
        }
        // Under load the click can land while the field's completer pops up again: the
        // popup takes the click and closes, the dialog stays open. A person clicks again
        // once the popup is gone, so the scenario does too, twice at most.
        QPointer<QFileDialog> open(d);
        auto closed = [&] { return open.isNull() || !open->isVisible(); };
        for (int click = 0; click < 3; ++click) {
          if (click > 0) {
            if (QWidget* popup = name->completer() ? name->completer()->popup() : nullptr;
                popup != nullptr && popup->isVisible())
              QTest::keyClick(popup, Qt::Key_Escape);
            settle(100);
          }
          QTest::mouseClick(accept, Qt::LeftButton);
          if (waitUntil(closed, 3000)) return;
        }
        // Its exec() would then hold the scenario until ctest kills it: accept as the button
        // does (QFileDialog::accept reads the field), and never leave it open.
        ADD_FAILURE() << "the file dialog stayed open after its accept button was clicked";
        static_cast<QDialog*>(open.data())->accept();  // QFileDialog::accept, virtually
        if (!waitUntil(closed, 3000) && open) open->reject();
      },
      std::move(answered));
}

// The folder dialog is a file dialog in Directory mode.
inline void answerFolderDialog(const QString& folder, std::shared_ptr<bool> answered = {}) {
  answerFileDialog(folder, std::move(answered));
}

}  // namespace lsrl::studio::scenario
