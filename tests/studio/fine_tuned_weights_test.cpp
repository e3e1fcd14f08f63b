// A weights file as an engine of the Token stepper (exported, or fine-tuned in PyTorch and
// saved back with lsrl.torch.save_compiled), and what training moved: the file against the
// weights rebuilt from the program, tensor by tensor.
#include <gtest/gtest.h>

#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QLabel>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QTemporaryDir>
#include <cmath>

#include "app/studio/plots/heatmap_widget.h"
#include "app/studio/stepper/base_weights.h"
#include "app/studio/stepper/divergence.h"
#include "app/studio/stepper/engine_chooser.h"
#include "app/studio/stepper/opened_weights.h"
#include "app/studio/stepper/stepper_run.h"
#include "app/studio/stepper/stepper_view.h"
#include "app/studio/stepper/weights_change.h"
#include "app/studio/stepper/weights_change_view.h"
#include "core/io/graph_file.h"
#include "core/io/sequence_file.h"
#include "core/util/atomic_file.h"
#include "core/util/error.h"
#include "studio/fine_tuned_file.h"
#include "studio/studio_test_util.h"

namespace lsrl::studio {
namespace {

Graph moreOnes() { return loadGraphFile(test::examplePath("more_ones.json").toStdString()); }

ExactSequence moreOnesTokens() {
  return loadSequenceFile(test::examplePath("more_ones_input.json").toStdString()).sequences.at(0);
}

// The moved entry of the tests: the readout's bias, so the outputs part at once, by a
// quarter.
test::FineTuning readoutMoved() {
  test::FineTuning f;
  f.tensor = "readout.bias";
  f.by = 0.25;
  return f;
}

class FineTunedWeights : public ::testing::Test {
 protected:
  std::string path(const char* name) const { return dir.filePath(name).toStdString(); }
  QTemporaryDir dir;
  Graph program = moreOnes();
  ExactSequence tokens = moreOnesTokens();
};

// ---- the weights file as an engine ---------------------------------------------------------

TEST_F(FineTunedWeights, AnUntouchedFileRunsAsTheProgramDoes) {
  const std::string file = path("untouched.safetensors");
  test::writeFineTunedFile(program, file, {});
  const StepperRun p = runEngine(program, EngineSpec::program(true), tokens);
  const StepperRun w = runEngine(program, EngineSpec::weightsFile(file), tokens);
  EXPECT_EQ(w.spec.label(), "weights untouched.safetensors");
  EXPECT_EQ(w.label(), "weights untouched.safetensors (fine-tuned)");
  EXPECT_FALSE(w.hasNodeTrace());
  EXPECT_FALSE(w.isExact());
  EXPECT_TRUE(w.warning.empty()) << w.warning;
  ASSERT_EQ(w.steps(), static_cast<int>(tokens.size()));
  const Divergence d = firstDivergence(p, w);
  EXPECT_FALSE(d.found) << d.describe();
  EXPECT_EQ(d.compared, "outputs only");
}

TEST_F(FineTunedWeights, AMovedReadoutPartsFromTheProgramAtTheFirstStep) {
  const std::string file = path("ft.safetensors");
  test::writeFineTunedFile(program, file, readoutMoved());
  const StepperRun p = runEngine(program, EngineSpec::program(true), tokens);
  const StepperRun w = runEngine(program, EngineSpec::weightsFile(file), tokens);
  const Divergence d = firstDivergence(p, w);
  ASSERT_TRUE(d.found);
  EXPECT_EQ(d.describe(), "first divergence: t = 0, output[0]: 1 vs 1.25 (compared: outputs only)");
}

TEST_F(FineTunedWeights, AnExportedFileIsLabelledSo) {
  const std::string file = path("exported.npz");
  TensorFile weights = test::fineTunedWeights(program, {});
  nlohmann::json meta = nlohmann::json::parse(weights.metadataJson);
  meta.erase("fine_tuned");
  weights.metadataJson = meta.dump();
  writeWeightsFile(weights, file, "npz");
  const StepperRun w = runEngine(program, EngineSpec::weightsFile(file), tokens);
  EXPECT_EQ(w.label(), "weights exported.npz (exported)");
}

TEST_F(FineTunedWeights, AFileForWiderTokensIsRefusedNamingItAndBothWidths) {
  const std::string file = path("wide.safetensors");
  const Graph vec2vec = loadGraphFile(test::examplePath("vec2vec_n2_m1_direct.json").toStdString());
  test::FineTuning f;
  f.target = Target::GatedLinearRnn;
  f.options = {};
  test::writeFineTunedFile(vec2vec, file, f);
  const int width = vec2vec.node(vec2vec.input()).dim;
  try {
    runEngine(program, EngineSpec::weightsFile(file), tokens);
    FAIL() << "a file for " << width << "-wide tokens ran on 1-wide ones";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("wide.safetensors"), std::string::npos) << what;
    EXPECT_NE(what.find("d_in expected 1"), std::string::npos) << what;
    EXPECT_NE(what.find("got " + std::to_string(width)), std::string::npos) << what;
  }
}

TEST_F(FineTunedWeights, AFileFromAnotherProgramRunsWithAWarning) {
  const std::string file = path("other.safetensors");
  TensorFile weights = test::fineTunedWeights(program, {});
  nlohmann::json meta = nlohmann::json::parse(weights.metadataJson);
  meta["source"]["hash"] = "fnv1a64:0123456789abcdef";
  weights.metadataJson = meta.dump();
  writeWeightsFile(weights, file, "safetensors");
  const StepperRun w = runEngine(program, EngineSpec::weightsFile(file), tokens);
  EXPECT_EQ(w.steps(), static_cast<int>(tokens.size()));
  EXPECT_NE(w.warning.find("other.safetensors was built from another program"), std::string::npos)
      << w.warning;
  EXPECT_NE(w.warning.find("fnv1a64:0123456789abcdef"), std::string::npos) << w.warning;
}

TEST_F(FineTunedWeights, AFileThatDoesNotLoadIsAnErrorNamingIt) {
  const std::string file = path("broken.safetensors");
  writeFileAtomically(file, "not a safetensors file");
  try {
    runEngine(program, EngineSpec::weightsFile(file), tokens);
    FAIL() << "a broken file ran";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("broken.safetensors"), std::string::npos) << e.what();
  }
  EXPECT_THROW(runEngine(program, EngineSpec::weightsFile(path("missing.safetensors")), tokens),
               Error);
  EXPECT_THROW(runEngine(program, EngineSpec::weightsFile(""), tokens), Error);
}

