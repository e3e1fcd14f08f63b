// The explorer's part-2 flow through the main window: open tok2tok, compile exactly and
// play the debranching to its end (a path), step the compiled model through the prompt
// and see the dictionary value in the output, follow it in the trajectory views (wired
// by the window to the stepper) and export a trajectory chart as SVG. Screenshots of each.
#include <gtest/gtest.h>

#include <QFile>
#include <QSvgRenderer>
#include <QTabWidget>
#include <QTemporaryDir>
#include <algorithm>

#include "app/studio/player/debranch_view.h"
#include "app/studio/plots/heatmap_widget.h"
#include "app/studio/plots/trajectory_view.h"
#include "app/studio/stepper/stepper_view.h"
#include "app/studio/window/main_window.h"
#include "studio/studio_test_util.h"

namespace lsrl::studio {
namespace {

TEST(ViewsScenario, CompilePlayStepFollowAndExport) {
  QTemporaryDir recovery, dir;
  MainWindow window(test::windowOptions(recovery.path()));
  window.resize(1600, 1000);
  window.show();
  ASSERT_TRUE(window.openFile(test::examplePath("tok2tok_L3_direct.json")));

  // Debranching: compile exactly (the tab compiles on demand) and go to the end.
  ASSERT_EQ(window.showView(QStringLiteral("debranch"), 0), QString());
  DebranchView* player = window.debranchView();
  ASSERT_GT(player->stepCount(), 100);
  player->toEnd();
  EXPECT_EQ(player->currentStep(), player->stepCount());
  test::saveScreenshot(window, QStringLiteral("views_1_debranch_end"));

  // Token stepper: the compiled model (exact) through the example prompt to its end.
  StepperView* stepper = window.stepperView();
  stepper->setEngines(EngineSpec::compiled(/*exact=*/true), std::nullopt);
  ASSERT_EQ(window.showView(QStringLiteral("stepper"), 0), QString())
      << stepper->lastError().toStdString();
  stepper->startRun();
  ASSERT_TRUE(stepper->waitForRun(120000)) << stepper->lastError().toStdString();
  ASSERT_GT(stepper->stepCount(), 3);
  const int last = stepper->stepCount() - 1;
  stepper->goToStep(last);
  // The example dictionary maps the query 4 2 6 to 9 2 5: the last three outputs.
  EXPECT_NE(stepper->outputText().indexOf(QStringLiteral("[9] [2] [5]")), -1)
      << stepper->outputText().toStdString();
  test::saveScreenshot(window, QStringLiteral("views_2_stepper_end"));

  // Trajectories follow the stepper: its series and its current step.
  TrajectoryView* trajectory = window.trajectoryView();
  ASSERT_FALSE(trajectory->series().empty()) << "the window hands the stepper's series over";
  EXPECT_EQ(trajectory->currentStep(), last);
  stepper->goToStep(5);
  EXPECT_EQ(trajectory->currentStep(), 5);
  ASSERT_EQ(window.showView(QStringLiteral("trajectory"), 5), QString());
  test::saveScreenshot(window, QStringLiteral("views_3_trajectory"));

  // The compiled model's state dimensions carry the program's variables' names: the
  // heat map of the LinState holding `query` has rows "query[0]".."query[2]".
  int withQuery = -1;
  for (size_t k = 0; k < trajectory->series().size(); ++k) {
    const auto& labels = trajectory->series()[k].labels;
    if (std::find(labels.begin(), labels.end(), "query[1]") != labels.end())
      withQuery = static_cast<int>(k);
  }
  ASSERT_GE(withQuery, 0) << "no compiled state is labelled query[1]";
  for (const StateSeries& s : trajectory->series())
    for (const std::string& label : s.labels)
      EXPECT_EQ(label.find("Pass"), std::string::npos) << label;
  trajectory->setCurrentSeries(withQuery);
  trajectory->tabs()->setCurrentIndex(TrajectoryView::Heatmap);
  // The state mixes 1e10 flags with the query's tokens: each row on its own scale.
  trajectory->setRowsScaled(true);
  EXPECT_TRUE(trajectory->heatmap()->data().rowScaled);
  test::saveScreenshot(window, QStringLiteral("views_4_heatmap_labelled"));

  const QString svg = dir.filePath(QStringLiteral("trajectory.svg"));
  trajectory->exportLinesSvg(svg);
  QSvgRenderer renderer(svg);
  EXPECT_TRUE(renderer.isValid());
  QFile file(svg);
  ASSERT_TRUE(file.open(QIODevice::ReadOnly));
  EXPECT_TRUE(file.readAll().contains("<polyline")) << "the lines stay vector lines";
}

}  // namespace
}  // namespace lsrl::studio
