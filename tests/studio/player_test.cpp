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
#include <algorithm>
#include <cstdio>
#include <map>
#include <random>
#include <set>

#include "app/layout/item_size.h"
#include "app/studio/document/document.h"
#include "app/studio/player/compile_count_chart.h"
#include "app/studio/player/debranch_view.h"
#include "app/studio/player/node_inspector.h"
#include "app/studio/player/player_scene.h"
#include "app/studio/player/rule_explanation.h"
#include "studio/studio_test_util.h"

namespace lsrl::studio {
namespace {

using test::examplePath;
using test::waitUntil;

void screenshot(QWidget& widget, const QString& name) {
  widget.show();
  QApplication::processEvents();
  const QString path = test::saveScreenshot(widget, name);
  EXPECT_TRUE(QFileInfo::exists(path)) << path.toStdString();
}

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
  screenshot(*view, QStringLiteral("player_0_not_compiled"));
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
  screenshot(*view, QStringLiteral("player_1_compiled_step0"));

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
  screenshot(*view, QStringLiteral("player_2_middle_step"));

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
  screenshot(*view, QStringLiteral("player_3_end_path"));

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
  screenshot(*view, QStringLiteral("player_4_inspect_linstate"));

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
  screenshot(*view, QStringLiteral("player_5_animating"));
  while (wait.elapsed() < 400) QApplication::processEvents();
  EXPECT_TRUE(view->inspector()->headerText().contains(QStringLiteral("not in the graph")));
  screenshot(*view, QStringLiteral("player_5_played"));

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
  view->fitToGraph();
  const auto [randomMedian, random95] = timeSteps([&](int) { return pick(rng); });
  ASSERT_TRUE(view->showStep(mid - 100 > 0 ? mid - 100 : 0));
  const int start = view->currentStep();
  const auto [seqMedian, seq95] = timeSteps([&](int i) { return start + i + 1; });
  std::printf(
      "scrub tok2tok (%d steps): random jumps median %.2f ms (95%% %.2f ms), "
      "single steps median %.2f ms (95%% %.2f ms)\n",
      n, randomMedian, random95, seqMedian, seq95);
  EXPECT_LT(randomMedian, 50.0);
  EXPECT_LT(seqMedian, 50.0);
}

// To the end lays the path out afresh: left to right along every edge, no box on
// another; the boxes slide there and the edges follow.
TEST_F(PlayerTest, LaysThePathOutAtTheEnd) {
  ASSERT_TRUE(view->compileAndWait(Backend::Float64, true));
  screenshot(*view, QStringLiteral("player_end_before_layout"));
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
  screenshot(*view, QStringLiteral("player_end_laid_out"));

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
  screenshot(*view, QStringLiteral("player_middle_laid_out"));
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
  screenshot(*view, QStringLiteral("player_auto_layout_playing"));
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
  screenshot(*view, QStringLiteral("player_auto_layout_paused"));

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
  screenshot(*view, QStringLiteral("player_auto_layout_off"));
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
  screenshot(*view, QStringLiteral("player_6_cancelled"));
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
  screenshot(*view, QStringLiteral("player_7_invalid_program"));
}

}  // namespace
}  // namespace lsrl::studio