// ---- what training moved -------------------------------------------------------------------

TEST_F(FineTunedWeights, AnUntouchedFileMovedNothingThoughItsConstantsWereFitted) {
  const std::string file = path("fitted.safetensors");
  test::FineTuning f;
  InputDomain domain;
  domain.lo = Exact(0);
  domain.hi = Exact(1);
  domain.grid = mpq_class(1);
  domain.horizon = 16;
  f.fit = {{domain, Precision::Float64}};
  test::writeFineTunedFile(program, file, f);
  const WeightsChange c = measureWeightsChange(program, file, std::nullopt);
  EXPECT_EQ(c.tunedFile, "fitted.safetensors");
  EXPECT_NE(c.base.find("the weights rebuilt from the program: gru (gru-update paper), compile "
                        "exact, "
                        "optimised, constants fitted for float64 to inputs in [0, 1]"),
            std::string::npos)
      << c.base;
  EXPECT_TRUE(c.warning.empty()) << c.warning;
  ASSERT_FALSE(c.tensors.empty());
  const std::vector<Tensor> stored = openWeights(file).file.tensors;
  ASSERT_EQ(c.tensors.size(), stored.size());
  for (size_t i = 0; i < c.tensors.size(); ++i) {
    const TensorChange& t = c.tensors[i];
    EXPECT_EQ(t.name, stored[i].name) << "the file's order";
    EXPECT_EQ(t.shape, stored[i].shape);
    EXPECT_EQ(t.deltaNorm, 0) << t.name;
    EXPECT_EQ(t.relative, 0) << t.name;
    EXPECT_EQ(t.maxAbs, 0) << t.name;
    EXPECT_EQ(t.changed, 0) << t.name;
    EXPECT_EQ(t.count, static_cast<long long>(stored[i].data.size()));
  }
}

