// The debranching player driven as a person would: compile tok2tok (exact) on the worker,
// scrub to the middle step (rule label and highlighted branch node), to the end (a path),
// play a few steps, inspect a node, cancel a compile, and an invalid program's error;
// playing lays the graph out on its own now and then.
// The incrementally moved graph is checked against CompileHistory::graphAt, and the
// time to redraw a step is measured. Each state is saved as a screenshot.
#include <gtest/gtest.h>

#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QGraphicsView>
#include <QLineSeries>
#include <QPushButton>
#include <QSlider>
#include <QSpinBox>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QWheelEvent>
#include <algorithm>
#include <cstdio>
#include <map>
#include <random>
#include <set>

#include "app/layout/item_size.h"
#include "app/studio/document/document.h"
#include "app/studio/player/compile_count_chart.h"
#include "app/studio/player/debranch_view.h"
#include "app/studio/player/frame_export.h"
#include "app/studio/player/node_inspector.h"
#include "app/studio/player/player_graph_view.h"
#include "app/studio/player/player_scene.h"
#include "app/studio/player/rule_explanation.h"
#include "app/studio/player/step_focus.h"
#include "core/compiler/compiler.h"
#include "studio/studio_test_util.h"

namespace lsrl::studio {
namespace {

using test::examplePath;
using test::showAndSaveScreenshot;
using test::waitUntil;

// The cursor's graph summarised as graphAt's would be: node count, op counts, and the
// number of nodes with more than one (distinct) reader.
struct Summary {
  size_t nodes = 0;
  std::map<std::string, int> ops;
  int branches = 0;
  friend bool operator==(const Summary&, const Summary&) = default;
};

Summary summaryOf(const Graph& g) {
  Summary s;
  s.nodes = g.nodeCount();
  for (size_t id = 0; id < g.nodeCount(); ++id)
    ++s.ops[std::string(g.node(static_cast<NodeId>(id)).countedOpName())];
  for (const auto& readers : g.successors()) {
    std::set<NodeId> distinct(readers.begin(), readers.end());
    if (distinct.size() > 1) ++s.branches;
  }
  return s;
}

Summary summaryOf(const StepCursor& c) {
  Summary s;
  const std::vector<int> readers = c.readerCounts();
  for (NodeId id : c.aliveIds()) {
    ++s.nodes;
    const ReplayNodeInfo& info = c.data().info[static_cast<size_t>(id)];
    ++s.ops[info.slice ? "Slice" : std::string(opName(info.op))];
    if (readers[static_cast<size_t>(id)] > 1) ++s.branches;
  }
  return s;
}

class PlayerTest : public ::testing::Test {
 protected:
  test::ViewOnExample<DebranchView> shown{"tok2tok_L3_direct.json", QSize(1400, 900)};
  Document& doc = shown.doc;
  std::unique_ptr<DebranchView>& view = shown.view;
};

TEST_F(PlayerTest, CompilesScrubsPlaysAndInspectsTok2tok) {
  showAndSaveScreenshot(*view, QStringLiteral("player_0_not_compiled"));
  // Compile through the button, as a person does; the UI stays live meanwhile.
  view->backendBox()->setCurrentIndex(view->backendBox()->findText(QStringLiteral("exact")));
  QElapsedTimer compileTime;
  compileTime.start();
  view->compileButton()->click();
  EXPECT_TRUE(view->isCompiling() || view->hasCompile());
  ASSERT_TRUE(waitUntil([&] { return view->hasCompile() && !view->isCompiling(); }, 120000))
      << view->statusText().toStdString();
  const qint64 compileMs = compileTime.elapsed();
  const int n = view->stepCount();
  ASSERT_GT(n, 100);
  std::printf("compile + replay + layout until shown: %lld ms\n",
              static_cast<long long>(compileMs));
  std::printf("tok2tok exact optimised: %d steps; %s\n", n,
              view->statusText().toUtf8().constData());
  EXPECT_EQ(view->slider()->maximum(), n);
  EXPECT_EQ(view->currentStep(), 0);
  EXPECT_GT(view->ruleBox()->count(), 3);
  EXPECT_EQ(view->chart()->nodeSeries()->count(), n + 1);
  showAndSaveScreenshot(*view, QStringLiteral("player_1_compiled_step0"));

  // The middle step: its rule with the explanation, its branch node highlighted.
  const int mid = n / 2;
  ASSERT_TRUE(view->showStep(mid));
  const compiler::Step& step = view->compileResult()->steps[static_cast<size_t>(mid - 1)];
  EXPECT_TRUE(view->stepText().contains(QString::fromStdString(step.rule)));
  EXPECT_TRUE(view->stepText().contains(ruleExplanation(step.rule)));
  EXPECT_TRUE(view->stepText().contains(QStringLiteral("Step %1 of %2").arg(mid).arg(n)));
  EXPECT_EQ(view->chart()->markerStep(), mid);
  if (view->cursor()->alive(step.branch)) {
    EXPECT_TRUE(view->scene()->isBranchHighlighted(step.branch));
    EXPECT_TRUE(view->stepText().contains(QStringLiteral("#%1").arg(step.branch)));
  }
  // Zoom on the branch node so that the screenshot shows the labels.
  view->focusBranch();
  showAndSaveScreenshot(*view, QStringLiteral("player_2_middle_step"));

  // The incrementally moved graph equals the replayed one (graphAt) at several steps,
  // reached forward, backward and by big jumps.
  const std::shared_ptr<const CompileHistory> history = view->compileResult()->history;
  for (int k : {mid, 1, n, n / 3, mid + 1, mid, 0, n - 1}) {
    ASSERT_TRUE(view->showStep(k));
    const Summary replayed = summaryOf(history->graphAt(static_cast<size_t>(k)));
    EXPECT_EQ(summaryOf(*view->cursor()), replayed) << "step " << k;
    EXPECT_EQ(view->cursor()->data().nodeCounts[static_cast<size_t>(k)],
              static_cast<int>(replayed.nodes));
    EXPECT_EQ(view->cursor()->data().branchCounts[static_cast<size_t>(k)], replayed.branches);
    EXPECT_EQ(view->scene()->nodeItemCount(), replayed.nodes);
  }

  // To the end: a path, every node read at most once.
  view->toEnd();
  EXPECT_EQ(view->currentStep(), n);
  const std::vector<int> readers = view->cursor()->readerCounts();
  EXPECT_LE(*std::max_element(readers.begin(), readers.end()), 1);
  EXPECT_EQ(view->scene()->nodeItemCount(), view->compileResult()->path.nodeCount());
  EXPECT_TRUE(view->stepText().contains(QStringLiteral("the end: a path")));
  showAndSaveScreenshot(*view, QStringLiteral("player_3_end_path"));

  // Inspect a LinState of the path: its matrices at this step.
  NodeId linState = kNoNode;
  for (NodeId id : view->cursor()->aliveIds()) {
    if (view->cursor()->data().info[static_cast<size_t>(id)].op == Op::LinState) linState = id;
  }
  ASSERT_NE(linState, kNoNode);
  view->inspectNode(linState);
  EXPECT_TRUE(
      view->inspector()->headerText().contains(QStringLiteral("#%1 LinState").arg(linState)));
  EXPECT_GT(view->inspector()->table()->rowCount(), 0);
  view->inspector()->fieldBox()->setCurrentIndex(view->inspector()->fieldBox()->findText("B"));
  EXPECT_TRUE(view->inspector()->conditioningText().contains(QStringLiteral("widest row")))
      << view->inspector()->conditioningText().toStdString();
  showAndSaveScreenshot(*view, QStringLiteral("player_4_inspect_linstate"));

  // Play a few steps from the start (fast: no animation), then pause.
  ASSERT_TRUE(view->showStep(0));
  view->speedBox()->setValue(50);
  view->play();
  EXPECT_TRUE(view->isPlaying());
  EXPECT_TRUE(waitUntil([&] { return view->currentStep() >= 5; }, 5000));
  view->pause();
  const int played = view->currentStep();
  EXPECT_GE(played, 5);
  EXPECT_FALSE(view->isPlaying());
  // One animated step (slide-in and fade of the new nodes), let it finish.
  view->stepForward();
  EXPECT_EQ(view->currentStep(), played + 1);
  view->focusBranch();
  QElapsedTimer wait;
  wait.start();
  while (wait.elapsed() < 80) QApplication::processEvents();
  showAndSaveScreenshot(*view, QStringLiteral("player_5_animating"));
  while (wait.elapsed() < 400) QApplication::processEvents();
  EXPECT_TRUE(view->inspector()->headerText().contains(QStringLiteral("not in the graph")));
  showAndSaveScreenshot(*view, QStringLiteral("player_5_played"));

  // Scrubbing: median time per step over 200 random steps, painting included.
  std::mt19937 rng(5);
  std::uniform_int_distribution<int> pick(0, n);
  auto timeSteps = [&](auto next) {
    std::vector<double> ms;
    for (int i = 0; i < 200; ++i) {
      const int k = next(i);
      QElapsedTimer t;
      t.start();
      view->showStep(k);
      view->graphView()->viewport()->repaint();
      view->chart()->viewport()->repaint();
      ms.push_back(static_cast<double>(t.nsecsElapsed()) / 1e6);
    }
    std::sort(ms.begin(), ms.end());
    return std::pair(ms[ms.size() / 2], ms[ms.size() * 95 / 100]);
  };
  // Following the rewrite (the default: every step re-framed at a readable zoom), then
  // the whole graph fitted with following off (every box painted).
  for (const bool following : {true, false}) {
    view->followBox()->setChecked(following);
    if (!following) view->fitToGraph();
    const auto [randomMedian, random95] = timeSteps([&](int) { return pick(rng); });
    ASSERT_TRUE(view->showStep(mid - 100 > 0 ? mid - 100 : 0));
    const int start = view->currentStep();
    const auto [seqMedian, seq95] = timeSteps([&](int i) { return start + i + 1; });
    std::printf(
        "scrub tok2tok (%d steps, %s): random jumps median %.2f ms (95%% %.2f ms), "
        "single steps median %.2f ms (95%% %.2f ms)\n",
        n, following ? "following the rewrite" : "fitted, not following", randomMedian, random95,
        seqMedian, seq95);
    EXPECT_LT(randomMedian, 50.0);
    EXPECT_LT(seqMedian, 50.0);
  }
}

// To the end lays the path out afresh: left to right along every edge, no box on
// another; the boxes slide there and the edges follow.
TEST_F(PlayerTest, LaysThePathOutAtTheEnd) {
  ASSERT_TRUE(view->compileAndWait(Backend::Float64, true));
  showAndSaveScreenshot(*view, QStringLiteral("player_end_before_layout"));
  QElapsedTimer t;
  t.start();
  view->toEnd();
  EXPECT_TRUE(view->isLayingOut());
  ASSERT_TRUE(waitUntil([&] { return !view->isLayingOut(); }, 30000));
  const qint64 layoutMs = t.elapsed();
  EXPECT_TRUE(view->statusText().indexOf(QStringLiteral("Layout failed")) < 0)
      << view->statusText().toStdString();
  // Shown: the boxes slide (~300 ms); midway they are between the old and new places.
  EXPECT_TRUE(view->isVisible());
  view->scene()->finishAnimation();
  std::printf("dot layout of the path (%zu nodes) until applied: %lld ms\n",
              view->scene()->nodeItemCount(), static_cast<long long>(layoutMs));

  const StepCursor& c = *view->cursor();
  const std::vector<NodeId> ids = c.aliveIds();
  std::map<NodeId, NodeId> readerOf;
  NodeId input = kNoNode;
  for (NodeId id : ids) {
    if (c.data().info[static_cast<size_t>(id)].op == Op::Input) input = id;
    for (NodeId in : c.inputs(id)) readerOf[in] = id;
  }
  ASSERT_NE(input, kNoNode);
  auto drawnX = [&](NodeId id) { return view->scene()->nodeItem(id)->pos().x(); };
  // The chain from the Input to the output: x strictly increases along it.
  size_t chain = 1;
  for (NodeId at = input; readerOf.contains(at); at = readerOf.at(at), ++chain) {
    EXPECT_LT(drawnX(at), drawnX(readerOf.at(at))) << "#" << at << " -> #" << readerOf.at(at);
    EXPECT_DOUBLE_EQ(view->scene()->positionOf(at).x, drawnX(at));
  }
  EXPECT_EQ(chain, ids.size());
  // No two boxes overlap.
  for (size_t i = 0; i < ids.size(); ++i) {
    for (size_t j = i + 1; j < ids.size(); ++j) {
      const QPointF a = view->scene()->nodeItem(ids[i])->pos();
      const QPointF b = view->scene()->nodeItem(ids[j])->pos();
      EXPECT_TRUE(std::abs(a.x() - b.x()) >= kNodeWidth || std::abs(a.y() - b.y()) >= kNodeHeight)
          << "#" << ids[i] << " and #" << ids[j] << " overlap";
    }
  }
  showAndSaveScreenshot(*view, QStringLiteral("player_end_laid_out"));

  // A step back keeps the laid-out places for the nodes that survive it.
  const NodeId kept = input;
  const double keptX = drawnX(kept);
  view->stepBack();
  view->scene()->finishAnimation();
  ASSERT_TRUE(view->cursor()->alive(kept));
  EXPECT_DOUBLE_EQ(drawnX(kept), keptX);
}

// "Lay out" in the middle of the compile, where the graph still branches: every edge
// runs left to right and no box lies on another.
TEST_F(PlayerTest, LaysOutAMiddleStepByTheButton) {
  ASSERT_TRUE(view->compileAndWait(Backend::Float64, true));
  ASSERT_TRUE(view->showStep(view->stepCount() / 2));
  view->show();
  QElapsedTimer t;
  t.start();
  view->layOutButton()->click();
  EXPECT_FALSE(view->layOutButton()->isEnabled());
  ASSERT_TRUE(waitUntil([&] { return !view->isLayingOut(); }, 30000));
  std::printf("dot layout of step %d (%zu nodes) until applied: %lld ms\n", view->currentStep(),
              view->scene()->nodeItemCount(), static_cast<long long>(t.elapsed()));
  EXPECT_TRUE(view->layOutButton()->isEnabled());
  view->scene()->finishAnimation();
  const StepCursor& c = *view->cursor();
  const std::vector<NodeId> ids = c.aliveIds();
  auto at = [&](NodeId id) { return view->scene()->nodeItem(id)->pos(); };
  int edges = 0;
  for (NodeId id : ids) {
    for (NodeId in : c.inputs(id)) {
      EXPECT_LT(at(in).x(), at(id).x()) << "#" << in << " -> #" << id;
      ++edges;
    }
  }
  EXPECT_GT(edges, 0);
  int overlaps = 0;
  for (size_t i = 0; i < ids.size(); ++i) {
    for (size_t j = i + 1; j < ids.size(); ++j) {
      const QPointF d = at(ids[i]) - at(ids[j]);
      if (std::abs(d.x()) < kNodeWidth && std::abs(d.y()) < kNodeHeight) ++overlaps;
    }
  }
  EXPECT_EQ(overlaps, 0);
  view->fitToGraph();
  showAndSaveScreenshot(*view, QStringLiteral("player_middle_laid_out"));
}

// Box pairs of the graph shown that lie on each other.
int overlappingBoxes(const DebranchView& view) {
  const std::vector<NodeId> ids = view.cursor()->aliveIds();
  int overlaps = 0;
  for (size_t i = 0; i < ids.size(); ++i) {
    for (size_t j = i + 1; j < ids.size(); ++j) {
      const NodePosition a = view.scene()->positionOf(ids[i]);
      const NodePosition b = view.scene()->positionOf(ids[j]);
      if (std::abs(a.x - b.x) < kNodeWidth && std::abs(a.y - b.y) < kNodeHeight) ++overlaps;
    }
  }
  return overlaps;
}

// Playing fast lays the graph out now and then on its own (never holding the UI up, one
// layout at a time); pausing stops it, and with "Auto layout while playing" off none is.
TEST_F(PlayerTest, LaysOutAutomaticallyWhilePlaying) {
  ASSERT_TRUE(view->compileAndWait(Backend::Float64, true));
  EXPECT_TRUE(view->autoLayoutBox()->isChecked());
  view->speedBox()->setValue(100);
  // The longest wait between two steps shown, and whether a layout ran with the box off.
  QElapsedTimer sinceStep;
  qint64 longestGap = 0;
  bool layingOutWhileOff = false;
  QObject::connect(view.get(), &DebranchView::stepShown, view.get(), [&](int) {
    if (sinceStep.isValid()) longestGap = std::max(longestGap, sinceStep.elapsed());
    sinceStep.restart();
    layingOutWhileOff =
        layingOutWhileOff || (!view->autoLayoutBox()->isChecked() && view->isLayingOut());
  });
  std::vector<int> appliedAt;
  QObject::connect(view.get(), &DebranchView::layoutFinished, view.get(),
                   [&](bool ok, const QString&) {
                     if (ok) appliedAt.push_back(view->currentStep());
                   });

  ASSERT_TRUE(view->showStep(0));
  view->play();
  ASSERT_TRUE(waitUntil([&] { return view->autoLayoutsApplied() >= 3; }, 30000))
      << "applied " << view->autoLayoutsApplied() << " by step " << view->currentStep();
  EXPECT_TRUE(view->isPlaying());
  showAndSaveScreenshot(*view, QStringLiteral("player_auto_layout_playing"));
  view->pause();
  const int reached = view->currentStep();
  ASSERT_TRUE(waitUntil([&] { return !view->isLayingOut(); }, 10000));
  std::printf("auto layouts applied at steps:");
  for (int k : appliedAt) std::printf(" %d", k);
  std::printf(" (paused at %d); longest gap between steps %lld ms\n", reached,
              static_cast<long long>(longestGap));
  // At 100 steps/s: a layout asked for every 150 steps (1.5 s), none queued behind another.
  EXPECT_EQ(appliedAt.size(), static_cast<size_t>(view->autoLayoutsApplied()));
  EXPECT_LE(view->autoLayoutsApplied(), reached / 150);
  EXPECT_LT(longestGap, 500);
  // Paused: no more.
  const int applied = view->autoLayoutsApplied();
  QElapsedTimer paused;
  paused.start();
  while (paused.elapsed() < 600) QApplication::processEvents();
  EXPECT_FALSE(view->isLayingOut());
  EXPECT_EQ(view->autoLayoutsApplied(), applied);
  EXPECT_EQ(view->currentStep(), reached);
  view->scene()->finishAnimation();
  view->fitToGraph();
  const int overlapsAuto = overlappingBoxes(*view);
  showAndSaveScreenshot(*view, QStringLiteral("player_auto_layout_paused"));

  // The same playback with the box off: no layout at all.
  const int appliedBefore = view->autoLayoutsApplied();
  ASSERT_TRUE(view->compileAndWait(Backend::Float64, true));
  view->autoLayoutBox()->setChecked(false);
  view->speedBox()->setValue(100);
  ASSERT_TRUE(view->showStep(0));
  view->play();
  ASSERT_TRUE(waitUntil([&] { return view->currentStep() >= reached; }, 60000));
  view->pause();
  EXPECT_EQ(view->autoLayoutsApplied(), appliedBefore);
  EXPECT_FALSE(layingOutWhileOff);
  ASSERT_TRUE(view->showStep(reached));
  const int overlapsOff = overlappingBoxes(*view);
  view->fitToGraph();
  showAndSaveScreenshot(*view, QStringLiteral("player_auto_layout_off"));
  std::printf("overlapping boxes at step %d: %d with auto layout, %d without\n", reached,
              overlapsAuto, overlapsOff);
  EXPECT_LE(overlapsAuto, overlapsOff);
}

TEST_F(PlayerTest, CancelsACompile) {
  view->optimizeBox()->setChecked(false);
  view->startCompile();
  ASSERT_TRUE(view->isCompiling());
  view->cancelCompile();
  ASSERT_TRUE(waitUntil([&] { return !view->isCompiling(); }, 60000));
  EXPECT_TRUE(view->statusText().contains(QStringLiteral("cancelled")))
      << view->statusText().toStdString();
  EXPECT_FALSE(view->hasCompile());
  showAndSaveScreenshot(*view, QStringLiteral("player_6_cancelled"));
}

TEST_F(PlayerTest, ACompileOverItsMemoryBudgetStopsAndSaysWhy) {
  // tok2tok L=300 held 18 GB after a minute of compiling with its replayable history;
  // here a budget below what the explorer already holds stops the compile at its first
  // progress report (every 256 steps; the unoptimised compile makes 3,234).
  view->setCompileMemoryBudget(1 << 20);
  view->optimizeBox()->setChecked(false);
  view->startCompile();
  ASSERT_TRUE(waitUntil([&] { return !view->isCompiling(); }, 60000));
  EXPECT_FALSE(view->hasCompile());
  EXPECT_TRUE(view->statusText().startsWith(
      QStringLiteral("Compile stopped: the explorer used more than 0.0 GB")))
      << view->statusText().toStdString();
  // With the budget lifted the same compile goes through.
  view->setCompileMemoryBudget(0);
  ASSERT_TRUE(view->compileAndWait(Backend::Float64, true));
}

TEST_F(PlayerTest, ShowsTheErrorOfAnInvalidProgramAndFollowsTheDocument) {
  ASSERT_TRUE(view->compileAndWait(Backend::Float64, true));
  EXPECT_TRUE(view->showStep(view->stepCount()));
  // A new (empty) document: the compile shown no longer matches.
  doc.newDocument();
  EXPECT_FALSE(view->hasCompile());
  EXPECT_EQ(view->scene()->nodeItemCount(), 0u);
  EXPECT_FALSE(view->compileAndWait(Backend::Exact, true));
  EXPECT_TRUE(view->statusText().startsWith(QStringLiteral("Compile failed")))
      << view->statusText().toStdString();
  showAndSaveScreenshot(*view, QStringLiteral("player_7_invalid_program"));
}

// ---- the view: readable, following the rewrite, zoom and pan ---------------------------

// Whether node `id`'s box (at its final place) lies whole inside the graph's viewport.
bool boxOnScreen(const DebranchView& view, NodeId id) {
  if (view.scene()->nodeItem(id) == nullptr) return false;
  const NodePosition p = view.scene()->positionOf(id);
  const QRectF box(p.x - kNodeWidth / 2, p.y - kNodeHeight / 2, kNodeWidth, kNodeHeight);
  const QRect onScreen = view.graphView()->mapFromScene(box).boundingRect();
  return view.graphView()->viewport()->rect().contains(onScreen);
}

// The point size the box labels have on screen.
double labelPointsOnScreen(const DebranchView& view) {
  return PlayerNodeItem::labelFont().pointSizeF() * view.graphView()->zoom();
}

// The node the view follows at the step shown (the branch node while it lives).
NodeId followedNode(const DebranchView& view) {
  const auto focus = stepFocus(*view.scene(), *view.cursor());
  return focus ? focus->node : kNoNode;
}

void turnWheel(QWidget* viewport, QPoint at, int notches, Qt::KeyboardModifiers mods = {}) {
  for (int i = 0; i < std::abs(notches); ++i) {
    QWheelEvent event(at, viewport->mapToGlobal(at), QPoint(), QPoint(0, notches > 0 ? 120 : -120),
                      Qt::NoButton, mods, Qt::NoScrollPhase, false);
    QApplication::sendEvent(viewport, &event);
  }
}

// After a compile the view shows the first rewrite readably (not 980 specks); playing,
// every step's branch node is on screen with labels of at least 9 pt.
TEST_F(PlayerTest, OpensReadableAndFollowsTheBranchNodeWhilePlaying) {
  ASSERT_TRUE(view->compileAndWait(Backend::Exact, true));
  QApplication::processEvents();
  const NodeId first = view->compileResult()->steps.front().branch;
  EXPECT_EQ(followedNode(*view), first);
  EXPECT_TRUE(boxOnScreen(*view, first));
  EXPECT_GE(labelPointsOnScreen(*view), 9.0);
  showAndSaveScreenshot(*view, QStringLiteral("player_follow_0_compiled"));

  int followed = 0;
  std::vector<int> lost;
  QObject::connect(view.get(), &DebranchView::stepShown, view.get(), [&](int k) {
    const NodeId id = followedNode(*view);
    if (id == kNoNode) return;
    ++followed;
    if (!boxOnScreen(*view, id) || labelPointsOnScreen(*view) < 9.0) lost.push_back(k);
  });
  view->speedBox()->setValue(40);
  view->play();
  ASSERT_TRUE(waitUntil([&] { return view->currentStep() >= 60; }, 20000));
  view->pause();
  EXPECT_GT(followed, 40);
  EXPECT_TRUE(lost.empty()) << lost.size() << " steps lost their branch node, the first "
                            << lost.front();
  showAndSaveScreenshot(*view, QStringLiteral("player_follow_1_played"));

  // A jump (go to step 1000): the caption's branch node — or, as the step replaced it,
  // the node the caption names in its place — is brought on screen.
  ASSERT_TRUE(view->showStep(1000));
  const compiler::Step& step = view->compileResult()->steps[999];
  EXPECT_TRUE(view->stepText().contains(QStringLiteral("#%1").arg(step.branch)));
  const NodeId shown = followedNode(*view);
  ASSERT_NE(shown, kNoNode);
  if (!view->cursor()->alive(step.branch)) {
    EXPECT_TRUE(view->stepText().contains(QStringLiteral("replaced by <b>#%1</b>").arg(shown)))
        << view->stepText().toStdString();
  }
  EXPECT_TRUE(boxOnScreen(*view, shown));
  EXPECT_GE(labelPointsOnScreen(*view), 9.0);
  showAndSaveScreenshot(*view, QStringLiteral("player_follow_2_step_1000"));

  // Not following: a step leaves the view where the reader put it.
  view->followBox()->setChecked(false);
  view->fitToGraph();
  const QRectF fitted = view->graphView()->visibleSceneRect();
  ASSERT_TRUE(view->showStep(1500));
  EXPECT_EQ(view->graphView()->visibleSceneRect(), fitted);
}

// The wheel (plain and with Ctrl) zooms around the cursor, + - 0 zoom and fit, the middle
// button and a left drag on the background pan, as in the editor.
TEST_F(PlayerTest, ZoomsAndPansLikeTheEditor) {
  ASSERT_TRUE(view->compileAndWait(Backend::Exact, true));
  PlayerGraphView* graph = view->graphView();
  QWidget* vp = graph->viewport();
  QApplication::processEvents();
  const double z0 = graph->zoom();
  const QPoint at(vp->width() / 3, vp->height() / 3);
  const QPointF under = graph->mapToScene(at);
  turnWheel(vp, at, 2);
  EXPECT_NEAR(graph->zoom(), z0 * 1.2 * 1.2, 0.02 * z0);
  // Around the cursor: the scene point under it stays under it (to a pixel).
  EXPECT_LT(QLineF(graph->mapFromScene(under), at).length(), 2.0);
  turnWheel(vp, at, -2, Qt::ControlModifier);
  EXPECT_NEAR(graph->zoom(), z0, 0.02 * z0);
  EXPECT_LT(QLineF(graph->mapFromScene(under), at).length(), 2.0);

  graph->setFocus();
  QTest::keyClick(graph, Qt::Key_Plus);
  EXPECT_NEAR(graph->zoom(), z0 * 1.25, 0.01);
  QTest::keyClick(graph, Qt::Key_Minus);
  EXPECT_NEAR(graph->zoom(), z0, 0.01);
  QTest::keyClick(graph, Qt::Key_0);
  EXPECT_LT(graph->zoom(), z0);  // the whole graph of step 0 is wider than the window
  EXPECT_TRUE(graph->visibleSceneRect().contains(view->scene()->nodesBounds()));
  graph->setZoom(1.0);

  // Panning: the plane follows the mouse.
  auto drag = [&](Qt::MouseButton button, QPoint from, QPoint to) {
    QTest::mousePress(vp, button, {}, from);
    for (int i = 1; i <= 5; ++i) QTest::mouseMove(vp, from + (to - from) * i / 5);
    QTest::mouseRelease(vp, button, {}, to);
  };
  const QPoint centre = vp->rect().center();
  QPointF before = graph->mapToScene(centre);
  drag(Qt::MiddleButton, centre, centre + QPoint(120, 80));
  EXPECT_LT(QLineF(graph->mapToScene(centre), before - QPointF(120, 80) / graph->zoom()).length(),
            2.0);
  // A background point for the left button: no box there, but inside an edge's wide open
  // path (which takes no clicks), where a press must pan too.
  auto hasBox = [&](QPoint p) {
    const QList<QGraphicsItem*> under = graph->items(p);
    return std::any_of(under.begin(), under.end(), [](QGraphicsItem* i) {
      return dynamic_cast<PlayerNodeItem*>(i) != nullptr;
    });
  };
  QPoint empty(-1, -1);
  for (int y = 20; y < vp->height() - 20 && empty.x() < 0; y += 15)
    for (int x = 20; x < vp->width() - 140 && empty.x() < 0; x += 15)
      if (!hasBox(QPoint(x, y)) && graph->itemAt(QPoint(x, y)) != nullptr) empty = QPoint(x, y);
  ASSERT_GE(empty.x(), 0);
  before = graph->mapToScene(centre);
  drag(Qt::LeftButton, empty, empty + QPoint(100, 0));
  EXPECT_LT(QLineF(graph->mapToScene(centre), before - QPointF(100, 0) / graph->zoom()).length(),
            2.0);
  EXPECT_FALSE(graph->isPanning());
}

// Lay out settles the graph around the branch node: it keeps its place and the view
// frames it readably.
TEST_F(PlayerTest, LayOutKeepsTheBranchNodeInPlaceAndFramed) {
  ASSERT_TRUE(view->compileAndWait(Backend::Float64, true));
  ASSERT_TRUE(view->showStep(view->stepCount() / 2));
  const NodeId branch = followedNode(*view);
  ASSERT_NE(branch, kNoNode);
  const NodePosition before = view->scene()->positionOf(branch);
  view->layOutButton()->click();
  ASSERT_TRUE(waitUntil([&] { return !view->isLayingOut(); }, 30000));
  view->scene()->finishAnimation();
  const NodePosition after = view->scene()->positionOf(branch);
  EXPECT_NEAR(after.x, before.x, 0.5);
  EXPECT_NEAR(after.y, before.y, 0.5);
  EXPECT_TRUE(boxOnScreen(*view, branch));
  EXPECT_GE(labelPointsOnScreen(*view), 9.0);
  showAndSaveScreenshot(*view, QStringLiteral("player_layout_keeps_branch"));

  // To the end: the path laid out around the last rewrite, shown readably.
  view->toEnd();
  ASSERT_TRUE(waitUntil([&] { return !view->isLayingOut(); }, 30000));
  view->scene()->finishAnimation();
  EXPECT_GE(labelPointsOnScreen(*view), 9.0);
  const NodeId last = followedNode(*view);
  if (last != kNoNode) {
    EXPECT_TRUE(boxOnScreen(*view, last));
  }
}

// The frame export writes the last step too, every frame of one size, each framed on its
// step's rewrite at a readable zoom (the branch node's orange frame large in it).
TEST_F(PlayerTest, ExportsFramesUpToTheLastStepFramedOnTheRewrite) {
  ASSERT_TRUE(view->compileAndWait(Backend::Exact, true));
  const int n = view->stepCount();
  const int every = frameStride(n);
  ASSERT_GT(every, 1);
  ASSERT_NE(n % every, 0) << "pick a compile whose stride steps over the end";
  const std::vector<int> steps = frameSteps(0, n, every);
  EXPECT_EQ(steps.back(), n);
  EXPECT_EQ(steps.front(), 0);
  EXPECT_EQ(frameSteps(0, 8, 4), (std::vector<int>{0, 4, 8}));
  EXPECT_EQ(frameSteps(0, 9, 4), (std::vector<int>{0, 4, 8, 9}));
  EXPECT_EQ(frameSteps(3, 3, 4), (std::vector<int>{3}));

  QTemporaryDir dir;
  QElapsedTimer t;
  t.start();
  const QStringList written = exportDebranchFrames(*view, dir.path(), FrameRange{0, -1, every});
  std::printf("exported %lld frames in %lld ms\n", static_cast<long long>(written.size()),
              static_cast<long long>(t.elapsed()));
  ASSERT_EQ(written.size(), static_cast<qsizetype>(steps.size()));
  EXPECT_TRUE(written.back().endsWith(QStringLiteral("step_%1.png").arg(n, 5, 10, QChar('0'))));
  EXPECT_TRUE(QFileInfo::exists(written.back()));
  const QSize size = QImage(written.front()).size();
  int readableFrames = 0;
  int checkedFrames = 0;
  for (size_t i = 1; i < steps.size(); i += steps.size() / 8) {
    const QImage frame(written[static_cast<qsizetype>(i)]);
    EXPECT_EQ(frame.size(), size);
    ASSERT_TRUE(view->showStep(steps[i]));
    bool marked = false;
    for (NodeId id : view->cursor()->aliveIds())
      marked = marked || view->scene()->nodeItem(id)->mark() != PlayerNodeItem::Mark::None;
    if (!marked) continue;
    ++checkedFrames;
    // At 1:1 the 5-unit frame around a 150 x 48 box is some 1500 pixels; fitted, a few.
    if (test::rewriteMarkPixels(frame) > 800) ++readableFrames;
  }
  EXPECT_GT(checkedFrames, 3);
  EXPECT_EQ(readableFrames, checkedFrames);
}

}  // namespace
// The step label's sentence is the rule's own explanation, for every rule; a rule this
// compiler does not have is named, not silently explained away.
TEST(RuleExplanation, EveryRuleExplainsItselfAndAnUnknownOneIsNamed) {
  for (const CompileRule& r : compileRules())
    EXPECT_EQ(ruleExplanation(r.id), QString::fromStdString(r.explanation)) << r.id;
  const QString unknown = ruleExplanation("12Z from a newer compiler");
  EXPECT_TRUE(unknown.contains(QStringLiteral("12Z from a newer compiler")))
      << unknown.toStdString();
}

}  // namespace lsrl::studio
