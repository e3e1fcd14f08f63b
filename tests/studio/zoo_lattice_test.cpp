// The Models tab: seed model runs for the explorer, trace exports, the Lattice
// slot geometry (numbers and view), the tab's worker runs and the --model screenshot mode.
#include <gtest/gtest.h>

#include <QComboBox>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QGuiApplication>
#include <QImage>
#include <QLabel>
#include <QLineSeries>
#include <QSvgRenderer>
#include <QTemporaryDir>
#include <QTest>
#include <QThreadPool>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "app/studio/plots/chart_export.h"
#include "app/studio/plots/heatmap_widget.h"
#include "app/studio/zoo/lattice_geometry.h"
#include "app/studio/zoo/lattice_sphere_2d.h"
#include "app/studio/zoo/lattice_sphere_3d.h"
#include "app/studio/zoo/lattice_view.h"
#include "app/studio/zoo/model_run.h"
#include "app/studio/zoo/model_tab.h"
#include "app/studio/zoo/model_zoo_panel.h"
#include "app/studio/zoo/step_bar.h"
#include "app/studio/zoo/step_chart.h"
#include "app/studio/zoo/trace_export.h"
#include "core/io/npz.h"
#include "core/util/atomic_file.h"
#include "core/util/error.h"
#include "studio/studio_test_util.h"
#include "studio/zoo_test_util.h"

