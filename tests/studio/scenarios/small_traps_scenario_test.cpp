// The explorer's smaller traps a new user met (issue 39, item 6), each walked into from
// an empty window with the mouse and keyboard: a value typed into a matrix cell that came
// back rewritten; the Debranching tab's clicked node left unmarked, its inspector counting
// from 1 and its exported frames without their step; the stepper's tolerance clipped; a
// Help menu with nothing to read; Ctrl+D with no Edit entry; a start-page card that
// looked chosen before anyone pointed at it.
#include <QAbstractItemModel>
#include <QCursor>
#include <QFile>
#include <QImage>
#include <QKeySequence>
#include <QLineEdit>
#include <QStyleOptionFrame>
#include <QTableWidget>
#include <QTextBrowser>

#include "app/studio/editor/node_style.h"
#include "app/studio/panels/matrix_editor.h"
#include "app/studio/panels/properties_panel.h"
#include "app/studio/player/node_inspector.h"
#include "app/studio/stepper/stepper_view.h"
#include "app/studio/window/start_page.h"
#include "app/studio/window/start_page_entry.h"
#include "core/numbers/exact.h"
#include "studio/scenarios/editor_driver.h"
#include "studio/scenarios/player_driver.h"

namespace lsrl::studio::scenario {
namespace {

// ---- reading what is shown ------------------------------------------------------------------

QString cellText(MatrixEditor* m, int row, int col) {
  return m->table()->model()->index(row, col).data().toString();
}

// Opens more_ones (a compile of a second) from File > Examples and clicks the Debranching tab.
DebranchView* openMoreOnesInDebranching(Session& s) {
  menuPath(*s.window, {"File", "Examples", "more_ones", "more_ones"});
  EXPECT_TRUE(waitUntil([&] { return s->document()->graph().nodeCount() > 0; }, 10000));
  clickTab(s.window.get(), "Debranching");
  return findVisible<DebranchView>(s.window.get());
}

// The boxes of Linear nodes shown whole in the player's viewport, the step's highlighted
// node left out (its own frame would hide a change).
std::vector<NodeId> linearBoxesOnScreen(DebranchView* d) {
  std::vector<NodeId> out;
  for (NodeId id : d->cursor()->aliveIds()) {
    if (d->cursor()->data().info[static_cast<size_t>(id)].op == Op::Linear &&
        !d->scene()->isBranchHighlighted(id) && boxInViewport(d, id))
      out.push_back(id);
  }
  return out;
}

// The player's picture of node `id`'s box, with a margin for a frame drawn around it.
QImage boxPicture(DebranchView* d, NodeId id) {
  settle(50);
  return d->graphView()->viewport()->grab(boxOnScreen(d, id).adjusted(-6, -6, 6, 6)).toImage();
}

// Dark pixels (text) in the top `rows` rows of `frame`.
int darkPixelsOnTop(const QImage& frame, int rows) {
  int dark = 0;
  for (int y = 0; y < std::min(rows, frame.height()); ++y)
    for (int x = 0; x < frame.width(); ++x)
      if (qGray(frame.pixel(x, y)) < 100) ++dark;
  return dark;
}

// Whether the text of `edit` fits into the room its frame leaves for text.
bool textFits(QLineEdit* edit) {
  QStyleOptionFrame option;
  option.initFrom(edit);
  option.rect = edit->rect();
  option.lineWidth = edit->style()->pixelMetric(QStyle::PM_DefaultFrameWidth, &option, edit);
  const QRect contents = edit->style()->subElementRect(QStyle::SE_LineEditContents, &option, edit);
  const QMargins margins = edit->textMargins();
  // QLineEdit keeps 2 px on each side of the text inside that rectangle.
  const int room = contents.width() - margins.left() - margins.right() - 4;
  return edit->fontMetrics().horizontalAdvance(edit->text()) <= room;
}

// Every text an item view under `root` shows, row by row, columns joined by " | ".
QStringList rowsShown(QWidget* root) {
  QStringList rows;
  for (QAbstractItemView* view : root->findChildren<QAbstractItemView*>()) {
    const QAbstractItemModel* model = view->model();
    std::function<void(const QModelIndex&)> walk = [&](const QModelIndex& parent) {
      for (int r = 0; r < model->rowCount(parent); ++r) {
        QStringList cells;
        for (int c = 0; c < model->columnCount(parent); ++c)
          cells << model->index(r, c, parent).data().toString();
        rows << cells.join(QStringLiteral(" | "));
        walk(model->index(r, 0, parent));
      }
    };
    walk({});
  }
  return rows;
}

// The visible top-level window titled `title` (a dialog the Help menu opened).
QWidget* visibleWindowTitled(const QString& title) {
  for (QWidget* w : QApplication::topLevelWidgets())
    if (w->isVisible() && w->windowTitle() == title) return w;
  return nullptr;
}

// How a start-page entry looks: tinted (pointed at or pressed) or framed in the
// selection colour (keyboard focus), read from its picture.
struct EntryLook {
  bool tinted;
  bool focusFramed;
};
EntryLook lookOf(StartPageEntry* entry) {
  const QImage picture = entry->grab().toImage();
  const int y = picture.height() / 2;
  auto near = [](const QColor& a, const QColor& b) {
    return std::abs(a.red() - b.red()) <= 2 && std::abs(a.green() - b.green()) <= 2 &&
           std::abs(a.blue() - b.blue()) <= 2;
  };
  // Inside the rounded frame, left of any text; the frame's own line at x = 1.
  return {!near(picture.pixelColor(4, y), entry->palette().color(QPalette::Base)),
          near(picture.pixelColor(1, y), selectionColor())};
}

// ---- matrix cells ---------------------------------------------------------------------------

// sqrt(3)/2 typed into a cell came back as cos(pi/6): the same number, not what was typed.
TEST(SmallTrapsScenario, AMatrixCellShowsTheValueAsItWasTyped) {
  Session s;
  startNewProgram(s);
  addFromPalette(s, QStringLiteral("Input"));
  const NodeId linear = addFromPalette(s, QStringLiteral("Linear"));
  typeIntoMatrix(s, QStringLiteral("A"), 0, 0, QStringLiteral("sqrt(3)/2"));
  ASSERT_EQ(s->document()->graph().node(linear).A.at(0, 0), Exact::parse("sqrt(3)/2"));
  EXPECT_EQ(cellText(matrixTab(s, QStringLiteral("A")), 0, 0).toStdString(), "sqrt(3)/2");
  // Chosen again later: still as typed.
  click(canvas(s->graphView()), emptyCanvasPoint(s->graphView()));
  clickBox(s->graphView(), boxShowing(s->graphView(), linear));
  EXPECT_EQ(cellText(matrixTab(s, QStringLiteral("A")), 0, 0).toStdString(), "sqrt(3)/2");
  // Undone, the cell holds the old value again; redone, the typed text comes back.
  s->graphView()->setFocus();
  key(canvas(s->graphView()), Qt::Key_Z, Qt::ControlModifier);
  EXPECT_EQ(cellText(matrixTab(s, QStringLiteral("A")), 0, 0).toStdString(), "1");
  key(canvas(s->graphView()), Qt::Key_Z, Qt::ControlModifier | Qt::ShiftModifier);
  EXPECT_EQ(cellText(matrixTab(s, QStringLiteral("A")), 0, 0).toStdString(), "sqrt(3)/2");
  checkpoint(*s, QStringLiteral("small_traps_matrix_as_typed"));
}

// ---- the Debranching tab ----------------------------------------------------------------------

// A clicked node was not marked in the player, and the inspector numbered its matrices'
// rows and columns from 1 where the editor numbers from 0.
TEST(SmallTrapsScenario, TheClickedNodeIsMarkedAndItsMatrixCountsFromZero) {
  Session s;
  DebranchView* d = openMoreOnesInDebranching(s);
  ASSERT_NE(d, nullptr);
  ASSERT_TRUE(compileWithTheButton(d)) << d->statusText().toStdString();
  settle(300);
  const std::vector<NodeId> linears = linearBoxesOnScreen(d);
  ASSERT_GE(linears.size(), 2u) << "two Linear boxes on screen to click";
  const NodeId first = linears[0];
  const NodeId second = linears[1];
  const QImage firstBefore = boxPicture(d, first);
  const QImage secondBefore = boxPicture(d, second);

  click(d->graphView()->viewport(), boxOnScreen(d, first).center());
  ASSERT_EQ(d->inspector()->node(), first);
  EXPECT_NE(boxPicture(d, first), firstBefore) << "the clicked box is marked";
  const QAbstractItemModel* table = d->inspector()->table()->model();
  ASSERT_GT(table->rowCount(), 0);
  EXPECT_EQ(table->headerData(0, Qt::Vertical).toString().toStdString(), "0") << "first row";
  EXPECT_EQ(table->headerData(0, Qt::Horizontal).toString().toStdString(), "0") << "first column";
  checkpoint(*s, QStringLiteral("small_traps_player_node_marked"));

  // Another click moves the mark.
  click(d->graphView()->viewport(), boxOnScreen(d, second).center());
  ASSERT_EQ(d->inspector()->node(), second);
  EXPECT_NE(boxPicture(d, second), secondBefore) << "the newly clicked box is marked";
  EXPECT_EQ(boxPicture(d, first), firstBefore) << "the first box is plain again";
}

// Exported frames said nothing of their step: each now carries its step number and rule,
// drawn on it and stored in the PNG's text ("Step", "Rule").
TEST(SmallTrapsScenario, ExportedFramesAreStampedWithTheirStepAndRule) {
  Session s;
  DebranchView* d = openMoreOnesInDebranching(s);
  ASSERT_NE(d, nullptr);
  ASSERT_TRUE(compileWithTheButton(d));
  const QString folder = s.files.filePath(QStringLiteral("frames"));
  QDir().mkpath(folder);
  exportFramesByMenu(s, folder);
  const QStringList frames =
      QDir(folder).entryList({QStringLiteral("step_*.png")}, QDir::Files, QDir::Name);
  ASSERT_GE(frames.size(), 2);
  QStringList rules;
  for (int i = 0; i < d->ruleBox()->count(); ++i) rules << d->ruleBox()->itemText(i);
  for (const QString& name : frames) {
    const QImage frame(QDir(folder).filePath(name));
    const int step = name.mid(5, 5).toInt();
    EXPECT_EQ(frame.text(QStringLiteral("Step")).toStdString(), std::to_string(step))
        << name.toStdString();
    if (step > 0) {
      EXPECT_TRUE(rules.contains(frame.text(QStringLiteral("Rule"))))
          << name.toStdString() << ": rule '" << frame.text(QStringLiteral("Rule")).toStdString()
          << "'";
    }
    EXPECT_GT(darkPixelsOnTop(frame, 24), 40) << name.toStdString() << ": no caption drawn";
  }
  // A stamped frame beside the checkpoints, to look at.
  const QString sample = QDir(test::screenshotDir()).filePath("small_traps_frame_step_1.png");
  QFile::remove(sample);
  QFile::copy(QDir(folder).filePath(frames[1]), sample);
  checkpoint(*s, QStringLiteral("small_traps_frames_stamped"));
}

// ---- the Token stepper ----------------------------------------------------------------------

// The tolerance field read "le-6": too narrow for its own default.
TEST(SmallTrapsScenario, TheStepperToleranceShowsItsValueWhole) {
  Session s;
  menuPath(*s.window, {"File", "Examples", "more_ones", "more_ones"});
  clickTab(s.window.get(), "Token stepper");
  auto* stepper = findVisible<StepperView>(s.window.get());
  ASSERT_NE(stepper, nullptr);
  QLineEdit* tolerance = nullptr;
  for (QLineEdit* e : stepper->findChildren<QLineEdit*>())
    if (e->isVisible() && e->text() == QStringLiteral("1e-6")) tolerance = e;
  ASSERT_NE(tolerance, nullptr);
  EXPECT_TRUE(textFits(tolerance)) << "width " << tolerance->width();
  // A smaller tolerance typed in fits as well.
  click(tolerance);
  key(tolerance, Qt::Key_A, Qt::ControlModifier);
  type(tolerance, QStringLiteral("2.5e-12"));
  EXPECT_TRUE(textFits(tolerance)) << "width " << tolerance->width();
  checkpoint(*s, QStringLiteral("small_traps_stepper_tolerance"));
}

// ---- menus ----------------------------------------------------------------------------------

// The Help menu had only About: it now opens the documentation in the window's own
// viewer, and a list of every keyboard shortcut read from the window's actions.
TEST(SmallTrapsScenario, HelpOpensTheDocsAndEveryShortcut) {
  Session s;
  menu(*s.window, QStringLiteral("Help"), QStringLiteral("Documentation"));
  QWidget* docs = nullptr;
  ASSERT_TRUE(waitUntil(
      [&] { return (docs = visibleWindowTitled(QStringLiteral("LSRL Studio Documentation"))); },
      5000));
  auto* page = findVisible<QTextBrowser>(docs);
  ASSERT_NE(page, nullptr);
  EXPECT_TRUE(page->toPlainText().contains(QStringLiteral("LSRL Studio, the explorer")))
      << "opens on the explorer's guide";
  // Another page, chosen in the list of pages.
  EXPECT_TRUE(rowsShown(docs).contains(QStringLiteral("graph-format.md")));
  auto* pages = findVisible<QAbstractItemView>(docs);
  ASSERT_NE(pages, nullptr);
  const QModelIndexList graphFormat = pages->model()->match(
      pages->model()->index(0, 0), Qt::DisplayRole, QStringLiteral("graph-format.md"));
  ASSERT_FALSE(graphFormat.isEmpty());
  click(pages->viewport(), pages->visualRect(graphFormat.front()).center());
  EXPECT_TRUE(page->toPlainText().contains(QStringLiteral("version"))) << "the graph format page";
  checkpoint(*docs, QStringLiteral("small_traps_docs"));
  key(docs, Qt::Key_Escape);
  EXPECT_TRUE(waitUntil([&] { return !docs->isVisible(); }, 2000));

  menu(*s.window, QStringLiteral("Help"), QStringLiteral("Keyboard Shortcuts"));
  QWidget* list = nullptr;
  ASSERT_TRUE(waitUntil(
      [&] { return (list = visibleWindowTitled(QStringLiteral("Keyboard Shortcuts"))); }, 5000));
  const QStringList rows = rowsShown(list);
  int listed = 0;
  for (QAction* action : s->findChildren<QAction*>()) {
    if (action->shortcuts().isEmpty()) continue;
    const QString name = action->text().remove(QLatin1Char('&')).remove(QChar(0x2026));
    for (const QKeySequence& shortcut : action->shortcuts()) {
      const QString keys = shortcut.toString(QKeySequence::NativeText);
      const bool shown = std::any_of(rows.begin(), rows.end(), [&](const QString& row) {
        return row.contains(name) && row.contains(keys);
      });
      EXPECT_TRUE(shown) << name.toStdString() << " " << keys.toStdString() << " not listed";
    }
    ++listed;
  }
  EXPECT_GT(listed, 10);
  EXPECT_TRUE(std::any_of(rows.begin(), rows.end(), [](const QString& row) {
    return row.contains(QStringLiteral("Duplicate")) &&
           row.contains(QKeySequence(Qt::CTRL | Qt::Key_D).toString(QKeySequence::NativeText));
  }));
  checkpoint(*list, QStringLiteral("small_traps_shortcuts"));
  key(list, Qt::Key_Escape);
  EXPECT_TRUE(waitUntil([&] { return !list->isVisible(); }, 2000));
}

// Ctrl+D duplicated the selection, but the Edit menu had no such entry.
TEST(SmallTrapsScenario, EditDuplicateCopiesTheSelectionAsCtrlDDoes) {
  Session s;
  startNewProgram(s);
  addFromPalette(s, QStringLiteral("Linear"));
  ASSERT_EQ(s->document()->graph().nodeCount(), 1u);
  menu(*s.window, QStringLiteral("Edit"), QStringLiteral("Duplicate"));
  EXPECT_EQ(s->document()->graph().nodeCount(), 2u) << "Edit > Duplicate";
  s->graphView()->setFocus();
  key(canvas(s->graphView()), Qt::Key_D, Qt::ControlModifier);
  EXPECT_EQ(s->document()->graph().nodeCount(), 3u) << "Ctrl+D, once";
  checkpoint(*s, QStringLiteral("small_traps_duplicated"));
}

// ---- the start page ---------------------------------------------------------------------------

// On a fresh start the card under the resting pointer (vec2vec "optimized" on a person's
// screen) was drawn as if chosen. Nothing looks chosen until the mouse moves onto an
// entry or Tab reaches it.
TEST(SmallTrapsScenario, NoStartPageEntryLooksChosenUntilPointedAtOrTabbedTo) {
  // The pointer rests where a card of a new window will be, as a person's does: a first
  // window says where that is.
  QPoint cardOnScreen;
  {
    Session first;
    auto* page = findVisible<StartPage>(first.window.get());
    ASSERT_NE(page, nullptr);
    StartPageEntry* card = page->exampleCards().at(2);
    cardOnScreen = card->mapToGlobal(card->rect().center());
  }
  QCursor::setPos(cardOnScreen);
  settle(100);
  Session s;
  auto* page = findVisible<StartPage>(s.window.get());
  ASSERT_NE(page, nullptr);
  settle(200);
  const QList<StartPageEntry*> entries = page->findChildren<StartPageEntry*>();
  for (StartPageEntry* e : entries) {
    if (!e->isVisible()) continue;
    const EntryLook look = lookOf(e);
    EXPECT_FALSE(look.tinted) << e->title().toStdString() << " looks pointed at";
    EXPECT_FALSE(look.focusFramed) << e->title().toStdString() << " looks focused";
  }
  checkpoint(*s, QStringLiteral("small_traps_start_page_fresh"));

  // The mouse moved onto a card: that card is tinted.
  StartPageEntry* card = page->exampleCards().front();
  QTest::mouseMove(card, card->rect().center() + QPoint(5, 0));
  QTest::mouseMove(card, card->rect().center());
  settle(50);
  EXPECT_TRUE(lookOf(card).tinted) << "pointed at";
  // Tab moves the focus on from the first entry: the entry reached is framed.
  key(QApplication::focusWidget(), Qt::Key_Tab);
  auto* focused = qobject_cast<StartPageEntry*>(QApplication::focusWidget());
  ASSERT_NE(focused, nullptr);
  EXPECT_TRUE(lookOf(focused).focusFramed) << focused->title().toStdString();
}

}  // namespace
}  // namespace lsrl::studio::scenario
