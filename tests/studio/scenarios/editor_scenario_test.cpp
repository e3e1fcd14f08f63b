// The editor in a person's hands: every flow starts from an empty window and
// goes through mouse and keyboard events on the real widgets and the graph view's
// viewport. What is checked is what the person sees: the edges drawn, the boxes' marks,
// the Overview, the Problems list, the status bar and the enabled actions.
#include <gtest/gtest.h>

#include <QCheckBox>
#include <QFile>
#include <QLabel>
#include <QSpinBox>
#include <QStatusBar>
#include <QTableView>
#include <QTreeWidget>

#include "app/studio/editor/minimap.h"
#include "app/studio/panels/matrix_editor.h"
#include "app/studio/panels/palette_panel.h"
#include "app/studio/panels/problems_panel.h"
#include "app/studio/panels/properties_panel.h"
#include "app/studio/stepper/stepper_view.h"
#include "app/studio/window/layout_runner.h"
#include "core/io/graph_file.h"
#include "studio/scenarios/editor_driver.h"

namespace lsrl::studio {
namespace {

using namespace scenario;

GraphView* editor(Session& s) { return s->graphView(); }

QAbstractButton* setOutputButton(Session& s) {
  return button(s->propertiesPanel(), QStringLiteral("Set as output"));
}

QString problemsHeader(Session& s) {
  auto* header = s->problemsPanel()->findChild<QLabel*>(QStringLiteral("problemsHeader"));
  return header ? header->text() : QString();
}

QAction* editAction(Session& s, const QString& startsWith) {
  for (QAction* a : s->menuBar()->actions()) {
    if (a->text().remove(QLatin1Char('&')) != QLatin1String("Edit")) continue;
    for (QAction* item : a->menu()->actions())
      if (item->text().remove(QLatin1Char('&')).startsWith(startsWith)) return item;
  }
  return nullptr;
}

// Ctrl+Z / Ctrl+Shift+Z pressed while the graph has focus.
void undoKey(Session& s) { pressUndo(editor(s)); }
void redoKey(Session& s) { pressRedo(editor(s)); }

// The Overview's picture now (after its refresh timer ran).
QImage overviewPicture(Session& s) {
  auto* overview = s->findChild<Minimap*>();
  EXPECT_NE(overview, nullptr);
  settle(250);
  return overview ? overview->grab().toImage() : QImage();
}

// ---- item 1: undo of "Set as output" in a new program ---------------------------------

TEST(EditorScenario, UndoingSetOutputInANewProgramKeepsTheWindowAndTheWork) {
  Session s;
  startNewProgram(s);
  const NodeId input = addFromPalette(s, QStringLiteral("Input"));
  const NodeId state = addFromPalette(s, QStringLiteral("LinState"));
  ASSERT_NE(state, kNoNode);
  click(setOutputButton(s));
  EXPECT_TRUE(boxShowing(editor(s), state)->isOutput());
  click(canvas(editor(s)), emptyCanvasPoint(editor(s)));
  undoKey(s);  // takes back "Set as output" (it crashed here)
  EXPECT_FALSE(boxShowing(editor(s), state)->isOutput());
  EXPECT_EQ(s->document()->graph().output(), kNoNode);
  EXPECT_TRUE(s->document()->graph().contains(input));
  EXPECT_TRUE(s->document()->graph().contains(state));
  checkpoint(*s, QStringLiteral("editor_1_set_output_undone"));
  redoKey(s);
  EXPECT_TRUE(boxShowing(editor(s), state)->isOutput());
}

// ---- item 2: connecting in a new program; the canvas follows; undo --------------------

TEST(EditorScenario, ConnectingInANewProgramDrawsTheEdgeAndUndoTakesItBack) {
  Session s;
  startNewProgram(s);
  const NodeId input = addFromPalette(s, QStringLiteral("Input"));
  const NodeId state = addFromPalette(s, QStringLiteral("LinState"));
  const QString before = problemsHeader(s);
  connectForward(editor(s), input, state, 0);
  EXPECT_TRUE(edgeDrawn(editor(s), input, state)) << "no edge drawn (no output set yet)";
  EXPECT_TRUE(s->statusBar()->currentMessage().startsWith(QStringLiteral("Connected")))
      << s->statusBar()->currentMessage().toStdString();
  EXPECT_FALSE(boxShowing(editor(s), state)->hasProblems() &&
               s->document()->problemsOf(state).empty());
  EXPECT_TRUE(s->document()->problemsOf(state).empty()) << "its input is connected now";
  EXPECT_NE(problemsHeader(s), before);
  checkpoint(*s, QStringLiteral("editor_2_connected"));
  // Undo: the edge, the problem marks and the Properties panel follow.
  clickBox(editor(s), boxShowing(editor(s), state));
  undoKey(s);
  EXPECT_FALSE(edgeDrawn(editor(s), input, state));
  EXPECT_TRUE(boxShowing(editor(s), state)->hasProblems());
  EXPECT_EQ(problemsHeader(s), before);
  EXPECT_TRUE(s->propertiesPanel()->problemsText().contains(QStringLiteral("not connected")))
      << s->propertiesPanel()->problemsText().toStdString();
  // The same with the output set first.
  click(setOutputButton(s));
  connectForward(editor(s), input, state, 0);
  EXPECT_TRUE(edgeDrawn(editor(s), input, state));
  EXPECT_EQ(problemsHeader(s), QStringLiteral("No problems"));
  checkpoint(*s, QStringLiteral("editor_2_connected_with_output"));
}

// ---- item 3: a connection dragged out of an open input port --------------------------

TEST(EditorScenario, DraggingFromAnOpenInputPortConnectsInsteadOfMovingTheBox) {
  Session s;
  startNewProgram(s);
  const NodeId input = addFromPalette(s, QStringLiteral("Input"));
  const NodeId relu = addFromPalette(s, QStringLiteral("ReLU"));
  BoxItem* box = boxShowing(editor(s), relu);
  const QPointF placed = box->pos();
  connectBackward(editor(s), relu, 0, input);
  EXPECT_EQ(boxShowing(editor(s), relu)->pos(), placed) << "the box moved";
  EXPECT_TRUE(edgeDrawn(editor(s), input, relu));
  EXPECT_EQ(s->document()->graph().node(relu).inputs, std::vector<NodeId>{input});
  // Onto a box that cannot feed it: refused with the reason, nothing changes.
  const NodeId other = addFromPalette(s, QStringLiteral("Input"));
  const NodeId linear = addFromPalette(s, QStringLiteral("Linear"));
  connectBackward(editor(s), linear, 0, linear);
  EXPECT_TRUE(s->statusBar()->currentMessage().contains(QStringLiteral("own value")))
      << s->statusBar()->currentMessage().toStdString();
  EXPECT_EQ(s->document()->graph().node(linear).inputs, std::vector<NodeId>{kNoNode});
  (void)other;
  checkpoint(*s, QStringLiteral("editor_3_connected_backwards"));
}

// A sugar call from the palette has open operands: its collapsed box offers them as
// ports, so it is wired like any node, from either end, without expanding it.
TEST(EditorScenario, ACollapsedSugarCallIsWiredThroughItsOpenPorts) {
  Session s;
  startNewProgram(s);
  const NodeId input = addFromPalette(s, QStringLiteral("Input"));
  const NodeId relu = addFromPalette(s, QStringLiteral("ReLU"));
  clickTreeItem(s->palettePanel()->tree(), QStringLiteral("f_larger"), /*dbl=*/true);
  ASSERT_EQ(editor(s)->selectedItems().size(), 1);
  const GroupId larger = editor(s)->selectedItems().front().id;
  auto* box = static_cast<GroupItem*>(groupBox(editor(s), larger));
  ASSERT_EQ(box->openSlots().size(), 2u) << "x and y are open";
  ASSERT_EQ(box->inputPortCount(), 2);
  const NodeId concat = box->openSlots()[0].node;
  // Forward: from Input's output onto the first open port.
  editor(s)->centerOn((boxShowing(editor(s), input)->scenePos() + box->scenePos()) / 2);
  dragOnCanvas(editor(s), outputPortOf(editor(s), boxShowing(editor(s), input)),
               inputPortOf(editor(s), box, 0));
  EXPECT_EQ(s->document()->graph().node(concat).inputs[0], input);
  // The box is drawn anew: Input's port (connected), then the one open port left.
  box = static_cast<GroupItem*>(groupBox(editor(s), larger));
  ASSERT_EQ(box->inputPortCount(), 2);
  EXPECT_TRUE(edgeDrawn(editor(s), input, concat));
  // Backward: from the open port onto the ReLU box.
  editor(s)->centerOn((boxShowing(editor(s), relu)->scenePos() + box->scenePos()) / 2);
  dragOnCanvas(editor(s), inputPortOf(editor(s), box, 1),
               bodyOf(editor(s), boxShowing(editor(s), relu)));
  EXPECT_EQ(s->document()->graph().node(concat).inputs[1], relu);
  EXPECT_TRUE(s->document()->problemsOf(concat).empty());
  EXPECT_TRUE(static_cast<GroupItem*>(groupBox(editor(s), larger))->openSlots().empty());
  checkpoint(*s, QStringLiteral("editor_collapsed_group_wired"));
  // Both connections undo.
  undoKey(s);
  undoKey(s);
  EXPECT_EQ(s->document()->graph().node(concat).inputs, (std::vector<NodeId>{kNoNode, kNoNode}));
  EXPECT_EQ(static_cast<GroupItem*>(groupBox(editor(s), larger))->openSlots().size(), 2u);
}

// ---- item 4: moving the output --------------------------------------------------------

TEST(EditorScenario, MovingTheOutputUnmarksTheOldOutput) {
  Session s;
  startNewProgram(s);
  addFromPalette(s, QStringLiteral("Input"));
  const NodeId first = addFromPalette(s, QStringLiteral("ReLU"));
  click(setOutputButton(s));
  const NodeId second = addFromPalette(s, QStringLiteral("Linear"));
  click(setOutputButton(s));
  EXPECT_TRUE(boxShowing(editor(s), second)->isOutput());
  EXPECT_FALSE(boxShowing(editor(s), first)->isOutput()) << "the old output keeps its mark";
  undoKey(s);
  EXPECT_TRUE(boxShowing(editor(s), first)->isOutput());
  EXPECT_FALSE(boxShowing(editor(s), second)->isOutput());
  checkpoint(*s, QStringLiteral("editor_4_output_moved_back"));
}

// ---- item 5: the Overview follows and draws edges --------------------------------------

// Pixels that differ between two Overview pictures outside every box (ports included).
int changedOutsideBoxes(Session& s, const QImage& a, const QImage& b) {
  auto* overview = s->findChild<Minimap*>();
  if (overview == nullptr || a.size() != b.size()) return 0;
  std::vector<QRectF> boxes;
  for (BoxItem* box : editor(s)->graphScene()->boxes())
    boxes.push_back(overview->fromScene(box->sceneBoundingRect()).adjusted(-2, -2, 2, 2));
  const double ratio = a.devicePixelRatio();
  int count = 0;
  for (int y = 0; y < a.height(); ++y) {
    for (int x = 0; x < a.width(); ++x) {
      const QPointF at(x / ratio, y / ratio);
      if (std::any_of(boxes.begin(), boxes.end(), [&](const QRectF& r) { return r.contains(at); }))
        continue;
      if (a.pixel(x, y) != b.pixel(x, y)) ++count;
    }
  }
  return count;
}

TEST(EditorScenario, TheOverviewFollowsEditsAndSelectionAndDrawsEdges) {
  Session s;
  startNewProgram(s);
  const NodeId input = addFromPalette(s, QStringLiteral("Input"));
  const NodeId state = addFromPalette(s, QStringLiteral("LinState"));
  connectForward(editor(s), input, state, 0);
  click(canvas(editor(s)), emptyCanvasPoint(editor(s)));  // nothing selected
  const QImage connected = overviewPicture(s);
  // The same view without the edge: whatever differs outside the boxes is the edge.
  undoKey(s);
  const QImage unconnected = overviewPicture(s);
  EXPECT_NE(connected, unconnected) << "the Overview did not follow the connection";
  EXPECT_GT(changedOutsideBoxes(s, connected, unconnected), 10) << "the Overview draws no edge";
  redoKey(s);
  EXPECT_EQ(overviewPicture(s), connected) << "the Overview did not follow the redo";
  clickBox(editor(s), boxShowing(editor(s), state));
  const QImage selected = overviewPicture(s);
  EXPECT_NE(selected, connected) << "the Overview did not follow the selection";
  QLineEdit* name = s->propertiesPanel()->nameEdit();
  click(name);
  type(name, QStringLiteral("a_much_longer_name"));
  key(name, Qt::Key_Return);
  EXPECT_EQ(s->document()->graph().node(state).name, "a_much_longer_name");
  EXPECT_NE(overviewPicture(s), selected) << "the Overview did not follow the rename";
  checkpoint(*s, QStringLiteral("editor_5_overview"));
}

// ---- item 8: deleting keeps ids, the selection and the sugar parameters --------------------

TEST(EditorScenario, DeletingANodeKeepsEveryOtherIdTheSelectionAndTheSugarParameters) {
  Session s;
  openThroughFileMenu(s, test::examplePath("more_ones.json"));
  const Graph before = s->document()->graph();
  const NodeId zeros = before.findByName("zeros");
  ASSERT_NE(zeros, kNoNode);
  clickBox(editor(s), boxShowing(editor(s), zeros));
  ASSERT_EQ(editor(s)->selectedItems().size(), 1);
  key(canvas(editor(s)), Qt::Key_Delete);
  const Graph& after = s->document()->graph();
  EXPECT_FALSE(after.contains(zeros));
  for (const Node& n : before.nodes()) {
    if (n.id == zeros) continue;
    ASSERT_TRUE(after.contains(n.id)) << "node " << n.id << " lost its id";
    EXPECT_EQ(after.node(n.id).op, n.op);
    EXPECT_EQ(after.node(n.id).name, n.name) << "node " << n.id << " is another node now";
  }
  EXPECT_TRUE(editor(s)->selectedItems().isEmpty()) << "the selection jumped to another node";
  for (size_t g = 0; g < before.groups().size(); ++g)
    EXPECT_EQ(after.groups()[g].params, before.groups()[g].params) << "group " << g;
  // The f_larger box still names its operands as before.
  EXPECT_EQ(s->propertiesPanel()->selection().size(), 0);
  checkpoint(*s, QStringLiteral("editor_8_deleted"));
  EXPECT_EQ(editAction(s, QStringLiteral("Undo"))->text().remove(QLatin1Char('&')),
            QStringLiteral("Undo Delete node %1").arg(zeros));
  undoKey(s);
  EXPECT_TRUE(s->document()->graph().contains(zeros));
  EXPECT_EQ(graphToString(s->document()->graph()), graphToString(before));
}

// ---- item 9: Expand All Groups lays the boxes out ------------------------------------------

bool boxesOverlap(GraphView* view) {
  const auto& boxes = view->graphScene()->boxes();
  for (size_t i = 0; i < boxes.size(); ++i) {
    const QRectF a = boxes[i]->mapRectToScene(boxes[i]->boxRect());
    for (size_t j = i + 1; j < boxes.size(); ++j)
      if (a.intersects(boxes[j]->mapRectToScene(boxes[j]->boxRect()))) return true;
  }
  return false;
}

TEST(EditorScenario, ExpandAllGroupsLeavesNoBoxesOverlapping) {
  Session s;
  openThroughFileMenu(s, test::examplePath("more_ones.json"));
  menu(*s.window, QStringLiteral("View"), QStringLiteral("Expand All Groups"));
  ASSERT_TRUE(waitUntil([&] { return !s->layoutRunner()->isRunning(); }, 20000));
  settle(200);
  EXPECT_FALSE(boxesOverlap(editor(s))) << "boxes overlap after Expand All Groups";
  checkpoint(*s, QStringLiteral("editor_9_expanded_all"));
  // One undo takes back the expansion and its layout.
  const QString text = editAction(s, QStringLiteral("Undo"))->text();
  EXPECT_TRUE(text.contains(QStringLiteral("Expand all groups"))) << text.toStdString();
  undoKey(s);
  for (const Group& g : s->document()->graph().groups()) EXPECT_FALSE(g.expanded);
  EXPECT_FALSE(s->document()->isModified());
}

// ---- item 11: smaller defects ------------------------------------------------------------

TEST(EditorScenario, ARefusedValueIsClearedByUndoAndByChoosingAgain) {
  Session s;
  startNewProgram(s);
  addFromPalette(s, QStringLiteral("Input"));
  const NodeId linear = addFromPalette(s, QStringLiteral("Linear"));
  typeIntoMatrix(s, QStringLiteral("A"), 0, 0, QStringLiteral("1/0"));
  MatrixEditor* a = s->propertiesPanel()->matrixEditor(Field::A);
  ASSERT_NE(a, nullptr);
  EXPECT_FALSE(a->errorText().isEmpty()) << "1/0 is refused with a reason";
  // Choosing the node again starts clean.
  click(canvas(editor(s)), emptyCanvasPoint(editor(s)));
  clickBox(editor(s), boxShowing(editor(s), linear));
  a = s->propertiesPanel()->matrixEditor(Field::A);
  ASSERT_NE(a, nullptr);
  EXPECT_TRUE(a->errorText().isEmpty()) << a->errorText().toStdString();
  // A good value, a bad one, then undo: the refusal goes too.
  typeIntoMatrix(s, QStringLiteral("A"), 0, 0, QStringLiteral("sqrt(2)"));
  typeIntoMatrix(s, QStringLiteral("A"), 0, 0, QStringLiteral("abc"));
  EXPECT_FALSE(s->propertiesPanel()->matrixEditor(Field::A)->errorText().isEmpty());
  undoKey(s);
  EXPECT_TRUE(s->propertiesPanel()->matrixEditor(Field::A)->errorText().isEmpty());
  EXPECT_TRUE(s->document()->graph().node(linear).A.at(0, 0).isOne());
  checkpoint(*s, QStringLiteral("editor_11_refusal_cleared"));
}

TEST(EditorScenario, OpeningAnotherFileEmptiesTheFindBox) {
  Session s;
  openThroughFileMenu(s, test::examplePath("more_ones.json"));
  auto* find = findVisible<QLineEdit>(s.window.get(), QStringLiteral("searchField"));
  ASSERT_NE(find, nullptr);
  click(find);
  type(find, QStringLiteral("zeros"));
  key(find, Qt::Key_Return);
  openThroughFileMenu(s, test::examplePath("vec2vec_n2_m1_direct.json"));
  EXPECT_TRUE(find->text().isEmpty()) << "the old query stayed: " << find->text().toStdString();
}

TEST(EditorScenario, SaveAsAddsTheExtensionAndSaysWhereItSaved) {
  Session s;
  startNewProgram(s);
  addFromPalette(s, QStringLiteral("Input"));
  const QString typed = s.files.filePath(QStringLiteral("my_program"));
  auto answered = std::make_shared<bool>(false);
  answerFileDialog(typed, answered);
  key(s.window.get(), Qt::Key_S, Qt::ControlModifier | Qt::ShiftModifier);
  ASSERT_TRUE(waitUntil([&] { return *answered; }, 5000));
  const QString saved = typed + QStringLiteral(".json");
  EXPECT_TRUE(QFile::exists(saved)) << "not saved as " << saved.toStdString();
  EXPECT_FALSE(QFile::exists(typed)) << "saved without an extension";
  EXPECT_TRUE(s->statusBar()->currentMessage().contains(QStringLiteral("my_program.json")))
      << s->statusBar()->currentMessage().toStdString();
  EXPECT_TRUE(s->windowTitle().startsWith(QStringLiteral("my_program.json")))
      << s->windowTitle().toStdString();
}

TEST(EditorScenario, FitToWindowNeverEnlargesASmallGraph) {
  Session s;
  startNewProgram(s);
  addFromPalette(s, QStringLiteral("Input"));
  addFromPalette(s, QStringLiteral("ReLU"));
  menu(*s.window, QStringLiteral("View"), QStringLiteral("Fit to Window"));
  EXPECT_LE(editor(s)->zoom(), 1.0 + 1e-9)
      << "two boxes fitted at " << editor(s)->zoom() * 100 << " %";
}

TEST(EditorScenario, TheModelsTabShowsNoProblemsOfTheGraph) {
  Session s;
  openThroughFileMenu(s, test::examplePath("more_ones.json"));
  startNewProgram(s);  // an empty program: it has problems (no Input, no output)
  clickTab(s.window.get(), QStringLiteral("Models"));
  for (QLabel* label : s->statusBar()->findChildren<QLabel*>()) {
    if (!label->isVisible()) continue;
    EXPECT_FALSE(label->text().contains(QStringLiteral("problem")))
        << "the Models tab shows " << label->text().toStdString();
  }
  EXPECT_FALSE(s->problemsPanel()->isVisible()) << "the Problems list shows in the Models tab";
  // Back in the editor, the program's problems are there again.
  clickTab(s.window.get(), QStringLiteral("Graph"));
  EXPECT_TRUE(s->problemsPanel()->isVisible());
}

// ---- the whole flow: more_ones from an empty window ---------------------------------------

// What the person sees of the document at one moment: its text (what Save writes), the
// canvas, the Problems header and the Undo entry (the Redo entry differs by design
// between a state reached forwards and the same state reached by undo).
struct Seen {
  std::string document;
  std::string canvas;
  QString problems;
  QString undo;
  bool operator==(const Seen&) const = default;
};

void PrintTo(const Seen& s, std::ostream* os) {
  *os << "problems '" << s.problems.toStdString() << "', undo '" << s.undo.toStdString()
      << "'\ncanvas:\n"
      << s.canvas << "document:\n"
      << s.document;
}

Seen seen(Session& s) {
  QAction* undo = editAction(s, QStringLiteral("Undo"));
  return Seen{s->document()->toText(), sceneSignature(editor(s)), problemsHeader(s),
              undo->isEnabled() ? undo->text() : QString()};
}

// The states after each step of a flow, and the check that undoing every step, then
// redoing them, passes through the same states again (document and picture), with the
// Redo entry naming the step just undone.
class Steps {
 public:
  Steps(Session& s, const QString& start) : s_(s), states_{seen(s)}, names_{start} {}

