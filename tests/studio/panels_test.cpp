// The dock panels driven as a person would: the properties panel's matrix editor takes
// exact values ("1/3", "sqrt(3)/2") and shows them exactly, refuses malformed ones with
// a message, and every accepted edit is one undo step; the palette adds primitives and
// sugar groups; the problems panel lists what is wrong. Each test saves screenshots.
#include <gtest/gtest.h>

#include <QAbstractItemModel>
#include <QElapsedTimer>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QTableView>
#include <QTreeWidget>
#include <QUndoStack>
#include <QWidget>
#include <algorithm>

#include "app/studio/document/document.h"
#include "app/studio/panels/matrix_editor.h"
#include "app/studio/panels/matrix_model.h"
#include "app/studio/panels/palette_panel.h"
#include "app/studio/panels/problems_panel.h"
#include "app/studio/panels/properties_panel.h"
#include "core/util/error.h"
#include "studio/studio_test_util.h"

namespace lsrl::studio {
namespace {

using test::examplePath;
using test::showAndSaveScreenshot;

ItemRef nodeRef(NodeId id) { return ItemRef{ItemRef::Kind::Node, id}; }

QString cellText(QAbstractItemModel* model, int row, int col) {
  return model->data(model->index(row, col)).toString();
}

// more_ones.json's output node: Linear 12, A = [1, -1] (1 x 2).
constexpr NodeId kOutputLinear = 12;

TEST(PropertiesPanel, EditsAMatrixEntryExactlyWithUndoAndRedo) {
  Document doc;
  doc.openFile(examplePath("more_ones.json"));
  ASSERT_EQ(doc.graph().node(kOutputLinear).op, Op::Linear);
  const Exact before = doc.graph().node(kOutputLinear).A.at(0, 1);
  ASSERT_EQ(before, Exact(-1));

  PropertiesPanel panel(&doc);
  panel.resize(520, 640);
  panel.showSelection({nodeRef(kOutputLinear)});
  MatrixEditor* editor = panel.matrixEditor(Field::A);
  ASSERT_NE(editor, nullptr);
  ASSERT_NE(panel.matrixEditor(Field::b), nullptr);
  EXPECT_EQ(panel.matrixEditor(Field::B), nullptr);  // a Linear has no B
  EXPECT_EQ(editor->shapeText(), QStringLiteral("A: 1 × 2 (2 non-zero)"));
  EXPECT_EQ(panel.nameEdit()->text(), QStringLiteral("output"));
  MatrixModel* model = editor->model();
  ASSERT_EQ(model->rowCount(), 1);
  ASSERT_EQ(model->columnCount(), 2);
  EXPECT_EQ(cellText(model, 0, 1), QStringLiteral("-1"));

  const int steps = doc.undoStack()->count();
  ASSERT_TRUE(model->setData(model->index(0, 1), QStringLiteral("1/3")));
  EXPECT_EQ(doc.graph().node(kOutputLinear).A.at(0, 1), Exact::rational(1, 3));
  EXPECT_EQ(cellText(model, 0, 1), QStringLiteral("1/3"));
  EXPECT_EQ(doc.undoStack()->count(), steps + 1);
  showAndSaveScreenshot(panel, QStringLiteral("panels_properties_one_third"));

  doc.undoStack()->undo();
  EXPECT_EQ(doc.graph().node(kOutputLinear).A.at(0, 1), before);
  EXPECT_EQ(cellText(model, 0, 1), QStringLiteral("-1"));
  doc.undoStack()->redo();
  EXPECT_EQ(doc.graph().node(kOutputLinear).A.at(0, 1), Exact::rational(1, 3));
  EXPECT_EQ(cellText(model, 0, 1), QStringLiteral("1/3"));

  // An irrational value is stored and shown exactly: the cell's text parses back to it.
  ASSERT_TRUE(model->setData(model->index(0, 0), QStringLiteral("sqrt(3)/2")));
  const Exact root = Exact::sqrt(3) / Exact(2);
  EXPECT_EQ(doc.graph().node(kOutputLinear).A.at(0, 0), root);
  EXPECT_EQ(Exact::parse(cellText(model, 0, 0).toStdString()), root);
  EXPECT_TRUE(
      model->data(model->index(0, 0), Qt::ToolTipRole).toString().contains("0.866025403784438"));

  // Zero is shown as "0", in grey, and removes the sparse entry.
  ASSERT_TRUE(model->setData(model->index(0, 0), QStringLiteral("0")));
  EXPECT_EQ(cellText(model, 0, 0), QStringLiteral("0"));
  EXPECT_TRUE(model->data(model->index(0, 0), Qt::ForegroundRole).isValid());
  EXPECT_EQ(doc.graph().node(kOutputLinear).A.nonZeros(), 1u);
  EXPECT_EQ(editor->shapeText(), QStringLiteral("A: 1 × 2 (1 non-zero)"));
}

TEST(PropertiesPanel, RefusesAMalformedValueWithAMessage) {
  Document doc;
  doc.openFile(examplePath("more_ones.json"));
  PropertiesPanel panel(&doc);
  panel.resize(520, 640);
  panel.showSelection({nodeRef(kOutputLinear)});
  MatrixEditor* editor = panel.matrixEditor(Field::A);
  ASSERT_NE(editor, nullptr);
  MatrixModel* model = editor->model();
  QString rejected;
  QObject::connect(model, &MatrixModel::editRejected, [&](const QString& m) { rejected = m; });

  const std::string fileBefore = doc.toText();
  const int steps = doc.undoStack()->count();
  EXPECT_FALSE(model->setData(model->index(0, 1), QStringLiteral("1//3")));
  EXPECT_FALSE(rejected.isEmpty());
  EXPECT_TRUE(rejected.contains(QStringLiteral("1//3"))) << rejected.toStdString();
  EXPECT_EQ(editor->errorText(), rejected);
  EXPECT_EQ(doc.undoStack()->count(), steps);
  EXPECT_EQ(doc.toText(), fileBefore);
  EXPECT_EQ(cellText(model, 0, 1), QStringLiteral("-1"));
  showAndSaveScreenshot(panel, QStringLiteral("panels_properties_rejected"));

  // The next accepted edit clears the message.
  ASSERT_TRUE(model->setData(model->index(0, 1), QStringLiteral("-1e10")));
  EXPECT_EQ(doc.graph().node(kOutputLinear).A.at(0, 1), Exact(-10000000000LL));
  EXPECT_TRUE(editor->errorText().isEmpty());
}

TEST(PropertiesPanel, ShowsGroupsManyItemsNothingAndFollowsRemovals) {
  Document doc;
  doc.openFile(examplePath("more_ones.json"));
  PropertiesPanel panel(&doc);
  panel.resize(520, 420);
  // The f_larger group (id 1) of more_ones.
  panel.showSelection({ItemRef{ItemRef::Kind::Group, 1}});
  showAndSaveScreenshot(panel, QStringLiteral("panels_properties_group"));
  const bool expandedBefore = doc.graph().groups()[1].expanded;
  bool clicked = false;
  for (QPushButton* b : panel.findChildren<QPushButton*>()) {
    if (b->isVisible() && (b->text() == "Expand" || b->text() == "Collapse")) {
      b->click();
      clicked = true;
      break;
    }
  }
  ASSERT_TRUE(clicked);
  EXPECT_NE(doc.graph().groups()[1].expanded, expandedBefore);

  // A LinState (more_ones' node 1, 'ones') has four fields: A, B, init, bias.
  panel.showSelection({nodeRef(1)});
  for (Field f : {Field::A, Field::B, Field::init, Field::bias}) {
    EXPECT_NE(panel.matrixEditor(f), nullptr) << fieldName(f);
  }
  EXPECT_EQ(panel.matrixEditor(Field::init)->shapeText(),
            QStringLiteral("init: vector of 1 (0 non-zero)"));
  showAndSaveScreenshot(panel, QStringLiteral("panels_properties_linstate"));

  panel.showSelection({nodeRef(1), nodeRef(2)});
  EXPECT_EQ(panel.matrixEditor(Field::A), nullptr);
  showAndSaveScreenshot(panel, QStringLiteral("panels_properties_many"));
  panel.showSelection({});
  showAndSaveScreenshot(panel, QStringLiteral("panels_properties_nothing"));

  // Deleting the selected node clears the panel (its id now names nothing).
  panel.showSelection({nodeRef(kOutputLinear)});
  bool cleared = false;
  QObject::connect(&panel, &PropertiesPanel::selectionCleared, [&] { cleared = true; });
  doc.removeNodes({kOutputLinear});
  EXPECT_TRUE(cleared);
  EXPECT_TRUE(panel.selection().isEmpty());
}

TEST(PropertiesPanel, RenamesDisconnectsAndSetsTheOutput) {
  Document doc;
  doc.openFile(examplePath("more_ones.json"));
  PropertiesPanel panel(&doc);
  panel.resize(520, 520);
  panel.showSelection({nodeRef(kOutputLinear)});

  panel.nameEdit()->setText(QStringLiteral("result"));
  Q_EMIT panel.nameEdit()->editingFinished();
  EXPECT_EQ(doc.graph().node(kOutputLinear).name, "result");

  QPushButton* disconnect = nullptr;
  for (QPushButton* b : panel.findChildren<QPushButton*>()) {
    if (b->text() == QStringLiteral("Disconnect")) disconnect = b;
  }
  ASSERT_NE(disconnect, nullptr);
  disconnect->click();
  EXPECT_EQ(doc.graph().node(kOutputLinear).inputs, (std::vector<NodeId>{kNoNode}));
  EXPECT_FALSE(panel.problemsText().isEmpty());
  showAndSaveScreenshot(panel, QStringLiteral("panels_properties_disconnected"));
  doc.undoStack()->undo();
  EXPECT_EQ(doc.graph().node(kOutputLinear).inputs, (std::vector<NodeId>{11}));
  EXPECT_TRUE(panel.problemsText().isEmpty());

  panel.showSelection({nodeRef(7)});
  QPushButton* setOutput = nullptr;
  for (QPushButton* b : panel.findChildren<QPushButton*>()) {
    if (b->text() == QStringLiteral("Set as output")) setOutput = b;
  }
  ASSERT_NE(setOutput, nullptr);
  setOutput->click();
  EXPECT_EQ(doc.graph().output(), 7);
}

TEST(MatrixEditor, ResizesFieldsAndFitsColumnsToTheInput) {
  Document doc;
  doc.openFile(examplePath("more_ones.json"));
  PropertiesPanel panel(&doc);
  panel.resize(520, 520);

  // A LinState's state width: A, B, init and bias follow, in one undo step.
  panel.showSelection({nodeRef(1)});
  MatrixEditor* state = panel.matrixEditor(Field::A);
  ASSERT_NE(state, nullptr);
  const int steps = doc.undoStack()->count();
  state->rowsSpinBox()->setValue(3);
  const Node& ones = doc.graph().node(1);
  EXPECT_EQ(ones.A.rows(), 3);
  EXPECT_EQ(ones.A.cols(), 3);
  EXPECT_EQ(ones.A.at(0, 0), Exact(1));  // kept entries stay
  EXPECT_EQ(ones.B.rows(), 3);
  EXPECT_EQ(ones.init.size(), 3u);
  EXPECT_EQ(ones.bias.size(), 3u);
  EXPECT_EQ(doc.undoStack()->count(), steps + 1);
  EXPECT_EQ(state->shapeText(), QStringLiteral("A: 3 × 3 (1 non-zero)"));
  showAndSaveScreenshot(panel, QStringLiteral("panels_matrix_resized_state"));
  doc.undoStack()->undo();
  EXPECT_EQ(doc.graph().node(1).A.rows(), 1);
  EXPECT_EQ(doc.graph().node(1).B.rows(), 1);

  // A Linear's columns: widened by hand (a width problem), then fitted to the input.
  panel.showSelection({nodeRef(kOutputLinear)});
  MatrixEditor* linear = panel.matrixEditor(Field::A);
  ASSERT_NE(linear, nullptr);
  EXPECT_FALSE(linear->fitButton()->isEnabled());  // already 2 columns, as wide as its input
  linear->colsSpinBox()->setValue(4);
  EXPECT_EQ(doc.graph().node(kOutputLinear).A.cols(), 4);
  EXPECT_FALSE(doc.problemsOf(kOutputLinear).empty());
  EXPECT_FALSE(panel.problemsText().isEmpty());
  ASSERT_TRUE(linear->fitButton()->isEnabled());
  linear->fitButton()->click();
  EXPECT_EQ(doc.graph().node(kOutputLinear).A.cols(), 2);
  EXPECT_EQ(doc.graph().node(kOutputLinear).A.at(0, 1), Exact(-1));
  EXPECT_TRUE(doc.problemsOf(kOutputLinear).empty());
}

// Compiled programs carry matrices with hundreds of rows: showing one (and painting the
// visible cells) must not visit every cell.
TEST(PropertiesPanel, LargeMatrixShowsQuickly) {
  Document doc;
  doc.openFile(examplePath("tok2tok_L3_direct.json"));
  const int n = 800;
  std::vector<ExactMatrix::Entry> entries;
  for (int i = 0; i < n; ++i) entries.push_back({i, (7 * i) % n, Exact::rational(i + 1, 3)});
  // tok2tok's first Linear, widened to an 800 x 800 sparse matrix.
  NodeId linear = kNoNode;
  for (const Node& node : doc.graph().nodes()) {
    if (node.op == Op::Linear && !node.isSlice()) {
      linear = node.id;
      break;
    }
  }
  ASSERT_NE(linear, kNoNode);
  doc.setMatrix(linear, Field::A, ExactMatrix::fromEntries(n, n, entries));
  PropertiesPanel panel(&doc);
  panel.resize(640, 720);
  panel.show();
  QElapsedTimer timer;
  timer.start();
  panel.showSelection({nodeRef(linear)});
  MatrixEditor* editor = panel.matrixEditor(Field::A);
  ASSERT_NE(editor, nullptr);
  panel.grab();  // paints the visible cells
  const qint64 showMs = timer.elapsed();
  timer.restart();
  MatrixModel* model = editor->model();
  ASSERT_TRUE(model->setData(model->index(5, 35), QStringLiteral("cos(pi/5)")));
  panel.grab();
  const qint64 editMs = timer.elapsed();
  std::printf("A %d x %d: shown and painted in %lld ms, one edit + repaint in %lld ms\n",
              model->rowCount(), model->columnCount(), static_cast<long long>(showMs),
              static_cast<long long>(editMs));
  EXPECT_EQ(model->rowCount(), n);
  EXPECT_EQ(editor->shapeText(), QStringLiteral("A: 800 × 800 (800 non-zero)"));
  EXPECT_EQ(doc.graph().node(linear).A.at(5, 35), Exact::cosPi(1, 5));
  EXPECT_LT(showMs, 1000);
  EXPECT_LT(editMs, 1000);
  showAndSaveScreenshot(panel, QStringLiteral("panels_properties_large_matrix"));
}

TEST(PalettePanel, AddsPrimitivesAndSugarGroups) {
  Document doc;
  doc.openFile(examplePath("more_ones.json"));
  const size_t nodesBefore = doc.graph().nodeCount();
  const size_t groupsBefore = doc.graph().groups().size();
  PalettePanel palette(&doc, [] { return NodePosition{400, 300}; });
  palette.resize(300, 640);
  std::vector<NodeId> announced;
  QObject::connect(&palette, &PalettePanel::inserted,
                   [&](const std::vector<NodeId>& ids) { announced = ids; });

  ASSERT_TRUE(palette.select(QStringLiteral("Linear")));
  const std::vector<NodeId> linear = palette.addSelected();
  ASSERT_EQ(linear.size(), 1u) << palette.errorText().toStdString();
  EXPECT_EQ(announced, linear);
  EXPECT_EQ(doc.graph().node(linear[0]).op, Op::Linear);
  EXPECT_EQ(doc.graph().nodeCount(), nodesBefore + 1);

  ASSERT_TRUE(palette.select(QStringLiteral("f_larger")));
  ASSERT_TRUE(palette.setParameter(QStringLiteral("y"), QStringLiteral("0")));
  ASSERT_TRUE(palette.setParameter(QStringLiteral("scale"), QStringLiteral("100")));
  EXPECT_TRUE(palette.errorText().isEmpty()) << palette.errorText().toStdString();
  showAndSaveScreenshot(palette, QStringLiteral("panels_palette_f_larger"));
  const std::vector<NodeId> larger = palette.addSelected();
  ASSERT_FALSE(larger.empty());
  EXPECT_EQ(announced, larger);
  ASSERT_EQ(doc.graph().groups().size(), groupsBefore + 2);  // f_larger and its f_step
  const Group& group = doc.graph().groups()[groupsBefore];
  EXPECT_EQ(group.function, "f_larger");
  EXPECT_FALSE(group.expanded);
  EXPECT_NE(std::find(group.params.begin(), group.params.end(),
                      std::pair<std::string, std::string>{"scale", "100"}),
            group.params.end());
  // x is the one operand left to wire (y is the constant 0).
  int open = 0;
  for (NodeId id : larger) {
    for (NodeId in : doc.graph().node(id).inputs) open += in == kNoNode;
  }
  EXPECT_EQ(open, 1);

  // A malformed parameter is explained and adds nothing.
  ASSERT_TRUE(palette.setParameter(QStringLiteral("scale"), QStringLiteral("1//3")));
  EXPECT_TRUE(palette.errorText().contains(QStringLiteral("scale")))
      << palette.errorText().toStdString();
  showAndSaveScreenshot(palette, QStringLiteral("panels_palette_bad_parameter"));
  const size_t nodes = doc.graph().nodeCount();
  EXPECT_TRUE(palette.addSelected().empty());
  EXPECT_EQ(doc.graph().nodeCount(), nodes);

  // One undo step per insertion.
  doc.undoStack()->undo();
  EXPECT_EQ(doc.graph().groups().size(), groupsBefore);
  EXPECT_EQ(doc.graph().nodeCount(), nodesBefore + 1);

  // Double-click adds the entry; a drop from a drag adds what the mime text names.
  ASSERT_TRUE(palette.select(QStringLiteral("Concat")));
  Q_EMIT palette.tree()->itemDoubleClicked(palette.tree()->currentItem(), 0);
  ASSERT_EQ(announced.size(), 1u);
  EXPECT_EQ(doc.graph().node(announced[0]).op, Op::Concat);
  const std::vector<NodeId> dropped =
      palette.addFromMime(QStringLiteral("sugar:f_not"), NodePosition{10, 10});
  ASSERT_FALSE(dropped.empty());
  EXPECT_EQ(doc.graph().groups().back().function, "f_not");
  EXPECT_TRUE(palette.addFromMime(QStringLiteral("sugar:f_nothing"), NodePosition{}).empty());
  EXPECT_TRUE(palette.errorText().contains(QStringLiteral("f_nothing")));
}

TEST(ProblemsPanel, ListsTheUnconnectedInputOfANewNode) {
  Document doc;
  doc.openFile(examplePath("more_ones.json"));
  ProblemsPanel problems(&doc);
  problems.resize(720, 240);
  EXPECT_EQ(problems.headerText(), QStringLiteral("No problems"));
  EXPECT_EQ(problems.list()->topLevelItemCount(), 0);

  PalettePanel palette(&doc, [] { return NodePosition{0, 0}; });
  ASSERT_TRUE(palette.select(QStringLiteral("ReLU")));
  const std::vector<NodeId> added = palette.addSelected();
  ASSERT_EQ(added.size(), 1u);
  ASSERT_FALSE(doc.problems().empty());
  EXPECT_EQ(problems.headerText(), doc.problems().size() == 1
                                       ? QStringLiteral("1 problem")
                                       : QStringLiteral("%1 problems").arg(doc.problems().size()));
  QTreeWidgetItem* row = nullptr;
  for (int i = 0; i < problems.list()->topLevelItemCount(); ++i) {
    QTreeWidgetItem* item = problems.list()->topLevelItem(i);
    if (item->text(0).startsWith(QStringLiteral("#%1 ReLU").arg(added[0]))) row = item;
  }
  ASSERT_NE(row, nullptr);
  bool dangling = false;
  for (const Problem& p : doc.problems())
    dangling = dangling || (p.kind == ProblemKind::DanglingInput && p.node == added[0]);
  EXPECT_TRUE(dangling);
  showAndSaveScreenshot(problems, QStringLiteral("panels_problems"));

  NodeId activated = kNoNode;
  QObject::connect(&problems, &ProblemsPanel::nodeActivated, [&](NodeId id) { activated = id; });
  Q_EMIT problems.list()->itemDoubleClicked(row, 0);
  EXPECT_EQ(activated, added[0]);

  // The properties panel of that node explains the same problem in red.
  PropertiesPanel panel(&doc);
  panel.resize(520, 420);
  panel.showSelection({nodeRef(added[0])});
  EXPECT_FALSE(panel.problemsText().isEmpty());
  showAndSaveScreenshot(panel, QStringLiteral("panels_properties_dangling"));

  doc.undoStack()->undo();
  EXPECT_EQ(problems.headerText(), QStringLiteral("No problems"));
}

}  // namespace
}  // namespace lsrl::studio
