// Issue 17 item 10, the GateLoop plane in a person's hands: from an empty window a person
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

namespace lsrl::studio {
namespace {

using namespace scenario;

// The bounding box of the dashed grey (150,150,150) circle's pixels inside `plot` (the
// axis lines on its edges share the grey); rows and columns with a couple of such pixels,
// so that stray antialiased pixels do not count.
QRect circlePixels(const QImage& image, const QRect& plot) {
  std::vector<int> rows(static_cast<size_t>(image.height())),
      cols(static_cast<size_t>(image.width()));
  const QRect inside = plot.adjusted(2, 2, -2, -2).intersected(image.rect());
  for (int y = inside.top(); y <= inside.bottom(); ++y)
    for (int x = inside.left(); x <= inside.right(); ++x) {
      const QColor c = image.pixelColor(x, y);
      if (std::abs(c.red() - 150) <= 4 && std::abs(c.green() - 150) <= 4 &&
          std::abs(c.blue() - 150) <= 4) {
        ++rows[static_cast<size_t>(y)];
        ++cols[static_cast<size_t>(x)];
      }
    }
  auto span = [](const std::vector<int>& counts) {
    int first = -1, last = -1;
    for (size_t i = 0; i < counts.size(); ++i)
      if (counts[i] >= 2) {
        if (first < 0) first = static_cast<int>(i);
        last = static_cast<int>(i);
      }
    return std::pair{first, last};
  };
  const auto [top, bottom] = span(rows);
  const auto [left, right] = span(cols);
  return QRect(QPoint(left, top), QPoint(right, bottom));
}

// The unit circle as a person reads it off the axes: the numbers under and beside the
// plot give where 0 is and how long one unit is on each axis.
QRectF unitCircleByTheLabels(QChartView* view) {
  const QRectF plot = view->chart()->plotArea();
  std::vector<std::pair<double, double>> across, up;  // (value, scene coordinate)
  for (QGraphicsItem* item : view->scene()->items()) {
    auto* text = qgraphicsitem_cast<QGraphicsTextItem*>(item);
    if (text == nullptr || !text->isVisible() || text->rotation() != 0) continue;
    bool number = false;
    const double value = text->toPlainText().toDouble(&number);
    if (!number) continue;
    const QRectF box = text->sceneBoundingRect();
    if (box.top() >= plot.bottom() - 2)
      across.emplace_back(value, box.center().x());
    else if (box.right() <= plot.left() + 2)
      up.emplace_back(value, box.center().y());
  }
  auto fit = [](std::vector<std::pair<double, double>> labels) {
    std::sort(labels.begin(), labels.end());
    if (labels.size() < 2) return std::pair{0.0, 0.0};
    const auto& [v0, p0] = labels.front();
    const auto& [v1, p1] = labels.back();
    const double perUnit = (p1 - p0) / (v1 - v0);
    return std::pair{p0 - v0 * perUnit, perUnit};
  };
  const auto [x0, xPerUnit] = fit(across);
  const auto [y0, yPerUnit] = fit(up);
  const QRectF scene(QPointF(x0 - xPerUnit, y0 + yPerUnit), QPointF(x0 + xPerUnit, y0 - yPerUnit));
  return view->mapFromScene(scene.normalized()).boundingRect();
}

// The plane as shown: the circle where the axes say, round, inside the plot area.
void expectTheUnitCircleOnTheAxes(QChartView* plane) {
  settle(50);
  const QImage image = plane->grab().toImage();
  const QRectF plot = plane->mapFromScene(plane->chart()->plotArea()).boundingRect();
  const QRect drawn = circlePixels(image, plot.toAlignedRect());
  const QRectF expected = unitCircleByTheLabels(plane);
  EXPECT_NEAR(drawn.center().x(), expected.center().x(), 3);
  EXPECT_NEAR(drawn.center().y(), expected.center().y(), 3);
  EXPECT_NEAR(drawn.width(), expected.width(), 4);
  EXPECT_NEAR(drawn.height(), expected.height(), 4);
  EXPECT_NEAR(drawn.width(), drawn.height(), 4) << "a circle, not an ellipse";
  EXPECT_TRUE(QRectF(plane->rect()).contains(plot)) << "the plot area inside the view";
}

// Picks `title` in the zoo panel's Model box: a click on the box, then on the entry.
void pickModel(ModelZooPanel* zoo, const QString& title) {
  QComboBox* box = nullptr;
  for (QComboBox* b : zoo->findChildren<QComboBox*>())
    if (box == nullptr && b->findText(title) >= 0) box = b;
  ASSERT_NE(box, nullptr) << "no Model box offering " << title.toStdString();
  click(box);
  QAbstractItemView* list = box->view();
  ASSERT_TRUE(waitUntil([&] { return list->isVisible(); }, 3000)) << "the Model list opens";
  const QModelIndex index = list->model()->index(box->findText(title), 0);
  list->scrollTo(index);
  const QPoint at = list->visualRect(index).center();
  settle(QApplication::doubleClickInterval());  // a release right after opening is ignored
  QTest::mouseMove(list->viewport(), at);
  QTest::mouseClick(list->viewport(), Qt::LeftButton, {}, at);
  ASSERT_TRUE(waitUntil([&] { return !list->isVisible(); }, 3000)) << "the list closes";
  ASSERT_EQ(box->currentText(), title);
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
    expectTheUnitCircleOnTheAxes(plane);
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
    expectTheUnitCircleOnTheAxes(plane);
    checkpoint(*s, QStringLiteral("gateloop_plane_02_splitter_%1").arg(dx));
  }
}

}  // namespace
}  // namespace lsrl::studio
