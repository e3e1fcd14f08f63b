// The start page (a new window's Graph tab): the example cards' pictures, the recent
// files, the keyboard, narrow windows; and the window showing it in place of an
// untouched empty editor, without the editor's docks and problems.
#include "app/studio/window/start_page.h"

#include <gtest/gtest.h>

#include <QDockWidget>
#include <QElapsedTimer>
#include <QFile>
#include <QLabel>
#include <QScrollArea>
#include <QScrollBar>
#include <QSignalSpy>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QTest>

#include "app/studio/document/document.h"
#include "app/studio/editor/graph_view.h"
#include "app/studio/editor/node_style.h"
#include "app/studio/window/example_thumbnails.h"
#include "app/studio/window/examples_catalog.h"
#include "app/studio/window/graph_thumbnail.h"
#include "app/studio/window/main_window.h"
#include "app/studio/window/recent_files.h"
#include "app/studio/window/start_page_entry.h"
#include "studio/studio_test_util.h"

namespace lsrl::studio {
namespace {

using test::distinctColours;
using test::examplePath;
using test::saveScreenshot;
using test::waitUntil;

// How many pixels of `image` have (nearly) colour `c`.
int pixelsOf(const QImage& image, const QColor& c) {
  int n = 0;
  for (int y = 0; y < image.height(); ++y) {
    for (int x = 0; x < image.width(); ++x) {
      const QColor p = image.pixelColor(x, y);
      if (std::abs(p.red() - c.red()) + std::abs(p.green() - c.green()) +
              std::abs(p.blue() - c.blue()) <
          12)
        ++n;
    }
  }
  return n;
}

// Fraction of the picture's rows (columns) that hold something other than background.
double filledFraction(const QImage& image, bool rows) {
  const QColor background = sceneBackground();
  const int lines = rows ? image.height() : image.width();
  const int length = rows ? image.width() : image.height();
  int filled = 0;
  for (int i = 0; i < lines; ++i) {
    for (int j = 0; j < length; ++j) {
      if (image.pixelColor(rows ? j : i, rows ? i : j) != background) {
        ++filled;
        break;
      }
    }
  }
  return static_cast<double>(filled) / lines;
}

TEST(GraphThumbnail, DrawsEachExamplesBoxesByOpAndFillsThePicture) {
  const QSize size = ExampleThumbnails::thumbnailSize();
  QImage sheet(size.width(), size.height() * static_cast<int>(exampleEntries().size()),
               QImage::Format_ARGB32);
  QPainter sheetPainter(&sheet);
  int row = 0;
  for (const ExampleEntry& entry : exampleEntries()) {
    const BuiltExample example = buildExample(entry);
    QElapsedTimer timer;
    timer.start();
    const QImage image = renderGraphThumbnail(example.graph, size);
    std::printf("[ measure ] thumbnail of %s (%zu nodes): %.2f ms\n", qPrintable(entry.title),
                example.graph.nodeCount(), static_cast<double>(timer.nsecsElapsed()) / 1e6);
    ASSERT_EQ(image.size(), size);
    // Coloured op boxes (Input, LinState at least) and grey group boxes are drawn.
    EXPECT_GT(pixelsOf(image, opFill(StyleOp::Input)), 0) << entry.title.toStdString();
    EXPECT_GT(pixelsOf(image, opFill(StyleOp::LinState)), 0) << entry.title.toStdString();
    EXPECT_GT(pixelsOf(image, groupFill().darker(115)), 0) << entry.title.toStdString();
    // A flat program (more_ones is twenty times wider than tall) still fills the picture's
    // height rather than a strip of it, and every program spans its width.
    EXPECT_GT(filledFraction(image, /*rows=*/true), 0.35) << entry.title.toStdString();
    EXPECT_GT(filledFraction(image, /*rows=*/false), 0.85) << entry.title.toStdString();
    sheetPainter.drawImage(0, row++ * size.height(), image);
  }
  sheetPainter.end();
  sheet.save(QDir(test::screenshotDir()).filePath(QStringLiteral("start_page_thumbnails.png")));
}

TEST(GraphThumbnail, AGraphWithoutLayoutOrNodesStillDraws) {
  const QSize size(120, 60);
  const QImage empty = renderGraphThumbnail(Graph(), size, 2.0);
  EXPECT_EQ(empty.size(), size * 2);
  EXPECT_EQ(distinctColours(empty), 1);
  // No stored positions: placed in layers first.
  Graph g = buildExample(exampleEntries().front()).graph;
  g.layout().clear();
  g.groupLayout().clear();
  const QImage placed = renderGraphThumbnail(g, size);
  EXPECT_GT(pixelsOf(placed, opFill(StyleOp::Input)), 0);
  EXPECT_GT(distinctColours(placed), 4);
}

// A start page over a private recent-files list.
struct PageFixture {
  explicit PageFixture(QStringList files = {}) {
    recent.clear();
    for (auto it = files.crbegin(); it != files.crend(); ++it) recent.add(*it);
    page = std::make_unique<StartPage>(&recent);
    page->resize(1600, 940);
    page->show();
  }
  ~PageFixture() { recent.clear(); }
  RecentFiles recent;
  std::unique_ptr<StartPage> page;
};

TEST(StartPage, ShowsEveryExampleWithItsPictureAndCounts) {
  PageFixture f;
  ASSERT_EQ(static_cast<size_t>(f.page->exampleCards().size()), exampleEntries().size());
  // Each card is titled with its variant and named (for screen readers) in full.
  for (int i = 0; i < f.page->exampleCards().size(); ++i) {
    const ExampleEntry& entry = exampleEntries()[static_cast<size_t>(i)];
    EXPECT_EQ(f.page->exampleCards()[i]->accessibleName(), entry.title);
    EXPECT_TRUE(entry.title.contains(f.page->exampleCards()[i]->title()));
  }
  QElapsedTimer timer;
  timer.start();
  ASSERT_TRUE(waitUntil([&] { return f.page->thumbnailsPending() == 0; }, 60000));
  std::printf("[ measure ] all %zu example thumbnails ready after %lld ms\n",
              exampleEntries().size(), static_cast<long long>(timer.elapsed()));
  for (StartPageEntry* card : f.page->exampleCards()) {
    EXPECT_TRUE(card->hasPicture()) << card->title().toStdString();
    EXPECT_TRUE(card->detail().contains(QStringLiteral("nodes"))) << card->detail().toStdString();
  }
  EXPECT_TRUE(f.page->findChild<QLabel*>() != nullptr);
  saveScreenshot(*f.page, QStringLiteral("start_page_1600"));
}

TEST(StartPage, CardsDoNotOverlapAndTheFirstRowsFitAt1600) {
  PageFixture f;
  QApplication::processEvents();
  const QList<StartPageEntry*>& cards = f.page->exampleCards();
  for (int i = 0; i < cards.size(); ++i) {
    const QRect a(cards[i]->mapTo(f.page.get(), QPoint()), cards[i]->size());
    EXPECT_LE(a.right(), f.page->width()) << cards[i]->title().toStdString();
    for (int j = i + 1; j < cards.size(); ++j) {
      const QRect b(cards[j]->mapTo(f.page.get(), QPoint()), cards[j]->size());
      EXPECT_FALSE(a.intersects(b))
          << cards[i]->title().toStdString() << " overlaps " << cards[j]->title().toStdString();
    }
  }
  // The five variants of a program stand in one row of a 1600-pixel window.
  EXPECT_EQ(cards[1]->y(), cards[5]->y());
  // Everything fits without scrolling at 1600x940 (the Graph tab of a 1600x1000 window).
  auto* scroll = f.page->findChild<QScrollArea*>();
  ASSERT_NE(scroll, nullptr);
  EXPECT_EQ(scroll->verticalScrollBar()->maximum(), 0);
}

TEST(StartPage, ANarrowWindowWrapsTheCardsAndScrolls) {
  PageFixture f;
  f.page->resize(760, 520);
  QApplication::processEvents();
  const QList<StartPageEntry*>& cards = f.page->exampleCards();
  auto* scroll = f.page->findChild<QScrollArea*>();
  ASSERT_NE(scroll, nullptr);
  QWidget* content = scroll->widget();
  for (int i = 0; i < cards.size(); ++i) {
    const QRect a(cards[i]->mapTo(content, QPoint()), cards[i]->size());
    EXPECT_LE(a.right(), content->width()) << "cut off: " << cards[i]->title().toStdString();
    for (int j = i + 1; j < cards.size(); ++j)
      EXPECT_FALSE(a.intersects(QRect(cards[j]->mapTo(content, QPoint()), cards[j]->size())));
  }
  EXPECT_GT(cards[2]->y(), cards[1]->y()) << "the vec2vec row wraps";
  EXPECT_GT(scroll->verticalScrollBar()->maximum(), 0);
  EXPECT_EQ(scroll->horizontalScrollBar()->maximum(), 0);
  saveScreenshot(*f.page, QStringLiteral("start_page_760"));
}

TEST(StartPage, ListsRecentFilesAndMarksMissingOnes) {
  QTemporaryDir dir;
  const QString present = dir.filePath(QStringLiteral("present.json"));
  QFile::copy(examplePath("more_ones.json"), present);
  const QString missing = dir.filePath(QStringLiteral("missing.json"));
  PageFixture f({present, missing});
  const QList<StartPageEntry*>& entries = f.page->recentEntries();
  ASSERT_EQ(entries.size(), 2);
  EXPECT_EQ(entries[0]->title(), QStringLiteral("present.json"));
  EXPECT_EQ(entries[0]->detail(), QDir::toNativeSeparators(dir.path()));
  EXPECT_EQ(entries[1]->title(), QStringLiteral("missing.json"));
  EXPECT_TRUE(entries[1]->detail().startsWith(QStringLiteral("no longer there")));
  QSignalSpy opened(f.page.get(), &StartPage::recentFileRequested);
  QTest::mouseClick(entries[0], Qt::LeftButton);
  ASSERT_EQ(opened.count(), 1);
  EXPECT_EQ(opened.takeFirst().at(0).toString(), QFileInfo(present).absoluteFilePath());
  // A list emptied elsewhere shows the hint instead.
  f.recent.clear();
  f.page->refreshRecentFiles();
  EXPECT_TRUE(f.page->recentEntries().isEmpty());
}

TEST(StartPage, TabAndEnterWalkAndOpenTheEntries) {
  QTemporaryDir dir;
  const QString present = dir.filePath(QStringLiteral("recent.json"));
  QFile::copy(examplePath("more_ones.json"), present);
  PageFixture f({present});
  f.page->activateWindow();
  f.page->focusFirstEntry();
  ASSERT_TRUE(waitUntil([&] { return f.page->newProgramEntry()->hasFocus(); }, 2000));
  QSignalSpy newProgram(f.page.get(), &StartPage::newProgramRequested);
  QSignalSpy recent(f.page.get(), &StartPage::recentFileRequested);
  QSignalSpy example(f.page.get(), &StartPage::exampleRequested);
  QTest::keyClick(f.page->newProgramEntry(), Qt::Key_Return);
  EXPECT_TRUE(waitUntil([&] { return newProgram.count() == 1; }, 2000));
  // New program, Open…, then the recent file (the hidden "Back to" is skipped).
  QTest::keyClick(QApplication::focusWidget(), Qt::Key_Tab);
  QTest::keyClick(QApplication::focusWidget(), Qt::Key_Tab);
  ASSERT_EQ(QApplication::focusWidget(), f.page->recentEntries().front());
  QTest::keyClick(QApplication::focusWidget(), Qt::Key_Enter);
  EXPECT_TRUE(waitUntil([&] { return recent.count() == 1; }, 2000));
  // Then the example cards in order; Space opens one as well.
  QTest::keyClick(QApplication::focusWidget(), Qt::Key_Tab);
  ASSERT_EQ(QApplication::focusWidget(), f.page->exampleCards().front());
  QTest::keyClick(QApplication::focusWidget(), Qt::Key_Tab);
  ASSERT_EQ(QApplication::focusWidget(), f.page->exampleCards()[1]);
  QTest::keyClick(QApplication::focusWidget(), Qt::Key_Space);
  ASSERT_TRUE(waitUntil([&] { return example.count() == 1; }, 2000));
  EXPECT_EQ(example.takeFirst().at(0).toInt(), 1);
}

// ---- in the window -------------------------------------------------------------------

QDockWidget* dock(MainWindow& w, const char* name) {
  return w.findChild<QDockWidget*>(QString::fromLatin1(name));
}

// The status bar counts problems ("2 problem(s)"); "no problems" is none.
bool statusShowsProblems(MainWindow& w) {
  for (QLabel* label : w.statusBar()->findChildren<QLabel*>()) {
    if (label->isVisible() && label->text().contains(QStringLiteral("problem")) &&
        !label->text().startsWith(QStringLiteral("no ")))
      return true;
  }
  return false;
}

TEST(StartPageInWindow, ANewWindowShowsItWithoutDocksOrProblems) {
  QTemporaryDir recovery;
  QElapsedTimer timer;
  timer.start();
  MainWindow window(test::windowOptions(recovery.path()));
  window.resize(1600, 1000);
  window.show();
  QApplication::processEvents();
  std::printf("[ measure ] new window with its start page shown: %lld ms\n",
              static_cast<long long>(timer.elapsed()));
  EXPECT_TRUE(window.startPageShown());
  EXPECT_TRUE(window.startPage()->isVisible());
  EXPECT_FALSE(window.graphView()->isVisible());
  EXPECT_FALSE(window.document()->problems().empty()) << "an empty graph has no Input";
  EXPECT_FALSE(statusShowsProblems(window));
  for (const char* name : {"PaletteDock", "PropertiesDock", "OverviewDock", "ProblemsDock"})
    EXPECT_FALSE(dock(window, name)->isVisible()) << name;
  saveScreenshot(window, QStringLiteral("start_page_window"));

  // Opening a file shows the editor and its docks.
  ASSERT_TRUE(window.openFile(examplePath("more_ones.json")));
  QApplication::processEvents();
  EXPECT_FALSE(window.startPageShown());
  EXPECT_TRUE(window.graphView()->isVisible());
  for (const char* name : {"PaletteDock", "PropertiesDock", "OverviewDock", "ProblemsDock"})
    EXPECT_TRUE(dock(window, name)->isVisible()) << name;
  EXPECT_FALSE(statusShowsProblems(window)) << "more_ones has no problems";

  // Shown again over the open program, it offers the way back.
  window.showStartPage();
  QApplication::processEvents();
  EXPECT_TRUE(window.startPage()->resumeEntry()->isVisible());
  EXPECT_TRUE(window.startPage()->resumeEntry()->title().contains(QStringLiteral("more_ones")));
  QTest::mouseClick(window.startPage()->resumeEntry(), Qt::LeftButton);
  EXPECT_FALSE(window.startPageShown());
  EXPECT_EQ(window.document()->graph().nodeCount(), 13u);
}

TEST(StartPageInWindow, DocksTheUserClosedStayClosedAndOtherTabsKeepTheirRule) {
  QTemporaryDir recovery;
  MainWindow window(test::windowOptions(recovery.path()));
  window.resize(1600, 1000);
  window.show();
  ASSERT_TRUE(window.openFile(examplePath("more_ones.json")));
  QApplication::processEvents();
  dock(window, "OverviewDock")->close();
  window.showStartPage();
  QApplication::processEvents();
  EXPECT_FALSE(dock(window, "PaletteDock")->isVisible());
  QTest::mouseClick(window.startPage()->resumeEntry(), Qt::LeftButton);
  QApplication::processEvents();
  EXPECT_TRUE(dock(window, "PaletteDock")->isVisible());
  EXPECT_FALSE(dock(window, "OverviewDock")->isVisible()) << "closed by the person";
  // Another view hides the editor's side docks but keeps Problems, as before.
  ASSERT_EQ(window.showView(QStringLiteral("stepper")), QString());
  QApplication::processEvents();
  EXPECT_FALSE(dock(window, "PaletteDock")->isVisible());
  EXPECT_TRUE(dock(window, "ProblemsDock")->isVisible());
  ASSERT_EQ(window.showView(QStringLiteral("graph")), QString());
  QApplication::processEvents();
  EXPECT_TRUE(dock(window, "PaletteDock")->isVisible());
}

// As `lsrl-studio FILE` does: the file opens before the window shows, straight into the
// editor.
TEST(StartPageInWindow, AFileGivenAtStartOpensWithoutTheStartPage) {
  QTemporaryDir recovery;
  MainWindow window(test::windowOptions(recovery.path()));
  ASSERT_TRUE(window.openFile(examplePath("more_ones.json")));
  window.resize(1600, 1000);
  window.show();
  QApplication::processEvents();
  EXPECT_FALSE(window.startPageShown());
  EXPECT_FALSE(window.startPage()->isVisible());
  EXPECT_TRUE(dock(window, "PaletteDock")->isVisible());
  EXPECT_TRUE(dock(window, "ProblemsDock")->isVisible());
}

// `lsrl-studio --screenshot OUT.png` without a file pictures the start page, with the
// examples drawn (they come from a worker; the screenshot waits for them).
TEST(StartPageInWindow, TheHeadlessScreenshotWithoutAFileShowsTheExamplesDrawn) {
  QTemporaryDir dir;
  const QString path = dir.filePath(QStringLiteral("start.png"));
  QByteArray errors;
  ASSERT_EQ(test::runWithPlatform(QStringLiteral(LSRL_STUDIO_BINARY),
                                  {QStringLiteral("--screenshot"), path},
                                  QStringLiteral("offscreen"), &errors),
            0)
      << errors.toStdString();
  const QImage shot(path);
  ASSERT_FALSE(shot.isNull());
  // tok2tok's cards (the lower half) show their LinState and Linear boxes.
  const QImage lower = shot.copy(0, shot.height() / 2, shot.width(), shot.height() / 2);
  EXPECT_GT(pixelsOf(lower, opFill(StyleOp::LinState)), 20);
  EXPECT_GT(pixelsOf(lower, opFill(StyleOp::Linear)), 20);
}

TEST(StartPageInWindow, AnEditBehindThePageShowsTheEditor) {
  QTemporaryDir recovery;
  MainWindow window(test::windowOptions(recovery.path()));
  window.show();
  ASSERT_TRUE(window.startPageShown());
  window.document()->addPrimitive(Op::Input, 2, NodePosition{});
  QApplication::processEvents();
  EXPECT_FALSE(window.startPageShown());
}

}  // namespace
}  // namespace lsrl::studio
