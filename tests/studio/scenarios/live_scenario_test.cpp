// The Live panel under a person's hands (issue 41): every edit compiles the program again
// and the panel answers beside the editor, the program's outputs and the compiled
// network's, token by token. Each flow starts from an empty window; the panel is read as
// a person reads it (its table, its labels), never asked.
#include <QLabel>
#include <QLineEdit>
#include <QTableWidget>

#include "app/studio/live/live_panel.h"
#include "app/studio/player/debranch_view.h"
#include "app/studio/stepper/stepper_view.h"
#include "core/util/atomic_file.h"
#include "studio/scenarios/editor_driver.h"

namespace lsrl::studio::scenario {
namespace live_scenario {

LivePanel* live(Session& s) { return s->livePanel(); }

// Waits until the panel shows the program as it is now (its compile done).
bool waitForLive(Session& s, int timeoutMs = 30000) {
  return waitUntil([&] { return live(s)->isVisible() && live(s)->isCurrent(); }, timeoutMs);
}

// Whether the panel is on screen: its dock's tab in front, the table inside the window.
bool onScreen(Session& s) {
  QWidget* w = live(s)->table();
  return w->isVisible() && !w->visibleRegion().isEmpty() && wholeInWindow(w, s.window.get());
}

// The texts of the table's column titled `title`, top to bottom.
QStringList column(Session& s, const QString& title) {
  QTableWidget* t = live(s)->table();
  QStringList out;
  for (int c = 0; c < t->columnCount(); ++c) {
    if (t->horizontalHeaderItem(c) == nullptr || t->horizontalHeaderItem(c)->text() != title)
      continue;
    for (int r = 0; r < t->rowCount(); ++r)
      out << (t->item(r, c) ? t->item(r, c)->text() : QString());
  }
  return out;
}

QStringList lastThree(const QStringList& rows) {
  return rows.mid(std::max(0, int(rows.size()) - 3));
}

QString status(Session& s) { return live(s)->statusLabel()->text(); }

// Types into a line edit as a person does: click, select all, type, Enter.
void typeInto(QLineEdit* field, const QString& text) {
  ASSERT_NE(field, nullptr);
  click(field);
  QTest::keyClick(field, Qt::Key_A, Qt::ControlModifier);
  type(field, text);
  key(field, Qt::Key_Return);
}

// more_ones on its first prompt 1 0 1 1 0 0 0 1: more ones than zeros so far?
const QStringList kMoreOnesAnswers = {"[1]", "[0]", "[1]", "[1]", "[1]", "[0]", "[0]", "[0]"};

TEST(LiveScenario, MoreOnesBuiltFromThePaletteAnswersAfterTheLastWireAndABrokenWireShowsProblems) {
  Session s;
  startNewProgram(s);
  GraphView* editor = s->graphView();
  ASSERT_NE(live(s), nullptr);
  EXPECT_TRUE(onScreen(s)) << "the Live panel is beside the editor from the start";

  const NodeId input = addFromPalette(s, QStringLiteral("Input"));
  const NodeId ones = addFromPalette(s, QStringLiteral("LinState"));
  renameSelected(s, QStringLiteral("ones"));
  const NodeId notNode = addFromPalette(s, QStringLiteral("Linear"));
  typeIntoMatrix(s, QStringLiteral("A"), 0, 0, QStringLiteral("-1"));
  typeIntoMatrix(s, QStringLiteral("b"), 0, 0, QStringLiteral("1"));
  const NodeId zeros = addFromPalette(s, QStringLiteral("LinState"));
  renameSelected(s, QStringLiteral("zeros"));
  const GroupId larger = addSugarFromPalette(s, QStringLiteral("f_larger"), QStringLiteral("scale"),
                                             QStringLiteral("10"));
  ASSERT_NE(larger, kNoGroup);
  // The comparison is the output (its box is selected): set it before the wiring.
  click(button(s->propertiesPanel(), QStringLiteral("Set as output")));

  connectForward(editor, input, ones, 0);
  connectForward(editor, input, notNode, 0);
  connectBackward(editor, zeros, 0, notNode);
  doubleClick(canvas(editor), bodyOf(editor, groupBox(editor, larger)));
  ASSERT_TRUE(waitUntil([&] { return editor->graphScene()->frameOf(larger) != nullptr; }, 3000));
  const NodeId concat = memberOf(s, larger, Op::Concat);
  ASSERT_NE(concat, kNoNode);
  connectForward(editor, ones, concat, 0);
  ASSERT_TRUE(waitForLive(s));
  EXPECT_TRUE(status(s).contains(QStringLiteral("problem"))) << status(s).toStdString();
  EXPECT_FALSE(live(s)->table()->isEnabled()) << "no good result yet: nothing to show";

  // The last wire: the program and the network answer, equal, token by token.
  connectBackward(editor, concat, 1, zeros);
  ASSERT_TRUE(waitForLive(s)) << status(s).toStdString();
  EXPECT_TRUE(live(s)->table()->isEnabled());
  EXPECT_EQ(column(s, QStringLiteral("program")), kMoreOnesAnswers) << status(s).toStdString();
  EXPECT_EQ(column(s, QStringLiteral("network float64")), kMoreOnesAnswers);
  EXPECT_EQ(column(s, QStringLiteral("network fp32")), kMoreOnesAnswers);
  EXPECT_TRUE(findVisible<QLabel>(live(s), QStringLiteral("live_differences"))
                  ->text()
                  .contains(QStringLiteral("answers as the program on all 8 tokens")));
  EXPECT_TRUE(live(s)->sizeLabel()->text().startsWith(QStringLiteral("Network: ")));
  EXPECT_TRUE(live(s)->certificateLabel()->text().contains(QStringLiteral("certified")));
  checkpoint(*s, QStringLiteral("live_1_more_ones_answers"));

  // A wire dragged off its port onto the empty canvas: the problems show, the last good
  // answers stay, greyed out.
  BoxItem* concatBox = boxShowing(editor, concat);
  ASSERT_NE(concatBox, nullptr);
  dragOnCanvas(editor, inputPortOf(editor, concatBox, 1), emptyCanvasPoint(editor));
  ASSERT_TRUE(waitForLive(s));
  EXPECT_TRUE(status(s).contains(QStringLiteral("problem"))) << status(s).toStdString();
  EXPECT_FALSE(live(s)->table()->isEnabled());
  EXPECT_EQ(column(s, QStringLiteral("program")), kMoreOnesAnswers) << "the last good result";
  checkpoint(*s, QStringLiteral("live_2_broken_wire"));

  // Wired again: the answers come back.
  connectBackward(editor, concat, 1, zeros);
  ASSERT_TRUE(waitForLive(s));
  EXPECT_TRUE(live(s)->table()->isEnabled());
  EXPECT_EQ(column(s, QStringLiteral("network fp32")), kMoreOnesAnswers);
  EXPECT_FALSE(status(s).contains(QStringLiteral("problem"))) << status(s).toStdString();

  // One click takes the prompt to the Token stepper, which runs it.
  click(live(s)->stepperButton());
  StepperView* stepper = s->stepperView();
  ASSERT_TRUE(waitUntil([&] { return stepper->isVisible() && stepper->stepCount() == 8; }, 20000))
      << stepper->lastError().toStdString();
  checkpoint(*s, QStringLiteral("live_5_prompt_in_stepper"));
}

TEST(LiveScenario, ASugarConstantChangedInPropertiesChangesBothColumnsAndUndoRestoresThem) {
  Session s;
  openThroughFileMenu(s, test::examplePath("tok2tok_L3_direct.json"));
  ASSERT_TRUE(waitForLive(s)) << status(s).toStdString();
  // The first prompt asks for the key 4 2 6, stored with the value 9 2 5.
  const QStringList answer = {"[9]", "[2]", "[5]"};
  EXPECT_EQ(lastThree(column(s, QStringLiteral("program"))), answer) << status(s).toStdString();
  EXPECT_EQ(lastThree(column(s, QStringLiteral("network float64"))), answer);
  EXPECT_EQ(lastThree(column(s, QStringLiteral("network fp32"))), answer);

  // Group 7 is f_larger(·, y = 5/2): its threshold typed as 3/2 in Properties.
  GraphView* editor = s->graphView();
  clickBox(editor, groupBox(editor, 7));
  auto* y = findVisible<QLineEdit>(s->propertiesPanel(), QStringLiteral("group_param_y"));
  ASSERT_NE(y, nullptr) << "the call's constants are editable in Properties";
  EXPECT_EQ(y->text(), QStringLiteral("5/2"));
  const int before = live(s)->updates();
  typeInto(y, QStringLiteral("3/2"));
  ASSERT_TRUE(waitUntil([&] { return live(s)->updates() > before; }, 30000));
  ASSERT_TRUE(waitForLive(s));
  const QStringList changed = {"[0]", "[0]", "[6]"};
  EXPECT_EQ(lastThree(column(s, QStringLiteral("program"))), changed) << status(s).toStdString();
  EXPECT_EQ(lastThree(column(s, QStringLiteral("network float64"))), changed);
  EXPECT_EQ(lastThree(column(s, QStringLiteral("network fp32"))), changed);
  checkpoint(*s, QStringLiteral("live_3_tok2tok_threshold_changed"));

  // Undo: both columns as before.
  pressUndo(editor);
  ASSERT_TRUE(waitForLive(s));
  EXPECT_EQ(lastThree(column(s, QStringLiteral("program"))), answer);
  EXPECT_EQ(lastThree(column(s, QStringLiteral("network fp32"))), answer);
  EXPECT_EQ(y->text(), QStringLiteral("5/2")) << "Properties follows the undo";

  // The Debranching tab opens on the panel's compile: no second compile.
  clickTab(s.window.get(), QStringLiteral("Debranching"));
  DebranchView* debranch = s->debranchView();
  ASSERT_TRUE(waitUntil([&] { return debranch->hasCompile(); }, 30000))
      << debranch->statusText().toStdString();
  EXPECT_TRUE(debranch->statusText().contains(QStringLiteral("not compiled again")))
      << debranch->statusText().toStdString();
}

TEST(LiveScenario, EditingAWatchedPythonProgramOnDiskUpdatesThePanel) {
  Session s;
  const QString path = s.files.filePath(QStringLiteral("count_ones.py"));
  // more_ones, and then the same with the comparison the other way round.
  auto program = [](const char* first, const char* second) {
    return std::string(
               "from lsrl import ForEach, Input, LinState, f_larger, f_not\n"
               "x = Input(dim=1)\n"
               "ones = LinState(x, A=[[1]], B=[[1]], init_state=[[0]], name='ones')\n"
               "zeros = LinState(f_not(x), A=[[1]], B=[[1]], init_state=[[0]], name='zeros')\n"
               "program = ForEach(f_larger(") +
           first + ", " + second + ", scale=10), verbose=False)\n";
  };
  writeFileAtomically(path.toStdString(), program("ones", "zeros"));
  auto answered = std::make_shared<bool>(false);
  answerFileDialog(path, answered);
  menu(*s.window, QStringLiteral("File"), QStringLiteral("Open"));
  ASSERT_TRUE(waitUntil([&] { return *answered; }, 5000)) << "no file dialog appeared";
  ASSERT_TRUE(waitUntil([&] { return s->document()->sourcePath() == path; }, 20000))
      << "the program did not open: " << s->lastError().toStdString();
  ASSERT_TRUE(waitForLive(s)) << status(s).toStdString();
  EXPECT_EQ(column(s, QStringLiteral("program")), kMoreOnesAnswers) << status(s).toStdString();
  EXPECT_EQ(column(s, QStringLiteral("network fp32")), kMoreOnesAnswers);

  // Saved from another editor: more zeros than ones now.
  const int before = live(s)->updates();
  writeFileAtomically(path.toStdString(), program("zeros", "ones"));
  ASSERT_TRUE(waitUntil([&] { return live(s)->updates() > before && live(s)->isCurrent(); }, 30000))
      << status(s).toStdString();
  const QStringList moreZeros = {"[0]", "[0]", "[0]", "[0]", "[0]", "[0]", "[1]", "[0]"};
  EXPECT_EQ(column(s, QStringLiteral("program")), moreZeros) << status(s).toStdString();
  EXPECT_EQ(column(s, QStringLiteral("network float64")), moreZeros);
  checkpoint(*s, QStringLiteral("live_4_python_reloaded"));
}

}  // namespace live_scenario
}  // namespace lsrl::studio::scenario
