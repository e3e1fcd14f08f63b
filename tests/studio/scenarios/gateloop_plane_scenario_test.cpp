// the GateLoop plane in a person's hands: from an empty window a person
// opens the Models tab, picks GateLoop in the Model box, presses Run and then drags the
// splitter beside the complex plane to give the charts more room. The dashed unit circle
// must stay |a| = 1 where the plane's axis numbers say, round and inside the plot (after
// a resize it used to be drawn for the old plot area while the axes moved on).
#include <QChartView>
#include <QGraphicsTextItem>
#include <QPushButton>
#include <QSplitter>
#include <algorithm>
#include <vector>

#include "app/studio/zoo/gateloop_view.h"
#include "app/studio/zoo/model_tab.h"
#include "app/studio/zoo/model_zoo_panel.h"
#include "studio/scenarios/scenario_driver.h"
#include "studio/zoo_test_util.h"

namespace lsrl::studio {
namespace {

using namespace scenario;

// Picks `title` in the zoo panel's Model box.
void pickModel(ModelZooPanel* zoo, const QString& title) {
  chooseInCombo(comboOffering(zoo, title), title);
}

TEST(ModelsScenario, TheGateLoopUnitCircleFollowsTheAxesWhenTheSplitterMoves) {
  Session s;
  clickTab(s.window.get(), QStringLiteral("Models"));
  auto* tab = findVisible<ModelTab>(s.window.get());
  ASSERT_NE(tab, nullptr);
  pickModel(tab->zoo(), QStringLiteral("GateLoop"));
  click(tab->zoo()->runButton());
  ASSERT_TRUE(waitUntil([&] { return !tab->isRunning(); }, 120000)) << "the run ends";
  auto* view = findVisible<GateLoopView>(tab);
  ASSERT_NE(view, nullptr) << tab->statusText().toStdString();
  QChartView* plane = view->planeView();
  checkpoint(*s, QStringLiteral("gateloop_plane_01_run"));
  {
    SCOPED_TRACE("after the run");
    settle(50);
    test::expectTheUnitCircleOnTheAxes(plane);
  }

  // The splitter between the plane and the charts: dragged left, then back past the start.
  QSplitter* splitter = nullptr;
  for (QSplitter* sp : view->findChildren<QSplitter*>())
    if (sp->orientation() == Qt::Horizontal && sp->isAncestorOf(plane)) splitter = sp;
  ASSERT_NE(splitter, nullptr);
  QSplitterHandle* handle = splitter->handle(1);
  const QPoint grip = handle->rect().center();
  for (const int dx : {-220, 320}) {
    SCOPED_TRACE(QStringLiteral("after dragging the splitter by %1 px").arg(dx).toStdString());
    const int before = plane->width();
    drag(handle, grip, grip + QPoint(dx, 0));
    settle(100);
    EXPECT_NE(plane->width(), before) << "the drag moved the splitter";
    settle(50);
    test::expectTheUnitCircleOnTheAxes(plane);
    checkpoint(*s, QStringLiteral("gateloop_plane_02_splitter_%1").arg(dx));
  }
}

}  // namespace
}  // namespace lsrl::studio