TEST_F(FineTunedWeights, OneMovedEntryIsTheOnlyChangeWithItsFigures) {
  const std::string file = path("ft.safetensors");
  test::FineTuning f = readoutMoved();
  f.entry = 0;
  test::writeFineTunedFile(program, file, f);
  const std::vector<Tensor> base = test::fineTunedWeights(program, {}).tensors;
  const WeightsChange c = measureWeightsChange(program, file, std::nullopt);
  int moved = 0;
  for (size_t i = 0; i < c.tensors.size(); ++i) {
    const TensorChange& t = c.tensors[i];
    if (t.name != "readout.bias") {
      EXPECT_EQ(t.deltaNorm, 0) << t.name;
      EXPECT_EQ(t.changed, 0) << t.name;
      continue;
    }
    ++moved;
    double norm = 0;
    for (double x : base[i].data) norm += x * x;
    norm = std::sqrt(norm);
    EXPECT_DOUBLE_EQ(t.baseNorm, norm);
    EXPECT_DOUBLE_EQ(t.deltaNorm, 0.25);
    EXPECT_DOUBLE_EQ(t.maxAbs, 0.25);
    EXPECT_DOUBLE_EQ(t.relative, norm > 0 ? 0.25 / norm : std::numeric_limits<double>::infinity());
    EXPECT_EQ(t.changed, 1);
    EXPECT_DOUBLE_EQ(t.delta.at(0), 0.25);
    EXPECT_EQ(deltaGrid(t).cells, std::vector<std::vector<double>>{t.delta}) << "a vector: a row";
  }
  EXPECT_EQ(moved, 1);
}

// A float32 module holds the base rounded to floats: saved untouched, it moved nothing,
// whether its floats are stored in F64 (as save_compiled does) or in F32.
TEST_F(FineTunedWeights, AnFp32ModuleSavedUntouchedMovedNothing) {
  for (const bool storedF32 : {false, true}) {
    const std::string file = path("fp32.safetensors");
    test::FineTuning f;
    f.fp32 = true;
    f.storedF32 = storedF32;
    test::writeFineTunedFile(program, file, f);
    bool rounded = false;  // the base has a value that is no float: the test means something
    for (const Tensor& t : test::fineTunedWeights(program, {}).tensors)
      for (double x : t.data) rounded = rounded || static_cast<float>(x) != x;
    EXPECT_TRUE(rounded);
    for (const TensorChange& t : measureWeightsChange(program, file, std::nullopt).tensors)
      EXPECT_EQ(t.changed, 0) << t.name << (storedF32 ? " (F32)" : " (F64)");
  }
}

// A file made from a compiled model ("from": "model") records the program the model was
// compiled from; the model open in the explorer answers to that hash through its metadata.
TEST_F(FineTunedWeights, AFileOfTheCompiledModelIsRebuiltFromTheModel) {
  WeightsOptions compileOnly;
  compileOnly.last = WeightsStage::Compile;
  const Graph model = compileToWeights(program, compileOnly).path();
  const std::string file = path("model.safetensors");
  test::FineTuning f = readoutMoved();
  f.from = "model";
  TensorFile weights = test::fineTunedWeights(model, f);
  nlohmann::json meta = nlohmann::json::parse(weights.metadataJson);
  meta["source"]["hash"] = graphHash(program);
  weights.metadataJson = meta.dump();
  writeWeightsFile(weights, file, "safetensors");
  const std::vector<std::string> hashes =
      programHashes(model, {{"compiled", {{"source", {{"hash", graphHash(program)}}}}}});
  const WeightsChange c = measureWeightsChange(model, file, std::nullopt, nullptr, hashes);
  EXPECT_NE(c.base.find("the open model as its path"), std::string::npos) << c.base;
  EXPECT_TRUE(c.warning.empty()) << c.warning;
  int moved = 0;
  for (const TensorChange& t : c.tensors) moved += t.changed > 0 ? 1 : 0;
  EXPECT_EQ(moved, 1);
  EXPECT_TRUE(runEngine(model, EngineSpec::weightsFile(file), tokens, {}, hashes).warning.empty());
  EXPECT_FALSE(runEngine(model, EngineSpec::weightsFile(file), tokens).warning.empty())
      << "a model without its metadata does not answer to its program's hash";
}

