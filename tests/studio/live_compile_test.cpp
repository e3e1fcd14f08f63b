// The Live panel's job (app/studio/live/live_compile.h) and its prompt line
// (prompt_text.h, common/paper_prompt.h): the program's outputs and the compiled network's
// on a prompt, the marks where they differ, the size change, problems, prompt errors and
// cancelling; then the panel as a widget on a document (its size limit, its columns).
#include "app/studio/live/live_compile.h"

#include <gtest/gtest.h>

#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QStandardItemModel>
#include <QTableWidget>
#include <atomic>
#include <nlohmann/json.hpp>

#include "app/studio/common/paper_prompt.h"
#include "app/studio/document/document.h"
#include "app/studio/live/live_panel.h"
#include "app/studio/live/prompt_text.h"
#include "core/io/graph_file.h"
#include "core/programs/prompts.h"
#include "core/util/error.h"
#include "studio/studio_test_util.h"

namespace lsrl::studio {
namespace {

Graph example(const char* file) { return loadGraphFile(test::examplePath(file).toStdString()); }

LiveRequest requestFor(const Graph& g) {
  LiveRequest r;
  r.program = g;
  r.prompt = firstPrompt(g).value().tokens;
  return r;
}

TEST(LiveCompile, Tok2tokAnswersTheDictionaryValueInProgramAndBothNetworks) {
  const Graph g = example("tok2tok_L3_direct.json");
  const std::optional<FirstPrompt> first = firstPrompt(g);
  ASSERT_TRUE(first);
  EXPECT_EQ(first->description, "tok2tok: query 4 2 6, expected 9 2 5");
  const LiveResult r = runLiveCompile(requestFor(g));
  ASSERT_TRUE(r.ok()) << r.programError;
  ASSERT_TRUE(r.networkError.empty()) << r.networkError;
  ASSERT_TRUE(r.float64 && r.fp32);
  ASSERT_EQ(r.tokens(), static_cast<int>(first->tokens.size()));
  // The last three outputs are the value stored under the query.
  const int n = r.tokens();
  for (LiveColumn c : {LiveColumn::Program, LiveColumn::Float64, LiveColumn::Fp32}) {
    EXPECT_EQ(r.text(c, n - 3), "[9]");
    EXPECT_EQ(r.text(c, n - 2), "[2]");
    EXPECT_EQ(r.text(c, n - 1), "[5]");
  }
  EXPECT_TRUE(r.differingTokens().empty());
  EXPECT_TRUE(r.float64->certified) << r.float64->certificate;
  EXPECT_TRUE(r.fp32->certified) << r.fp32->certificate;
  EXPECT_GT(r.float64->constantsFitted, 0);
  EXPECT_GT(r.float64->size.layers, 10);
  EXPECT_NE(r.fittedTo.find("whole numbers"), std::string::npos) << r.fittedTo;
  // The history is kept for the Debranching tab, and is replayable.
  ASSERT_TRUE(r.compile);
  EXPECT_NE(r.compile->history, nullptr);
}

TEST(LiveCompile, TheFilesDeclaredDomainIsFittedToWhenAskedAndThePromptLiesInIt) {
  LiveRequest request = requestFor(example("more_ones.json"));
  request.keepHistory = false;
  request.declared.lo = "0";
  request.declared.hi = "1";
  request.declared.grid = "1";
  request.declared.horizon = 100;
  LiveResult r = runLiveCompile(request);
  EXPECT_EQ(r.fittedDomain, "prompt") << "the prompt's domain unless the declared is asked for";
  request.fitToDeclared = true;
  r = runLiveCompile(request);
  ASSERT_TRUE(r.ok() && r.float64) << r.programError << r.networkError;
  EXPECT_EQ(r.fittedDomain, "declared");
  EXPECT_EQ(r.fittedTo, "inputs in [0, 1] (whole numbers), t ≤ 100");
  EXPECT_TRUE(r.notDeclared.empty());

  // A prompt longer than the declared horizon: the prompt's own domain, and why.
  request.declared.horizon = 4;
  r = runLiveCompile(request);
  EXPECT_EQ(r.fittedDomain, "prompt");
  EXPECT_EQ(r.fittedTo, "inputs in [0, 1] (whole numbers), t ≤ 8");
  EXPECT_EQ(r.notDeclared,
            "the prompt's 8 tokens pass the declared inputs in [0, 1] (whole numbers), t ≤ 4");
  // A value off the declared grid.
  request.declared.horizon = 100;
  request.declared.grid = "2";
  r = runLiveCompile(request);
  EXPECT_EQ(r.fittedDomain, "prompt");
  EXPECT_NE(r.notDeclared.find("token 0 (1) leaves the declared"), std::string::npos)
      << r.notDeclared;
  EXPECT_TRUE(r.differingTokens().empty());
}

TEST(LiveCompile, AnExactProgramColumnShowsExactValuesAndATargetColumnItsOwn) {
  const Graph g = example("more_ones.json");
  LiveRequest request = requestFor(g);
  request.exactProgram = true;
  request.target = Target::Lstm;
  const LiveResult r = runLiveCompile(request);
  ASSERT_TRUE(r.ok()) << r.programError;
  ASSERT_TRUE(r.targetError.empty()) << r.targetError;
  ASSERT_EQ(r.target, Target::Lstm);
  // more_ones on 1 0 1 1 0 0 0 1: more ones than zeros so far?
  const std::vector<std::string> expected = {"[1]", "[0]", "[1]", "[1]",
                                             "[1]", "[0]", "[0]", "[0]"};
  ASSERT_EQ(r.tokens(), 8);
  for (int t = 0; t < 8; ++t) {
    EXPECT_EQ(r.text(LiveColumn::Program, t), expected[static_cast<size_t>(t)]) << t;
    EXPECT_EQ(r.text(LiveColumn::Target, t), expected[static_cast<size_t>(t)]) << t;
  }
  EXPECT_TRUE(r.differingTokens().empty());
}

TEST(LiveCompile, ADifferenceIsMarkedAtTheTokenWhereTheShownValuesDiffer) {
  LiveResult r;
  r.tokenTexts = {"0", "1", "2"};
  r.programOutputs = {{1}, {0.5}, {2}};
  r.programTexts = {"[1]", "[1/2]", "[2]"};
  r.float64 = LiveNetwork{};
  r.float64->outputs = {{1.0000000001}, {0.5}, {2.5}};  // equal as shown, equal, differs
  r.fp32 = LiveNetwork{};
  r.fp32->outputs = {{1}, {0.49}, {2}};
  EXPECT_FALSE(r.differs(LiveColumn::Float64, 0));
  EXPECT_FALSE(r.differs(LiveColumn::Float64, 1));
  EXPECT_TRUE(r.differs(LiveColumn::Float64, 2));
  EXPECT_TRUE(r.differs(LiveColumn::Fp32, 1));
  EXPECT_FALSE(r.differs(LiveColumn::Program, 2));
  EXPECT_EQ(r.differingTokens(), (std::vector<int>{1, 2}));
  EXPECT_EQ(r.text(LiveColumn::Program, 1), "[1/2]");
  EXPECT_EQ(r.text(LiveColumn::Fp32, 1), "[0.49]");
  EXPECT_EQ(r.text(LiveColumn::Target, 1), "");
}

TEST(LiveCompile, AProgramWithProblemsIsNotRunAndSaysWhy) {
  Graph g = example("more_ones.json");
  // Cut the output's first input: the program no longer validates.
  g.mutableNode(g.output()).inputs.at(0) = kNoNode;
  LiveRequest request;
  request.program = g;
  request.prompt = {{Exact(1)}};
  const LiveResult r = runLiveCompile(request);
  EXPECT_FALSE(r.ok());
  EXPECT_FALSE(r.problems.empty());
  EXPECT_FALSE(r.float64);
}

TEST(LiveCompile, APromptOfTheWrongWidthNamesTheTokenAndTheWidths) {
  LiveRequest request = requestFor(example("more_ones.json"));
  request.prompt = {{Exact(1)}, {Exact(1), Exact(0)}};
  const LiveResult r = runLiveCompile(request);
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.programError, "prompt token 1 has 2 values; the program's Input takes 1");
}

TEST(LiveCompile, ACancelledJobThrowsCancelled) {
  LiveRequest request = requestFor(example("tok2tok_L3_direct.json"));
  std::atomic<bool> cancel{true};
  EXPECT_THROW(runLiveCompile(request, &cancel), Cancelled);
}

TEST(LiveCompile, SizeChangeNamesWhatGrewAndShrank) {
  GraphSize a, b;
  a.layers = 10;
  a.stateDim = 5;
  a.nonZeroParams = 100;
  b = a;
  EXPECT_EQ(sizeChange(a, b), "same size");
  b.stateDim = 8;
  b.layers = 9;
  b.nonZeroParams = 101;
  EXPECT_EQ(sizeChange(a, b), "\u22121 layer, +3 state dims, +1 non-zero");
}

TEST(PromptText, ParsesTokensAndVectorsAndNamesWhatIsWrong) {
  EXPECT_EQ(parsePromptText("1 0 1", 1), (ExactSequence{{Exact(1)}, {Exact(0)}, {Exact(1)}}));
  EXPECT_EQ(parsePromptText("1, 0,1", 1), (ExactSequence{{Exact(1)}, {Exact(0)}, {Exact(1)}}));
  EXPECT_EQ(parsePromptText("1/2, 3; 0 1", 2),
            (ExactSequence{{Exact::rational(1, 2), Exact(3)}, {Exact(0), Exact(1)}}));
  EXPECT_TRUE(parsePromptText("  ", 1).empty());
  try {
    parsePromptText("1, 2; 3", 2);
    FAIL();
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(),
                 "token 1 has 1 value, the program's Input takes 2 (separate tokens with ';')");
  }
  try {
    parsePromptText("1 x 0", 1);
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("token 1, value 0: \"x\" is not a number"),
              std::string::npos)
        << e.what();
  }
  const ExactSequence v = {{Exact::rational(1, 3), Exact(0)}, {Exact(1), Exact(2)}};
  EXPECT_EQ(promptText(v), "1/3, 0; 1, 2");
  EXPECT_EQ(parsePromptText(promptText(v), 2), v);
  EXPECT_EQ(promptText({{Exact(1)}, {Exact(0)}}), "1 0");
}

