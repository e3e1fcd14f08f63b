// GUI tests of the plot views: trajectory tabs on a synthetic
// rotation, PCA numbers, heat map pixels, the UA heat map against vec2vecExpected, the
// noise plot from docs/noise, and the exports (SVG parses, CSV round trip).
#include <gtest/gtest.h>

#include <QChartView>
#include <QComboBox>
#include <QElapsedTimer>
#include <QFile>
#include <QGuiApplication>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QScatterSeries>
#include <QSignalSpy>
#include <QSvgRenderer>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QValueAxis>
#include <algorithm>
#include <cmath>
#include <iostream>
#include <numbers>

#include "app/studio/document/document.h"
#include "app/studio/plots/chart_export.h"
#include "app/studio/plots/colour_map.h"
#include "app/studio/plots/heatmap_widget.h"
#include "app/studio/plots/noise_plot_view.h"
#include "app/studio/plots/pca.h"
#include "app/studio/plots/pca_2d_panel.h"
#include "app/studio/plots/pca_3d_panel.h"
#include "app/studio/plots/trajectory_lines_panel.h"
#include "app/studio/plots/trajectory_view.h"
#include "app/studio/plots/ua_heatmap.h"
#include "app/studio/plots/ua_heatmap_view.h"
#include "core/programs/vec2vec.h"
#include "core/util/atomic_file.h"
#include "core/util/error.h"
#include "studio/studio_test_util.h"

