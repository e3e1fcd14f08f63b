// The token stepper: tok2tok run as a program and compiled, stepped through, and the
// float64 compile compared with the exact program to find where they first diverge.
#include <gtest/gtest.h>

#include <QCheckBox>
#include <QComboBox>
#include <QElapsedTimer>
#include <QSignalSpy>
#include <QTest>
#include <QTreeWidget>
#include <QWheelEvent>
#include <cmath>

#include "app/studio/document/document.h"
#include "app/studio/editor/box_item.h"
#include "app/studio/editor/graph_scene.h"
#include "app/studio/stepper/divergence.h"
#include "app/studio/stepper/engine_chooser.h"
#include "app/studio/stepper/prompt_builder.h"
#include "app/studio/stepper/stepper_run.h"
#include "app/studio/stepper/stepper_view.h"
#include "app/studio/stepper/token_table.h"
#include "app/studio/stepper/value_graph_view.h"
#include "core/io/graph_file.h"
#include "core/io/sequence_file.h"
#include "core/programs/prompts.h"
#include "core/util/error.h"
#include "studio/studio_test_util.h"

namespace lsrl::studio {
namespace {

const char* kProgram = "tok2tok_L3_direct.json";
const char* kInput = "tok2tok_input.json";

SequenceBatch exampleInput() { return loadSequenceFile(test::examplePath(kInput).toStdString()); }

Graph tok2tokProgram() { return loadGraphFile(test::examplePath(kProgram).toStdString()); }

// What `lsrl run FILE --input IN --exact` prints, computed as cmd_run.cpp does.
std::vector<ExactVector> lsrlRunExact(const Graph& g, const ExactSequence& tokens) {
  return runBatch<Exact>(Plan::make(g), {tokens}).at(0);
}

std::vector<int> lastTokens(const std::vector<std::vector<Exact>>& outputs, int n) {
  std::vector<int> out;
  for (size_t t = outputs.size() - static_cast<size_t>(n); t < outputs.size(); ++t)
    out.push_back(static_cast<int>(outputs[t].at(0).toRational().get_num().get_si()));
  return out;
}

TEST(StepperRun, ProgramAndCompiledExactGiveTheDictionaryValue) {
  const Graph program = tok2tokProgram();
  const SequenceBatch input = exampleInput();
  const ExactSequence& tokens = input.sequences.at(0);
  const StepperRun p = runEngine(program, EngineSpec::program(true), tokens);
  ASSERT_EQ(p.steps(), static_cast<int>(tokens.size()));
  EXPECT_EQ(p.exactOutputs, lsrlRunExact(program, tokens));
  const std::vector<int> expected = input.extra.at("expected").get<std::vector<int>>();
  EXPECT_EQ(lastTokens(p.exactOutputs, 3), expected);

  const StepperRun c = runEngine(program, EngineSpec::compiled(true), tokens);
  EXPECT_EQ(c.exactOutputs, p.exactOutputs);
  EXPECT_GT(c.compileSeconds, 0);
  const Divergence d = firstDivergence(p, c);
  EXPECT_FALSE(d.found) << d.describe();
  std::printf("program vs compiled exact: %s; compile %.3f s, labels %.3f s, run %.3f s\n",
              d.describe().c_str(), c.compileSeconds, c.labelSeconds, c.runSeconds);

  // The same program in float64 agrees with the exact one on every node.
  const StepperRun f = runEngine(program, EngineSpec::program(false), tokens);
  const Divergence pf = firstDivergence(p, f, 1e-9);
  EXPECT_FALSE(pf.found) << pf.describe();
  EXPECT_NE(pf.compared.find("every program node"), std::string::npos);
}

TEST(StepperRun, CompiledPathsAreComparedInProgramTerms) {
  const Graph program = tok2tokProgram();
  const ExactSequence tokens = exampleInput().sequences.at(0);
  const StepperRun e = runEngine(program, EngineSpec::compiled(true), tokens);
  const StepperRun f = runEngine(program, EngineSpec::compiled(false), tokens);
  // Every path state component is labelled with the program value it carries.
  for (NodeId id : e.tracedNodes()) {
    if (e.graph.node(id).op != Op::LinState) continue;
    for (int c = 0; c < e.graph.node(id).dim; ++c)
      EXPECT_FALSE(e.carriedLabels[static_cast<size_t>(id)][static_cast<size_t>(c)].empty())
          << "path node " << id << "[" << c << "]";
  }
  const NodeId query = program.findByName("query");
  ASSERT_TRUE(e.holdsProgramNode(query));
  EXPECT_EQ(e.programValueText(query, 5),
            runEngine(program, EngineSpec::program(true), tokens).valueText(query, 5));
  const Divergence d = firstDivergence(e, f);
  std::printf("%s\n", d.describe().c_str());
  ASSERT_TRUE(d.found);
  EXPECT_NE(d.compared.find("program nodes held by both runs"), std::string::npos);
  EXPECT_TRUE(d.node.inProgramTerms);  // a program node, not just the output
  EXPECT_NE(d.node.a, kNoNode);
  EXPECT_NE(d.heldBy.find("path node"), std::string::npos);
  EXPECT_NE(d.valueA, d.valueB);
  // Identical runs never diverge.
  EXPECT_FALSE(firstDivergence(e, e).found);
}

TEST(StepperRun, TargetRunsGiveOutputsOnly) {
  const Graph program = tok2tokProgram();
  const ExactSequence tokens = exampleInput().sequences.at(0);
  const StepperRun p = runEngine(program, EngineSpec::program(true), tokens);
  const StepperRun t =
      runEngine(program, EngineSpec::compiled(true, true, Target::GatedLinearRnn), tokens);
  EXPECT_FALSE(t.hasNodeTrace());
  EXPECT_EQ(t.exactOutputs, p.exactOutputs);
  const Divergence d = firstDivergence(p, t);
  EXPECT_FALSE(d.found) << d.describe();
  EXPECT_EQ(d.compared, "outputs only");
}

// The compile in fp32, as exported weights run: with the paper's constants the answer is
// lost (the divergence finder names the first step), with the constants fitted to the
// tokens it is the exact program's.
TEST(StepperRun, Fp32CompileDivergesAsBuiltAndNotFitted) {
  const Graph program = tok2tokProgram();
  const ExactSequence tokens = exampleInput().sequences.at(0);
  const StepperRun exact = runEngine(program, EngineSpec::program(true), tokens);
  const StepperRun asBuilt = runEngine(program, EngineSpec::compiledFp32(false), tokens);
  EXPECT_EQ(asBuilt.spec.label(), "compiled fp32");
  EXPECT_FALSE(asBuilt.hasNodeTrace());
  EXPECT_TRUE(asBuilt.fittedTo.empty());
  const Divergence lost = firstDivergence(exact, asBuilt, 1e-3);
  EXPECT_TRUE(lost.found) << lost.describe();
  EXPECT_EQ(lost.compared, "outputs only");
  const StepperRun fitted = runEngine(program, EngineSpec::compiledFp32(true), tokens);
  EXPECT_EQ(fitted.spec.label(), "compiled fp32, fitted");
  EXPECT_NE(fitted.fittedTo.find("(whole numbers), t ≤ " + std::to_string(tokens.size())),
            std::string::npos)
      << fitted.fittedTo;
  const Divergence kept = firstDivergence(exact, fitted, 1e-3);
  EXPECT_FALSE(kept.found) << kept.describe();
  // The fitted float64 compile traces every node, in program terms, like any other: its
  // outputs are the program's; what differs is inside the sugar calls whose constants
  // changed (a closed gate holds −λ' + t, not −10¹⁰ + t).
  EngineSpec f64 = EngineSpec::compiled(false);
  f64.fitted = true;
  const StepperRun traced = runEngine(program, f64, tokens);
  EXPECT_TRUE(traced.hasNodeTrace());
  for (size_t t = 0; t < tokens.size(); ++t)
    EXPECT_EQ(traced.floatOutputs[t], exact.floatOutputs[t]) << "step " << t;
  const Divergence inside = firstDivergence(exact, traced);
  if (inside.found) {
    EXPECT_TRUE(inside.node.inProgramTerms) << inside.describe();
    EXPECT_FALSE(inside.node.context.empty()) << inside.describe();
  }
}

// The engine chooser, used with the mouse and the keyboard.
TEST(EngineChooser, OffersFp32AndFittedConstants) {
  EngineChooser chooser;
  chooser.show();
  auto boxes = chooser.findChildren<QComboBox*>();
  QComboBox* mode = nullptr;
  for (QComboBox* b : boxes)
    if (b->count() == 6) mode = b;  // program ×2, compiled ×3, weights file
  ASSERT_NE(mode, nullptr);
  QCheckBox* fit = nullptr;
  for (QCheckBox* c : chooser.findChildren<QCheckBox*>())
    if (c->text() == QStringLiteral("fit constants")) fit = c;
  ASSERT_NE(fit, nullptr);
  EXPECT_FALSE(fit->isEnabled());  // program runs have nothing to fit
  mode->setFocus();
  for (int i = 0; i < 4; ++i) QTest::keyClick(mode, Qt::Key_Down);
  ASSERT_TRUE(fit->isEnabled());
  QTest::mouseClick(fit, Qt::LeftButton, {}, QPoint(6, fit->height() / 2));
  const EngineSpec s = chooser.spec();
  EXPECT_EQ(s.label(), "compiled fp32, fitted");
  EXPECT_TRUE(s.fp32 && s.fitted && !s.exact);
  chooser.setSpec(EngineSpec::compiled(true));
  EXPECT_EQ(chooser.spec(), EngineSpec::compiled(true));
}

// The point size the editor's box titles (13 px) have on screen in `view`.
double titlePointsOnScreen(const ValueGraphView& view) {
  return 13.0 * 72.0 / view.logicalDpiY() * view.zoom();
}

// Whether the box showing program node `id` lies whole inside the viewport.
bool nodeOnScreen(const ValueGraphView& view, NodeId id) {
  const auto ref = view.graphScene()->visibleRefOfNode(id);
  const BoxItem* box = ref ? view.graphScene()->boxOf(*ref) : nullptr;
  if (box == nullptr) return false;
  const QRect r = view.mapFromScene(box->sceneBoundingRect()).boundingRect();
  return view.viewport()->rect().contains(r);
}

class StepperViewTest : public ::testing::Test {
 protected:
  test::ViewOnExample<StepperView> shown{kProgram, QSize(1600, 1000)};
  Document& doc = shown.doc;
  std::unique_ptr<StepperView>& view = shown.view;
};

TEST_F(StepperViewTest, StepsTheProgramAndTheCompiledModelToTheDictionaryValue) {
  // Opening tok2tok prefills the builder's example prompt (the same dictionary).
  EXPECT_EQ(view->tokenTable()->tokenWidth(), 1);
  EXPECT_EQ(view->tokenTable()->rowCount(), 27);
  QString error;
  ASSERT_TRUE(view->loadInputFile(test::examplePath(kInput), &error)) << error.toStdString();
  const SequenceBatch input = exampleInput();
  const ExactSequence& tokens = input.sequences.at(0);
  ASSERT_EQ(view->tokenTable()->tokens(), tokens);
  const std::vector<ExactVector> reference = lsrlRunExact(doc.graph(), tokens);

  QSignalSpy steps(view.get(), &StepperView::currentStepChanged);
  QSignalSpy series(view.get(), &StepperView::seriesAvailable);
  view->setEngines(EngineSpec::program(true), std::nullopt);
  view->startRun();
  EXPECT_TRUE(view->isRunning() || view->runA() != nullptr);
  ASSERT_TRUE(view->waitForRun());
  ASSERT_NE(view->runA(), nullptr) << view->lastError().toStdString();
  EXPECT_EQ(series.count(), 1);
  const int last = view->stepCount() - 1;
  ASSERT_EQ(last, 26);
  EXPECT_EQ(view->currentStep(), last);  // a run ends on its last step
  EXPECT_EQ(view->runA()->exactOutputs, reference);
  EXPECT_TRUE(view->outputText().contains(QStringLiteral("[5]")))
      << view->outputText().toStdString();
  test::saveScreenshot(*view, QStringLiteral("stepper_program_end"));

  // Watch a state; step back, forward and back again: the values follow the trace.
  const NodeId reg = doc.graph().findByName("reg_1");
  ASSERT_NE(reg, kNoNode);
  view->addWatch(reg);
  const auto* tree = view->findChild<QTreeWidget*>();
  ASSERT_NE(tree, nullptr);
  auto watchedText = [&] { return tree->topLevelItem(0)->text(1).toStdString(); };
  EXPECT_EQ(watchedText(), view->runA()->valueText(reg, last));
  const std::string atLast = watchedText();
  view->stepBack();
  EXPECT_EQ(view->currentStep(), last - 1);
  EXPECT_EQ(watchedText(), view->runA()->valueText(reg, last - 1));
  EXPECT_TRUE(view->outputText().contains(QStringLiteral("[2]")));
  view->stepForward();
  EXPECT_EQ(watchedText(), atLast);
  view->stepBack();
  EXPECT_EQ(watchedText(), view->runA()->valueText(reg, last - 1));
  EXPECT_GE(steps.count(), 3);
  // The first LinState's series: one row per step, labelled with the program's names.
  const auto s = view->stateSeries();
  ASSERT_FALSE(s.empty());
  EXPECT_EQ(s.front().steps(), 27);
  NodeId firstState = kNoNode;
  for (NodeId id : view->runA()->tracedNodes())
    if (firstState == kNoNode && doc.graph().node(id).op == Op::LinState) firstState = id;
  ASSERT_NE(firstState, kNoNode);
  EXPECT_EQ(s.front().labels.front(), doc.graph().node(firstState).name + "[0]");
  EXPECT_EQ(s.front().values.at(3), view->runA()->value(firstState, 3));
  test::saveScreenshot(*view, QStringLiteral("stepper_program_step_back"));
  view->graphView()->centerOnNode(reg);
  test::saveScreenshot(*view, QStringLiteral("stepper_program_zoomed"));

  // The compiled model (exact), stepped to its end: the same value.
  view->setEngines(EngineSpec::compiled(true), std::nullopt);
  view->startRun();
  ASSERT_TRUE(view->waitForRun());
  ASSERT_NE(view->runA(), nullptr) << view->lastError().toStdString();
  EXPECT_EQ(view->runA()->spec.source, RunSource::Compiled);
  EXPECT_EQ(view->runA()->exactOutputs, reference);
  EXPECT_EQ(lastTokens(view->runA()->exactOutputs, 3),
            input.extra.at("expected").get<std::vector<int>>());
  EXPECT_TRUE(view->outputText().contains(QStringLiteral("[5]")));
  EXPECT_FALSE(view->stateSeries().empty());
  test::saveScreenshot(*view, QStringLiteral("stepper_compiled_exact_end"));
}

TEST_F(StepperViewTest, FindsWhereFloat64CompileDivergesFromExact) {
  // tok2tok's float instability (docs/compiler.md): the paper's plain algorithm in float64,
  // on a dictionary it answers wrong (seed 9: float64 rows are summed by decreasing
  // magnitude, which answers seeds 0-8 right).
  view->setEngines(EngineSpec::program(true), EngineSpec::compiled(false, /*optimize=*/false));
  view->promptBuilder()->setTok2tokRandom(4, 10, 9);
  QString description;
  const ExactSequence tokens = view->promptBuilder()->build(&description);
  view->setTokens(tokens);
  view->startRun();
  ASSERT_TRUE(view->waitForRun());
  ASSERT_NE(view->runB(), nullptr) << view->lastError().toStdString();
  ASSERT_TRUE(view->divergence().has_value());
  const Divergence& d = *view->divergence();
  std::printf("%s (%s); float compile %.2f s, labels %.2f s, run %.3f s\n", d.describe().c_str(),
              description.toStdString().c_str(), view->runB()->compileSeconds,
              view->runB()->labelSeconds, view->runB()->runSeconds);
  ASSERT_TRUE(d.found);
  EXPECT_GE(d.step, 0);
  EXPECT_LT(d.step, static_cast<int>(tokens.size()));
  // The first program node where the float64 path's value differs from the exact program's.
  EXPECT_TRUE(d.node.inProgramTerms);
  EXPECT_NE(d.compared.find("program nodes held by both runs"), std::string::npos);
  EXPECT_NE(d.describe().find("program node " + std::to_string(d.node.a)), std::string::npos);
  EXPECT_NE(d.valueA, d.valueB);
  EXPECT_NE(d.describe().find("first divergence: t = " + std::to_string(d.step)),
            std::string::npos);
  // The exact program's last outputs are the dictionary value; the float model's are not.
  const Tok2tokCase c = randomDictionary(4, 3, 10, 9);
  EXPECT_EQ(lastTokens(view->runA()->exactOutputs, 3), tok2tokExpected(c.dictionary, c.query, 3));
  std::vector<int> floatAnswer;
  for (size_t t = tokens.size() - 3; t < tokens.size(); ++t)
    floatAnswer.push_back(static_cast<int>(std::lround(view->runB()->floatOutputs[t].at(0))));
  EXPECT_NE(floatAnswer, tok2tokExpected(c.dictionary, c.query, 3));
  std::printf("float64 answer %d %d %d\n", floatAnswer[0], floatAnswer[1], floatAnswer[2]);
  view->goToDivergence();
  EXPECT_EQ(view->currentStep(), d.step);
  EXPECT_TRUE(nodeOnScreen(*view->graphView(), d.node.a));
  EXPECT_GE(titlePointsOnScreen(*view->graphView()), 9.0);
  test::saveScreenshot(*view, QStringLiteral("stepper_divergence"));

  // The same compile in both backends, compared in program terms too: the first program
  // node to diverge is named (the exact compile keeps the zeros the float64 one loses).
  view->setEngines(EngineSpec::compiled(true), EngineSpec::compiled(false));
  view->startRun();
  ASSERT_TRUE(view->waitForRun());
  ASSERT_TRUE(view->divergence() && view->divergence()->found);
  const Divergence& p = *view->divergence();
  std::printf("%s\n", p.describe().c_str());
  EXPECT_TRUE(p.node.inProgramTerms);
  EXPECT_NE(p.node.a, kNoNode);
  EXPECT_LE(p.step, d.step);
  view->goToDivergence();
  test::saveScreenshot(*view, QStringLiteral("stepper_divergence_compiled"));
}

TEST_F(StepperViewTest, CompilesInTheBackgroundAndCancels) {
  // The paper's plain algorithm takes seconds: Run returns at once, Cancel stops it.
  view->setEngines(EngineSpec::compiled(false, /*optimize=*/false), std::nullopt);
  QSignalSpy finished(view.get(), &StepperView::runFinished);
  QElapsedTimer timer;
  timer.start();
  view->startRun();
  const qint64 startMs = timer.elapsed();
  EXPECT_LT(startMs, 200);
  EXPECT_TRUE(view->isRunning());
  QTest::qWait(100);
  view->cancelRun();
  ASSERT_TRUE(view->waitForRun(20000));
  std::printf("Run returned after %lld ms; cancelled after %lld ms\n",
              static_cast<long long>(startMs), static_cast<long long>(timer.elapsed()));
  ASSERT_EQ(finished.count(), 1);
  EXPECT_FALSE(finished.at(0).at(0).toBool());
  EXPECT_EQ(view->lastError(), QStringLiteral("run cancelled"));
  EXPECT_EQ(view->runA(), nullptr);
}

TEST_F(StepperViewTest, ShowStepRunsWhenNothingRanYet) {
  EXPECT_TRUE(view->showStep(17));
  EXPECT_EQ(view->currentStep(), 17);
  EXPECT_FALSE(view->showStep(27));  // 27 tokens: steps 0..26
  test::saveScreenshot(*view, QStringLiteral("stepper_show_step_17"));
  // Editing the program drops the results.
  doc.rename(doc.graph().findByName("reg_0"), "reg_zero");
  EXPECT_EQ(view->runA(), nullptr);
}

TEST_F(StepperViewTest, BuildsPromptsAndRejectsBadTokens) {
  PromptBuilder* b = view->promptBuilder();
  b->setMoreOnes(QStringLiteral("1101"));
  EXPECT_EQ(b->build().size(), 4u);
  b->setMoreOnes(QStringLiteral("1121"));
  EXPECT_THROW(b->build(), Error);
  b->setVec2vec(2, 1, 4, QStringLiteral("3/10, 7/10"), 0, 1);
  const ExactSequence v = b->build();
  EXPECT_EQ(v.size(), 17u);  // query + N^n cells
  EXPECT_EQ(v.front().size(), 4u);
  b->setTok2tok(QStringLiteral("1 2 3 : 4 5 6"), QStringLiteral("1 2 4"), 3);
  EXPECT_THROW(b->build(), Error);  // the query is not a key
  view->setTokens({{Exact(1)}, {Exact(2)}});
  EXPECT_EQ(view->tokenTable()->tokens().size(), 2u);
}

// The graph opens readable (the output framed, box titles >= 9 pt, not the whole program
// as specks), the wheel zooms around the cursor and + - 0 zoom and fit.
TEST_F(StepperViewTest, OpensTheGraphReadableAndZoomsLikeTheEditor) {
  view->startRun();
  ASSERT_TRUE(view->waitForRun());
  QApplication::processEvents();
  ValueGraphView* graph = view->graphView();
  EXPECT_GE(titlePointsOnScreen(*graph), 9.0);
  EXPECT_TRUE(nodeOnScreen(*graph, doc.graph().output()));
  test::saveScreenshot(*view, QStringLiteral("stepper_opens_readable"));

  QWidget* vp = graph->viewport();
  const double z0 = graph->zoom();
  const QPoint at(vp->width() / 4, vp->height() / 2);
  const QPointF under = graph->mapToScene(at);
  QWheelEvent wheel(at, vp->mapToGlobal(at), QPoint(), QPoint(0, -120), Qt::NoButton,
                    Qt::ControlModifier, Qt::NoScrollPhase, false);
  QApplication::sendEvent(vp, &wheel);
  EXPECT_NEAR(graph->zoom(), z0 / 1.2, 0.02);
  EXPECT_LT(QLineF(graph->mapFromScene(under), at).length(), 2.0);
  QTest::keyClick(graph, Qt::Key_0);
  EXPECT_TRUE(graph->visibleSceneRect().contains(graph->graphScene()->contentRect()));
  QTest::keyClick(graph, Qt::Key_Plus);
  QTest::keyClick(graph, Qt::Key_Minus);
  // A drag anywhere pans (the view takes no clicks).
  const QPoint centre = vp->rect().center();
  const QPointF before = graph->mapToScene(centre);
  QTest::mousePress(vp, Qt::LeftButton, {}, centre);
  QTest::mouseMove(vp, centre + QPoint(60, 40));
  QTest::mouseRelease(vp, Qt::LeftButton, {}, centre + QPoint(60, 40));
  EXPECT_LT(QLineF(graph->mapToScene(centre), before - QPointF(60, 40) / graph->zoom()).length(),
            2.0);
}

}  // namespace
}  // namespace lsrl::studio
