// Sugar groups in a person's hands (issue 39, items 2, 5 and 6): deleting an operand of
// a collapsed sugar call, naming existing nodes as its operands in the palette, what its
// box says is wired; and two smaller editor items, the status bar while a connection is
// dragged and where new nodes are placed. Every flow starts from an empty window.
#include <gtest/gtest.h>

#include <QStatusBar>

#include "app/layout/item_size.h"
#include "app/studio/panels/palette_panel.h"
#include "core/io/graph_file.h"
#include "studio/scenarios/editor_driver.h"

namespace lsrl::studio {
namespace {

using namespace scenario;

GroupId groupCalled(const Graph& g, const std::string& function) {
  for (const Group& group : g.groups())
    if (!group.removed && group.function == function) return group.id;
  return kNoGroup;
}

NodeId memberOfOp(const Graph& g, GroupId group, Op op) {
  for (NodeId id : g.groups()[static_cast<size_t>(group)].nodes)
    if (g.contains(id) && g.node(id).op == op) return id;
  return kNoNode;
}

// Selects everything in a line edit and types `text` over it, as a person retypes a field.
void retype(QLineEdit* field, const QString& text) {
  click(field);
  QTest::keyClick(field, Qt::Key_A, Qt::ControlModifier);
  type(field, text);
}

QString statusText(Session& s) { return s->statusBar()->currentMessage(); }

// ---- item 2: deleting an operand of a sugar call --------------------------------------

TEST(SugarScenario, DeletingAnOperandLeavesItsPortOpenAndUndoRestoresWireSelectionAndPicture) {
  Session s;
  openThroughFileMenu(s, test::examplePath("more_ones.json"));
  GraphView* view = s->graphView();
  const Graph before = s->document()->graph();
  const NodeId ones = before.findByName("ones");
  const NodeId zeros = before.findByName("zeros");
  const GroupId larger = groupCalled(before, "f_larger");
  ASSERT_NE(larger, kNoGroup);
  const NodeId concat = memberOfOp(before, larger, Op::Concat);
  ASSERT_EQ(before.node(concat).inputs, (std::vector<NodeId>{ones, zeros}));
  const std::string picture = sceneSignature(view);

  clickBox(view, boxShowing(view, ones));
  ASSERT_EQ(view->selectedItems(), (QList<ItemRef>{{ItemRef::Kind::Node, ones}}));
  key(canvas(view), Qt::Key_Delete);
  const Graph& g = s->document()->graph();
  ASSERT_FALSE(g.contains(ones));
  // x's slot stays, open; zeros stays y.
  EXPECT_EQ(g.node(concat).inputs, (std::vector<NodeId>{kNoNode, zeros}));
  auto* box = static_cast<GroupItem*>(groupBox(view, larger));
  ASSERT_EQ(box->inputPortCount(), 2) << "the call keeps both operand ports";
  EXPECT_TRUE(box->openSlotOfPort(0).has_value()) << "x, the first port, is open";
  EXPECT_EQ(box->portOfProducer(zeros), 1) << "zeros still feeds y, the second port";
  // The open port is the problem reported, not a width that no longer adds up.
  bool openReported = false;
  for (const Problem& p : s->document()->problems()) {
    EXPECT_NE(p.kind, ProblemKind::DimensionMismatch) << p.message;
    openReported = openReported || (p.node == concat && p.kind == ProblemKind::DanglingInput);
  }
  EXPECT_TRUE(openReported) << "the open operand port is reported";
  const std::string deleted = sceneSignature(view);
  checkpoint(*s, QStringLiteral("sugar_2_operand_deleted"));

  // Wired again through the open port, the new producer is x, not y.
  const NodeId input = g.input();
  view->centerOn((boxShowing(view, input)->scenePos() + box->scenePos()) / 2);
  dragOnCanvas(view, outputPortOf(view, boxShowing(view, input)), inputPortOf(view, box, 0));
  EXPECT_EQ(g.node(concat).inputs, (std::vector<NodeId>{input, zeros}));

  // Undo takes back the wire, then the deletion: the wire, the selection and the picture
  // are those from before.
  pressUndo(view);
  EXPECT_EQ(sceneSignature(view), deleted);
  pressUndo(view);
  EXPECT_EQ(graphToString(s->document()->graph()), graphToString(before));
  EXPECT_EQ(view->selectedItems(), (QList<ItemRef>{{ItemRef::Kind::Node, ones}}))
      << "the deleted node is selected again";
  EXPECT_EQ(sceneSignature(view), picture);
  pressRedo(view);
  EXPECT_EQ(sceneSignature(view), deleted);
  EXPECT_TRUE(view->selectedItems().isEmpty());
}

// ---- item 5: operands naming existing nodes; what the box says is wired -----------------

TEST(SugarScenario, AnOperandNamesAnExistingNodeAndTheBoxShowsWhatIsWired) {
  Session s;
  openThroughFileMenu(s, test::examplePath("more_ones.json"));
  GraphView* view = s->graphView();
  const Graph before = s->document()->graph();
  const NodeId ones = before.findByName("ones");
  const NodeId zeros = before.findByName("zeros");
  // The file's own f_larger names its operands by what feeds them.
  const QString fileBox = groupBox(view, groupCalled(before, "f_larger"))->toolTip();
  EXPECT_TRUE(fileBox.contains(QStringLiteral("x=ones")) && fileBox.contains("y=zeros"))
      << fileBox.toStdString();

  PalettePanel* palette = s->palettePanel();
  clickTreeItem(palette->tree(), QStringLiteral("f_larger"));
  auto* x = findVisible<QLineEdit>(palette, QStringLiteral("param_x"));
  auto* y = findVisible<QLineEdit>(palette, QStringLiteral("param_y"));
  ASSERT_TRUE(x && y);
  // A refused value says why without moving the fields under the person's mouse.
  const QPoint yWas = y->mapTo(s.window.get(), QPoint(0, 0));
  retype(x, QStringLiteral("abc"));
  EXPECT_FALSE(palette->errorText().isEmpty());
  EXPECT_EQ(y->mapTo(s.window.get(), QPoint(0, 0)), yWas) << "the error moved the fields";
  checkpoint(*s, QStringLiteral("sugar_5_refused_operand"));

  retype(x, QStringLiteral("node %1").arg(ones));
  EXPECT_TRUE(palette->errorText().isEmpty()) << palette->errorText().toStdString();
  retype(y, QStringLiteral("node %1").arg(zeros));
  EXPECT_TRUE(palette->errorText().isEmpty()) << palette->errorText().toStdString();
  click(button(palette, QStringLiteral("Add")));
  ASSERT_EQ(view->selectedItems().size(), 1);
  ASSERT_EQ(view->selectedItems().front().kind, ItemRef::Kind::Group);
  const GroupId added = view->selectedItems().front().id;
  const Graph& g = s->document()->graph();
  const NodeId concat = memberOfOp(g, added, Op::Concat);
  EXPECT_EQ(g.node(concat).inputs, (std::vector<NodeId>{ones, zeros})) << "wired as named";
  EXPECT_TRUE(s->document()->problemsOf(concat).empty());
  auto* box = static_cast<GroupItem*>(groupBox(view, added));
  EXPECT_TRUE(box->openSlots().empty());
  EXPECT_TRUE(edgeDrawn(view, ones, concat) && edgeDrawn(view, zeros, concat));
  const QString text = box->toolTip();
  EXPECT_TRUE(text.contains(QStringLiteral("x=ones")) && text.contains("y=zeros"))
      << text.toStdString();
  checkpoint(*s, QStringLiteral("sugar_5_operands_named"));

  // The box follows the wiring: x's node deleted, then the input wired in its place.
  clickBox(view, boxShowing(view, ones));
  key(canvas(view), Qt::Key_Delete);
  box = static_cast<GroupItem*>(groupBox(view, added));
  EXPECT_TRUE(box->toolTip().contains(QStringLiteral("x=open"))) << box->toolTip().toStdString();
  view->centerOn((boxShowing(view, g.input())->scenePos() + box->scenePos()) / 2);
  dragOnCanvas(view, outputPortOf(view, boxShowing(view, g.input())), inputPortOf(view, box, 0));
  EXPECT_EQ(g.node(concat).inputs, (std::vector<NodeId>{g.input(), zeros}));
  EXPECT_TRUE(groupBox(view, added)->toolTip().contains(QStringLiteral("x=input")))
      << groupBox(view, added)->toolTip().toStdString();
  // The insertion with its wires was one undo step.
  for (int step = 0; step < 3; ++step) pressUndo(view);
  EXPECT_EQ(graphToString(s->document()->graph()), graphToString(before));
}

// ---- item 6: the status bar while connecting; where new nodes go ------------------------

TEST(EditorFeedbackScenario, TheStatusBarDropsARefusalOnceTheTargetTakesTheConnection) {
  Session s;
  startNewProgram(s);
  GraphView* view = s->graphView();
  const NodeId input = addFromPalette(s, QStringLiteral("Input"));
  const NodeId relu = addFromPalette(s, QStringLiteral("ReLU"));
  ASSERT_TRUE(input != kNoNode && relu != kNoNode);
  const Graph& g = s->document()->graph();
  BoxItem* reluBox = boxShowing(view, relu);
  BoxItem* inputBox = boxShowing(view, input);
  view->centerOn((reluBox->scenePos() + inputBox->scenePos()) / 2);
  QApplication::processEvents();
  const QPoint port = inputPortOf(view, reluBox, 0);
  const QPoint self = bodyOf(view, reluBox);
  const QPoint source = bodyOf(view, inputBox);
  QWidget* vp = canvas(view);
  activate(vp);
  QTest::mousePress(vp, Qt::LeftButton, {}, port);
  for (int i = 1; i <= 6; ++i) QTest::mouseMove(vp, port + (self - port) * i / 6);
  settle(20);
  EXPECT_TRUE(statusText(s).startsWith(QStringLiteral("Cannot connect here")))
      << statusText(s).toStdString();
  for (int i = 1; i <= 6; ++i) QTest::mouseMove(vp, self + (source - self) * i / 6);
  settle(20);
  EXPECT_FALSE(statusText(s).contains(QStringLiteral("Cannot connect")))
      << "a refusal stays while the line is green: " << statusText(s).toStdString();
  checkpoint(*s, QStringLiteral("editor_6_connecting_green"));
  QTest::mouseRelease(vp, Qt::LeftButton, {}, source);
  settle(20);
  EXPECT_EQ(g.node(relu).inputs, std::vector<NodeId>{input});
}

TEST(EditorFeedbackScenario, ANewNodeGoesBesideTheSelectedBoxNeverOnAnother) {
  Session s;
  openThroughFileMenu(s, test::examplePath("more_ones.json"));
  GraphView* view = s->graphView();
  BoxItem* larger = groupBox(view, groupCalled(s->document()->graph(), "f_larger"));
  clickBox(view, larger);
  const QRectF selected = larger->mapRectToScene(larger->boxRect());
  QRectF previous = selected;
  // Double-click in the palette, then its Add button: each new box joins the last one.
  for (bool dbl : {true, false}) {
    if (dbl) {
      clickTreeItem(s->palettePanel()->tree(), QStringLiteral("Linear"), /*dbl=*/true);
    } else {
      click(button(s->palettePanel(), QStringLiteral("Add")));
    }
    ASSERT_EQ(view->selectedItems().size(), 1);
    BoxItem* added = view->graphScene()->boxOf(view->selectedItems().front());
    ASSERT_NE(added, nullptr);
    const QRectF at = added->mapRectToScene(added->boxRect());
    EXPECT_GE(at.left(), previous.right()) << "the new box is right of the selected one";
    EXPECT_LT(at.left() - previous.right(), kNodeWidth) << "and next to it";
    EXPECT_LT(std::abs(at.center().y() - previous.center().y()), 3 * kNodeHeight);
    for (BoxItem* other : view->graphScene()->boxes()) {
      if (other == added) continue;
      EXPECT_FALSE(at.intersects(other->mapRectToScene(other->boxRect())))
          << "the new box covers " << other->toolTip().toStdString();
    }
    previous = at;
  }
  checkpoint(*s, QStringLiteral("editor_6_new_nodes_placed"));
}

}  // namespace
}  // namespace lsrl::studio
