// The looped-transformer view: hidden states across loops (PCA), attention per
// loop and head, the timestep scales, the step norm per loop, exports, and 3D on X.
#include <gtest/gtest.h>

#include <Q3DScatter>
#include <Q3DTheme>
#include <QApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QGuiApplication>
#include <QImage>
#include <QLabel>
#include <QLineSeries>
#include <QScatterSeries>
#include <QSvgRenderer>
#include <QTemporaryDir>
#include <QWindow>
#include <algorithm>
#include <cstdio>

#include "app/studio/plots/chart_export.h"
#include "app/studio/plots/heatmap_widget.h"
#include "app/studio/zoo/looped_view.h"
#include "app/studio/zoo/model_run.h"
#include "app/studio/zoo/step_chart.h"
#include "core/util/atomic_file.h"
#include "core/util/error.h"
#include "studio/studio_test_util.h"
#include "studio/zoo_test_util.h"

namespace lsrl::studio {
namespace {

std::shared_ptr<const ModelRun> loopedRun() {
  ModelRunRequest r;
  r.kind = "looped";
  return std::make_shared<ModelRun>(runSeedModelRequest(r));
}

// Entry [i] of a trace array, by flat index.
double at(const ModelRun& run, const char* name, size_t i) { return run.trace.get(name).data[i]; }

TEST(LoopedView, PathsAcrossLoopsAndTheCurrentLoop) {
  const auto run = loopedRun();
  LoopedView view;
  test::showRun(view, run, 1500, 900);
  const Tensor& hidden = run->trace.get("hidden");
  const int r = static_cast<int>(hidden.shape[0]) - 1, N = static_cast<int>(hidden.shape[1]);
  const int heads = static_cast<int>(run->trace.get("attention").shape[1]);
  const int d = static_cast<int>(hidden.shape[2]);
  ASSERT_GT(r, 2);
  ASSERT_EQ(view.loops(), r);
  ASSERT_EQ(view.tokens(), N);
  ASSERT_EQ(view.paths().size(), static_cast<size_t>(N));
  // Token n's path visits its PCA projection after every loop, X⁽⁰⁾ first.
  for (int n = 0; n < N; ++n) {
    const QLineSeries* path = view.paths()[static_cast<size_t>(n)];
    ASSERT_EQ(path->count(), r + 1);
    for (int t = 0; t <= r; ++t) {
      const std::vector<double>& p = view.pca().projected[static_cast<size_t>(t * N + n)];
      EXPECT_DOUBLE_EQ(path->at(t).x(), p[0]);
      EXPECT_DOUBLE_EQ(path->at(t).y(), p[1]);
    }
  }
  view.setStep(3);
  ASSERT_EQ(view.currentPoints()->count(), N);
  for (int n = 0; n < N; ++n)
    EXPECT_EQ(view.currentPoints()->at(n), view.paths()[static_cast<size_t>(n)]->at(3));
  // Loop 3's attention of head 0: row q is query q's weights over the keys.
  const HeatmapData& att = view.attentionMap()->data();
  ASSERT_EQ(att.values.size(), static_cast<size_t>(N));
  for (int q = 0; q < N; ++q)
    for (int k = 0; k < N; ++k)
      EXPECT_EQ(att.values[static_cast<size_t>(q)][static_cast<size_t>(k)],
                at(*run, "attention", static_cast<size_t>(((2 * heads + 0) * N + q) * N + k)));
  if (heads > 1) {
    view.setHead(1);
    EXPECT_EQ(view.attentionMap()->data().values[1][0],
              at(*run, "attention", static_cast<size_t>(((2 * heads + 1) * N + 1) * N)));
  }
  // α₁ per channel (rows) and loop (columns); γ₂ after switching.
  const HeatmapData& scales = view.scalesMap()->data();
  ASSERT_EQ(scales.values.size(), static_cast<size_t>(d));
  EXPECT_EQ(scales.values[2][4], at(*run, "alpha", static_cast<size_t>((4 * 2 + 0) * d + 2)));
  view.setScale(3);
  EXPECT_EQ(view.scalesMap()->data().values[5][1],
            at(*run, "gamma", static_cast<size_t>((1 * 2 + 1) * d + 5)));
  // The step norm per loop, loop 1 first, with the current loop marked.
  const QLineSeries* norms = view.stepNormChart()->lines()[0];
  ASSERT_EQ(norms->count(), r);
  EXPECT_EQ(norms->at(0).x(), 1);
  EXPECT_EQ(norms->at(r - 1).y(), at(*run, "step_norm", static_cast<size_t>(r - 1)));
  EXPECT_NE(view.infoLabel()->text().indexOf(QStringLiteral("loop 3 of %1").arg(r)), -1);
  EXPECT_NE(view.infoLabel()->text().indexOf(QStringLiteral("read-out argmax")), -1);
  view.setScale(0);
  test::saveScreenshot(view, QStringLiteral("zoo_looped_view"));
  // One token's path only.
  view.setToken(1);
  ASSERT_EQ(view.paths().size(), 1u);
  EXPECT_EQ(view.paths()[0]->name(), QStringLiteral("token 1"));
  ASSERT_EQ(view.currentPoints()->count(), 1);
  EXPECT_EQ(view.currentPoints()->at(0), view.paths()[0]->at(3));
  // X⁽⁰⁾ has no attention of its own: loop 1's is shown, and the step is clamped.
  view.setHead(0);
  view.setStep(0);
  EXPECT_EQ(view.attentionMap()->data().values[0][0], at(*run, "attention", 0));
  view.setStep(r + 5);
  EXPECT_EQ(view.step(), r);
  test::saveScreenshot(view, QStringLiteral("zoo_looped_view_token1"));
}

TEST(LoopedView, ExportsAndMissingArrays) {
  const auto run = loopedRun();
  LoopedView view;
  view.resize(1400, 860);
  view.setRun(run);
  view.setStep(2);
  view.show();
  QApplication::processEvents();
  QTemporaryDir dir;
  EXPECT_GE(test::writeEveryExport(view, dir), 9);
  const StateSeries points = parseSeriesCsv(
      readWholeFile(dir.filePath(QStringLiteral("PCApoints(CSV).csv")).toStdString()));
  EXPECT_EQ(points.labels, (std::vector<std::string>{"loop", "token", "PC1", "PC2", "PC3"}));
  EXPECT_EQ(points.values.size(), static_cast<size_t>((view.loops() + 1) * view.tokens()));
  for (size_t i = 0; i < points.values.size(); ++i)
    for (size_t k = 0; k < 5; ++k)
      EXPECT_NEAR(points.values[i][k], view.pcaPoints().values[i][k], 1e-12);
  const std::string error = test::errorForEmptyTrace(view, *run);
  EXPECT_NE(error.find("\"hidden\""), std::string::npos) << error;
}

TEST(LoopedView, StepTiming) {
  const auto run = loopedRun();
  LoopedView view;
  view.resize(1500, 900);
  view.setRun(run);
  view.show();
  const double median = test::medianStepRedrawMs(
      view, view.loops() + 1, [&](int t) { view.setStep(t); }, "Looped view", 4);
  EXPECT_LT(median, 50);
}

TEST(LoopedViewXcb, DrawsTheStatesIn3d) {
  if (QGuiApplication::platformName() != QLatin1String("xcb"))
    GTEST_SKIP() << "3D needs xcb (platform is " << QGuiApplication::platformName().toStdString()
                 << ")";
  const auto run = loopedRun();
  LoopedView view;
  view.resize(1500, 900);
  view.setRun(run);
  view.setStep(4);
  view.show();
  ASSERT_TRUE(view.has3d());
  test::waitUntil([] { return false; }, 300);
  const QImage image = view.renderImage();
  EXPECT_GT(test::distinctColours(image), 20);
  image.save(QDir(test::screenshotDir()).filePath(QStringLiteral("zoo_looped_view_3d.png")));
  QTemporaryDir dir;
  bool exported = false;
  for (const ViewExport& e : view.exports()) {
    if (!e.label.startsWith(QStringLiteral("PCA 3D"))) continue;
    const QString png = dir.filePath(QStringLiteral("states3d.png"));
    e.write(png);
    EXPECT_GT(test::distinctColours(QImage(png)), 20);
    const StateSeries points =
        parseSeriesCsv(readWholeFile(dir.filePath(QStringLiteral("states3d.csv")).toStdString()));
    EXPECT_EQ(points.values.size(), static_cast<size_t>((view.loops() + 1) * view.tokens()));
    exported = true;
  }
  EXPECT_TRUE(exported);
}

// the 3D axis labels read under software OpenGL. With the default theme they
// were a small font in a bordered box, drawn without multisampling: the box was all that
// showed. The Models tab's 3D graphs use a large font without the box.
TEST(LoopedViewXcb, TheAxisLabelsAreLargeAndUnboxed) {
  if (QGuiApplication::platformName() != QLatin1String("xcb"))
    GTEST_SKIP() << "3D needs xcb (platform is " << QGuiApplication::platformName().toStdString()
                 << ")";
  const auto run = loopedRun();
  LoopedView view;
  view.resize(1290, 660);
  view.setRun(run);
  view.show();
  ASSERT_TRUE(view.has3d());
  int graphs = 0;
  for (QWindow* window : QGuiApplication::allWindows()) {
    auto* graph = qobject_cast<Q3DScatter*>(window);
    if (graph == nullptr) continue;
    ++graphs;
    const Q3DTheme* theme = graph->activeTheme();
    EXPECT_GE(theme->font().pointSize(), 20);
    EXPECT_FALSE(theme->isLabelBackgroundEnabled());
    EXPECT_FALSE(theme->isLabelBorderEnabled());
  }
  EXPECT_EQ(graphs, 1);
  test::waitUntil([] { return false; }, 300);
  view.renderImage().save(
      QDir(test::screenshotDir()).filePath(QStringLiteral("zoo_looped_view_3d_1290x660.png")));
}

}  // namespace
}  // namespace lsrl::studio
