// The explorer on graphs too big to draw in full or to give to dot: each of
// these crashed it or froze it for minutes. It opens them with groups collapsed, lays
// them out in layers, draws at most the DrawLimits and says what it left out.
#include <gtest/gtest.h>

#include <QElapsedTimer>
#include <QStatusBar>
#include <QTemporaryDir>

#include "app/layout/visible_graph.h"
#include "app/studio/editor/graph_scene.h"
#include "app/studio/editor/graph_view.h"
#include "app/studio/editor/minimap.h"
#include "app/studio/window/layout_runner.h"
#include "app/studio/window/main_window.h"
#include "core/graph/graph.h"
#include "core/io/graph_file.h"
#include "core/programs/program_registry.h"
#include "layout/layout_test_util.h"
#include "studio/studio_test_util.h"

namespace lsrl::studio {
namespace {

struct Opened {
  qint64 ms = 0;
  QString status;
};

// Saves `g`, opens it in a fresh window and lets the first paints and the overview run.
Opened openInWindow(const Graph& g, const QString& name, MainWindow& window,
                    const QTemporaryDir& dir) {
  const QString path = dir.filePath(name + QStringLiteral(".json"));
  saveGraphFile(g, path.toStdString());
  window.resize(1600, 1000);
  window.show();
  QElapsedTimer timer;
  timer.start();
  EXPECT_TRUE(window.openFile(path)) << window.lastError().toStdString();
  QApplication::processEvents();
  Opened out;
  out.ms = timer.elapsed();
  out.status = window.statusBar()->currentMessage();
  window.graphView()->viewport()->repaint();
  test::saveScreenshot(window, QStringLiteral("big_") + name);
  std::printf("[ measure ] opening %s (%zu nodes): %lld ms\n", qPrintable(name), g.nodeCount(),
              static_cast<long long>(out.ms));
  return out;
}

TEST(BigGraph, AMillionUnusedNodesAreDrawnAsATopologicalPrefix) {
  Graph g;
  NodeId last = g.addInput(1, "x");
  g.setOutput(g.addReLU(last));
  for (int i = 0; i < 1000000; ++i) last = g.addReLU(last);
  QTemporaryDir recovery, dir;
  MainWindow window(test::windowOptions(recovery.path()));
  const Opened opened = openInWindow(g, QStringLiteral("million_unused"), window, dir);
  const DrawLimits limits;
  EXPECT_EQ(window.document()->visible().items.size(), limits.maxItems);
  EXPECT_EQ(window.graphView()->graphScene()->boxes().size(), limits.maxItems);
  EXPECT_FALSE(window.layoutRunner()->isRunning()) << "dot never gets a graph this size";
  EXPECT_TRUE(opened.status.contains(QStringLiteral("Drawn: 30,000 of 1,000,002 boxes")))
      << opened.status.toStdString();
  EXPECT_TRUE(opened.status.contains(QStringLiteral("laid out in layers")))
      << opened.status.toStdString();
}

TEST(BigGraph, ACycleOfAHundredThousandNodesNeverReachesDot) {
  Graph g;
  g.addInput(1, "x");
  for (int i = 1; i <= 100000; ++i)
    g.addUnchecked(testing_layout::reluReading(i, i == 1 ? 100000 : i - 1));
  g.setOutput(100000);
  QTemporaryDir recovery, dir;
  MainWindow window(test::windowOptions(recovery.path()));
  const Opened opened = openInWindow(g, QStringLiteral("cycle"), window, dir);
  EXPECT_FALSE(window.layoutRunner()->isRunning());
  EXPECT_TRUE(opened.status.contains(QStringLiteral("Drawn: 30,000 of 100,001 boxes")))
      << opened.status.toStdString();
  EXPECT_FALSE(window.document()->problems().empty()) << "the cycle is still reported";
}

TEST(BigGraph, AConcatOfAHundredThousandInputsDrawsItsFirstThousandEdges) {
  Graph g;
  const NodeId x = g.addInput(1, "x");
  g.setOutput(g.addConcat(std::vector<NodeId>(100000, x)));
  QTemporaryDir recovery, dir;
  MainWindow window(test::windowOptions(recovery.path()));
  const Opened opened = openInWindow(g, QStringLiteral("wide_concat"), window, dir);
  EXPECT_EQ(window.graphView()->graphScene()->edgeItems().size(), 1000u);
  EXPECT_TRUE(opened.status.contains(QStringLiteral("1,000 of 100,000 edges")))
      << opened.status.toStdString();
  window.minimap()->refit();  // crashed in QGraphicsScene::render at 3-9 GB
}

TEST(BigGraph, Tok2tokL300OpensWithGroupsCollapsedInLayers) {
  Graph g = buildProgram("tok2tok", {{"L", "300"}, {"mu", "100000"}});
  for (const Group& group : g.groups()) g.mutableGroup(group.id).expanded = true;
  QTemporaryDir recovery, dir;
  MainWindow window(test::windowOptions(recovery.path()));
  const Opened opened = openInWindow(g, QStringLiteral("tok2tok_L300"), window, dir);
  EXPECT_TRUE(window.document()->collapsedOnOpen());
  EXPECT_EQ(window.document()->visible().omittedItems, 0u) << "collapsed, it is drawn whole";
  EXPECT_TRUE(opened.status.startsWith(QStringLiteral("Groups collapsed to fit the drawing")))
      << opened.status.toStdString();
  EXPECT_FALSE(window.document()->isModified()) << "opening is not an edit";
  EXPECT_LT(opened.ms, 20000) << "2.7 s on the development machine";
}

}  // namespace
}  // namespace lsrl::studio