TEST_F(FineTunedWeights, ABaseFileMayStandForTheRebuild) {
  const std::string base = path("base.safetensors");
  const std::string tuned = path("ft.safetensors");
  test::writeFineTunedFile(program, base, {});
  test::writeFineTunedFile(program, tuned, readoutMoved());
  const WeightsChange c = measureWeightsChange(Graph(), tuned, base);
  EXPECT_EQ(c.base, "base.safetensors");
  int moved = 0;
  for (const TensorChange& t : c.tensors) moved += t.changed > 0 ? 1 : 0;
  EXPECT_EQ(moved, 1);
}

TEST_F(FineTunedWeights, TensorsThatDoNotMatchAreRefusedByName) {
  std::vector<Tensor> base = test::fineTunedWeights(program, {}).tensors;
  std::vector<Tensor> tuned = base;
  tuned.back().name = "renamed";
  try {
    compareTensors(base, tuned);
    FAIL() << "a renamed tensor was compared";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("'" + base.back().name + "' is in the base but not"),
              std::string::npos)
        << e.what();
  }
  tuned = base;
  tuned.front().shape.push_back(1);
  try {
    compareTensors(base, tuned);
    FAIL() << "a reshaped tensor was compared";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("'" + base.front().name + "' has shape"),
              std::string::npos)
        << e.what();
  }
  // A base of another architecture: its tensors are not the file's.
  const std::string other = path("lstm.safetensors");
  const std::string tunedFile = path("ft.safetensors");
  test::FineTuning lstm;
  lstm.target = Target::Lstm;
  lstm.options = {};
  test::writeFineTunedFile(program, other, lstm);
  test::writeFineTunedFile(program, tunedFile, readoutMoved());
  EXPECT_THROW(measureWeightsChange(program, tunedFile, other), Error);
}

TEST_F(FineTunedWeights, AFileThatRecordsNoFineTuningAsksForItsBase) {
  const std::string file = path("exported.safetensors");
  TensorFile weights = test::fineTunedWeights(program, {});
  nlohmann::json meta = nlohmann::json::parse(weights.metadataJson);
  meta.erase("fine_tuned");
  weights.metadataJson = meta.dump();
  writeWeightsFile(weights, file, "safetensors");
  try {
    measureWeightsChange(program, file, std::nullopt);
    FAIL() << "rebuilt a base the file does not describe";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("records no \"fine_tuned\""), std::string::npos)
        << e.what();
  }
}

TEST(WeightsChange, BigTensorsAreDrawnByBlocksKeepingTheLargestChange) {
  TensorChange c;
  c.shape = {4, 6};
  c.count = 24;
  c.delta.assign(24, 0.0);
  c.delta[1 * 6 + 5] = -3;  // row 1, column 5
  c.delta[2 * 6 + 0] = 2;   // row 2, column 0
  const DeltaGrid grid = deltaGrid(c, 2, 3);
  EXPECT_EQ(grid.rowsPerCell, 2);
  EXPECT_EQ(grid.columnsPerCell, 2);
  ASSERT_EQ(grid.cells.size(), 2u);
  ASSERT_EQ(grid.cells[0].size(), 3u);
  EXPECT_EQ(grid.cells[0][2], -3);
  EXPECT_EQ(grid.cells[1][0], 2);
  EXPECT_EQ(grid.cells[0][0], 0);
  c.shape = {2, 2, 6};  // more dimensions: [first, the rest]
  EXPECT_EQ(deltaGrid(c).cells.size(), 2u);
  EXPECT_EQ(deltaGrid(c).cells.front().size(), 12u);
  EXPECT_EQ(deltaGrid(c).rowsPerCell, 1);
}

