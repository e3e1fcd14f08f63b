// The Debranching and Token stepper tabs in a person's hands:
// tok2tok opened from File > Examples, compiled with the Compile button, played, paused,
// sent to step 1000 through the go-to box, zoomed with the wheel over the rewritten node,
// laid out, a node clicked, the frames exported through the File menu; then the token
// stepper run, stepped, compared with the compiled float64 model and sent to the first
// divergence. Mouse and keyboard only; widgets are read to find where to click and to
// check what a person would see.
#include <QCheckBox>
#include <QImage>
#include <QLabel>
#include <QScrollArea>
#include <QScrollBar>
#include <QSlider>
#include <QSpinBox>
#include <QStatusBar>

#include "app/layout/item_size.h"
#include "app/studio/editor/box_item.h"
#include "app/studio/editor/graph_scene.h"
#include "app/studio/editor/graph_view.h"
#include "app/studio/player/compile_count_chart.h"
#include "app/studio/player/debranch_view.h"
#include "app/studio/player/node_inspector.h"
#include "app/studio/player/player_graph_view.h"
#include "app/studio/player/player_scene.h"
#include "app/studio/player/step_focus.h"
#include "app/studio/stepper/stepper_view.h"
#include "app/studio/stepper/value_graph_view.h"
#include "studio/scenarios/player_driver.h"

