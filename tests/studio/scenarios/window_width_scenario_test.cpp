// The window keeps the size a person gave it. At 1000x700 and at 1600x1000, a person
// opens more_ones from the start page, selects a LinState, visits every tab, runs every
// seed model in the Models tab (their long header lines and plots were what pushed the
// window wider than the screen), and comes back to the graph. After every step the
// window's width is unchanged, every dock and every button lies inside the window, and
// the Palette stays wide enough to read its entries.
#include <QDockWidget>
#include <QLabel>
#include <QStatusBar>

#include "app/studio/editor/graph_view.h"
#include "app/studio/window/start_page.h"
#include "app/studio/window/start_page_entry.h"
#include "studio/scenarios/editor_driver.h"
#include "studio/scenarios/models_driver.h"

namespace lsrl::studio {
namespace window_width {  // named: the scenario files share one unity translation unit

using namespace scenario;

// The widest minimum widths under `root` (hidden tab pages count too: a tab widget is as
// wide as its widest page), for a failure message that names the culprit.
std::string widestMinimums(QWidget* root) {
  std::vector<std::pair<int, std::string>> widths;
  for (QWidget* w : root->findChildren<QWidget*>()) {
    if (w->isWindow()) continue;
    const int min = std::max(w->minimumSizeHint().width(), w->minimumWidth());
    QString parents;
    for (QWidget* p = w->parentWidget(); p != nullptr && p != root; p = p->parentWidget())
      if (!p->objectName().isEmpty() && !p->objectName().startsWith(QLatin1String("qt_"))) {
        parents = QStringLiteral(" in ") + p->objectName();
        break;
      }
    widths.emplace_back(min, std::string(w->metaObject()->className()) + " '" +
                                 w->objectName().toStdString() + "'" + parents.toStdString() +
                                 (w->isVisible() ? "" : " (hidden)"));
  }
  std::sort(widths.rbegin(), widths.rend());
  std::string text;
  for (size_t i = 0; i < std::min<size_t>(widths.size(), 25); ++i)
    text += "\n  " + std::to_string(widths[i].first) + " px  " + widths[i].second;
  return text;
}

// The right edge of `w` in the window's coordinates.
int rightEdgeInWindow(QWidget* w, QWidget* window) {
  return w->mapTo(window, QPoint(w->width(), 0)).x();
}

// Checks the window after one step of the walk: the width the person gave it, docks,
// status bar and buttons inside it, a readable Palette.
void expectWindowKept(MainWindow& w, int width, const std::string& step) {
  SCOPED_TRACE(step);
  settle(100);
  EXPECT_EQ(w.width(), width) << "the window changed its width; widest minimums:"
                              << widestMinimums(&w);
  EXPECT_LE(w.minimumSizeHint().width(), 1000)
      << "the window's content asks for more than 1000 px:" << widestMinimums(&w);
  for (QDockWidget* dock : w.findChildren<QDockWidget*>()) {
    if (!dock->isVisible()) continue;
    EXPECT_LE(rightEdgeInWindow(dock, &w), w.width())
        << dock->objectName().toStdString() << " is cut off at the right";
  }
  EXPECT_LE(rightEdgeInWindow(w.statusBar(), &w), w.width()) << "the status bar is cut off";
  for (QAbstractButton* b : w.findChildren<QAbstractButton*>()) {
    if (!b->isVisible() || b->window() != &w) continue;
    EXPECT_LE(rightEdgeInWindow(b, &w), w.width())
        << "the button '" << b->text().toStdString() << "' is cut off at the right";
  }
  for (QDockWidget* dock : w.findChildren<QDockWidget*>()) {
    if (dock->objectName() == QLatin1String("PaletteDock") && dock->isVisible()) {
      EXPECT_GE(dock->width(), 140) << "the Palette is squeezed";
    }
  }
}

void openMoreOnes(Session& s) {
  StartPage* page = findVisible<StartPage>(s.window.get());
  ASSERT_NE(page, nullptr);
  StartPageEntry* card = nullptr;
  for (StartPageEntry* c : page->exampleCards())
    if (c->accessibleName() == QLatin1String("more_ones")) card = c;
  ASSERT_NE(card, nullptr);
  click(card);
  ASSERT_TRUE(waitUntil([&] { return s->graphView()->isVisible(); }, 5000));
  ASSERT_NE(s->document()->graph().findByName("ones"), kNoNode);
}

void selectLinState(Session& s) {
  GraphView* view = s->graphView();
  clickBox(view, boxShowing(view, s->document()->graph().findByName("ones")));
  ASSERT_EQ(view->selectedItems().size(), 1);
}

void runEveryModel(Session& s, int width) {
  auto* tab = findVisible<ModelTab>(s.window.get());
  ASSERT_NE(tab, nullptr);
  for (const QString& title : modelTitles(tab)) {
    chooseInCombo(modelBox(tab), title);
    runModel(tab, 60000);
    settle(100);
    expectWindowKept(*s, width, "after running " + title.toStdString());
  }
}

void walkEveryTab(int width, int height) {
  Session s;
  s->resize(width, height);
  settle(200);
  ASSERT_EQ(s->width(), width);
  openMoreOnes(s);
  expectWindowKept(*s, width, "more_ones opened");
  selectLinState(s);
  expectWindowKept(*s, width, "a LinState selected");
  auto* tabs = s->findChild<QTabWidget*>(QStringLiteral("Views"));
  ASSERT_NE(tabs, nullptr);
  QStringList titles;
  for (int i = 0; i < tabs->count(); ++i) titles << tabs->tabText(i).remove(QLatin1Char('&'));
  for (const QString& title : titles) {
    clickTab(s.window.get(), title);
    expectWindowKept(*s, width, "tab " + title.toStdString());
    checkpoint(*s, QStringLiteral("window_width_%1_%2").arg(width).arg(title));
  }
  runEveryModel(s, width);
  checkpoint(*s, QStringLiteral("window_width_%1_models_run").arg(width));
  clickTab(s.window.get(), QStringLiteral("Graph"));
  expectWindowKept(*s, width, "back to Graph");
  selectLinState(s);
  expectWindowKept(*s, width, "a LinState selected again");
  checkpoint(*s, QStringLiteral("window_width_%1_graph_again").arg(width));
}

TEST(WindowWidthScenario, EveryTabAndEveryModelAt1000x700KeepTheWindowWidth) {
  walkEveryTab(1000, 700);
}

TEST(WindowWidthScenario, EveryTabAndEveryModelAt1600x1000KeepTheWindowWidth) {
  walkEveryTab(1600, 1000);
}

}  // namespace window_width
}  // namespace lsrl::studio