namespace lsrl::studio {
namespace {

using test::saveScreenshot;
using test::waitUntil;

constexpr int kSteps = 50;
constexpr double kPeriod = 25;  // two full turns in 50 steps

// An ellipse traversed twice: 2·cos θ, sin θ, and a constant 3 (spans a plane).
StateSeries rotationSeries() {
  StateSeries s;
  s.title = "LinState 3 'query'";
  s.labels = {"query[0]", "query[1]", "query[2]"};
  for (int t = 0; t < kSteps; ++t) {
    const double a = 2 * std::numbers::pi * t / kPeriod;
    s.values.push_back({2 * std::cos(a), std::sin(a), 3.0});
  }
  return s;
}

StateSeries rampSeries() {
  StateSeries s;
  s.title = "Linear 5 'ramp'";
  s.labels = {"ramp[0]"};
  for (int t = 0; t < kSteps; ++t) s.values.push_back({t / 10.0});
  return s;
}

TEST(Pca, PlanarRotationHasTwoComponents) {
  const PcaResult pca = computePca(rotationSeries(), 3);
  // Two full periods: Σcos² = Σsin² = 25, Σcos·sin = 0, so the sample variances are
  // 4·25/49 and 25/49 and the constant component adds none.
  ASSERT_EQ(pca.variances.size(), 2u);
  EXPECT_NEAR(pca.variances[0], 100.0 / 49, 1e-12);
  EXPECT_NEAR(pca.variances[1], 25.0 / 49, 1e-12);
  EXPECT_NEAR(pca.explained(0), 0.8, 1e-12);
  EXPECT_NEAR(pca.explained(1), 0.2, 1e-12);
  EXPECT_NEAR(pca.explained(0) + pca.explained(1), 1.0, 1e-12);
  // The axes are the first two components, signs fixed positive.
  EXPECT_NEAR(pca.axes[0][0], 1.0, 1e-12);
  EXPECT_NEAR(pca.axes[1][1], 1.0, 1e-12);
  EXPECT_NEAR(pca.mean[2], 3.0, 1e-12);
  // Projections recover the ellipse.
  for (int t = 0; t < kSteps; ++t) {
    const double a = 2 * std::numbers::pi * t / kPeriod;
    EXPECT_NEAR(pca.projected[t][0], 2 * std::cos(a), 1e-9);
    EXPECT_NEAR(pca.projected[t][1], std::sin(a), 1e-9);
  }
}

TEST(Pca, WideStatesUseTheGramMatrix) {
  // More components than steps: the Gram path must give the same spectrum.
  StateSeries s;
  for (int c = 0; c < 30; ++c) s.labels.push_back("x[" + std::to_string(c) + "]");
  for (int t = 0; t < 8; ++t) {
    std::vector<double> row(30);
    for (int c = 0; c < 30; ++c) row[c] = std::cos(0.7 * t) * (c + 1) + std::sin(0.7 * t) * (c % 3);
    s.values.push_back(row);
  }
  const PcaResult wide = computePca(s, 3);
  ASSERT_EQ(wide.variances.size(), 2u);
  EXPECT_NEAR(wide.explained(0) + wide.explained(1), 1.0, 1e-9);
  // The same data with a few more steps than components goes through the covariance.
  StateSeries tall = s;
  for (int t = 8; t < 40; ++t) {
    std::vector<double> row(30);
    for (int c = 0; c < 30; ++c) row[c] = std::cos(0.7 * t) * (c + 1) + std::sin(0.7 * t) * (c % 3);
    tall.values.push_back(row);
  }
  const PcaResult covariance = computePca(tall, 3);
  ASSERT_EQ(covariance.variances.size(), 2u);
  // Both paths span the same plane: each wide axis lies in the tall axes' span.
  for (int k = 0; k < 2; ++k) {
    double inPlane = 0;
    for (int a = 0; a < 2; ++a) {
      double dot = 0;
      for (int c = 0; c < 30; ++c) dot += wide.axes[k][c] * covariance.axes[a][c];
      inPlane += dot * dot;
    }
    EXPECT_NEAR(inPlane, 1.0, 1e-9);
  }
}

TEST(HeatmapWidget, CellImageAndColours) {
  HeatmapWidget w;
  HeatmapData d;
  d.values = {{1, -1, 0}, {0.5, 2, -2}};
  d.rowLabels = {QStringLiteral("a[0]"), QStringLiteral("a[1]")};
  d.colMin = -0.5;
  d.colMax = 2.5;
  w.setData(d);
  EXPECT_EQ(w.cellImage().size(), QSize(3, 2));
  EXPECT_DOUBLE_EQ(w.colourRange(), 2.0);
  EXPECT_EQ(w.cellImage().pixel(1, 1), divergingColour(2, 2));
  EXPECT_EQ(w.cellImage().pixel(1, 1), qRgb(178, 24, 43));    // full red at +range
  EXPECT_EQ(w.cellImage().pixel(2, 1), qRgb(33, 102, 172));   // full blue at -range
  EXPECT_EQ(w.cellImage().pixel(2, 0), qRgb(247, 247, 247));  // white at zero
  d.rowsUpward = true;                                        // row 0 at the bottom
  w.setData(d);
  EXPECT_EQ(w.cellImage().pixel(1, 0), qRgb(178, 24, 43));
}

TEST(HeatmapWidget, RowScalingKeepsSmallRowsVisible) {
  HeatmapWidget w;
  HeatmapData d;
  d.values = {{1e10, 0, -1e10}, {0.5, 1, -0.25}};  // a compiled flag beside a program value
  w.setData(d);
  EXPECT_EQ(w.cellImage().pixel(1, 1), qRgb(247, 247, 247));  // 1 of 1e10: white
  d.rowScaled = true;
  w.setData(d);
  EXPECT_DOUBLE_EQ(w.colourRange(), 1.0);  // the bar reads a fraction of each row's scale
  EXPECT_EQ(w.cellImage().pixel(1, 1), qRgb(178, 24, 43));  // the row's largest: full red
  EXPECT_EQ(w.cellImage().pixel(0, 1), divergingColour(0.5, 1));
  EXPECT_EQ(w.cellImage().pixel(2, 0), qRgb(33, 102, 172));  // -1e10 of 1e10: full blue
}

TEST(TrajectoryView, EveryTabRendersTheRotation) {
  Document doc;
  TrajectoryView view(&doc, nullptr);
  view.resize(1000, 640);
  view.setSeries({rotationSeries(), rampSeries()});
  view.setCurrentStep(12);
  view.show();
  QApplication::processEvents();

  // Lines: every component of the first series (3 < the initial limit), 50 points each.
  ASSERT_EQ(view.linesPanel()->lines().size(), 3u);
  EXPECT_EQ(view.linesPanel()->lines()[0]->count(), kSteps);
  EXPECT_EQ(view.linesPanel()->lines()[1]->name(), QStringLiteral("query[1]"));
  view.linesPanel()->setShownComponents({0, 1});
  EXPECT_EQ(view.linesPanel()->lines().size(), 2u);
  QApplication::processEvents();  // the chart lays out its legend lazily
  saveScreenshot(view, QStringLiteral("plots_trajectory_lines"));

  // Heat map: components x steps, labelled rows, marker at the step.
  view.tabs()->setCurrentIndex(TrajectoryView::Heatmap);
  QApplication::processEvents();
  const HeatmapWidget* map = view.heatmap();
  EXPECT_EQ(map->cellImage().size(), QSize(kSteps, 3));
  EXPECT_EQ(map->data().rowLabels.at(1), QStringLiteral("query[1]"));
  EXPECT_DOUBLE_EQ(map->colourRange(), 3.0);  // the constant 3 is the largest |value|
  EXPECT_EQ(map->cellImage().pixel(0, 2), qRgb(178, 24, 43));          // 3 = +range
  EXPECT_EQ(map->cellImage().pixel(0, 0), divergingColour(2.0, 3.0));  // 2·cos 0
  const QRgb t12 = map->cellImage().pixel(12, 0);  // 2·cos(2π·12/25) ≈ -1.98
  EXPECT_GT(qBlue(t12), qRed(t12));
  EXPECT_DOUBLE_EQ(map->marker(), 12.0);
  EXPECT_TRUE(map->rect().contains(map->cellRect(2, kSteps - 1).toAlignedRect().center()));
  saveScreenshot(view, QStringLiteral("plots_trajectory_heatmap"));

  // PCA 2D: the current step highlighted at its projection.
  view.tabs()->setCurrentIndex(TrajectoryView::Pca2d);
  QApplication::processEvents();
  EXPECT_NEAR(view.pca().explained(0), 0.8, 1e-12);
  ASSERT_EQ(view.pca2dPanel()->current()->count(), 1);
  EXPECT_NEAR(view.pca2dPanel()->current()->at(0).x(), view.pca().projected[12][0], 1e-12);
  EXPECT_NEAR(view.pca2dPanel()->current()->at(0).y(), view.pca().projected[12][1], 1e-12);
  EXPECT_EQ(view.pca2dPanel()->path()->count(), kSteps);
  saveScreenshot(view, QStringLiteral("plots_trajectory_pca2d"));

  // PCA 3D: a Data Visualization view only under xcb (it crashes offscreen in Qt 6.4).
  view.tabs()->setCurrentIndex(TrajectoryView::Pca3d);
  QApplication::processEvents();
  EXPECT_EQ(view.pca3dPanel()->hasView(), Pca3dPanel::available());
  saveScreenshot(view, QStringLiteral("plots_trajectory_pca3d"));

  // Another series; a new document drops the (now stale) run.
  view.setCurrentSeries(1);
  EXPECT_EQ(view.heatmap()->cellImage().size(), QSize(kSteps, 1));
  doc.newDocument();
  EXPECT_TRUE(view.series().empty());
  EXPECT_TRUE(view.heatmap()->cellImage().isNull());
}

TEST(TrajectoryView, BigTrajectoriesGetTheirPcaOnAWorker) {
  // 2000 state dimensions over 400 steps: a rotation in the plane of two mixed directions.
  StateSeries s;
  s.title = "layer 0 state";
  const int d = 2000, T = 400;
  for (int c = 0; c < d; ++c) s.labels.push_back("h[" + std::to_string(c) + "]");
  for (int t = 0; t < T; ++t) {
    std::vector<double> row(d);
    const double a = 2 * std::numbers::pi * t / 40;
    for (int c = 0; c < d; ++c)
      row[c] = std::cos(a) * std::sin(0.01 * c) + 0.5 * std::sin(a) * std::cos(0.03 * c);
    s.values.push_back(row);
  }
  TrajectoryView view(nullptr, nullptr);
  QSignalSpy ready(&view, &TrajectoryView::pcaReady);
  QElapsedTimer timer;
  timer.start();
  view.setSeries({s});
  const qint64 uiMs = timer.elapsed();
  EXPECT_TRUE(view.isComputingPca());
  ASSERT_TRUE(waitUntil([&] { return !view.isComputingPca() && ready.count() >= 2; }, 30000));
  std::cout << "[ measure ] setSeries(2000 x 400) on the UI thread " << uiMs
            << " ms, PCA ready after " << timer.elapsed() << " ms\n";
  ASSERT_EQ(view.pca().variances.size(), 2u);
  EXPECT_NEAR(view.pca().explained(0) + view.pca().explained(1), 1.0, 1e-9);
  EXPECT_EQ(view.pca2dPanel()->path()->count(), T);
  EXPECT_EQ(view.heatmap()->cellImage().size(), QSize(T, d));
  QString error;
  ASSERT_TRUE(view.renderState(
      100, QDir(test::screenshotDir()).filePath(QStringLiteral("plots_big_heatmap.png")), &error,
      TrajectoryView::Heatmap));
  ASSERT_TRUE(view.renderState(
      100, QDir(test::screenshotDir()).filePath(QStringLiteral("plots_big_pca2d.png")), &error,
      TrajectoryView::Pca2d));
}

TEST(TrajectoryView, Pca3dExportUnderXcb) {
  if (QGuiApplication::platformName() != QLatin1String("xcb"))
    GTEST_SKIP() << "3D view needs xcb (platform is "
                 << QGuiApplication::platformName().toStdString() << ")";
  TrajectoryView view(nullptr, nullptr);
  view.resize(900, 600);
  view.setSeries({rotationSeries()});
  view.tabs()->setCurrentIndex(TrajectoryView::Pca3d);
  view.show();
  ASSERT_TRUE(waitUntil([] { return true; }, 200));
  QTemporaryDir dir;
  const QString png = dir.filePath(QStringLiteral("pca3d.png"));
  view.export3dPng(png);
  EXPECT_FALSE(QImage(png).isNull());
  const StateSeries points =
      parseSeriesCsv(readWholeFile(dir.filePath(QStringLiteral("pca3d.csv")).toStdString()));
  EXPECT_EQ(points.steps(), kSteps);
  EXPECT_EQ(points.labels, (std::vector<std::string>{"PC1", "PC2", "PC3"}));
  QFile::remove(QDir(test::screenshotDir()).filePath(QStringLiteral("plots_pca3d_export.png")));
  QFile::copy(png, QDir(test::screenshotDir()).filePath(QStringLiteral("plots_pca3d_export.png")));
  QString error;
  ASSERT_TRUE(view.renderState(
      30, QDir(test::screenshotDir()).filePath(QStringLiteral("plots_render_state_pca3d.png")),
      &error, TrajectoryView::Pca3d))
      << error.toStdString();
}

TEST(ChartExport, SvgParsesAndHoldsTheSeries) {
  TrajectoryView view(nullptr, nullptr);
  view.resize(900, 560);
  view.setSeries({rotationSeries()});
  view.show();
  QApplication::processEvents();
  QTemporaryDir dir;
  const QString svg = dir.filePath(QStringLiteral("lines.svg"));
  view.exportLinesSvg(svg);
  QSvgRenderer renderer(svg);
  EXPECT_TRUE(renderer.isValid());
  const std::string text = readWholeFile(svg.toStdString());
  EXPECT_NE(text.find("<svg"), std::string::npos);
  EXPECT_NE(text.find("query[1]"), std::string::npos);  // the legend names the series
  EXPECT_NE(text.find("<polyline"), std::string::npos) << "the lines are vector paths";
  const QString png = dir.filePath(QStringLiteral("lines.png"));
  view.exportLinesPng(png);
  EXPECT_EQ(QImage(png).size(), view.linesPanel()->chartView()->size());
  view.exportHeatmapPng(dir.filePath(QStringLiteral("heat.png")));
  EXPECT_FALSE(QImage(dir.filePath(QStringLiteral("heat.png"))).isNull());
  // Failures name the path.
  try {
    view.exportLinesSvg(QStringLiteral("/nonexistent-dir/x.svg"));
    ADD_FAILURE() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent-dir/x.svg"), std::string::npos) << e.what();
  }
  try {
    exportImagePng(QImage(4, 4, QImage::Format_RGB32), QStringLiteral("/nonexistent-dir/x.png"));
    ADD_FAILURE() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent-dir/x.png"), std::string::npos) << e.what();
  }
}

TEST(ChartExport, CsvRoundTrip) {
  StateSeries s = rotationSeries();
  s.labels[2] = "odd, \"quoted\" label";
  s.values[3][1] = 1e-300;
  s.values[4][0] = -0.1;
  QTemporaryDir dir;
  const QString path = dir.filePath(QStringLiteral("series.csv"));
  exportSeriesCsv(s, path);
  const std::string text = readWholeFile(path.toStdString());
  EXPECT_EQ(text.substr(0, text.find('\n')),
            "step,query[0],query[1],\"odd, \"\"quoted\"\" label\"");
  const StateSeries back = parseSeriesCsv(text);
  EXPECT_EQ(back.labels, s.labels);
  EXPECT_EQ(back.values, s.values);  // bit for bit
  EXPECT_THROW(parseSeriesCsv("step,a\n0,1,2\n"), Error);
  EXPECT_THROW(parseSeriesCsv("step,a\n0,x\n"), Error);
}

TEST(UaHeatmap, MatchesTheCellCentreAwayFromTheWalls) {
  for (Conditional variant : allConditionals()) {
    UaHeatmapRequest req;
    req.N = 3;
    req.grid = 12;  // queries (i + ½)/12 never sit on a wall k/3
    req.variant = variant;
    req.target = 0;  // sin(2πx)·cos(2πy)
    const UaHeatmapResult r = computeUaHeatmap(req);
    ASSERT_EQ(r.model.size(), 12u);
    EXPECT_EQ(r.tokensPerQuery, 10);
    int valid = 0;
    for (int j = 0; j < 12; ++j)
      for (int i = 0; i < 12; ++i) {
        valid += r.valid[j][i];
        // The paper: away from the walls the output is f at the cell's centre; float64
        // of the program within 1e-9.
        const std::vector<double> want =
            vec2vecExpected({r.coords[i], r.coords[j]}, 3, uaTargets()[0].f);
        EXPECT_NEAR(r.model[j][i], want[0], 1e-9)
            << conditionalName(variant) << " query " << i << "," << j;
      }
    EXPECT_EQ(valid, 144);
    EXPECT_LT(r.maxErrorAtValidQueries(), 1e-9);
    // model − target is f(centre) − f(x): at most |∇f|·(half cell diagonal) = 2π·√2/6,
    // and not zero (the model is piecewise constant).
    double worst = 0;
    for (const auto& row : r.difference())
      for (double v : row) worst = std::max(worst, std::abs(v));
    EXPECT_LE(worst, 2 * std::numbers::pi * std::sqrt(2.0) / 6);
    EXPECT_GT(worst, 0.1);
  }
  UaHeatmapRequest bad;
  bad.N = 0;
  EXPECT_THROW(computeUaHeatmap(bad), Error);
}

TEST(UaHeatmap, ExactModeGivesTheCellCentreExactly) {
  UaHeatmapRequest req;
  req.N = 3;
  req.grid = 6;  // queries (2i + 1)/12, never on a wall k/3
  req.variant = Conditional::Direct;
  req.target = 0;  // sin(2πx)·cos(2πy)
  req.exact = true;
  const UaHeatmapResult exact = computeUaHeatmap(req);
  req.exact = false;
  const UaHeatmapResult floating = computeUaHeatmap(req);
  ASSERT_EQ(exact.exactModel.size(), 6u);
  EXPECT_TRUE(floating.exactModel.empty());
  // f in the prompt is f(centre) as a double, taken exactly: the expected answer.
  const ExactTargetFunction f = [](const ExactVector& x) {
    const std::vector<double> v = uaTargets()[0].f({x[0].toDouble(), x[1].toDouble()});
    return ExactVector{Exact(v[0])};
  };
  int valid = 0;
  for (int j = 0; j < 6; ++j)
    for (int i = 0; i < 6; ++i) {
      const ExactVector x = {Exact::rational(2 * i + 1, 12), Exact::rational(2 * j + 1, 12)};
      ASSERT_EQ(exact.valid[j][i], queryIsValid(x, 3, Vec2vecParams{}.mu));
      if (!exact.valid[j][i]) continue;
      ++valid;
      const Exact want = vec2vecExpected(x, 3, f)[0];
      EXPECT_TRUE(exact.exactModel[j][i] == want)
          << "query " << i << "," << j << ": got " << exact.exactModel[j][i].toDouble() << ", want "
          << want.toDouble();
      EXPECT_TRUE(exact.exactExpected[j][i] == want);
      EXPECT_EQ(exact.model[j][i], want.toDouble());
      // float64 agrees with the exact run within 1e-9.
      EXPECT_NEAR(floating.model[j][i], exact.model[j][i], 1e-9) << "query " << i << "," << j;
    }
  EXPECT_EQ(valid, 36);
  EXPECT_EQ(exact.maxErrorAtValidQueries(), 0.0);
}

// The compile run in fp32, as exported weights run: the paper's constants lose the cell
// values, the constants fitted for fp32 (docs/precision.md) keep them within 1e-3.
TEST(UaHeatmap, Fp32CompileIsWrongAsBuiltAndRightFitted) {
  UaHeatmapRequest req;
  req.N = 4;
  req.grid = 16;   // queries (2i + 1)/32, never on a wall k/4
  req.target = 3;  // the smooth random function, values in [-3, 3]
  req.variant = Conditional::Direct;
  req.run = UaRun::CompiledFp32;
  const UaHeatmapResult asBuilt = computeUaHeatmap(req);
  EXPECT_GT(asBuilt.maxErrorAtValidQueries(), 0.1);
  for (Conditional variant : allConditionals()) {
    req.variant = variant;
    req.run = UaRun::FittedFp32;
    req.exact = true;  // ignored: only the program runs exactly
    const UaHeatmapResult fitted = computeUaHeatmap(req);
    EXPECT_TRUE(fitted.exactModel.empty());
    EXPECT_LE(fitted.maxErrorAtValidQueries(), 1e-3) << conditionalName(variant);
  }
}

// Shows `view` at the size the screenshots use, with an N = 3 request on a grid×grid grid.
UaHeatmapRequest showSmallRequest(UaHeatmapView& view, int grid, bool exact = false) {
  view.resize(1200, 520);
  view.show();
  UaHeatmapRequest req;
  req.N = 3;
  req.grid = grid;
  req.exact = exact;
  view.setRequest(req);
  return req;
}

TEST(UaHeatmapView, ComputesInTheBackgroundAndCancels) {
  UaHeatmapView view(nullptr, nullptr);
  UaHeatmapRequest req = showSmallRequest(view, 24);
  QSignalSpy finished(&view, &UaHeatmapView::finished);
  view.start();
  ASSERT_TRUE(waitUntil([&] { return finished.count() == 1; }, 30000));
  EXPECT_TRUE(finished.at(0).at(0).toBool()) << finished.at(0).at(1).toString().toStdString();
  ASSERT_NE(view.result(), nullptr);
  EXPECT_LT(view.result()->maxErrorAtValidQueries(), 1e-9);
  EXPECT_EQ(view.modelMap()->cellImage().size(), QSize(24, 24));
  EXPECT_EQ(view.differenceMap()->cellImage().size(), QSize(24, 24));
  // Model and target share one colour range so that equal values look equal.
  EXPECT_DOUBLE_EQ(view.modelMap()->colourRange(), view.targetMap()->colourRange());
  saveScreenshot(view, QStringLiteral("plots_ua_heatmap_N3"));

  QTemporaryDir dir;
  view.exportCsv(dir.filePath(QStringLiteral("ua.csv")));
  const std::string csv = readWholeFile(dir.filePath(QStringLiteral("ua.csv")).toStdString());
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 1 + 24 * 24);
  view.exportPng(dir.filePath(QStringLiteral("ua.png")));
  EXPECT_FALSE(QImage(dir.filePath(QStringLiteral("ua.png"))).isNull());

