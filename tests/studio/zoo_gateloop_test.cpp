// The GateLoop view: transitions in the complex plane, magnitudes and phases
// over tokens, linked to the step, with exports.
#include <gtest/gtest.h>

#include <QChartView>
#include <QElapsedTimer>
#include <QGraphicsTextItem>
#include <QImage>
#include <QLabel>
#include <QLineSeries>
#include <QListWidget>
#include <QScatterSeries>
#include <QSvgRenderer>
#include <QTemporaryDir>
#include <QTest>
#include <QValueAxis>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

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

std::shared_ptr<const ModelRun> gateLoopRun(nlohmann::json config = nlohmann::json::object()) {
  ModelRunRequest r;
  r.kind = "gateloop";
  r.config = std::move(config);
  return std::make_shared<ModelRun>(runSeedModelRequest(r));
}

TEST(GateLoopView, PlotsTheTransitionsAndFollowsTheStep) {
  const auto run = gateLoopRun();
  GateLoopView view;
  test::showRun(view, run, 1400, 860);
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

// Unchecking every channel leaves the charts empty (a span of ±1e-6); checking one again in
// the list used to hang the explorer: the [0, 1] range was laid out with the empty charts'
// tick interval, a million ticks.
TEST(GateLoopView, ChannelsCheckedAgainAfterNoneRedrawPromptly) {
  const auto run = gateLoopRun();
  GateLoopView view;
  test::showRun(view, run, 1400, 860);
  auto* list = view.findChild<QListWidget*>(QStringLiteral("ChannelList"));
  ASSERT_NE(list, nullptr);
  // A click on an item's check box: the indicator is at the left of the item's row.
  auto clickBox = [&](int c) {
    const QRect row = list->visualItemRect(list->item(c));
    QTest::mouseClick(list->viewport(), Qt::LeftButton, {},
                      QPoint(row.left() + 10, row.center().y()));
  };
  for (int c : view.channels()) clickBox(c);
  ASSERT_TRUE(view.channels().empty());
  EXPECT_TRUE(view.magnitudeChart()->lines().empty());
  QElapsedTimer timer;
  timer.start();
  clickBox(6);
  QApplication::processEvents();
  EXPECT_EQ(view.channels(), std::vector<int>{6});
  ASSERT_EQ(view.magnitudeChart()->lines().size(), 1u);
  EXPECT_LT(timer.elapsed(), 2000);  // it took minutes
  const auto* axis =
      qobject_cast<QValueAxis*>(view.magnitudeChart()->lines()[0]->attachedAxes().constLast());
  ASSERT_NE(axis, nullptr);
  EXPECT_GE(axis->tickInterval(), (axis->max() - axis->min()) / 10);
}

// the unit circle is |a| = 1 where the axes' numbers say, round and inside the
// plot area, at any size of the view (after a resize it used to be drawn for the old plot
// area while the axes moved on).
TEST(GateLoopView, TheUnitCircleFollowsTheAxesAtAnySize) {
  const auto run = gateLoopRun();
  GateLoopView view;
  test::showRun(view, run, 1400, 860);
  for (const QSize size : {QSize(1400, 860), QSize(1000, 640), QSize(1300, 520), QSize(900, 900)}) {
    view.resize(size);
    QApplication::processEvents();
    SCOPED_TRACE(QStringLiteral("view %1x%2").arg(size.width()).arg(size.height()).toStdString());
    test::expectTheUnitCircleOnTheAxes(view.planeView());
  }
  test::saveScreenshot(view, QStringLiteral("zoo_gateloop_view_900x900"));
}

TEST(GateLoopView, ExportsAndMissingArrays) {
  const auto run = gateLoopRun();
  GateLoopView view;
  test::showRun(view, run, 1300, 800);
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