namespace lsrl::studio {
namespace {

using test::screenshotDir;

std::shared_ptr<const ModelRun> latticeRun(nlohmann::json config = nlohmann::json::object(),
                                           const std::string& task = {}) {
  ModelRunRequest r;
  r.kind = "lattice";
  r.config = std::move(config);
  r.task = task;
  return std::make_shared<ModelRun>(runSeedModelRequest(r));
}

std::string readAll(const QString& path) { return readWholeFile(path.toStdString()); }

double dot3(const Point3& a, const Point3& b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

TEST(ModelRunRequest, RunsEachKindOnItsDefaultTaskWithATrace) {
  for (const char* kind : {"mingru", "minlstm", "gateloop", "lattice", "looped"}) {
    ModelRunRequest r;
    r.kind = kind;
    const ModelRun run = runSeedModelRequest(r);
    EXPECT_FALSE(run.task.empty()) << kind;
    EXPECT_FALSE(run.input.empty()) << kind;
    EXPECT_TRUE(run.trace.has("output")) << kind;
    EXPECT_EQ(run.config.value("seed", -1), 0) << kind;
    EXPECT_GT(modelRunSteps(run), 0) << kind;
    EXPECT_FALSE(modelViewName(kind).empty());
  }
  EXPECT_EQ(modelViewName("mingru"), "gates");
  EXPECT_EQ(modelViewName("nope"), "");
}

TEST(ModelRunRequest, ErrorsNameWhatIsWrong) {
  auto message = [](ModelRunRequest r) {
    try {
      runSeedModelRequest(r);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  ModelRunRequest r;
  r.kind = "lstmx";
  EXPECT_NE(message(r).find("lstmx"), std::string::npos);
  r.kind = "lattice";
  r.task = "bogus_task";
  EXPECT_NE(message(r).find("bogus_task"), std::string::npos);
  r.task.clear();
  r.config = {{"m", "three"}};
  EXPECT_NE(message(r).find("m"), std::string::npos);
  r.config = nlohmann::json::object();
  r.inputPath = "/nonexistent/in.json";
  EXPECT_NE(message(r).find("/nonexistent/in.json"), std::string::npos);
  r.inputPath.clear();
  r.backend = "tpu";
  EXPECT_NE(message(r).find("tpu"), std::string::npos);
}

TEST(ModelRunRequest, ReadsAnInputFile) {
  QTemporaryDir dir;
  const std::string path = dir.filePath(QStringLiteral("in.json")).toStdString();
  writeFileAtomically(path, R"({"tokens": [[1, 0, 0], [0, 1, 0], ["1/2", 0, 1]]})");
  ModelRunRequest r;
  r.kind = "lattice";
  r.inputPath = path;
  const ModelRun run = runSeedModelRequest(r);
  EXPECT_TRUE(run.task.empty());
  ASSERT_EQ(run.input.size(), 3u);
  EXPECT_EQ(run.input[2][0], 0.5);
  EXPECT_EQ(modelRunSteps(run), 3);
}

TEST(TraceExport, ArraysAsCsvAndTheWholeTraceAsNpz) {
  const auto run = latticeRun();
  const StateSeries slots = traceArraySeries(*run, "slots");
  const Tensor& raw = run->trace.get("slots");
  ASSERT_EQ(slots.steps(), raw.shape[0]);
  ASSERT_EQ(slots.components(), raw.shape[1] * raw.shape[2]);
  EXPECT_EQ(slots.labels[0], "slots[0][0]");
  EXPECT_EQ(slots.labels[5], "slots[1][2]");
  EXPECT_EQ(slots.values[4][5], raw.data[4 * 9 + 5]);
  const StateSeries gamma = traceArraySeries(*run, "gamma");  // 1-d: one column
  EXPECT_EQ(gamma.labels, std::vector<std::string>{"gamma"});
  EXPECT_THROW(traceArraySeries(*run, "nope"), Error);

  QTemporaryDir dir;
  const QString csv = dir.filePath(QStringLiteral("slots.csv"));
  exportTraceArrayCsv(*run, "slots", csv.toStdString());
  const StateSeries back = parseSeriesCsv(readAll(csv));
  EXPECT_EQ(back.values, slots.values);
  const QString npz = dir.filePath(QStringLiteral("trace.npz"));
  exportTraceNpz(*run, npz.toStdString());
  const TensorFile file = readNpz(npz.toStdString());
  ASSERT_EQ(file.tensors.size(), run->trace.arrays().size() + 1);  // + the input
  EXPECT_EQ(file.tensors[0].name, run->trace.arrays()[0].name);
  EXPECT_EQ(file.tensors[0].data, run->trace.arrays()[0].data);
  EXPECT_EQ(file.tensors.back().name, "input");
  const auto meta = nlohmann::json::parse(file.metadataJson);
  EXPECT_EQ(meta["model"], "lattice");
  EXPECT_EQ(meta["task"], "rotating");
  EXPECT_THROW(exportTraceNpz(*run, "/nonexistent-dir/t.npz"), Error);
}

TEST(LatticeGeometry, InThreeDimensionsTheSlotsAreDrawnAsTheyAre) {
  const auto run = latticeRun();
  const LatticeGeometry g(run->trace);
  ASSERT_FALSE(g.projected());
  const Tensor& slots = run->trace.get("slots");
  const int T = g.steps(), m = g.slots();
  ASSERT_EQ(T, static_cast<int>(run->input.size()));
  for (int t = 0; t < T; t += 7) {
    const LatticeFrame f = g.frame(t);
    for (int i = 0; i < m; ++i) {
      const size_t si = static_cast<size_t>(i);
      for (int k = 0; k < 3; ++k)
        EXPECT_NEAR(f.after[si][static_cast<size_t>(k)],
                    slots.data[(static_cast<size_t>(t) * m + si) * 3 + static_cast<size_t>(k)],
                    1e-15);
      // Unit slots (NOSR); the arc runs from the old slot to the new one on the sphere;
      // the orthogonal part is orthogonal to the old slot.
      EXPECT_NEAR(std::sqrt(dot3(f.after[si], f.after[si])), 1, 1e-12);
      EXPECT_NEAR(dot3(f.arcs[si].front(), f.before[si]), 1, 1e-9);
      EXPECT_NEAR(dot3(f.arcs[si].back(), f.after[si]), 1, 1e-9);
      for (const Point3& q : f.arcs[si]) EXPECT_NEAR(std::sqrt(dot3(q, q)), 1, 1e-9);
      EXPECT_NEAR(dot3(f.orthogonal[si], f.before[si]), 0, 1e-9);
      // parallel + orthogonal is the unit incoming direction.
      const Point3 sum{f.parallel[si][0] + f.orthogonal[si][0],
                       f.parallel[si][1] + f.orthogonal[si][1],
                       f.parallel[si][2] + f.orthogonal[si][2]};
      for (int k = 0; k < 3; ++k)
        EXPECT_NEAR(sum[static_cast<size_t>(k)], f.incoming[static_cast<size_t>(k)], 1e-9);
    }
    if (t > 0) {
      EXPECT_EQ(f.before, g.frame(t - 1).after);
    }
  }
  const StateSeries traj = g.slotTrajectories();
  EXPECT_EQ(traj.steps(), T + 1);
  EXPECT_EQ(traj.labels[4], "s2[1]");
  EXPECT_EQ(g.framePoints(3).steps(), 3 * m + 1);
}

// what the 3D box must hold. The slots and the incoming direction stay on the
// unit sphere; the orthogonal parts (at most unit length) stick out from the old tips.
TEST(LatticeGeometry, ItsExtentIsTheUnitSphereAndTheOrthogonalParts) {
  const auto run = latticeRun();
  const LatticeGeometry g(run->trace);
  const LatticeGeometry::Extent e = g.extent();
  EXPECT_NEAR(e.sphere, 1.0, 1e-9);
  EXPECT_GT(e.orthogonal, 0.5);
  EXPECT_LE(e.orthogonal, 1.0 + 1e-9);
  double longest = 0;
  for (int t = 0; t < g.steps(); ++t)
    for (const Point3& o : g.frame(t).orthogonal)
      longest = std::max(longest, std::sqrt(dot3(o, o)));
  EXPECT_DOUBLE_EQ(e.orthogonal, longest);
}

TEST(LatticeGeometry, WiderSlotsAreProjectedByAnUncentredPca) {
  const auto run = latticeRun({{"d", 6}, {"m", 4}, {"d_in", 6}});
  const LatticeGeometry g(run->trace);
  ASSERT_TRUE(g.projected());
  EXPECT_EQ(g.axisName(0), "PC1");
  double explained = 0;
  for (int k = 0; k < 3; ++k) {
    EXPECT_GE(g.explained(k), 0);
    if (k > 0) {
      EXPECT_LE(g.explained(k), g.explained(k - 1));
    }
    explained += g.explained(k);
  }
  EXPECT_LE(explained, 1 + 1e-12);
  EXPECT_GT(explained, 0.5);
  // A projection onto orthonormal axes shortens unit vectors: all inside the unit ball.
  for (int i = 0; i < g.slots(); ++i)
    for (const Point3& p : g.trail(i)) EXPECT_LE(dot3(p, p), 1 + 1e-12);
}

TEST(LatticeGeometry, MissingArraysAreNamed) {
  seed_models::Trace trace;
  try {
    LatticeGeometry g(trace);
    ADD_FAILURE() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("\"slots\""), std::string::npos) << e.what();
  }
  trace.add("slots", {2, 3, 3}, std::vector<double>(18, 0.0));
  try {
    LatticeGeometry g(trace);
    ADD_FAILURE() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("slots_initial"), std::string::npos) << e.what();
  }
}

TEST(LatticeView, StepsThroughTheSlotsAndExportsEveryPicture) {
  const auto run = latticeRun();
  LatticeView view;
  test::showRun(view, run, 1300, 820);
  const int T = static_cast<int>(run->input.size());
  const Tensor& cosines = run->trace.get("slot_cosines");
  for (int t : {0, 5, T - 1}) {
    view.setStep(t);
    const HeatmapData& heat = view.cosines()->data();
    ASSERT_EQ(heat.rows(), 3);
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j)
        EXPECT_EQ(heat.values[static_cast<size_t>(i)][static_cast<size_t>(j)],
                  cosines.data[(static_cast<size_t>(t) * 3 + static_cast<size_t>(i)) * 3 +
                               static_cast<size_t>(j)]);
    EXPECT_NE(view.infoLabel()->text().indexOf(QStringLiteral("token %1").arg(t)), -1);
  }
  ASSERT_EQ(view.normsChart()->lines().size(), 3u);
  EXPECT_EQ(view.normsChart()->lines()[0]->count(), T);
  // The slots move: the drawing differs between tokens.
  view.setStep(0);
  const QImage first = view.sphere2d()->grab().toImage();
  view.setStep(12);
  const QImage later = view.sphere2d()->grab().toImage();
  EXPECT_NE(first, later);
  test::saveScreenshot(view, QStringLiteral("zoo_lattice_view_token12"));

  QTemporaryDir dir;
  const QString png = dir.filePath(QStringLiteral("frame.png"));
  view.exportFramePng(png);
  EXPECT_FALSE(QImage(png).isNull());
  const StateSeries points = parseSeriesCsv(readAll(dir.filePath(QStringLiteral("frame.csv"))));
  EXPECT_EQ(points.steps(), 3 * 3 + 1);
  EXPECT_EQ(points.labels[2], "x");
  const QString svg = dir.filePath(QStringLiteral("frame.svg"));
  view.exportFrameSvg(svg);
  EXPECT_TRUE(QSvgRenderer(svg).isValid());
  EXPECT_NE(readAll(svg).find("s1"), std::string::npos);
  const QString csv = dir.filePath(QStringLiteral("slots.csv"));
  view.exportSlotTrajectoriesCsv(csv);
  const StateSeries traj = parseSeriesCsv(readAll(csv));
  ASSERT_EQ(traj.steps(), T + 1);
  const Tensor& slots = run->trace.get("slots");
  EXPECT_EQ(traj.values[13][4], slots.data[12 * 9 + 4]);  // row t+1 = after token t
  for (const ViewExport& e : view.exports()) {
    const QString path = dir.filePath(QStringLiteral("export") + e.suffix);
    e.write(path);
    EXPECT_GT(QFile(path).size(), 100) << e.label.toStdString();
  }
  QFile::copy(png, QDir(screenshotDir()).filePath(QStringLiteral("zoo_lattice_frame_export.png")));
}

TEST(LatticeView, ProjectsWideSlotsAndSwitchesAxes) {
  const auto run = latticeRun({{"d", 5}, {"m", 4}, {"d_in", 5}, {"heads", 2}}, "recall");
  LatticeView view;
  view.resize(1300, 820);
  view.setRun(run);
  view.show();
  view.setStep(8);
  QApplication::processEvents();
  ASSERT_TRUE(view.geometry()->projected());
  EXPECT_EQ(view.cosines()->data().rows(), 4);
  view.sphere2d()->setAxes(0, 2);
  view.setHead(1);
  EXPECT_EQ(view.cosines()->data().values[0][0], run->trace.get("head1/slot_cosines").data[8 * 16]);
  test::saveScreenshot(view, QStringLiteral("zoo_lattice_view_d5_head1"));
}

// A token model stacks layers (docs/spec/seed-models.md §1.8a): the Layer box, driven from
// the keyboard like a user's, picks which layer's heads are drawn; other models have one.
TEST(LatticeView, PicksTheLayerOfATokenModelFromItsBox) {
  const auto run = latticeRun({{"input", "tokens"},
                               {"d_in", 21},
                               {"layers", 2},
                               {"heads", 2},
                               {"d", 4},
                               {"m", 3},
                               {"d_model", 8}},
                              "mqar");
  LatticeView view;
  view.resize(1300, 820);
  view.setRun(run);
  view.show();
  view.setStep(5);
  QApplication::processEvents();
  ASSERT_TRUE(view.layerBox()->isEnabled());
  ASSERT_EQ(view.layerBox()->count(), 2);
  // s1·s2 after token 5 (s1·s1 is always 1).
  const auto cosineAt5 = [&](const std::string& name) {
    return run->trace.get(name).data[5 * 9 + 1];
  };
  EXPECT_EQ(view.cosines()->data().values[0][1], cosineAt5("slot_cosines"));
  ASSERT_NE(cosineAt5("slot_cosines"), cosineAt5("layer1/slot_cosines"));
  view.layerBox()->setFocus();
  QTest::keyClick(view.layerBox(), Qt::Key_Down);
  EXPECT_EQ(view.layerBox()->currentIndex(), 1);
  EXPECT_EQ(view.cosines()->data().values[0][1], cosineAt5("layer1/slot_cosines"));
  view.headBox()->setFocus();
  QTest::keyClick(view.headBox(), Qt::Key_Down);
  EXPECT_EQ(view.cosines()->data().values[0][1], cosineAt5("layer1/head1/slot_cosines"));
  EXPECT_EQ(view.geometry()->slots(), 3);
  test::saveScreenshot(view, QStringLiteral("zoo_lattice_view_layer1_head1"));

  view.setRun(latticeRun({{"heads", 2}}));  // projected: one layer
  EXPECT_FALSE(view.layerBox()->isEnabled());
  EXPECT_EQ(view.layerBox()->count(), 1);
  EXPECT_TRUE(view.headBox()->isEnabled());
}

// beside the sphere the charts are short at the Models tab's size (a 1600x1000
// window); their value labels must still read as numbers (they were elided to "...").
TEST(LatticeView, TheChartsValueLabelsAreNumbersAtTheTabsSize) {
  const auto run = latticeRun();
  LatticeView view;
  view.setRun(run);
  view.show();
  for (const QSize size : {QSize(1290, 660), QSize(1100, 560), QSize(1300, 820)}) {
    view.resize(size);
    QApplication::processEvents();
    for (StepChart* chart : {view.normsChart(), view.writeChart()}) {
      const QStringList labels = test::chartAxisLabels(chart->chartView(), Qt::Vertical);
      SCOPED_TRACE(QStringLiteral("%1 at %2x%3: %4")
                       .arg(chart->chartView()->chart()->title())
                       .arg(size.width())
                       .arg(size.height())
                       .arg(labels.join(QStringLiteral(" | ")))
                       .toStdString());
      EXPECT_GE(labels.size(), 2);
      for (const QString& label : labels) {
        bool number = false;
        label.toDouble(&number);
        EXPECT_TRUE(number) << label.toStdString();
      }
    }
  }
  view.resize(1290, 660);
  QApplication::processEvents();
  test::saveScreenshot(view, QStringLiteral("zoo_lattice_view_1290x660"));
}

TEST(LatticeView, StepsRedrawWithinFiftyMilliseconds) {
  const auto run = latticeRun();
  LatticeView view;
  view.resize(1300, 820);
  view.setRun(run);
  view.show();
  const double median = test::medianStepRedrawMs(
      view, static_cast<int>(run->input.size()), [&](int t) { view.setStep(t); }, "Lattice view");
  EXPECT_LT(median, 50);
}

TEST(StepBar, ClampsPlaysAndReportsSteps) {
  StepBar bar;
  std::vector<int> seen;
  QObject::connect(&bar, &StepBar::stepChanged, [&](int s) { seen.push_back(s); });
  bar.setSteps(5, QStringLiteral("token"));
  bar.setStep(9);
  EXPECT_EQ(bar.step(), 4);
  bar.back();
  EXPECT_EQ(bar.step(), 3);
  bar.setStep(-2);
  EXPECT_EQ(bar.step(), 0);
  EXPECT_EQ(seen, (std::vector<int>{0, 4, 3, 0}));
  bar.setPlaying(true);
  ASSERT_TRUE(test::waitUntil([&] { return !bar.isPlaying(); }, 5000));
  EXPECT_EQ(bar.step(), 4);  // played to the end and stopped
  bar.setSteps(0, QStringLiteral("token"));
  bar.forward();
  EXPECT_EQ(bar.step(), 0);
}

TEST(ModelTab, RunsInTheWorkerAndFeedsTheStepper) {
  ModelTab tab;
  tab.resize(1600, 900);
  tab.show();
  ASSERT_TRUE(tab.zoo()->setKind(QStringLiteral("lattice")));
  // The shipped checkpoint, a token model of the paper's block, on its own task.
  ASSERT_TRUE(tab.zoo()->setTask(QStringLiteral("mqar")));
  tab.zoo()->setTaskSeed(3);
  tab.startRun();
  EXPECT_TRUE(tab.isRunning());
  ASSERT_TRUE(tab.waitForRun());
  ASSERT_TRUE(tab.run()) << tab.lastError().toStdString();
  EXPECT_EQ(tab.run()->task, "mqar");
  auto* view = qobject_cast<LatticeView*>(tab.currentView());
  ASSERT_NE(view, nullptr);
  EXPECT_EQ(tab.stepBar()->count(), static_cast<int>(tab.run()->input.size()));
  tab.stepBar()->forward();
  tab.stepBar()->forward();
  EXPECT_EQ(view->step(), 2);
  EXPECT_TRUE(tab.showStep(7));
  EXPECT_EQ(view->step(), 7);
  EXPECT_FALSE(tab.showStep(100000));
  QApplication::processEvents();
  test::saveScreenshot(tab, QStringLiteral("zoo_models_tab_lattice"));
  QTemporaryDir dir;
  QString error;
  EXPECT_TRUE(tab.exportView(QStringLiteral("Slot trajectories (CSV)"),
                             dir.filePath(QStringLiteral("s.csv")), &error))
      << error.toStdString();
  EXPECT_FALSE(tab.exportView(QStringLiteral("nope"), dir.filePath(QStringLiteral("x")), &error));
  EXPECT_NE(error.indexOf(QStringLiteral("nope")), -1);
  tab.exportTraceNpz(dir.filePath(QStringLiteral("t.npz")));
  EXPECT_GT(QFile(dir.filePath(QStringLiteral("t.npz"))).size(), 1000);
}

TEST(ModelTab, ABadConfigValueIsReportedAndCancelDropsARun) {
  ModelTab tab;
  tab.zoo()->useRandomWeights();  // the config table counts only without a weights file
  ASSERT_TRUE(
      tab.zoo()->setConfigValue(QStringLiteral("mode"), QStringLiteral("osr")));  // no quotes
  tab.startRun();
  EXPECT_FALSE(tab.isRunning());
  EXPECT_NE(tab.lastError().indexOf(QStringLiteral("mode")), -1) << tab.lastError().toStdString();
  ASSERT_TRUE(tab.zoo()->setConfigValue(QStringLiteral("mode"), QStringLiteral("\"bogus\"")));
  tab.startRun();
  ASSERT_TRUE(tab.waitForRun());
  EXPECT_FALSE(tab.run());
  EXPECT_NE(tab.lastError().indexOf(QStringLiteral("bogus")), -1) << tab.lastError().toStdString();
  ASSERT_TRUE(tab.zoo()->setConfigValue(QStringLiteral("mode"), QStringLiteral("\"osr\"")));
  tab.startRun();
  tab.cancelRun();
  EXPECT_FALSE(tab.isRunning());
  EXPECT_NE(tab.statusText().indexOf(QStringLiteral("Cancelled")), -1);
  QThreadPool::globalInstance()->waitForDone();
  QApplication::processEvents();
  EXPECT_FALSE(tab.run()) << "a cancelled run's result is dropped";
}

TEST(ScreenshotCommand, RendersAModelView) {
  const QString out = QDir(screenshotDir()).filePath(QStringLiteral("cli_model_lattice.png"));
  QFile::remove(out);
  QByteArray errors;
  const int code = test::runWithPlatform(
      QStringLiteral(LSRL_STUDIO_BINARY),
      {QStringLiteral("--model"), QStringLiteral("lattice"), QStringLiteral("--view"),
       QStringLiteral("lattice"), QStringLiteral("--step"), QStringLiteral("10"),
       QStringLiteral("--screenshot"), out},
      QStringLiteral("offscreen"), &errors);
  EXPECT_EQ(code, 0) << errors.toStdString();
  const QImage image(out);
  ASSERT_FALSE(image.isNull());
  EXPECT_GT(test::distinctColours(image), 20);
  // The wrong view for the model, a view without a model, a step too far.
  EXPECT_EQ(test::runWithPlatform(
                QStringLiteral(LSRL_STUDIO_BINARY),
                {QStringLiteral("--model"), QStringLiteral("lattice"), QStringLiteral("--view"),
                 QStringLiteral("gates"), QStringLiteral("--screenshot"), out},
                QStringLiteral("offscreen"), &errors),
            1);
  EXPECT_NE(errors.indexOf("gates"), -1) << errors.toStdString();
  EXPECT_EQ(test::runWithPlatform(QStringLiteral(LSRL_STUDIO_BINARY),
                                  {QStringLiteral("--view"), QStringLiteral("lattice"),
                                   QStringLiteral("--screenshot"), out},
                                  QStringLiteral("offscreen"), &errors),
            2);
  EXPECT_NE(errors.indexOf("--model"), -1) << errors.toStdString();
  EXPECT_EQ(test::runWithPlatform(
                QStringLiteral(LSRL_STUDIO_BINARY),
                {QStringLiteral("--model"), QStringLiteral("lattice"), QStringLiteral("--step"),
                 QStringLiteral("99999"), QStringLiteral("--screenshot"), out},
                QStringLiteral("offscreen"), &errors),
            1);
  EXPECT_NE(errors.indexOf("99999"), -1) << errors.toStdString();
}

// The 3D sphere needs OpenGL on X: run by the studio_3d_under_xvfb test (xvfb-run, xcb).
TEST(LatticeViewXcb, DrawsTheSlotsOnTheSphereIn3d) {
  if (QGuiApplication::platformName() != QLatin1String("xcb"))
    GTEST_SKIP() << "3D needs xcb (platform is " << QGuiApplication::platformName().toStdString()
                 << ")";
  const auto run = latticeRun();
  LatticeView view;
  view.resize(1300, 820);
  view.setRun(run);
  view.show();
  ASSERT_TRUE(view.showing3d());
  // the wire, the incoming shaft and tip, the axis lines; three per slot
  EXPECT_EQ(view.sphere3d()->seriesCount(), 4 + 3 * 3);
  // the unit sphere fills the box (it reached ±1.3, the sphere small inside);
  // the orthogonal parts are shortened to end inside it instead of being clipped.
  EXPECT_LE(view.sphere3d()->axisReach(), 1.1f + 1e-6f);
  const double k = view.sphere3d()->orthogonalScale();
  EXPECT_GT(k, 0.0);
  EXPECT_LE(k, 1.0);
  for (int t = 0; t < view.geometry()->steps(); ++t) {
    const LatticeFrame f = view.geometry()->frame(t);
    for (size_t i = 0; i < f.before.size(); ++i)
      for (size_t c = 0; c < 3; ++c)
        EXPECT_LE(std::abs(f.before[i][c] + k * f.orthogonal[i][c]), view.sphere3d()->axisReach());
  }
  view.setStep(12);
  test::waitUntil([] { return false; }, 300);
  const QImage image = view.renderImage();
  const QRect box(view.sphere3d()->container()->mapTo(&view, QPoint(0, 0)),
                  view.sphere3d()->container()->size());
  EXPECT_GT(test::distinctColours(image.copy(box)), 20);
  image.save(QDir(screenshotDir()).filePath(QStringLiteral("zoo_lattice_view_3d.png")));
  QTemporaryDir dir;
  const QString png = dir.filePath(QStringLiteral("frame3d.png"));
  view.exportFramePng(png);
  EXPECT_GT(test::distinctColours(QImage(png)), 20);
  EXPECT_EQ(parseSeriesCsv(readAll(dir.filePath(QStringLiteral("frame3d.csv")))).steps(), 10);
  // Stepping redraws the 3D scene too (Mesa's software OpenGL here).
  std::vector<double> ms, widgetsMs;
  QElapsedTimer timer;
  for (int t = 0; t < static_cast<int>(run->input.size()); ++t) {
    timer.start();
    view.setStep(t);
    view.repaint();
    widgetsMs.push_back(static_cast<double>(timer.nsecsElapsed()) / 1e6);
    QApplication::processEvents();  // the 3D window renders its frame
    ms.push_back(static_cast<double>(timer.nsecsElapsed()) / 1e6);
  }
  std::sort(ms.begin(), ms.end());
  std::sort(widgetsMs.begin(), widgetsMs.end());
  std::printf(
      "Lattice view step redraw in 3D: median %.2f ms (widgets %.2f ms), max %.2f ms over %zu "
      "steps\n",
      ms[ms.size() / 2], widgetsMs[widgetsMs.size() / 2], ms.back(), ms.size());
  // Our part of a step; the frame itself is the OpenGL driver's (software here: ~40 ms).
  EXPECT_LT(widgetsMs[widgetsMs.size() / 2], 50);
  view.setShow3d(false);
  EXPECT_FALSE(view.showing3d());
}

}  // namespace
}  // namespace lsrl::studio