  // A big grid, cancelled at once: the old picture stays.
  req.N = 8;
  req.grid = 400;
  view.setRequest(req);
  view.start();
  EXPECT_TRUE(view.isRunning());
  view.cancel();
  ASSERT_TRUE(waitUntil([&] { return finished.count() == 2; }, 30000));
  EXPECT_FALSE(finished.at(1).at(0).toBool());
  EXPECT_EQ(view.result()->request.grid, 24);

  // A finer picture for the eye (N = 6, a smooth target).
  req.N = 6;
  req.grid = 60;
  req.target = 1;
  view.setRequest(req);
  const QString shot =
      QDir(test::screenshotDir()).filePath(QStringLiteral("plots_ua_heatmap_N6.png"));
  QString error;
  ASSERT_TRUE(view.renderState(shot, &error)) << error.toStdString();
  EXPECT_EQ(view.result()->request.N, 6);
  EXPECT_LT(view.result()->maxErrorAtValidQueries(), 1e-9);
  // The same request again reuses the result.
  const UaHeatmapResult* before = view.result();
  const double seconds = before->seconds;
  ASSERT_TRUE(view.renderState(shot, &error)) << error.toStdString();
  EXPECT_EQ(view.result()->seconds, seconds);
}

TEST(UaHeatmapView, ExactCheckboxRunsExactly) {
  UaHeatmapView view(nullptr, nullptr);
  showSmallRequest(view, 6, /*exact=*/true);
  EXPECT_TRUE(view.request().exact);  // the checkbox holds it
  const QString shot =
      QDir(test::screenshotDir()).filePath(QStringLiteral("plots_ua_heatmap_exact.png"));
  QString error;
  ASSERT_TRUE(view.renderState(shot, &error)) << error.toStdString();
  ASSERT_NE(view.result(), nullptr);
  EXPECT_TRUE(view.result()->request.exact);
  EXPECT_EQ(view.result()->exactModel.size(), 6u);
  EXPECT_EQ(view.result()->maxErrorAtValidQueries(), 0.0);
}

// The Run box, used with the keyboard: the fitted fp32 compile, and the exact box off.
TEST(UaHeatmapView, RunBoxPicksTheFittedFp32Compile) {
  UaHeatmapView view(nullptr, nullptr);
  showSmallRequest(view, 8, /*exact=*/true);
  QComboBox* box = nullptr;
  for (QComboBox* c : view.findChildren<QComboBox*>())
    if (c->count() == 3 && c->itemText(0) == QStringLiteral("program")) box = c;
  ASSERT_NE(box, nullptr);
  box->setFocus();
  QTest::keyClick(box, Qt::Key_Down);
  QTest::keyClick(box, Qt::Key_Down);
  EXPECT_EQ(view.request().run, UaRun::FittedFp32);
  EXPECT_FALSE(view.request().exact);
  const QString shot =
      QDir(test::screenshotDir()).filePath(QStringLiteral("plots_ua_heatmap_fp32_fitted.png"));
  QString error;
  ASSERT_TRUE(view.renderState(shot, &error)) << error.toStdString();
  ASSERT_NE(view.result(), nullptr);
  EXPECT_EQ(view.result()->request.run, UaRun::FittedFp32);
  EXPECT_LE(view.result()->maxErrorAtValidQueries(), 1e-3);
}

TEST(NoisePlotView, PlotsTheCsvOnALogAxis) {
  NoisePlotView view(nullptr, nullptr);
  view.resize(1000, 560);
  view.show();
  QString error;
  ASSERT_TRUE(
      view.loadCsv(QStringLiteral(LSRL_SOURCE_DIR "/docs/noise/vec2vec_optimize.csv"), &error))
      << error.toStdString();
  ASSERT_EQ(view.lines().size(), 5u);                                  // one per variant
  for (QLineSeries* line : view.lines()) EXPECT_EQ(line->count(), 3);  // σ = 0, 1e-7, 1e-5
  EXPECT_DOUBLE_EQ(view.zeroSigmaPosition(), 1e-8);
  EXPECT_DOUBLE_EQ(view.lines()[0]->at(1).x(), 1e-7);
  QApplication::processEvents();
  saveScreenshot(view, QStringLiteral("plots_noise_vec2vec"));
  ASSERT_TRUE(
      view.loadCsv(QStringLiteral(LSRL_SOURCE_DIR "/docs/noise/tok2tok_optimize.csv"), &error));
  EXPECT_EQ(view.lines().size(), 5u);
  QApplication::processEvents();
  saveScreenshot(view, QStringLiteral("plots_noise_tok2tok"));
  QTemporaryDir dir;
  view.exportSvg(dir.filePath(QStringLiteral("noise.svg")));
  EXPECT_TRUE(QSvgRenderer(dir.filePath(QStringLiteral("noise.svg"))).isValid());
  EXPECT_FALSE(view.loadCsv(QStringLiteral("/nonexistent/noise.csv"), &error));
  EXPECT_TRUE(error.contains(QStringLiteral("/nonexistent/noise.csv"))) << error.toStdString();
  EXPECT_EQ(view.lines().size(), 5u) << "a failed load keeps the plot";
}

// a percentage (tok2tok's % wrong tokens) tops out at 100, and any linear axis at
// a nice bound just above the data (it used to run to 150 for data of at most 100).
TEST(NoisePlotView, TheValueAxisEndsJustAboveTheDataAndAPercentageAt100) {
  NoisePlotView view(nullptr, nullptr);
  view.resize(1000, 560);
  view.show();
  auto valueAxisMax = [&] {
    QAbstractAxis* axis = view.chartView()->chart()->axes(Qt::Vertical).front();
    if (auto* linear = qobject_cast<QValueAxis*>(axis)) return linear->max();
    return qobject_cast<QLogValueAxis*>(axis)->max();
  };
  auto dataMax = [&] {
    double top = 0;
    for (const NoiseSummaryRow& r : view.summary()) top = std::max(top, r.mean);
    return top;
  };
  for (const char* name :
       {"tok2tok_optimize.csv", "tok2tok_no_optimize.csv", "tok2tok_no_optimize_25seeds.csv"}) {
    SCOPED_TRACE(name);
    QString error;
    ASSERT_TRUE(
        view.loadCsv(QStringLiteral(LSRL_SOURCE_DIR "/docs/noise/") + QLatin1String(name), &error))
        << error.toStdString();
    view.setLogY(false);
    EXPECT_LE(valueAxisMax(), 100.0) << "a percentage";
    EXPECT_GE(valueAxisMax(), dataMax());
    view.setLogY(true);
    EXPECT_LE(valueAxisMax(), 100.0) << "a percentage on the log axis";
    EXPECT_GE(valueAxisMax(), dataMax());
  }
  QString error;
  ASSERT_TRUE(
      view.loadCsv(QStringLiteral(LSRL_SOURCE_DIR "/docs/noise/vec2vec_optimize.csv"), &error));
  view.setLogY(false);
  EXPECT_GE(valueAxisMax(), dataMax());
  EXPECT_LE(valueAxisMax(), 1.25 * dataMax()) << "a nice bound just above the data";
  QApplication::processEvents();
  saveScreenshot(view, QStringLiteral("plots_noise_vec2vec_linear"));
}

TEST(TrajectoryView, RenderStateWritesAScreenshot) {
  TrajectoryView view(nullptr, nullptr);
  view.setSeries({rotationSeries()});
  const QString shot =
      QDir(test::screenshotDir()).filePath(QStringLiteral("plots_render_state_heatmap.png"));
  QString error;
  ASSERT_TRUE(view.renderState(20, shot, &error, TrajectoryView::Heatmap)) << error.toStdString();
  EXPECT_EQ(QImage(shot).size(), QSize(1000, 640));
  EXPECT_DOUBLE_EQ(view.heatmap()->marker(), 20.0);
}

}  // namespace
}  // namespace lsrl::studio
