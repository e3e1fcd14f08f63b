// The target options of `lsrl compile` and `lsrl export` (app/cli/target_options.h): the
// exported weights are those of buildTarget with the same options, they read back through
// core/io's safetensors reader and core/targets/import.h to the model's own float64 outputs,
// options recorded by compile apply at export, and bad or missing options are named.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <random>

#include "cli/cli_test_util.h"
#include "core/compiler/model_file.h"
#include "core/io/safetensors.h"
#include "core/targets/import.h"
#include "core/targets/targets.h"

namespace lsrl::cli {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

using test::lsrl;

std::vector<std::string> operator+(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

json metadataOf(const TensorFile& file) { return json::parse(file.metadataJson); }

class TargetOptionsCli : public test::CliFixture {
 protected:
  // Writes program `name` (with --set values) and compiles it exactly to m.json.
  void compileProgram(const std::string& name, const std::vector<std::string>& sets) {
    std::vector<std::string> args = {"program", name};
    for (const std::string& s : sets) args = args + std::vector<std::string>{"--set", s};
    ASSERT_EQ(lsrl(args + std::vector<std::string>{"-o", path("p.json")}).code, 0);
    const test::Result c = lsrl({"compile", path("p.json"), "-o", path("m.json")});
    ASSERT_EQ(c.code, 0) << c.err;
  }

  // Exports m.json with `options` on the command line and checks the file against
  // buildTarget(path, target, expected): the same tensors, and float64 outputs of the
  // imported model identical to the model's own runFloat on random sequences.
  json exportAndCompare(Target target, const std::vector<std::string>& options,
                        const TargetOptions& expected, int sequenceLength) {
    const std::string file = path(std::string(targetName(target)) + ".safetensors");
    const test::Result r = lsrl(std::vector<std::string>{"export", path("m.json"), "--target",
                                                         std::string(targetName(target))} +
                                options + std::vector<std::string>{"-o", file});
    EXPECT_EQ(r.code, 0) << r.err;
    if (r.code != 0) return {};
    const TensorFile read = readSafetensors(file);
    const TargetModel own = buildTarget(loadModelFile(path("m.json")).path, target, expected);
    const std::vector<Tensor> ownTensors = own.tensors();
    EXPECT_EQ(read.tensors.size(), ownTensors.size());
    for (size_t i = 0; i < std::min(read.tensors.size(), ownTensors.size()); ++i) {
      EXPECT_EQ(read.tensors[i].name, ownTensors[i].name);
      EXPECT_EQ(read.tensors[i].shape, ownTensors[i].shape) << ownTensors[i].name;
      EXPECT_EQ(read.tensors[i].data, ownTensors[i].data) << ownTensors[i].name;
    }
    const FloatTargetModel imported = importTargetModel(read, file);
    std::mt19937 rng(7);
    std::uniform_real_distribution<double> unit(-1.0, 1.0);
    for (int trial = 0; trial < 3; ++trial) {
      std::vector<std::vector<double>> tokens(static_cast<size_t>(sequenceLength));
      for (auto& t : tokens) {
        for (int k = 0; k < imported.inputDim(); ++k) t.push_back(unit(rng));
      }
      EXPECT_EQ(imported.run(tokens), own.runFloat(tokens)) << targetName(target);
    }
    return metadataOf(read);
  }
};

TEST_F(TargetOptionsCli, GruLstmAndHawkExportsMatchTheModelTheyDescribe) {
  // vec2vec has Multi nodes: gated layers, GRU/LSTM product layers, Hawk products.
  compileProgram("vec2vec", {"n=1", "m=1", "conditional=multiplicative"});

  TargetOptions paper;
  paper.gruUpdate = GruUpdate::Paper;
  const json gru = exportAndCompare(Target::Gru, {"--gru-update", "paper"}, paper, 5);
  EXPECT_EQ(gru.value("gru_update", ""), "paper");
  EXPECT_TRUE(gru.value("input_box", json()).is_null());

  TargetOptions bounded;
  bounded.shift.inputLo = Exact(-2);
  bounded.shift.inputHi = Exact(3);
  bounded.shift.horizon = 4;
  const json pytorch =
      exportAndCompare(Target::Gru, {"--box", "-2,3", "--horizon", "4"}, bounded, 4);
  EXPECT_EQ(pytorch.value("gru_update", ""), "pytorch");
  EXPECT_EQ(pytorch.value("input_box", json()), json::array({-2.0, 3.0}));
  EXPECT_EQ(pytorch.value("max_seq_len", json()), 4);

  TargetOptions stacked;
  stacked.stacked = true;
  const json lstm = exportAndCompare(Target::Lstm, {"--stacked"}, stacked, 5);
  EXPECT_EQ(lstm.value("stacked", false), true);

  TargetOptions hawk;
  hawk.shift.horizon = 6;
  hawk.hawkResidual = false;
  const json h =
      exportAndCompare(Target::Hawk, {"--horizon", "6", "--hawk-residual", "off"}, hawk, 6);
  EXPECT_EQ(h.value("max_seq_len", json()), 6);
  EXPECT_EQ(h.value("residual", true), false);
}

TEST_F(TargetOptionsCli, ShiftPositivityUsesTheBoxAndHorizon) {
  compileProgram("more_ones", {});
  TargetOptions shift;
  shift.positivity = Positivity::Shift;
  shift.shift.inputLo = Exact(0);
  shift.shift.inputHi = Exact(1);
  shift.shift.horizon = 8;
  const json rnn = exportAndCompare(
      Target::Rnn, {"--positivity", "shift", "--box", "0,1", "--horizon", "8"}, shift, 8);
  EXPECT_EQ(rnn.value("positivity", ""), "shift");
  EXPECT_EQ(rnn.value("max_seq_len", json()), 8);
}

TEST_F(TargetOptionsCli, MissingHorizonOrBoxIsNamed) {
  compileProgram("more_ones", {});  // counts ones: its state never forgets its input
  const test::Result hawk =
      lsrl({"export", path("m.json"), "--target", "hawk", "-o", path("h.st")});
  EXPECT_EQ(hawk.code, 1);
  EXPECT_NE(hawk.err.find("--horizon T"), std::string::npos) << hawk.err;
  EXPECT_FALSE(fs::exists(path("h.st")));

  const test::Result gru = lsrl({"export", path("m.json"), "--target", "gru", "-o", path("g.st")});
  EXPECT_EQ(gru.code, 1);
  EXPECT_NE(gru.err.find("needs --box LO,HI and --horizon T"), std::string::npos) << gru.err;
  EXPECT_NE(gru.err.find("--gru-update paper"), std::string::npos) << gru.err;
  const test::Result shift = lsrl({"export", path("m.json"), "--target", "lstm", "--positivity",
                                   "shift", "--box", "0,1", "-o", path("g.st")});
  EXPECT_EQ(shift.code, 1);
  EXPECT_NE(shift.err.find("--positivity shift needs --horizon T"), std::string::npos) << shift.err;
  EXPECT_FALSE(fs::exists(path("g.st")));

  // compile --target checks the same before writing anything.
  const test::Result c =
      lsrl({"compile", path("p.json"), "--target", "hawk", "-o", path("c.json")});
  EXPECT_EQ(c.code, 1);
  EXPECT_NE(c.err.find("--horizon T"), std::string::npos) << c.err;
  EXPECT_FALSE(fs::exists(path("c.json")));
}

TEST_F(TargetOptionsCli, BadValuesNameTheOptionAndWhatWasExpected) {
  compileProgram("more_ones", {});
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--target", "gru", "--gru-update", "keras"}, "--gru-update expects paper or pytorch"},
      {{"--target", "rnn", "--positivity", "abs"}, "--positivity expects split or shift"},
      {{"--target", "gru", "--box", "1", "--horizon", "3"}, "--box expects LO,HI"},
      {{"--target", "gru", "--box", "2,1", "--horizon", "3"}, "LO <= HI"},
      {{"--target", "gru", "--box", "x,1", "--horizon", "3"}, "--box: LO \"x\""},
      {{"--target", "hawk", "--horizon", "0"}, "--horizon expects an integer in 1.."},
      {{"--target", "hawk", "--hawk-residual", "yes"}, "--hawk-residual expects on or off"},
      {{"--target", "lstm", "--gru-update", "paper"},
       "--gru-update does not apply to --target lstm"},
      {{"--target", "linear-rnn", "--stacked"}, "--stacked does not apply"},
      {{"--target", "hawk", "--box", "0,1"}, "--box does not apply to --target hawk"},
      {{"--target", "lstm", "--horizon", "3"}, "--horizon does not apply to --target lstm"},
      {{"--target", "gated-linear-rnn", "--positivity", "split"}, "--positivity does not apply"}};
  for (const auto& [options, expected] : cases) {
    const test::Result r = lsrl(std::vector<std::string>{"export", path("m.json")} + options +
                                std::vector<std::string>{"-o", path("x.st")});
    EXPECT_EQ(r.code, 1) << expected;
    EXPECT_NE(r.err.find(expected), std::string::npos)
        << "expected \"" << expected << "\" in " << r.err;
  }
  EXPECT_FALSE(fs::exists(path("x.st")));
  // With the constants as built, nothing but a target reads the horizon (with the default
  // precision it is the domain's: precision_cli_test.cpp).
  const test::Result noTarget = lsrl(
      {"compile", path("p.json"), "--precision", "exact", "--horizon", "3", "-o", path("c.json")});
  EXPECT_EQ(noTarget.code, 1);
  EXPECT_NE(noTarget.err.find("--horizon needs --target"), std::string::npos) << noTarget.err;
  EXPECT_FALSE(fs::exists(path("c.json")));
}

TEST_F(TargetOptionsCli, CompileRecordsTheOptionsForExport) {
  compileProgram("more_ones", {});
  const test::Result c = lsrl({"compile", path("p.json"), "--target", "hawk", "--horizon", "5",
                               "--hawk-residual", "off", "-o", path("h.json")});
  ASSERT_EQ(c.code, 0) << c.err;
  EXPECT_EQ(loadModelFile(path("h.json")).compiled["target_options"],
            json({{"horizon", "5"}, {"hawk-residual", "off"}}));

  ASSERT_EQ(lsrl({"export", path("h.json"), "-o", path("a.st")}).code, 0);
  const json recorded = metadataOf(readSafetensors(path("a.st")));
  EXPECT_EQ(recorded.value("max_seq_len", json()), 5);
  EXPECT_EQ(recorded.value("residual", true), false);

  // An option given again at export wins over the recorded one.
  ASSERT_EQ(lsrl({"export", path("h.json"), "--horizon", "7", "-o", path("b.st")}).code, 0);
  const json overridden = metadataOf(readSafetensors(path("b.st")));
  EXPECT_EQ(overridden.value("max_seq_len", json()), 7);
  EXPECT_EQ(overridden.value("residual", true), false);

  // Another target does not inherit hawk's options (lstm would refuse --horizon).
  const test::Result lstm =
      lsrl({"export", path("h.json"), "--target", "lstm", "-o", path("l.st")});
  EXPECT_EQ(lstm.code, 0) << lstm.err;
}

}  // namespace
}  // namespace lsrl::cli
