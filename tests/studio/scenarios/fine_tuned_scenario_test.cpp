// A fine-tuned weights file in the Token stepper, as a researcher meets it after training a
// compiled program in PyTorch and saving it back (lsrl.torch.save_compiled): the program
// opened through File > Open, the file chosen as engine B through its file dialog, run, the
// first divergence read and gone to, and "What training moved…" showing the moved tensor
// on top with its ΔW. Mouse and keyboard only; the widgets are read to check what a person
// sees. The file is made here as the Python side writes it (studio/fine_tuned_file.h).
#include <QHeaderView>
#include <QLabel>
#include <QTableView>
#include <QTextDocumentFragment>

#include "app/studio/common/paper_prompt.h"
#include "app/studio/plots/heatmap_widget.h"
#include "app/studio/stepper/engine_chooser.h"
#include "app/studio/stepper/stepper_view.h"
#include "app/studio/stepper/token_table.h"
#include "app/studio/stepper/weights_change_view.h"
#include "core/io/graph_file.h"
#include "studio/fine_tuned_file.h"
#include "studio/scenarios/scenario_driver.h"

namespace lsrl::studio::scenario {
namespace {

// Training moved one recurrent weight of more_ones' GRU: on the stepper's prompt
// (10110001) the outputs part at t = 4, where the program says 1 and the file 0.
constexpr const char* kMovedTensor = "gru.0.weight_hh_l0";
constexpr size_t kMovedEntry = 4;
constexpr double kMovedBy = 0.25;

// The text of the visible label under `root` that starts with `prefix`, as shown; or empty.
QString labelStartingWith(QWidget* root, const QString& prefix) {
  for (QLabel* l : root->findChildren<QLabel*>()) {
    const QString shown = QTextDocumentFragment::fromHtml(l->text()).toPlainText();
    if (l->isVisible() && shown.startsWith(prefix)) return shown;
  }
  return {};
}

// The text of the table's cell (row, column) as shown (rows in the order drawn).
QString shownCell(QTableView* table, int row, int column) {
  return table->model()->index(row, column).data().toString();
}

// The column of the table whose header reads `title`.
int headerColumn(QTableView* table, const QString& title) {
  for (int c = 0; c < table->model()->columnCount(); ++c)
    if (table->model()->headerData(c, Qt::Horizontal).toString() == title) return c;
  return -1;
}

// Clicks the header of column `column` (a sort), as a person does.
void clickHeader(QTableView* table, int column) {
  QHeaderView* header = table->horizontalHeader();
  const int x = header->sectionViewportPosition(column) + header->sectionSize(column) / 2;
  click(header->viewport(), QPoint(x, header->height() / 2));
}

TEST(FineTunedScenario, AFineTunedFileAsEngineBDivergesAndShowsWhatTrainingMoved) {
  Session s;
  // What the researcher brings: the program, and the file training saved from it.
  const QString program = s.files.filePath(QStringLiteral("more_ones.json"));
  ASSERT_TRUE(QFile::copy(QStringLiteral(LSRL_SOURCE_DIR "/examples/more_ones.json"), program));
  const QString tuned = s.files.filePath(QStringLiteral("ft.safetensors"));
  test::FineTuning training;
  training.tensor = kMovedTensor;
  training.entry = kMovedEntry;
  training.by = kMovedBy;
  test::writeFineTunedFile(loadGraphFile(program.toStdString()), tuned.toStdString(), training);

  // File > Open.
  auto answered = std::make_shared<bool>(false);
  answerFileDialog(program, answered);
  menu(*s.window, QStringLiteral("File"), QStringLiteral("Open"));
  ASSERT_TRUE(waitUntil([&] { return *answered; }, 5000)) << "no file dialog appeared";
  ASSERT_TRUE(
      waitUntil([&] { return QFileInfo(s->document()->filePath()) == QFileInfo(program); }, 20000))
      << "the program did not open: " << s->lastError().toStdString();

  // The Token stepper, its prompt prefilled.
  clickTab(s.window.get(), QStringLiteral("Token stepper"));
  auto* stepper = findVisible<StepperView>(s.window.get());
  ASSERT_NE(stepper, nullptr);
  QString bits;
  for (const ExactVector& token : stepper->tokenTable()->tokens())
    bits += QString::fromStdString(token.at(0).toString());
  ASSERT_EQ(bits, QString::fromLatin1(kMoreOnesBits));
  EXPECT_EQ(button(stepper, QStringLiteral("What training moved…")), nullptr)
      << "nothing to compare before a weights file is chosen";

  // Compare with: a weights file, chosen through its dialog.
  auto* compare = qobject_cast<QCheckBox*>(button(stepper, QStringLiteral("compare with")));
  ASSERT_NE(compare, nullptr);
  click(compare);
  ASSERT_TRUE(compare->isChecked());
  const auto choosers = stepper->findChildren<EngineChooser*>();
  ASSERT_EQ(choosers.size(), 2);
  EngineChooser* engineB = choosers[1];
  QComboBox* modeB = comboOffering(engineB, QStringLiteral("weights file…"));
  ASSERT_NE(modeB, nullptr);
  answered = std::make_shared<bool>(false);
  answerFileDialog(tuned, answered);
  chooseInCombo(modeB, QStringLiteral("weights file…"));
  ASSERT_TRUE(waitUntil([&] { return *answered; }, 10000)) << "no file dialog for the weights";
  bool named = false;
  ASSERT_TRUE(waitUntil(
      [&] {
        for (QLabel* l : engineB->findChildren<QLabel*>())
          named = named || (l->isVisible() && l->text() == QStringLiteral("ft.safetensors"));
        return named;
      },
      3000))
      << "engine B names the file";
  checkpoint(*s, QStringLiteral("fine_tuned_1_weights_file_as_b"));

  // Run: the first divergence names the step and the output where they part.
  click(button(stepper, QStringLiteral("Run")));
  ASSERT_TRUE(waitUntil([&] { return stepper->runB() != nullptr && !stepper->isRunning(); }, 60000))
      << stepper->lastError().toStdString();
  const QString divergence = labelStartingWith(stepper, QStringLiteral("first divergence"));
  EXPECT_TRUE(divergence.startsWith(QStringLiteral("first divergence: t = 4, output[0]: 1 vs 0")))
      << divergence.toStdString();
  EXPECT_FALSE(divergence.contains(QStringLiteral("warning"))) << "the file is the program's";
  EXPECT_NE(stepper->outputText().indexOf(QStringLiteral("weights ft.safetensors (fine-tuned)")),
            -1)
      << stepper->outputText().toStdString();
  click(button(stepper, QStringLiteral("Go to first divergence")));
  EXPECT_EQ(stepper->currentStep(), 4);
  checkpoint(*s, QStringLiteral("fine_tuned_2_divergence"));

  // What training moved: the moved tensor on top, its ΔW drawn.
  QAbstractButton* moved = button(stepper, QStringLiteral("What training moved…"));
  ASSERT_NE(moved, nullptr);
  click(moved);
  WeightsChangeView* view = nullptr;
  ASSERT_TRUE(waitUntil(
      [&] {
        view = findVisible<WeightsChangeView>(stepper);
        return view != nullptr && !view->isMeasuring() && view->table()->model()->rowCount() > 0;
      },
      60000))
      << (view ? view->statusText().toStdString() : std::string("no weights view"));
  QTableView* table = view->table();
  EXPECT_EQ(shownCell(table, 0, 0), QString::fromLatin1(kMovedTensor));
  const int changed = headerColumn(table, QStringLiteral("changed"));
  ASSERT_GE(changed, 0);
  EXPECT_TRUE(shownCell(table, 0, changed).startsWith(QStringLiteral("1 of "))) << "one entry";
  EXPECT_EQ(shownCell(table, 0, headerColumn(table, QStringLiteral("max |Δ|"))),
            QStringLiteral("0.25"));
  for (int row = 1; row < table->model()->rowCount(); ++row)
    EXPECT_TRUE(shownCell(table, row, changed).startsWith(QStringLiteral("0 of "))) << row;
  EXPECT_TRUE(view->heatmap()->data().title.contains(QString::fromLatin1(kMovedTensor)));
  EXPECT_TRUE(view->statusText().contains(QStringLiteral("1 of ")));
  checkpoint(*view, QStringLiteral("fine_tuned_3_what_training_moved"));

  // Sortable: ‖ΔW‖ ascending puts it last, a second click first again.
  const int deltaNorm = headerColumn(table, QStringLiteral("‖ΔW‖"));
  ASSERT_GE(deltaNorm, 0);
  clickHeader(table, deltaNorm);
  EXPECT_EQ(shownCell(table, table->model()->rowCount() - 1, 0), QString::fromLatin1(kMovedTensor));
  clickHeader(table, deltaNorm);
  EXPECT_EQ(shownCell(table, 0, 0), QString::fromLatin1(kMovedTensor));
  key(view, Qt::Key_Escape);
  EXPECT_TRUE(waitUntil([&] { return findVisible<WeightsChangeView>(stepper) == nullptr; }, 3000));
}

}  // namespace
}  // namespace lsrl::studio::scenario
