// The person-level scenario, through the window's widgets: open tok2tok,
// change a constant in the matrix editor, undo it, add an f_larger group from the
// palette and wire it, trigger and read a validation error, collapse and expand a
// group, save, reopen, and find the change. Screenshots at each step.
#include <gtest/gtest.h>

#include <QAction>
#include <QDropEvent>
#include <QMimeData>
#include <QTemporaryDir>

#include "app/studio/document/document.h"
#include "app/studio/editor/graph_view.h"
#include "app/studio/panels/matrix_editor.h"
#include "app/studio/panels/matrix_model.h"
#include "app/studio/panels/palette_panel.h"
#include "app/studio/panels/problems_panel.h"
#include "app/studio/panels/properties_panel.h"
#include "app/studio/window/main_window.h"
#include "core/io/graph_file.h"
#include "studio/studio_test_util.h"

namespace lsrl::studio {
namespace {

using test::examplePath;
using test::saveScreenshot;

QAction* actionWithShortcut(QWidget& window, QKeySequence::StandardKey key) {
  for (QAction* a : window.findChildren<QAction*>()) {
    if (a->shortcuts().contains(QKeySequence(key))) return a;
  }
  return nullptr;
}

// The first Linear outside every group with a non-zero offset: a visible constant.
NodeId visibleLinearWithOffset(const Graph& g) {
  for (const Node& n : g.nodes()) {
    if (n.op != Op::Linear || n.isSlice() || n.group != kNoGroup) continue;
    for (const Exact& v : n.b) {
      if (!v.isZero()) return n.id;
    }
  }
  return kNoNode;
}

TEST(Scenario, EditUndoAddWireSaveReopen) {
  QTemporaryDir recovery, dir;
  const MainWindow::Options options = test::windowOptions(recovery.path());
  MainWindow window(options);
  window.resize(1600, 1000);
  window.show();
  ASSERT_TRUE(window.openFile(examplePath("tok2tok_L3_direct.json")));
  Document& doc = *window.document();
  const std::string original = graphToString(doc.graph());

  // 1. Select a node and change a constant in the matrix editor.
  const NodeId node = visibleLinearWithOffset(doc.graph());
  ASSERT_NE(node, kNoNode);
  window.graphView()->selectAndCenter(ItemRef{ItemRef::Kind::Node, node});
  ASSERT_EQ(window.propertiesPanel()->selection().size(), 1);
  MatrixEditor* offsets = window.propertiesPanel()->matrixEditor(Field::b);
  ASSERT_NE(offsets, nullptr);
  int row = 0;
  while (doc.graph().node(node).b[static_cast<size_t>(row)].isZero()) ++row;
  const Exact before = doc.graph().node(node).b[static_cast<size_t>(row)];
  MatrixModel* model = offsets->model();
  ASSERT_TRUE(model->setData(model->index(row, 0), QStringLiteral("sqrt(3)/2"), Qt::EditRole));
  EXPECT_EQ(doc.graph().node(node).b[static_cast<size_t>(row)], Exact::parse("sqrt(3)/2"));
  // Shown as typed, not as Exact::toString's equal "cos(pi/6)".
  EXPECT_EQ(model->data(model->index(row, 0), Qt::DisplayRole).toString().toStdString(),
            "sqrt(3)/2");
  EXPECT_TRUE(window.isWindowModified());
  saveScreenshot(window, QStringLiteral("scenario_1_edited"));

  // 2. Undo it from the Edit menu's action, then redo and undo again.
  QAction* undo = actionWithShortcut(window, QKeySequence::Undo);
  QAction* redo = actionWithShortcut(window, QKeySequence::Redo);
  ASSERT_NE(undo, nullptr);
  ASSERT_NE(redo, nullptr);
  undo->trigger();
  EXPECT_EQ(doc.graph().node(node).b[static_cast<size_t>(row)], before);
  redo->trigger();
  EXPECT_EQ(doc.graph().node(node).b[static_cast<size_t>(row)], Exact::parse("sqrt(3)/2"));
  undo->trigger();
  EXPECT_EQ(graphToString(doc.graph()), original);
  EXPECT_FALSE(doc.isModified());

  // 3. Add an f_larger group from the palette (dropped onto the view) and wire its x.
  PalettePanel* palette = window.palettePanel();
  ASSERT_TRUE(palette->select(QStringLiteral("f_larger")));
  ASSERT_TRUE(palette->setParameter(QStringLiteral("y"), QStringLiteral("1/2")));
  ASSERT_TRUE(
      palette->setParameter(QStringLiteral("width"), QString::number(doc.graph().node(node).dim)));
  const size_t nodesBefore = doc.graph().nodeCount();
  const size_t groupsBefore = doc.graph().groups().size();
  std::vector<NodeId> added;
  QObject::connect(palette, &PalettePanel::inserted,
                   [&](const std::vector<NodeId>& ids) { added = ids; });
  auto* mime = new QMimeData;
  mime->setData(QString::fromLatin1(kPaletteMimeType), QByteArrayLiteral("sugar:f_larger"));
  const QPoint dropAt = window.graphView()->viewport()->rect().center();
  QDragEnterEvent enter(dropAt, Qt::CopyAction, mime, Qt::LeftButton, Qt::NoModifier);
  QApplication::sendEvent(window.graphView()->viewport(), &enter);
  EXPECT_TRUE(enter.isAccepted()) << "the view refuses palette drags";
  QDropEvent drop(QPointF(dropAt), Qt::CopyAction, mime, Qt::LeftButton, Qt::NoModifier);
  QApplication::sendEvent(window.graphView()->viewport(), &drop);
  EXPECT_TRUE(drop.isAccepted());
  delete mime;
  ASSERT_FALSE(added.empty()) << "the drop inserted nothing";
  EXPECT_GT(doc.graph().nodeCount(), nodesBefore);
  ASSERT_GT(doc.graph().groups().size(), groupsBefore);
  const auto larger = static_cast<GroupId>(groupsBefore);
  EXPECT_EQ(doc.graph().groups()[static_cast<size_t>(larger)].function, "f_larger");
  // Its unconnected input is a problem until wired.
  NodeId open = kNoNode;
  int openSlot = -1;
  for (NodeId id : added) {
    const auto& inputs = doc.graph().node(id).inputs;
    for (size_t s = 0; s < inputs.size(); ++s) {
      if (inputs[s] == kNoNode && open == kNoNode) {
        open = id;
        openSlot = static_cast<int>(s);
      }
    }
  }
  ASSERT_NE(open, kNoNode);
  EXPECT_FALSE(doc.problemsOf(open).empty());
  EXPECT_NE(window.problemsPanel()->headerText(), QStringLiteral("No problems"));
  saveScreenshot(window, QStringLiteral("scenario_3_added"));
  // Wire the node edited above into x (the group was made as wide): the problems go away.
  doc.connect(node, open, openSlot);
  EXPECT_TRUE(doc.problemsOf(open).empty()) << doc.problemsOf(open).front().message;
  EXPECT_EQ(window.problemsPanel()->headerText(), QStringLiteral("No problems"));

  // 4. A wrong width is reported and explained, then undone.
  doc.setMatrix(node, Field::A,
                ExactMatrix(doc.graph().node(node).dim, doc.graph().node(node).A.cols() + 1));
  ASSERT_FALSE(doc.problemsOf(node).empty());
  EXPECT_NE(doc.problemsOf(node).front().message.find(std::to_string(node)), std::string::npos);
  window.graphView()->selectAndCenter(ItemRef{ItemRef::Kind::Node, node});
  EXPECT_FALSE(window.propertiesPanel()->problemsText().isEmpty());
  saveScreenshot(window, QStringLiteral("scenario_4_problem"));
  doc.undoStack()->undo();
  EXPECT_TRUE(doc.problems().empty());

  // 5. Expand and collapse the new group.
  doc.setGroupExpanded(larger, true);
  window.graphView()->selectAndCenter(ItemRef{ItemRef::Kind::Node, open});
  saveScreenshot(window, QStringLiteral("scenario_5_expanded"));
  doc.setGroupExpanded(larger, false);
  EXPECT_FALSE(doc.graph().groups()[static_cast<size_t>(larger)].expanded);

  // 6. Save, reopen in a new window, find the wired group.
  const QString path = dir.filePath(QStringLiteral("tok2tok_edited.json"));
  ASSERT_TRUE(window.saveAs(path)) << window.lastError().toStdString();
  const std::string saved = graphToString(doc.graph());
  MainWindow reopened(options);
  ASSERT_TRUE(reopened.openFile(path));
  EXPECT_EQ(graphToString(reopened.document()->graph()), saved);
  const Group& group = reopened.document()->graph().groups()[static_cast<size_t>(larger)];
  EXPECT_EQ(group.function, "f_larger");
  EXPECT_EQ(reopened.document()->graph().node(open).inputs[static_cast<size_t>(openSlot)], node);
  reopened.resize(1600, 1000);
  reopened.graphView()->selectAndCenter(ItemRef{ItemRef::Kind::Group, larger});
  saveScreenshot(reopened, QStringLiteral("scenario_6_reopened"));
}

}  // namespace
}  // namespace lsrl::studio