TEST(PaperPrompt, GuessesThePaperProgramsAndGivesOthersBits) {
  EXPECT_EQ(guessPaperProgram(example("more_ones.json")).program, PaperProgram::MoreOnes);
  const PaperProgramGuess tok = guessPaperProgram(example("tok2tok_L3_direct.json"));
  EXPECT_EQ(tok.program, PaperProgram::Tok2tok);
  EXPECT_EQ(tok.L, 3);
  EXPECT_EQ(guessPaperProgram(example("vec2vec_n2_m1_direct.json")).program, PaperProgram::Vec2vec);
  EXPECT_FALSE(firstPrompt(Graph{}));
  const std::optional<FirstPrompt> vec = firstPrompt(example("vec2vec_n2_m1_direct.json"));
  ASSERT_TRUE(vec);
  EXPECT_EQ(vec->tokens.front().size(), 4u);
}

}  // namespace
}  // namespace lsrl::studio

// ---- the panel, as a widget on a document ---------------------------------------------

namespace lsrl::studio {
namespace {

QString lastCell(LivePanel& panel, int column) {
  QTableWidget* t = panel.table();
  return t->rowCount() > 0 && t->item(t->rowCount() - 1, column)
             ? t->item(t->rowCount() - 1, column)->text()
             : QString();
}

TEST(LivePanel, ABigProgramWaitsForCompileNowAndSaysWhy) {
  Document doc;
  LivePanel panel(&doc);
  panel.setAutoCompileLimit(100);
  panel.show();
  doc.openFile(test::examplePath("tok2tok_L3_direct.json"));
  ASSERT_TRUE(panel.waitUntilCurrent());
  EXPECT_TRUE(panel.statusLabel()->text().contains(QStringLiteral("Press Compile now")))
      << panel.statusLabel()->text().toStdString();
  EXPECT_TRUE(panel.result() == nullptr || !panel.result()->float64) << "nothing compiled";
  panel.compileNowButton()->click();
  ASSERT_TRUE(panel.waitUntilCurrent());
  ASSERT_NE(panel.result(), nullptr);
  EXPECT_TRUE(panel.result()->ok());
  EXPECT_EQ(lastCell(panel, 4), QStringLiteral("[5]"));
  // The next edit waits again: Compile now is for the program as it was.
  doc.rename(doc.graph().output(), "answer");
  ASSERT_TRUE(panel.waitUntilCurrent());
  EXPECT_TRUE(panel.statusLabel()->text().contains(QStringLiteral("Press Compile now")));
  EXPECT_FALSE(panel.table()->isEnabled()) << "the last good result, greyed out";
}

TEST(LivePanel, TheFilesDomainIsOfferedOnlyWhenTheFileDeclaresOne) {
  Document doc;
  LivePanel panel(&doc);
  panel.show();
  auto* model = qobject_cast<QStandardItemModel*>(panel.domainBox()->model());
  ASSERT_NE(model, nullptr);
  doc.openFile(test::examplePath("more_ones.json"));  // declares no domain
  ASSERT_TRUE(panel.waitUntilCurrent());
  EXPECT_FALSE(model->item(1)->isEnabled());
  EXPECT_TRUE(panel.statusLabel()->text().contains(QStringLiteral("the prompt's domain")));

  nlohmann::json meta = {{"domain", {{"box", {"0", "1"}}, {"grid", "1"}, {"horizon", 50}}}};
  doc.setGraph(loadGraphFile(test::examplePath("more_ones.json").toStdString()), meta,
               QStringLiteral("more_ones with a domain"));
  ASSERT_TRUE(panel.waitUntilCurrent());
  EXPECT_TRUE(model->item(1)->isEnabled());
  panel.domainBox()->setCurrentIndex(1);
  ASSERT_TRUE(panel.waitUntilCurrent());
  EXPECT_TRUE(panel.statusLabel()->text().contains(
      QStringLiteral("the declared domain, inputs in [0, 1] (whole numbers), t ≤ 50")))
      << panel.statusLabel()->text().toStdString();
}

TEST(LivePanel, APromptTypedWrongSaysWhereAndTheExactModeAndATargetAddTheirColumns) {
  Document doc;
  LivePanel panel(&doc);
  panel.show();
  doc.openFile(test::examplePath("more_ones.json"));
  ASSERT_TRUE(panel.waitUntilCurrent());
  EXPECT_EQ(panel.promptField()->text(), QStringLiteral("1 0 1 1 0 0 0 1"));

  panel.promptField()->setText(QStringLiteral("1 0 x"));
  Q_EMIT panel.promptField()->textEdited(panel.promptField()->text());
  ASSERT_TRUE(panel.waitUntilCurrent());
  EXPECT_TRUE(panel.statusLabel()->text().contains(QStringLiteral("token 2, value 0")))
      << panel.statusLabel()->text().toStdString();

  panel.promptField()->setText(QStringLiteral("1 1 0"));
  Q_EMIT panel.promptField()->textEdited(panel.promptField()->text());
  panel.programModeBox()->setCurrentIndex(1);  // exact
  panel.targetBox()->setCurrentIndex(panel.targetBox()->findText(QStringLiteral("lstm")));
  ASSERT_TRUE(panel.waitUntilCurrent());
  ASSERT_NE(panel.result(), nullptr);
  ASSERT_TRUE(panel.result()->ok()) << panel.result()->programError;
  EXPECT_EQ(panel.table()->rowCount(), 3);
  EXPECT_FALSE(panel.table()->isColumnHidden(5));
  EXPECT_EQ(panel.table()->horizontalHeaderItem(5)->text(), QStringLiteral("lstm"));
  EXPECT_EQ(lastCell(panel, 2), QStringLiteral("[1]"));
  EXPECT_EQ(lastCell(panel, 5), QStringLiteral("[1]"));

  // The prompt the person typed stays through a reload of the same file, and goes to the
  // Token stepper with one click.
  QSignalSpy toStepper(&panel, &LivePanel::stepperRequested);
  panel.stepperButton()->click();
  ASSERT_EQ(toStepper.count(), 1);
  EXPECT_EQ(toStepper.at(0).at(0).value<ExactSequence>().size(), 3u);
}

}  // namespace
}  // namespace lsrl::studio
