// The Debranching tab under a person's mouse: compiling with the button, where a node's
// box is on screen, and exporting the frames through the File menu. Reading the view
// finds where to click; every action is a QTest event.
#pragma once

#include <QMessageBox>

#include "app/layout/item_size.h"
#include "app/studio/player/debranch_view.h"
#include "app/studio/player/player_graph_view.h"
#include "app/studio/player/player_scene.h"
#include "studio/scenarios/scenario_driver.h"

namespace lsrl::studio::scenario {

// A compile of tok2tok takes about a minute on a loaded CI machine.
constexpr int kCompileMs = 120000;

// Presses Compile and waits until the compile is shown.
inline bool compileWithTheButton(DebranchView* d) {
  click(button(d, "Compile"));
  return waitUntil([&] { return d->hasCompile() && !d->isCompiling(); }, kCompileMs);
}

// Node `id`'s box in the graph's viewport coordinates.
inline QRect boxOnScreen(DebranchView* d, NodeId id) {
  const NodePosition p = d->scene()->positionOf(id);
  const QRectF box(p.x - kNodeWidth / 2, p.y - kNodeHeight / 2, kNodeWidth, kNodeHeight);
  return d->graphView()->mapFromScene(box).boundingRect();
}

inline bool boxInViewport(DebranchView* d, NodeId id) {
  return d->scene()->nodeItem(id) != nullptr &&
         d->graphView()->viewport()->rect().contains(boxOnScreen(d, id));
}

// Exports the frames through File > Export > Debranching frames…, answering the folder
// dialog with `folder` and the completion message; returns that message.
inline QString exportFramesByMenu(Session& s, const QString& folder) {
  auto message = std::make_shared<QString>();
  auto answered = std::make_shared<bool>(false);
  answerFolderDialog(folder);
  // Writing ~570 frames takes a while: wait long for the message.
  answerDialog<QMessageBox>(
      [message](QMessageBox* box) {
        *message = box->text();
        QTest::mouseClick(box->button(QMessageBox::Ok), Qt::LeftButton);
      },
      answered, 180000);
  menuPath(*s.window, {"File", "Export", "Debranching frames"});
  EXPECT_TRUE(waitUntil([&] { return *answered; }, 180000)) << "no completion message";
  return *message;
}

}  // namespace lsrl::studio::scenario
