// The GateLoop view (issue 8): transitions in the complex plane, magnitudes and phases
// over tokens, linked to the step, with exports.
#include <gtest/gtest.h>

#include <QChartView>
#include <QElapsedTimer>
#include <QGraphicsTextItem>
#include <QImage>
#include <QLabel>
#include <QLineSeries>
#include <QScatterSeries>
#include <QSvgRenderer>
#include <QTemporaryDir>
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "app/studio/plots/chart_export.h"
#include "app/studio/zoo/gateloop_view.h"
#include "app/studio/zoo/model_run.h"
#include "app/studio/zoo/step_chart.h"
#include "core/util/atomic_file.h"
#include "core/util/error.h"
#include "studio/studio_test_util.h"
#include "studio/zoo_test_util.h"

namespace lsrl::studio {
namespace {

// Where the plane's dashed grey unit circle is drawn inside `plot` (the axis lines on its
// edges share the grey): the bounding box of its pixels, colour 150,150,150, counting rows
// and columns with a few such pixels so that stray antialiased pixels do not count.
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
// plot (the tick labels, as drawn) give where 0 is and how long one unit is on each axis.
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
  // Pixels at value 0 and per unit from the two labels farthest apart.
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

std::shared_ptr<const ModelRun> gateLoopRun(nlohmann::json config = nlohmann::json::object()) {
  ModelRunRequest r;
  r.kind = "gateloop";
  r.config = std::move(config);
  return std::make_shared<ModelRun>(runSeedModelRequest(r));
}

TEST(GateLoopView, PlotsTheTransitionsAndFollowsTheStep) {
  const auto run = gateLoopRun();
  GateLoopView view;
  view.resize(1400, 860);
  view.setRun(run);
  view.show();
  QApplication::processEvents();
  const Tensor& mag = run->trace.get("a_magnitude");
  const Tensor& phi = run->trace.get("a_phase");
  const int T = static_cast<int>(mag.shape[0]), C = static_cast<int>(mag.shape[1]);
  ASSERT_EQ(view.channels(), (std::vector<int>{0, 1, 2, 3}));
  ASSERT_EQ(view.pathSeries().size(), 4u);
  for (int k = 0; k < 4; ++k) {
    const QScatterSeries* path = view.pathSeries()[static_cast<size_t>(k)];
    ASSERT_EQ(path->count(), T);
    for (int t = 0; t < T; t += 9) {
      const size_t i = static_cast<size_t>(t) * C + static_cast<size_t>(k);
      EXPECT_NEAR(path->at(t).x(), mag.data[i] * std::cos(phi.data[i]), 1e-12);
      EXPECT_NEAR(path->at(t).y(), mag.data[i] * std::sin(phi.data[i]), 1e-12);
      EXPECT_LE(std::hypot(path->at(t).x(), path->at(t).y()), 1.0);  // inside the unit circle
    }
  }
  view.setStep(21);
  const QPointF now = view.currentSeries()[1]->at(0);
  EXPECT_EQ(now, view.pathSeries()[1]->at(21));
  EXPECT_NE(view.infoLabel()->text().indexOf(QStringLiteral("token 21")), -1);
  EXPECT_EQ(view.magnitudeChart()->lines()[2]->at(21).y(), mag.data[21 * C + 2]);
  EXPECT_EQ(view.phaseChart()->lines()[2]->at(21).y(), phi.data[21 * C + 2]);
  test::saveScreenshot(view, QStringLiteral("zoo_gateloop_view"));
  view.setChannels({5});
  ASSERT_EQ(view.pathSeries().size(), 1u);
  EXPECT_EQ(view.pathSeries()[0]->name(), QStringLiteral("c5"));
  EXPECT_EQ(view.currentSeries()[0]->at(0), view.pathSeries()[0]->at(21));
}

// Issue 17: the unit circle is |a| = 1 where the axes' numbers say, round and inside the
// plot area, at any size of the view (after a resize it used to be drawn for the old plot
// area while the axes moved on).
TEST(GateLoopView, TheUnitCircleFollowsTheAxesAtAnySize) {
  const auto run = gateLoopRun();
  GateLoopView view;
  view.resize(1400, 860);
  view.setRun(run);
  view.show();
  QApplication::processEvents();
  for (const QSize size : {QSize(1400, 860), QSize(1000, 640), QSize(1300, 520), QSize(900, 900)}) {
    view.resize(size);
    QApplication::processEvents();
    QChartView* plane = view.planeView();
    const QImage image = plane->grab().toImage();
    const QRectF plot = plane->mapFromScene(plane->chart()->plotArea()).boundingRect();
    const QRect drawn = circlePixels(image, plot.toAlignedRect());
    const QRectF expected = unitCircleByTheLabels(plane);
    SCOPED_TRACE(QStringLiteral("view %1x%2").arg(size.width()).arg(size.height()).toStdString());
    EXPECT_NEAR(drawn.center().x(), expected.center().x(), 3);
    EXPECT_NEAR(drawn.center().y(), expected.center().y(), 3);
    EXPECT_NEAR(drawn.width(), expected.width(), 4);
    EXPECT_NEAR(drawn.height(), expected.height(), 4);
    EXPECT_NEAR(drawn.width(), drawn.height(), 4) << "a circle, not an ellipse";
    EXPECT_TRUE(QRectF(plane->rect()).contains(plot)) << "the plot area inside the view";
    EXPECT_GT(drawn.width(), 0.6 * std::min(plot.width(), plot.height())) << "fills the plot";
  }
  test::saveScreenshot(view, QStringLiteral("zoo_gateloop_view_900x900"));
}

TEST(GateLoopView, ExportsAndMissingArrays) {
  const auto run = gateLoopRun();
  GateLoopView view;
  view.resize(1300, 800);
  view.setRun(run);
  view.show();
  QApplication::processEvents();
  QTemporaryDir dir;
  test::writeEveryExport(view, dir);
  const StateSeries points = parseSeriesCsv(
      readWholeFile(dir.filePath(QStringLiteral("Transitionpoints(CSV).csv")).toStdString()));
  EXPECT_EQ(points.labels[1], "c0.im");
  EXPECT_EQ(points.values, view.planePoints().values);
  const std::string error = test::errorForEmptyTrace(view, *run);
  EXPECT_NE(error.find("a_magnitude"), std::string::npos) << error;
}

TEST(GateLoopView, LayersAndStepTiming) {
  const auto run = gateLoopRun({{"layers", 2}});
  GateLoopView view;
  view.resize(1400, 860);
  view.setRun(run);
  view.show();
  view.setLayer(1);
  EXPECT_EQ(view.magnitudeChart()->lines()[0]->at(3).y(),
            run->trace.get("layer1.a_magnitude").data[3 * 8]);
  const double median = test::medianStepRedrawMs(
      view, static_cast<int>(run->input.size()), [&](int t) { view.setStep(t); }, "GateLoop view");
  EXPECT_LT(median, 50);
}

}  // namespace
}  // namespace lsrl::studio