namespace lsrl::studio::scenario {
namespace {

constexpr int kTok2tokNodes = 980;

// ---- the Debranching tab ---------------------------------------------------------------

// Opens tok2tok (L=3, direct) from File > Examples and clicks the Debranching tab.
DebranchView* openTok2tokInDebranching(Session& s) {
  menuPath(*s.window, {"File", "Examples", "tok2tok", "tok2tok (L=3, direct)"});
  EXPECT_TRUE(waitUntil(
      [&] { return s->document()->graph().nodeCount() == static_cast<size_t>(kTok2tokNodes); },
      30000));
  clickTab(s.window.get(), "Debranching");
  return findVisible<DebranchView>(s.window.get());
}

// The node the view follows at the step shown: the step's branch node, or the node that
// replaced it.
NodeId rewrittenNode(DebranchView* d) {
  const auto focus = stepFocus(*d->scene(), *d->cursor());
  return focus ? focus->node : kNoNode;
}

// The box labels' point size on screen.
double labelPoints(DebranchView* d) {
  return PlayerNodeItem::labelFont().pointSizeF() * d->graphView()->zoom();
}

// The go-to box ("step N").
QSpinBox* goToBox(DebranchView* d) {
  for (QSpinBox* box : d->findChildren<QSpinBox*>())
    if (box->prefix().startsWith(QStringLiteral("step"))) return box;
  return nullptr;
}

// Types `step` into the go-to box and presses Enter.
void goToStep(DebranchView* d, int step) {
  QSpinBox* box = goToBox(d);
  ASSERT_NE(box, nullptr);
  click(box);
  key(box, Qt::Key_A, Qt::ControlModifier);
  type(box, QString::number(step));
  key(box, Qt::Key_Return);
}

// The controls a person needs while inspecting: shown whole inside the window, no outer
// scroll bar pushing them away.
void expectControlsInView(Session& s, DebranchView* d, const char* when) {
  for (const QString& text : {QStringLiteral("▶"), QStringLiteral("Lay out"),
                              QStringLiteral("To the end"), QStringLiteral("Next of rule")}) {
    EXPECT_TRUE(wholeInWindow(button(d, text), s.window.get()))
        << text.toStdString() << " cut off " << when;
  }
  EXPECT_TRUE(wholeInWindow(d->slider(), s.window.get())) << "slider cut off " << when;
  EXPECT_TRUE(wholeInWindow(d->chart(), s.window.get())) << "chart cut off " << when;
  EXPECT_TRUE(wholeInWindow(d->graphView(), s.window.get())) << "graph cut off " << when;
  for (QWidget* p = d->parentWidget(); p != nullptr; p = p->parentWidget()) {
    if (auto* area = qobject_cast<QScrollArea*>(p)) {
      EXPECT_FALSE(area->verticalScrollBar()->isVisible()) << "the tab scrolls as a whole " << when;
      break;
    }
  }
}

// Where the keyboard goes now (the window when nothing has focus).
QWidget* focused(Session& s) {
  QWidget* w = QApplication::focusWidget();
  return w != nullptr ? w : s.window.get();
}

// ---- the Token stepper tab --------------------------------------------------------------

bool stepperBoxInViewport(ValueGraphView* g, NodeId id) {
  const auto ref = g->graphScene()->visibleRefOfNode(id);
  const BoxItem* box = ref ? g->graphScene()->boxOf(*ref) : nullptr;
  return box != nullptr &&
         g->viewport()->rect().contains(g->mapFromScene(box->sceneBoundingRect()).boundingRect());
}

// The editor's box titles are 13 px; their point size on screen.
double stepperTitlePoints(ValueGraphView* g) { return 13.0 * 72.0 / g->logicalDpiY() * g->zoom(); }

// ---- the whole flow -----------------------------------------------------------------------

TEST(DebranchScenario, PlaysZoomsInspectsExportsAndStepsTokensOfTok2tok) {
  Session s;
  DebranchView* d = openTok2tokInDebranching(s);
  ASSERT_NE(d, nullptr);
  checkpoint(*s, QStringLiteral("debranch_flow_0_tab"));
  ASSERT_TRUE(compileWithTheButton(d)) << d->statusText().toStdString();
  checkpoint(*s, QStringLiteral("debranch_flow_1_compiled"));
  EXPECT_TRUE(boxInViewport(d, rewrittenNode(d)));
  EXPECT_GE(labelPoints(d), 9.0);

  // Play a little, pause.
  click(button(d, "▶"));
  EXPECT_TRUE(d->isPlaying());
  EXPECT_TRUE(waitUntil([&] { return d->currentStep() >= 4; }, 10000));
  checkpoint(*s, QStringLiteral("debranch_flow_2_playing"));
  click(button(d, "❚❚"));
  EXPECT_FALSE(d->isPlaying());
  const NodeId playedTo = rewrittenNode(d);
  if (playedTo != kNoNode) {
    EXPECT_TRUE(boxInViewport(d, playedTo));
  }

  // Step 1000 through the go-to box: the rewritten node on screen.
  goToStep(d, 1000);
  ASSERT_EQ(d->currentStep(), 1000);
  settle(100);
  const NodeId rewritten = rewrittenNode(d);
  ASSERT_NE(rewritten, kNoNode);
  EXPECT_TRUE(d->stepText().contains(QStringLiteral("#%1").arg(rewritten)))
      << d->stepText().toStdString();
  EXPECT_TRUE(boxInViewport(d, rewritten));
  checkpoint(*s, QStringLiteral("debranch_flow_3_step_1000"));

  // Zoom into it with the wheel over it.
  QWidget* vp = d->graphView()->viewport();
  const double before = d->graphView()->zoom();
  wheel(vp, boxOnScreen(d, rewritten).center(), 3);
  EXPECT_GT(d->graphView()->zoom(), before * 1.5);
  EXPECT_TRUE(boxInViewport(d, rewritten));
  EXPECT_GE(labelPoints(d), 9.0);
  checkpoint(*s, QStringLiteral("debranch_flow_4_zoomed"));

  // Lay out: the rewritten node stays where it is, on screen.
  const NodePosition place = d->scene()->positionOf(rewritten);
  click(button(d, "Lay out"));
  ASSERT_TRUE(waitUntil([&] { return !d->isLayingOut(); }, 30000));
  settle(400);  // the boxes slide
  EXPECT_NEAR(d->scene()->positionOf(rewritten).x, place.x, 0.5);
  EXPECT_NEAR(d->scene()->positionOf(rewritten).y, place.y, 0.5);
  EXPECT_TRUE(boxInViewport(d, rewritten));
  checkpoint(*s, QStringLiteral("debranch_flow_5_laid_out"));

  // Click it: the inspector shows it, the controls stay in view.
  click(vp, boxOnScreen(d, rewritten).center());
  EXPECT_TRUE(d->inspector()->headerText().startsWith(QStringLiteral("#%1 ").arg(rewritten)))
      << d->inspector()->headerText().toStdString();
  // Its matrix's conditioning: how far apart its entries are, against fp32's 24 bits.
  if (d->inspector()->fieldBox()->count() > 0) {
    EXPECT_TRUE(d->inspector()->conditioningText().startsWith(QStringLiteral("dynamic range")) ||
                d->inspector()->conditioningText() == QStringLiteral("all zero"))
        << d->inspector()->conditioningText().toStdString();
  }
  expectControlsInView(s, d, "after clicking a node");
  checkpoint(*s, QStringLiteral("debranch_flow_6_inspected"));

  // Export the frames: every frame up to the last step, and a message saying so.
  const QString folder = s.files.filePath(QStringLiteral("frames"));
  QDir().mkpath(folder);
  const QString message = exportFramesByMenu(s, folder);
  const QString last = QStringLiteral("step_%1.png").arg(d->stepCount(), 5, 10, QChar('0'));
  EXPECT_TRUE(QFileInfo::exists(QDir(folder).filePath(last))) << last.toStdString();
  EXPECT_TRUE(message.contains(QStringLiteral("Wrote"))) << message.toStdString();
  EXPECT_TRUE(message.contains(QDir::toNativeSeparators(folder))) << message.toStdString();
  EXPECT_EQ(s->statusBar()->currentMessage(), message);
  checkpoint(*s, QStringLiteral("debranch_flow_7_exported"));

  // The Token stepper: run, step with the buttons and the keys.
  clickTab(s.window.get(), "Token stepper");
  auto* stepper = findVisible<StepperView>(s.window.get());
  ASSERT_NE(stepper, nullptr);
  click(button(stepper, "Run"));
  ASSERT_TRUE(
      waitUntil([&] { return stepper->runA() != nullptr && !stepper->isRunning(); }, kCompileMs));
  ValueGraphView* graph = stepper->graphView();
  EXPECT_TRUE(stepperBoxInViewport(graph, s->document()->graph().output()));
  EXPECT_GE(stepperTitlePoints(graph), 9.0);
  checkpoint(*s, QStringLiteral("debranch_flow_8_stepper_run"));
  const int end = stepper->currentStep();
  click(button(stepper, "◀ Step back"));
  click(button(stepper, "◀ Step back"));
  EXPECT_EQ(stepper->currentStep(), end - 2);
  click(button(stepper, "Step forward ▶"));
  EXPECT_EQ(stepper->currentStep(), end - 1);
  QSpinBox* tBox = nullptr;
  for (QSpinBox* box : stepper->findChildren<QSpinBox*>())
    if (box->prefix().startsWith(QStringLiteral("t ="))) tBox = box;
  ASSERT_NE(tBox, nullptr);
  click(tBox);
  key(tBox, Qt::Key_Down);
  key(tBox, Qt::Key_Down);
  key(tBox, Qt::Key_Up);
  EXPECT_EQ(stepper->currentStep(), end - 2);
  checkpoint(*s, QStringLiteral("debranch_flow_9_stepped"));

  // Compare with the compiled float64 model, go to the first divergence.
  auto* compare = qobject_cast<QCheckBox*>(button(stepper, QStringLiteral("compare with")));
  ASSERT_NE(compare, nullptr);
  click(compare);
  ASSERT_TRUE(compare->isChecked());
  click(button(stepper, "Run"));
  ASSERT_TRUE(
      waitUntil([&] { return stepper->runB() != nullptr && !stepper->isRunning(); }, kCompileMs));
  ASSERT_TRUE(stepper->divergence() && stepper->divergence()->found);
  const Divergence& divergence = *stepper->divergence();
  click(button(stepper, "Go to first divergence"));
  EXPECT_EQ(stepper->currentStep(), divergence.step);
  bool named = false;
  for (QLabel* l : stepper->findChildren<QLabel*>())
    named = named || l->text().contains(QStringLiteral("program node %1").arg(divergence.node.a));
  EXPECT_TRUE(named) << "the divergence names its program node";
  EXPECT_TRUE(stepperBoxInViewport(graph, divergence.node.a));
  EXPECT_GE(stepperTitlePoints(graph), 9.0);
  checkpoint(*s, QStringLiteral("debranch_flow_10_divergence"));
}

// ---- one test per defect found by hand -------------------------------------------------

// Item 6: clicking a node made the tab taller than the window (an outer scroll bar took
// the play controls and the chart out of view).
TEST(DebranchScenario, InspectingANodeKeepsTheControlsInView) {
  Session s;
  DebranchView* d = openTok2tokInDebranching(s);
  ASSERT_NE(d, nullptr);
  ASSERT_TRUE(compileWithTheButton(d));
  click(button(d, "To the end"));
  ASSERT_TRUE(waitUntil([&] { return !d->isLayingOut(); }, 30000));
  settle(400);
  // A box on screen (the graph shown is the path).
  QWidget* vp = d->graphView()->viewport();
  NodeId shown = kNoNode;
  for (NodeId id : d->cursor()->aliveIds())
    if (shown == kNoNode && boxInViewport(d, id)) shown = id;
  ASSERT_NE(shown, kNoNode);
  click(vp, boxOnScreen(d, shown).center());
  EXPECT_TRUE(d->inspector()->headerText().startsWith(QStringLiteral("#%1 ").arg(shown)));
  expectControlsInView(s, d, "after clicking a node at the end");
  // Back at the start the node is gone: the header grows a line.
  goToStep(d, 0);
  EXPECT_TRUE(d->inspector()->headerText().contains(QStringLiteral("not in the graph")));
  settle(100);
  expectControlsInView(s, d, "with the inspected node gone");
  checkpoint(*s, QStringLiteral("debranch_inspect_controls_in_view"));
}

// Item 6: the graph could not be zoomed: the wheel, Ctrl+wheel, Zoom In and Ctrl++ did
// nothing there.
TEST(DebranchScenario, WheelKeysAndZoomActionsZoomTheDebranchingGraph) {
  Session s;
  DebranchView* d = openTok2tokInDebranching(s);
  ASSERT_NE(d, nullptr);
  ASSERT_TRUE(compileWithTheButton(d));
  PlayerGraphView* g = d->graphView();
  QWidget* vp = g->viewport();
  const double editorZoom = s->graphView()->zoom();
  const QPoint at(vp->width() / 3, vp->height() / 2);
  const QPointF under = g->mapToScene(at);
  double z = g->zoom();
  wheel(vp, at, 2);
  EXPECT_GT(g->zoom(), z * 1.3) << "wheel";
  EXPECT_LT(QLineF(g->mapFromScene(under), at).length(), 2.0) << "zooms around the cursor";
  z = g->zoom();
  wheel(vp, at, -1, Qt::ControlModifier);
  EXPECT_LT(g->zoom(), z / 1.1) << "Ctrl+wheel";
  z = g->zoom();
  click(button(s.window.get(), "Zoom In"));
  EXPECT_GT(g->zoom(), z * 1.1) << "toolbar Zoom In";
  z = g->zoom();
  key(focused(s), Qt::Key_Plus, Qt::ControlModifier);
  EXPECT_GT(g->zoom(), z * 1.1) << "Ctrl++";
  z = g->zoom();
  key(focused(s), Qt::Key_Minus, Qt::ControlModifier);
  EXPECT_LT(g->zoom(), z / 1.1) << "Ctrl+-";
  click(button(s.window.get(), "Fit to Window"));
  EXPECT_TRUE(g->visibleSceneRect().contains(d->scene()->nodesBounds())) << "Fit to Window";
  // Keys on the view itself, and a middle-button drag.
  z = g->zoom();
  key(g, Qt::Key_Plus);
  EXPECT_GT(g->zoom(), z * 1.1) << "+";
  const QPointF centre = g->mapToScene(vp->rect().center());
  drag(vp, vp->rect().center(), vp->rect().center() + QPoint(100, 50), Qt::MiddleButton);
  EXPECT_LT(
      QLineF(g->mapToScene(vp->rect().center()), centre - QPointF(100, 50) / g->zoom()).length(),
      2.0)
      << "middle-drag pans";
  // A left drag on the background (edges included: they take no clicks) pans too.
  QPoint background(-1, -1);
  for (int y = 30; y < vp->height() - 30 && background.x() < 0; y += 20) {
    for (int x = 30; x < vp->width() - 150 && background.x() < 0; x += 20) {
      const QList<QGraphicsItem*> under = g->items(QPoint(x, y));
      if (std::none_of(under.begin(), under.end(),
                       [](QGraphicsItem* i) { return dynamic_cast<PlayerNodeItem*>(i); }))
        background = QPoint(x, y);
    }
  }
  ASSERT_GE(background.x(), 0);
  const QPointF leftBefore = g->mapToScene(vp->rect().center());
  drag(vp, background, background + QPoint(120, 0));
  EXPECT_LT(
      QLineF(g->mapToScene(vp->rect().center()), leftBefore - QPointF(120, 0) / g->zoom()).length(),
      2.0)
      << "left-drag on the background pans";
  EXPECT_EQ(s->graphView()->zoom(), editorZoom) << "the hidden editor's graph did not move";
  checkpoint(*s, QStringLiteral("debranch_zoomed_by_hand"));
}

// Item 6: after the compile the 980 nodes were unlabeled specks.
TEST(DebranchScenario, OpensReadableAfterTheCompile) {
  Session s;
  DebranchView* d = openTok2tokInDebranching(s);
  ASSERT_NE(d, nullptr);
  ASSERT_TRUE(compileWithTheButton(d));
  const NodeId first = rewrittenNode(d);
  ASSERT_NE(first, kNoNode);
  EXPECT_TRUE(d->stepText().contains(QStringLiteral("#%1").arg(first)))
      << d->stepText().toStdString();
  EXPECT_TRUE(boxInViewport(d, first));
  EXPECT_GE(labelPoints(d), 9.0);
  checkpoint(*s, QStringLiteral("debranch_opens_readable"));
}

// Item 6: the node the caption names was never brought into view, not even by Lay out.
TEST(DebranchScenario, GoToStepAndLayOutBringTheRewrittenNodeIntoView) {
  Session s;
  DebranchView* d = openTok2tokInDebranching(s);
  ASSERT_NE(d, nullptr);
  ASSERT_TRUE(compileWithTheButton(d));
  for (int step : {1000, 1500}) {
    goToStep(d, step);
    ASSERT_EQ(d->currentStep(), step);
    const NodeId rewritten = rewrittenNode(d);
    ASSERT_NE(rewritten, kNoNode);
    EXPECT_TRUE(boxInViewport(d, rewritten)) << "step " << step;
    EXPECT_GE(labelPoints(d), 9.0);
    const NodePosition place = d->scene()->positionOf(rewritten);
    click(button(d, "Lay out"));
    ASSERT_TRUE(waitUntil([&] { return !d->isLayingOut(); }, 30000));
    settle(400);
    EXPECT_NEAR(d->scene()->positionOf(rewritten).x, place.x, 0.5) << "step " << step;
    EXPECT_NEAR(d->scene()->positionOf(rewritten).y, place.y, 0.5) << "step " << step;
    EXPECT_TRUE(boxInViewport(d, rewritten)) << "step " << step << " laid out";
  }
  checkpoint(*s, QStringLiteral("debranch_step_1500_laid_out"));
}

// Item 6: the Token stepper's graph was a speck.
TEST(DebranchScenario, TokenStepperGraphOpensReadableAndZooms) {
  Session s;
  ASSERT_NE(openTok2tokInDebranching(s), nullptr);
  clickTab(s.window.get(), "Token stepper");
  auto* stepper = findVisible<StepperView>(s.window.get());
  ASSERT_NE(stepper, nullptr);
  ValueGraphView* graph = stepper->graphView();
  EXPECT_GE(stepperTitlePoints(graph), 9.0) << "before a run";
  click(button(stepper, "Run"));
  ASSERT_TRUE(
      waitUntil([&] { return stepper->runA() != nullptr && !stepper->isRunning(); }, kCompileMs));
  EXPECT_TRUE(stepperBoxInViewport(graph, s->document()->graph().output()));
  EXPECT_GE(stepperTitlePoints(graph), 9.0);
  const double z = graph->zoom();
  wheel(graph->viewport(), graph->viewport()->rect().center(), -2);
  EXPECT_LT(graph->zoom(), z / 1.3);
  click(button(s.window.get(), "Zoom In"));
  EXPECT_GT(graph->zoom(), z / 1.3 * 1.1) << "toolbar Zoom In on the stepper's graph";
  checkpoint(*s, QStringLiteral("debranch_stepper_readable"));
}

// Item 7: the export left out the last step, gave no word when done, and its frames
// showed the whole plane as specks.
TEST(DebranchScenario, ExportsEveryFrameUpToTheLastStepAndSaysWhere) {
  Session s;
  DebranchView* d = openTok2tokInDebranching(s);
  ASSERT_NE(d, nullptr);
  ASSERT_TRUE(compileWithTheButton(d));
  const QString folder = s.files.filePath(QStringLiteral("frames"));
  QDir().mkpath(folder);
  const QString message = exportFramesByMenu(s, folder);
  const QStringList frames =
      QDir(folder).entryList({QStringLiteral("step_*.png")}, QDir::Files, QDir::Name);
  ASSERT_FALSE(frames.isEmpty());
  EXPECT_EQ(frames.back(), QStringLiteral("step_%1.png").arg(d->stepCount(), 5, 10, QChar('0')));
  EXPECT_TRUE(message.contains(QStringLiteral("Wrote %1 frames").arg(frames.size())))
      << message.toStdString();
  EXPECT_TRUE(message.contains(QDir::toNativeSeparators(folder))) << message.toStdString();
  // Readable frames: the rewrite's frames are large, not specks.
  const QImage middle(QDir(folder).filePath(frames[frames.size() / 2]));
  const QImage end(QDir(folder).filePath(frames.back()));
  EXPECT_EQ(middle.size(), end.size());
  EXPECT_GT(test::rewriteMarkPixels(end), 800);
  checkpoint(*s, QStringLiteral("debranch_frames_exported"));
}

}  // namespace
}  // namespace lsrl::studio::scenario
