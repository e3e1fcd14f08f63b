// The node editor under a person's mouse: where a box, its ports and the empty canvas
// are on screen, and the gestures made there (click, double-click, drag between ports).
// Finding a box reads the scene's items; every action is a QTest event on the viewport.
#pragma once

#include <QCryptographicHash>
#include <QGraphicsScene>
#include <QTableView>
#include <algorithm>

#include "app/studio/editor/box_item.h"
#include "app/studio/editor/edge_item.h"
#include "app/studio/editor/graph_scene.h"
#include "app/studio/editor/graph_view.h"
#include "app/studio/editor/group_frame_item.h"
#include "app/studio/editor/group_item.h"
#include "app/studio/editor/node_item.h"
#include "app/studio/panels/matrix_editor.h"
#include "app/studio/panels/palette_panel.h"
#include "app/studio/panels/properties_panel.h"
#include "studio/scenarios/scenario_driver.h"

namespace lsrl::studio::scenario {

inline QWidget* canvas(GraphView* view) { return view->viewport(); }

// ---- building a program by hand ----------------------------------------------------------

// The person's way to a blank program: "New program" on the start page when it shows,
// else File > New.
inline void startNewProgram(Session& s) {
  if (QAbstractButton* b = button(s.window.get(), QStringLiteral("New program"))) {
    click(b);
  } else {
    menu(*s.window, QStringLiteral("File"), QStringLiteral("New"));
  }
  ASSERT_TRUE(waitUntil([&] { return s->graphView()->isVisible(); }, 3000));
}

// Double-clicks a palette entry (the palette adds it) and returns the new node's id:
// the box the editor selects afterwards.
inline NodeId addFromPalette(Session& s, const QString& entry) {
  clickTreeItem(s->palettePanel()->tree(), entry, /*dbl=*/true);
  const QList<ItemRef> selected = s->graphView()->selectedItems();
  EXPECT_EQ(selected.size(), 1) << "the new " << entry.toStdString() << " is selected";
  if (selected.isEmpty()) return kNoNode;
  return selected.front().kind == ItemRef::Kind::Node
             ? selected.front().id
             : s->document()->graph().groups()[selected.front().id].output;
}

// Types a new name into the Properties panel's name field of the selection.
inline void renameSelected(Session& s, const QString& name) {
  QLineEdit* field = s->propertiesPanel()->nameEdit();
  click(field);
  QTest::keyClick(field, Qt::Key_A, Qt::ControlModifier);
  type(field, name);
  key(field, Qt::Key_Return);
}

// Chooses sugar function `function` in the palette, types `value` into its parameter
// `param`'s field, clicks Add, and returns the new call's group (the selected box).
inline GroupId addSugarFromPalette(Session& s, const QString& function, const QString& param,
                                   const QString& value) {
  clickTreeItem(s->palettePanel()->tree(), function);
  auto* field = findVisible<QLineEdit>(s->palettePanel(), QStringLiteral("param_") + param);
  EXPECT_NE(field, nullptr) << "no field " << param.toStdString();
  if (field == nullptr) return kNoGroup;
  click(field);
  QTest::keyClick(field, Qt::Key_A, Qt::ControlModifier);
  type(field, value);
  click(button(s->palettePanel(), QStringLiteral("Add")));
  const QList<ItemRef> selected = s->graphView()->selectedItems();
  EXPECT_EQ(selected.size(), 1);
  if (selected.size() != 1 || selected.front().kind != ItemRef::Kind::Group) {
    ADD_FAILURE() << "the new " << function.toStdString() << " is not the selected group";
    return kNoGroup;
  }
  return selected.front().id;
}

// The member of sugar group `group` with op `op` (kNoNode if none).
inline NodeId memberOf(Session& s, GroupId group, Op op) {
  for (NodeId id : s->document()->graph().groups()[group].nodes)
    if (s->document()->graph().node(id).op == op) return id;
  return kNoNode;
}

// The matrix editor of tab `field` of the selection's properties, once that tab is clicked.
inline MatrixEditor* matrixTab(Session& s, const QString& field) {
  PropertiesPanel* panel = s->propertiesPanel();
  clickTab(panel, field);
  settle(50);
  MatrixEditor* shown = nullptr;
  for (MatrixEditor* m : panel->findChildren<MatrixEditor*>())
    if (m->isVisible()) shown = m;
  EXPECT_NE(shown, nullptr) << "no matrix tab " << field.toStdString();
  return shown;
}

// Types `text` into cell (row, col) of the matrix editor tab `field` of the selection.
inline void typeIntoMatrix(Session& s, const QString& field, int row, int col,
                           const QString& text) {
  MatrixEditor* editorWidget = matrixTab(s, field);
  ASSERT_NE(editorWidget, nullptr);
  QTableView* table = editorWidget->table();
  const QRect cell = table->visualRect(table->model()->index(row, col));
  doubleClick(table->viewport(), cell.center());
  QWidget* field_ = QApplication::focusWidget();
  ASSERT_NE(field_, nullptr);
  QTest::keyClick(field_, Qt::Key_A, Qt::ControlModifier);
  type(field_, text);
  key(field_, Qt::Key_Return);
}

// The box showing node `id` (its own or the group box hiding it); fails if none.
inline BoxItem* boxShowing(GraphView* view, NodeId id) {
  BoxItem* box = view->graphScene()->boxOfNode(id);
  EXPECT_NE(box, nullptr) << "no box shows node " << id;
  return box;
}

inline BoxItem* groupBox(GraphView* view, GroupId id) {
  BoxItem* box = view->graphScene()->boxOf(ItemRef{ItemRef::Kind::Group, id});
  EXPECT_NE(box, nullptr) << "no box for group " << id;
  return box;
}

// Screen (viewport) points of a box's parts, scrolled into view first.
inline QPoint bodyOf(GraphView* view, BoxItem* box) {
  // Left of centre, clear of the "#id" and the ports.
  return onScreen(view, box->mapToScene(QPointF(box->boxRect().left() + 30, 0)));
}
inline QPoint outputPortOf(GraphView* view, BoxItem* box) {
  return onScreen(view, box->mapToScene(box->outputPortPos()));
}
inline QPoint inputPortOf(GraphView* view, BoxItem* box, int port) {
  return onScreen(view, box->mapToScene(box->inputPortPos(port)));
}

// A point of the canvas with no item under it (searched on a grid).
inline QPoint emptyCanvasPoint(GraphView* view) {
  QWidget* vp = canvas(view);
  for (int y = vp->height() - 40; y > 40; y -= 37) {
    for (int x = 40; x < vp->width() - 40; x += 41) {
      const QRect around(x - 25, y - 25, 50, 50);
      if (view->items(around).isEmpty()) return QPoint(x, y);
    }
  }
  ADD_FAILURE() << "no empty spot on the canvas";
  return QPoint(5, 5);
}

inline void clickBox(GraphView* view, BoxItem* box) { click(canvas(view), bodyOf(view, box)); }

// Drags between two screen points of the canvas in small steps (a person's drag), both
// computed before the press.
inline void dragOnCanvas(GraphView* view, QPoint from, QPoint to) {
  drag(canvas(view), from, to, Qt::LeftButton, 12);
}

// Drags a connection from `from`'s output port onto input port `port` of `to`.
inline void connectForward(GraphView* view, NodeId from, NodeId to, int port) {
  BoxItem* source = boxShowing(view, from);
  BoxItem* target = boxShowing(view, to);
  ASSERT_TRUE(source && target);
  // Both ends on screen at once: centre between them.
  view->centerOn((source->scenePos() + target->scenePos()) / 2);
  QApplication::processEvents();
  dragOnCanvas(view, outputPortOf(view, source), inputPortOf(view, target, port));
}

// Drags from open input port `port` of `to` onto the body of the box showing `from`.
inline void connectBackward(GraphView* view, NodeId to, int port, NodeId from) {
  BoxItem* target = boxShowing(view, to);
  BoxItem* source = boxShowing(view, from);
  ASSERT_TRUE(source && target);
  view->centerOn((source->scenePos() + target->scenePos()) / 2);
  QApplication::processEvents();
  dragOnCanvas(view, inputPortOf(view, target, port), bodyOf(view, source));
}

// Whether an edge is drawn from the box showing `from` into `to`'s box.
inline bool edgeDrawn(GraphView* view, NodeId from, NodeId to) {
  BoxItem* source = view->graphScene()->boxOfNode(from);
  BoxItem* target = view->graphScene()->boxOfNode(to);
  for (EdgeItem* e : view->graphScene()->edgeItems())
    if (e->source() == source && e->target() == target && e->isVisible()) return true;
  return false;
}

// What the canvas draws, as text: every box (kind, id, place, output mark, problem mark,
// ports) and every edge (ends and port), sorted. Two equal signatures are the same picture.
inline std::string sceneSignature(GraphView* view) {
  std::vector<std::string> lines;
  for (BoxItem* b : view->graphScene()->boxes()) {
    lines.push_back(std::string(b->ref().kind == ItemRef::Kind::Node ? "node " : "group ") +
                    std::to_string(b->ref().id) + " at " + std::to_string(b->pos().x()) + "," +
                    std::to_string(b->pos().y()) + (b->isOutput() ? " output" : "") +
                    (b->hasProblems() ? " problem" : "") + " ports " +
                    std::to_string(b->inputPortCount()) + b->toolTip().toStdString());
  }
  for (EdgeItem* e : view->graphScene()->edgeItems()) {
    lines.push_back("edge " + std::to_string(e->source()->ref().id) + " -> " +
                    std::to_string(e->target()->ref().id) + ":" + std::to_string(e->targetPort()));
  }
  std::sort(lines.begin(), lines.end());
  std::string all;
  for (const std::string& l : lines) all += l + "\n";
  return all;
}

// File > Open, the dialog answered with `path`; returns once the file is open.
inline void openThroughFileMenu(Session& s, const QString& path) {
  auto answered = std::make_shared<bool>(false);
  answerFileDialog(path, answered);
  menu(*s.window, QStringLiteral("File"), QStringLiteral("Open"));
  ASSERT_TRUE(waitUntil([&] { return *answered; }, 5000)) << "no file dialog appeared";
  ASSERT_TRUE(waitUntil(
      [&] { return s->document()->filePath() == QFileInfo(path).absoluteFilePath(); }, 5000))
      << "the file did not open: " << s->lastError().toStdString();
  settle(100);
}

// Ctrl+Z / Ctrl+Shift+Z pressed while the graph has the focus.
inline void pressUndo(GraphView* view) {
  view->setFocus();
  key(canvas(view), Qt::Key_Z, Qt::ControlModifier);
}
inline void pressRedo(GraphView* view) {
  view->setFocus();
  key(canvas(view), Qt::Key_Z, Qt::ControlModifier | Qt::ShiftModifier);
}

}  // namespace lsrl::studio::scenario