  void done(const QString& step) {
    states_.push_back(seen(s_));
    names_.push_back(step);
    EXPECT_NE(states_.back(), states_[states_.size() - 2])
        << step.toStdString() << " changed nothing";
  }
  void undoAll() {
    for (size_t k = states_.size() - 1; k > 0; --k) {
      const QString undoing = editAction(s_, QStringLiteral("Undo"))->text().mid(6);  // "&Undo "
      undoKey(s_);
      EXPECT_EQ(seen(s_), states_[k - 1]) << "undo of " << names_[k].toStdString();
      EXPECT_EQ(editAction(s_, QStringLiteral("Redo"))->text().mid(6), undoing);
    }
  }
  void redoAll() {
    for (size_t k = 1; k < states_.size(); ++k) {
      redoKey(s_);
      EXPECT_EQ(seen(s_), states_[k]) << "redo of " << names_[k].toStdString();
    }
  }

 private:
  Session& s_;
  std::vector<Seen> states_;
  std::vector<QString> names_;
};

TEST(EditorScenario, BuildsMoreOnesFromNothingUndoesRedoesSavesReopensAndRunsIt) {
  Session s;
  startNewProgram(s);
  Steps steps(s, QStringLiteral("empty"));
  auto done = [&](const QString& step) { steps.done(step); };

  // The nodes, from the palette; names and exact values typed in.
  const NodeId input = addFromPalette(s, QStringLiteral("Input"));
  done(QStringLiteral("add Input"));
  const NodeId ones = addFromPalette(s, QStringLiteral("LinState"));
  done(QStringLiteral("add LinState"));
  renameSelected(s, QStringLiteral("ones"));
  done(QStringLiteral("rename ones"));
  const NodeId notNode = addFromPalette(s, QStringLiteral("Linear"));
  done(QStringLiteral("add Linear"));
  renameSelected(s, QStringLiteral("not"));
  done(QStringLiteral("rename not"));
  typeIntoMatrix(s, QStringLiteral("A"), 0, 0, QStringLiteral("-1"));
  done(QStringLiteral("A = -1"));
  typeIntoMatrix(s, QStringLiteral("b"), 0, 0, QStringLiteral("2/2"));
  done(QStringLiteral("b = 2/2"));
  const NodeId zeros = addFromPalette(s, QStringLiteral("LinState"));
  done(QStringLiteral("add LinState"));
  renameSelected(s, QStringLiteral("zeros"));
  done(QStringLiteral("rename zeros"));
  // f_larger with scale 10, typed into the palette's form.
  const GroupId larger = addSugarFromPalette(s, QStringLiteral("f_larger"), QStringLiteral("scale"),
                                             QStringLiteral("10"));
  ASSERT_NE(larger, kNoGroup);
  done(QStringLiteral("add f_larger"));
  checkpoint(*s, QStringLiteral("more_ones_1_nodes_added"));

  // Wiring, dragged both ways.
  connectForward(editor(s), input, ones, 0);
  EXPECT_TRUE(edgeDrawn(editor(s), input, ones));
  done(QStringLiteral("connect input -> ones"));
  connectForward(editor(s), input, notNode, 0);
  EXPECT_TRUE(edgeDrawn(editor(s), input, notNode));
  done(QStringLiteral("connect input -> not"));
  connectBackward(editor(s), zeros, 0, notNode);
  EXPECT_TRUE(edgeDrawn(editor(s), notNode, zeros));
  done(QStringLiteral("connect not -> zeros (from the input port)"));
  doubleClick(canvas(editor(s)), bodyOf(editor(s), groupBox(editor(s), larger)));
  ASSERT_TRUE(waitUntil([&] { return editor(s)->graphScene()->frameOf(larger) != nullptr; }, 3000));
  done(QStringLiteral("expand f_larger"));
  const NodeId concat = memberOf(s, larger, Op::Concat);
  ASSERT_NE(concat, kNoNode);
  connectForward(editor(s), ones, concat, 0);
  EXPECT_TRUE(edgeDrawn(editor(s), ones, concat));
  done(QStringLiteral("connect ones -> concat[0]"));
  connectBackward(editor(s), concat, 1, zeros);
  EXPECT_TRUE(edgeDrawn(editor(s), zeros, concat));
  done(QStringLiteral("connect zeros -> concat[1] (from the input port)"));
  // The result is f_larger's output, inside its collapsed f_step: that box's Properties.
  const NodeId result = s->document()->graph().groups()[larger].output;
  clickBox(editor(s), boxShowing(editor(s), result));
  ASSERT_EQ(editor(s)->selectedItems().size(), 1);
  EXPECT_EQ(editor(s)->selectedItems().front().kind, ItemRef::Kind::Group);
  click(setOutputButton(s));
  EXPECT_TRUE(boxShowing(editor(s), result)->isOutput());
  done(QStringLiteral("set output"));
  EXPECT_EQ(problemsHeader(s), QStringLiteral("No problems"));
  EXPECT_TRUE(editAction(s, QStringLiteral("Undo"))->isEnabled());
  EXPECT_FALSE(editAction(s, QStringLiteral("Redo"))->isEnabled());
  checkpoint(*s, QStringLiteral("more_ones_2_wired"));

  // Undo every step back to the empty program, then redo them all: each state is the one
  // seen before, document and picture.
  steps.undoAll();
  EXPECT_FALSE(editAction(s, QStringLiteral("Undo"))->isEnabled());
  checkpoint(*s, QStringLiteral("more_ones_3_all_undone"));
  steps.redoAll();
  checkpoint(*s, QStringLiteral("more_ones_4_all_redone"));

  // Save (the name typed without an extension), start anew, open it again.
  const QString path = s.files.filePath(QStringLiteral("more_ones_by_hand"));
  auto answered = std::make_shared<bool>(false);
  answerFileDialog(path, answered);
  key(canvas(editor(s)), Qt::Key_S, Qt::ControlModifier);
  ASSERT_TRUE(waitUntil([&] { return *answered; }, 5000));
  ASSERT_TRUE(QFile::exists(path + QStringLiteral(".json")));
  const std::string saved = s->document()->toText();
  menu(*s.window, QStringLiteral("File"), QStringLiteral("New"));
  EXPECT_EQ(s->document()->graph().liveNodeCount(), 0u);
  openThroughFileMenu(s, path + QStringLiteral(".json"));
  EXPECT_EQ(s->document()->toText(), saved);
  checkpoint(*s, QStringLiteral("more_ones_5_reopened"));

  // Run it in the Token stepper: 1,0,1,1,0 gives 1,0,1,1,1.
  clickTab(s.window.get(), QStringLiteral("Token stepper"));
  StepperView* stepper = s->stepperView();
  // The prompt builder's program choice.
  chooseInCombo(comboOffering(stepper, QStringLiteral("more_ones")), QStringLiteral("more_ones"));
  QLineEdit* bits = nullptr;
  for (QLineEdit* e : stepper->findChildren<QLineEdit*>())
    if (e->isVisible() && e->text() == QStringLiteral("10110001")) bits = e;
  ASSERT_NE(bits, nullptr);
  click(bits);
  QTest::keyClick(bits, Qt::Key_A, Qt::ControlModifier);
  type(bits, QStringLiteral("10110"));
  click(button(stepper, QStringLiteral("Build prompt")));
  click(button(stepper, QStringLiteral("Run")));
  ASSERT_TRUE(waitUntil([&] { return stepper->stepCount() == 5; }, 20000))
      << stepper->lastError().toStdString();
  QAbstractButton* forward = button(stepper, QStringLiteral("Step forward ▶"));
  for (int t = 0; t < 4; ++t) click(forward);
  EXPECT_TRUE(
      stepper->outputText().contains(QStringLiteral("outputs t = 0..4: [1] [0] [1] [1] [1]")))
      << stepper->outputText().toStdString();
  checkpoint(*s, QStringLiteral("more_ones_6_stepped"));
}

// ---- every kind of edit undoes and redoes to the exact document and picture -------------

// Sets a spin box as a person does: clicks into it, selects its text, types, presses Enter.
void setSpin(QSpinBox* spin, int value) {
  ASSERT_NE(spin, nullptr);
  click(spin);
  QTest::keyClick(spin, Qt::Key_A, Qt::ControlModifier);
  type(spin, QString::number(value));
  key(spin, Qt::Key_Return);
}

QSpinBox* namedSpin(QWidget* root, const char* name) {
  return findVisible<QSpinBox>(root, QString::fromLatin1(name));
}

void waitForLayout(Session& s) {
  settle(50);
  ASSERT_TRUE(waitUntil([&] { return !s->layoutRunner()->isRunning(); }, 30000));
  settle(100);
}

TEST(EditorScenario, EveryKindOfEditUndoesAndRedoesToTheSameDocumentAndPicture) {
  Session s;
  openThroughFileMenu(s, test::examplePath("more_ones.json"));
  const Graph& g = s->document()->graph();
  const NodeId input = g.input();
  const NodeId ones = g.findByName("ones");
  const NodeId zeros = g.findByName("zeros");
  ASSERT_TRUE(input != kNoNode && ones != kNoNode && zeros != kNoNode);
  const GroupId notGroup = 0;  // f_not(x = input)
  ASSERT_EQ(g.groups()[notGroup].function, "f_not");
  const NodeId notNode = g.groups()[notGroup].output;

  Steps steps(s, QStringLiteral("opened"));
  auto done = [&](const QString& step) { steps.done(step); };

  // Move: drag a box by its body.
  BoxItem* onesBox = boxShowing(editor(s), ones);
  const QPoint from = bodyOf(editor(s), onesBox);
  dragOnCanvas(editor(s), from, from + QPoint(70, 45));
  done(QStringLiteral("move"));
  // Re-layout (Ctrl+L), in the worker.
  key(canvas(editor(s)), Qt::Key_L, Qt::ControlModifier);
  waitForLayout(s);
  done(QStringLiteral("re-layout"));
  // Expand a group (double-click its box) and collapse it again by its frame's "−".
  doubleClick(canvas(editor(s)), bodyOf(editor(s), groupBox(editor(s), notGroup)));
  ASSERT_TRUE(waitUntil([&] { return editor(s)->graphScene()->frameOf(notGroup) != nullptr; }));
  done(QStringLiteral("expand f_not"));
  // Flags, names, matrix shape.
  clickBox(editor(s), boxShowing(editor(s), ones));
  ASSERT_EQ(editor(s)->selectedItems(), (QList<ItemRef>{ItemRef{ItemRef::Kind::Node, ones}}));
  toggle(findVisible<QCheckBox>(s->propertiesPanel(), QStringLiteral("alwaysPositive")));
  done(QStringLiteral("always positive"));
  renameSelected(s, QStringLiteral("ones_so_far"));
  done(QStringLiteral("rename"));
  clickBox(editor(s), boxShowing(editor(s), notNode));
  clickTab(s->propertiesPanel(), QStringLiteral("A"));
  setSpin(s->propertiesPanel()->matrixEditor(Field::A)->rowsSpinBox(), 2);
  done(QStringLiteral("resize A"));
  typeIntoMatrix(s, QStringLiteral("b"), 1, 0, QStringLiteral("1/3"));
  done(QStringLiteral("set b[1]"));
  // Disconnect (the Properties button), then rewire an edge by dragging its end.
  clickBox(editor(s), boxShowing(editor(s), zeros));
  click(button(s->propertiesPanel(), QStringLiteral("Disconnect")));
  EXPECT_FALSE(edgeDrawn(editor(s), notNode, zeros));
  done(QStringLiteral("disconnect"));
  {
    BoxItem* source = boxShowing(editor(s), ones);
    BoxItem* target = boxShowing(editor(s), zeros);
    editor(s)->centerOn((source->scenePos() + target->scenePos()) / 2);
    QApplication::processEvents();
    dragOnCanvas(editor(s), inputPortOf(editor(s), source, 0), inputPortOf(editor(s), target, 0));
  }
  EXPECT_TRUE(edgeDrawn(editor(s), input, zeros));
  EXPECT_FALSE(edgeDrawn(editor(s), input, ones));
  done(QStringLiteral("rewire"));
  GroupFrameItem* frame = editor(s)->graphScene()->frameOf(notGroup);
  ASSERT_NE(frame, nullptr);
  click(canvas(editor(s)), onScreen(editor(s), frame->buttonRect().center()));
  ASSERT_TRUE(waitUntil([&] { return editor(s)->graphScene()->frameOf(notGroup) == nullptr; }));
  done(QStringLiteral("collapse f_not"));
  // The Input's width, a Slice and its range.
  clickBox(editor(s), boxShowing(editor(s), input));
  setSpin(namedSpin(s->propertiesPanel(), "nodeWidth"), 2);
  done(QStringLiteral("input width"));
  const NodeId slice = addFromPalette(s, QStringLiteral("Slice"));
  done(QStringLiteral("add Slice"));
  connectForward(editor(s), input, slice, 0);
  done(QStringLiteral("connect input -> slice"));
  clickBox(editor(s), boxShowing(editor(s), slice));
  setSpin(namedSpin(s->propertiesPanel(), "sliceEnd"), 2);
  done(QStringLiteral("slice end"));
  setSpin(namedSpin(s->propertiesPanel(), "sliceStart"), 1);
  done(QStringLiteral("slice start"));
  // Copy and paste, duplicate, delete.
  clickBox(editor(s), boxShowing(editor(s), slice));
  key(canvas(editor(s)), Qt::Key_C, Qt::ControlModifier);
  key(canvas(editor(s)), Qt::Key_V, Qt::ControlModifier);
  done(QStringLiteral("paste"));
  key(canvas(editor(s)), Qt::Key_D, Qt::ControlModifier);
  done(QStringLiteral("duplicate"));
  key(canvas(editor(s)), Qt::Key_Delete);
  done(QStringLiteral("delete"));
  // Every group at once, each with the layout that follows.
  menu(*s.window, QStringLiteral("View"), QStringLiteral("Expand All Groups"));
  waitForLayout(s);
  done(QStringLiteral("expand all"));
  menu(*s.window, QStringLiteral("View"), QStringLiteral("Collapse All Groups"));
  waitForLayout(s);
  done(QStringLiteral("collapse all"));
  checkpoint(*s, QStringLiteral("editor_every_kind_done"));

  steps.undoAll();
  EXPECT_FALSE(s->document()->isModified());
  checkpoint(*s, QStringLiteral("editor_every_kind_undone"));
  steps.redoAll();
}

}  // namespace
}  // namespace lsrl::studio
