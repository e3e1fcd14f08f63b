// a new window used to be an empty canvas with "2 problems" and nothing
// to start from. Now it shows the start page: the paper's examples with a picture each,
// the recent files and "New program". A person opens an example from its card, comes
// back by View > Start Page, starts a new program, reopens a file from the recent list
// in a later window, meets a recent file that was deleted, and walks the page with the
// keyboard; all through mouse and key events from an empty window.
#include <QDockWidget>
#include <QFile>
#include <QLabel>
#include <QScrollArea>
#include <QStatusBar>

#include "app/studio/editor/graph_scene.h"
#include "app/studio/editor/graph_view.h"
#include "app/studio/editor/group_item.h"
#include "app/studio/editor/node_item.h"
#include "app/studio/window/examples_catalog.h"
#include "app/studio/window/recent_files.h"
#include "app/studio/window/start_page.h"
#include "app/studio/window/start_page_entry.h"
#include "studio/scenarios/scenario_driver.h"

namespace lsrl::studio {
namespace {

using namespace scenario;

// ---- reading the window (where things are, what it shows) ---------------------------

bool dockVisible(MainWindow& w, const char* name) {
  auto* dock = w.findChild<QDockWidget*>(QString::fromLatin1(name));
  return dock != nullptr && dock->isVisible();
}

// The status bar's problem count as a person reads it: "2 problem(s)"; empty if none is
// shown ("no problems", or hidden).
QString shownProblemCount(MainWindow& w) {
  for (QLabel* label : w.statusBar()->findChildren<QLabel*>()) {
    const QString text = label->text();
    if (label->isVisible() && text.contains(QStringLiteral("problem")) &&
        !text.startsWith(QStringLiteral("no ")))
      return text;
  }
  return {};
}

// Boxes (nodes and collapsed groups) the graph view draws.
int boxesDrawn(MainWindow& w) {
  int boxes = 0;
  for (QGraphicsItem* item : w.graphView()->graphScene()->items())
    if (item->type() == NodeItem::Type || item->type() == GroupItem::Type) ++boxes;
  return boxes;
}

StartPage* visibleStartPage(MainWindow& w) { return findVisible<StartPage>(&w); }

// The card of the example titled `title` ("tok2tok (L=3, direct)").
StartPageEntry* exampleCard(MainWindow& w, const QString& title) {
  StartPage* page = visibleStartPage(w);
  if (page == nullptr) return nullptr;
  for (StartPageEntry* card : page->exampleCards())
    if (card->accessibleName() == title) return card;
  return nullptr;
}

StartPageEntry* recentEntry(MainWindow& w, const QString& fileName) {
  StartPage* page = visibleStartPage(w);
  if (page == nullptr) return nullptr;
  for (StartPageEntry* entry : page->recentEntries())
    if (entry->title() == fileName) return entry;
  return nullptr;
}

// Clicks a start page entry where a person sees it (scrolled into view first).
void clickEntry(MainWindow& w, QWidget* entry) {
  ASSERT_NE(entry, nullptr);
  if (auto* scroll =
          findVisible<QScrollArea>(visibleStartPage(w), QStringLiteral("StartPageScroll")))
    scroll->ensureWidgetVisible(entry);
  settle(20);
  click(entry);
}

const QString kTok2tok = QStringLiteral("tok2tok (L=3, direct)");

// ---- the flows ---------------------------------------------------------------------------

TEST(StartPageScenario, AFreshWindowShowsTheStartPageAndNoProblems) {
  RecentFiles().clear();
  Session s;
  StartPage* page = visibleStartPage(*s);
  ASSERT_NE(page, nullptr) << "a new window shows the start page";
  EXPECT_FALSE(s->graphView()->isVisible());
  EXPECT_EQ(shownProblemCount(*s), QString()) << "an untouched window has nothing to fix";
  for (const char* dock : {"PaletteDock", "PropertiesDock", "OverviewDock", "ProblemsDock"})
    EXPECT_FALSE(dockVisible(*s, dock)) << dock;
  EXPECT_NE(button(page, QStringLiteral("New program")), nullptr);
  EXPECT_EQ(page->exampleCards().size(), static_cast<int>(exampleEntries().size()));
  // The pictures come from a worker; the window was usable before they did.
  ASSERT_TRUE(waitUntil([&] { return page->thumbnailsPending() == 0; }, 60000));
  for (StartPageEntry* card : page->exampleCards())
    EXPECT_TRUE(card->hasPicture()) << card->accessibleName().toStdString();
  checkpoint(*s, QStringLiteral("start_page_1_fresh_window"));
}

TEST(StartPageScenario, AnExampleCardOpensItsGraphAndNewProgramGivesAnEmptyEditor) {
  Session s;
  clickEntry(*s, exampleCard(*s, kTok2tok));
  ASSERT_TRUE(waitUntil([&] { return s->graphView()->isVisible(); }, 10000));
  EXPECT_EQ(visibleStartPage(*s), nullptr);
  EXPECT_TRUE(s->windowTitle().startsWith(kTok2tok)) << s->windowTitle().toStdString();
  EXPECT_GT(boxesDrawn(*s), 50) << "the graph view draws tok2tok's boxes";
  for (const char* dock : {"PaletteDock", "PropertiesDock", "OverviewDock", "ProblemsDock"})
    EXPECT_TRUE(dockVisible(*s, dock)) << dock;
  EXPECT_EQ(shownProblemCount(*s), QString()) << "tok2tok is valid";
  checkpoint(*s, QStringLiteral("start_page_2_example_opened"));

  // View > Start Page comes back, offering the way back to tok2tok.
  menu(*s, QStringLiteral("View"), QStringLiteral("Start Page"));
  StartPage* page = visibleStartPage(*s);
  ASSERT_NE(page, nullptr);
  EXPECT_NE(button(page, QStringLiteral("Back to ") + kTok2tok), nullptr);
  EXPECT_FALSE(dockVisible(*s, "PaletteDock"));
  checkpoint(*s, QStringLiteral("start_page_3_again_from_the_menu"));

  // New program: the empty editor, ready for the palette, and it stays while empty.
  clickEntry(*s, button(page, QStringLiteral("New program")));
  ASSERT_TRUE(waitUntil([&] { return s->graphView()->isVisible(); }, 5000));
  settle(200);
  EXPECT_EQ(visibleStartPage(*s), nullptr);
  EXPECT_EQ(boxesDrawn(*s), 0);
  EXPECT_TRUE(dockVisible(*s, "PaletteDock"));
  EXPECT_FALSE(s->windowTitle().startsWith(kTok2tok));
  // The palette adds into it.
  clickTreeItem(findVisible<QTreeWidget>(s.window.get()), QStringLiteral("Input"), /*dbl=*/true);
  EXPECT_EQ(boxesDrawn(*s), 1);
  EXPECT_TRUE(s->graphView()->isVisible());
  checkpoint(*s, QStringLiteral("start_page_4_new_program"));

  // File > Close asks about the new node, then returns to the start page.
  auto seen = std::make_shared<QString>();
  answerMessageBox(QStringLiteral("Discard"), seen);
  menu(*s, QStringLiteral("File"), QStringLiteral("Close"));
  ASSERT_TRUE(waitUntil([&] { return visibleStartPage(*s) != nullptr; }, 5000));
  EXPECT_TRUE(seen->contains(QStringLiteral("unsaved changes"))) << seen->toStdString();
  EXPECT_EQ(button(visibleStartPage(*s), QStringLiteral("Back to Untitled")), nullptr);
  EXPECT_EQ(shownProblemCount(*s), QString());
}

TEST(StartPageScenario, ASavedFileIsListedInTheNextWindowAndOpensFromThere) {
  RecentFiles().clear();
  QTemporaryDir files;
  const QString path = files.filePath(QStringLiteral("my_more_ones.json"));
  {
    Session s;
    clickEntry(*s, exampleCard(*s, QStringLiteral("more_ones")));
    ASSERT_TRUE(waitUntil([&] { return s->graphView()->isVisible(); }, 10000));
    auto answered = std::make_shared<bool>(false);
    answerFileDialog(path, answered);
    menu(*s, QStringLiteral("File"), QStringLiteral("Save As"));
    ASSERT_TRUE(waitUntil([&] { return *answered && QFile::exists(path); }, 10000));
  }
  Session next;
  StartPageEntry* entry = recentEntry(*next, QStringLiteral("my_more_ones.json"));
  ASSERT_NE(entry, nullptr) << "the new window's start page lists the saved file";
  EXPECT_EQ(entry->detail(), QDir::toNativeSeparators(files.path()));
  checkpoint(*next, QStringLiteral("start_page_5_recent_file_listed"));
  clickEntry(*next, entry);
  ASSERT_TRUE(waitUntil([&] { return next->graphView()->isVisible(); }, 10000));
  EXPECT_TRUE(next->windowTitle().startsWith(QStringLiteral("my_more_ones.json")));
  EXPECT_GT(boxesDrawn(*next), 3);
  checkpoint(*next, QStringLiteral("start_page_6_recent_file_opened"));
  RecentFiles().clear();
}

TEST(StartPageScenario, ADeletedRecentFileIsReportedAndLeavesTheList) {
  RecentFiles().clear();
  QTemporaryDir files;
  const QString gone = files.filePath(QStringLiteral("gone.json"));
  QFile::copy(QStringLiteral(LSRL_SOURCE_DIR "/examples/more_ones.json"), gone);
  RecentFiles().add(gone);
  Session s;
  StartPageEntry* entry = recentEntry(*s, QStringLiteral("gone.json"));
  ASSERT_NE(entry, nullptr);
  QFile::remove(gone);  // deleted while the window is open
  auto seen = std::make_shared<QString>();
  auto answered = std::make_shared<bool>(false);
  answerMessageBox(QStringLiteral("OK"), seen, answered);
  clickEntry(*s, entry);
  ASSERT_TRUE(waitUntil([&] { return *answered; }, 5000)) << "no message about the file";
  EXPECT_TRUE(seen->contains(QStringLiteral("moved or deleted"))) << seen->toStdString();
  settle(50);
  EXPECT_NE(visibleStartPage(*s), nullptr) << "still on the start page";
  EXPECT_EQ(recentEntry(*s, QStringLiteral("gone.json")), nullptr);
  EXPECT_FALSE(RecentFiles().files().contains(QFileInfo(gone).absoluteFilePath()));
  checkpoint(*s, QStringLiteral("start_page_7_missing_recent_file"));
}

TEST(StartPageScenario, TabAndEnterOpenAnExampleFromTheKeyboard) {
  RecentFiles().clear();
  Session s;
  StartPage* page = visibleStartPage(*s);
  ASSERT_NE(page, nullptr);
  ASSERT_TRUE(waitUntil([&] { return page->newProgramEntry()->hasFocus(); }, 2000))
      << "the first entry has the focus";
  // New program, Open…, then the cards: more_ones, then vec2vec's first variant.
  for (int i = 0; i < 3; ++i) key(QApplication::focusWidget(), Qt::Key_Tab);
  QWidget* focused = QApplication::focusWidget();
  ASSERT_EQ(focused, page->exampleCards()[1]);
  checkpoint(*s, QStringLiteral("start_page_8_keyboard_focus"));
  key(focused, Qt::Key_Return);
  const QString title = exampleEntries()[1].title;
  ASSERT_TRUE(waitUntil([&] { return s->graphView()->isVisible(); }, 10000));
  EXPECT_TRUE(s->windowTitle().startsWith(title)) << s->windowTitle().toStdString();
  EXPECT_GT(boxesDrawn(*s), 10);
}

}  // namespace
}  // namespace lsrl::studio