// ---- the widgets ------------------------------------------------------------------------------

TEST(EngineChooser, KeepsAWeightsFile) {
  EngineChooser chooser;
  chooser.show();
  const EngineSpec weights = EngineSpec::weightsFile("/tmp/x/ft.safetensors");
  chooser.setSpec(weights);
  EXPECT_EQ(chooser.spec(), weights);
  bool named = false;
  for (QLabel* l : chooser.findChildren<QLabel*>()) named = named || l->text() == "ft.safetensors";
  EXPECT_TRUE(named) << "the file's name shows";
  for (QCheckBox* c : chooser.findChildren<QCheckBox*>())
    EXPECT_FALSE(c->isEnabled()) << "nothing to compile: " << c->text().toStdString();
  chooser.setSpec(EngineSpec::compiled(false));
  EXPECT_EQ(chooser.spec(), EngineSpec::compiled(false));
}

TEST_F(FineTunedWeights, TheStepperComparesTheFileAndShowsWhatTrainingMoved) {
  const std::string file = path("ft.safetensors");
  test::ViewOnExample<StepperView> shown("more_ones.json", QSize(1600, 1000));
  test::writeFineTunedFile(shown.doc.graph(), file, readoutMoved());
  StepperView& view = *shown.view;
  QPushButton* moved = nullptr;
  for (QPushButton* b : view.findChildren<QPushButton*>())
    if (b->text() == QStringLiteral("What training moved…")) moved = b;
  ASSERT_NE(moved, nullptr);
  EXPECT_FALSE(moved->isVisible()) << "no weights file chosen yet";
  view.setEngines(EngineSpec::program(true), EngineSpec::weightsFile(file));
  EXPECT_TRUE(moved->isVisible());
  view.startRun();
  ASSERT_TRUE(view.waitForRun()) << view.lastError().toStdString();
  ASSERT_TRUE(view.lastError().isEmpty()) << view.lastError().toStdString();
  ASSERT_TRUE(view.divergence() && view.divergence()->found);
  EXPECT_EQ(view.divergence()->step, 0);
  EXPECT_EQ(view.runB()->label(), "weights ft.safetensors (fine-tuned)");

  WeightsChangeView* weights = view.showWeightsChange();
  ASSERT_NE(weights, nullptr);
  ASSERT_TRUE(weights->waitForMeasure()) << "the base is rebuilt";
  ASSERT_NE(weights->change(), nullptr) << weights->statusText().toStdString();
  QAbstractItemModel* table = weights->table()->model();
  ASSERT_EQ(table->rowCount(), static_cast<int>(weights->change()->tensors.size()));
  EXPECT_EQ(table->index(0, 0).data().toString(), QStringLiteral("readout.bias")) << "on top";
  // The unchanged tensors below it in the file's order.
  int row = 1;
  for (const TensorChange& t : weights->change()->tensors) {
    if (t.name == "readout.bias") continue;
    EXPECT_EQ(table->index(row++, 0).data().toString().toStdString(), t.name);
  }
  EXPECT_EQ(table->index(0, 6).data().toString(), QStringLiteral("1 of 1"));
  EXPECT_EQ(weights->heatmap()->data().rows(), 1);
  test::showAndSaveScreenshot(*weights, QStringLiteral("stepper_weights_change"));
  test::showAndSaveScreenshot(view, QStringLiteral("stepper_weights_file_as_b"));
}

}  // namespace
}  // namespace lsrl::studio
