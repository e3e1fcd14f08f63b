// `lsrl model`: every seed model runs its default task from the command line and writes a
// trace of named arrays; weights saved by `model save` run again with the same outputs;
// misuse is refused with the reason.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>

#include "cli/cli_test_util.h"
#include "robustness/sanitizer.h"

namespace lsrl::cli::test {
namespace {

class ModelCli : public CliFixture {
 protected:
  std::string read(const std::string& name) const {
    std::ifstream in(path(name));
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  }
};

TEST_F(ModelCli, ListsTheFiveModels) {
  const Result r = lsrl({"model", "list"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  std::vector<std::string> kinds;
  for (const auto& m : doc) {
    kinds.push_back(m["model"]);
    EXPECT_FALSE(m["tasks"].empty()) << m["model"];
  }
  EXPECT_EQ(kinds,
            (std::vector<std::string>{"gateloop", "lattice", "looped", "mingru", "minlstm"}));
}

TEST_F(ModelCli, EveryModelRunsItsDefaultTaskAndWritesATrace) {
  const std::map<std::string, std::string> traced = {{"mingru", "z"},
                                                     {"minlstm", "f_prime"},
                                                     {"gateloop", "a_phase"},
                                                     {"lattice", "slots"},
                                                     {"looped", "attention"}};
  for (const auto& [kind, array] : traced) {
    SCOPED_TRACE(kind);
    const Result r = lsrl({"model", "run", kind, "--trace", path(kind + ".json")});
    ASSERT_EQ(r.code, 0) << r.err;
    const auto out = nlohmann::json::parse(r.out);
    EXPECT_EQ(out["model"], kind);
    EXPECT_EQ(out["backend"], "cpu");
    EXPECT_FALSE(out["task"].get<std::string>().empty());
    EXPECT_FALSE(out["outputs"].empty());
    const auto trace = nlohmann::json::parse(read(kind + ".json"));
    EXPECT_EQ(trace["model"], kind);
    ASSERT_TRUE(trace["arrays"].contains(array));
    size_t count = 1;
    for (const auto& d : trace["arrays"][array]["shape"]) count *= d.get<size_t>();
    EXPECT_EQ(trace["arrays"][array]["data"].size(), count);
  }
}

TEST_F(ModelCli, SavedWeightsRunAgainWithTheSameOutputs) {
  write("cfg.json", R"({"seed": 4, "d": 3, "m": 2})");
  ASSERT_EQ(
      lsrl({"model", "save", "lattice", "--config", path("cfg.json"), "-o", path("w.safetensors")})
          .code,
      0);
  const Result a = lsrl({"model", "run", "lattice", "--config", path("cfg.json"), "--task",
                         "repeated", "--seed", "2"});
  const Result b = lsrl({"model", "run", "lattice", "--weights", path("w.safetensors"), "--task",
                         "repeated", "--seed", "2"});
  ASSERT_EQ(a.code, 0) << a.err;
  ASSERT_EQ(b.code, 0) << b.err;
  EXPECT_EQ(a.out, b.out);
  write("in.json", R"({"tokens": [[1, 0, 0], [0, 1, 0], [0.5, 0.5, 0]]})");
  const Result c = lsrl({"model", "run", "lattice", "--input", path("in.json")});
  ASSERT_EQ(c.code, 0) << c.err;
  EXPECT_EQ(nlohmann::json::parse(c.out)["outputs"].size(), 3u);
}

TEST_F(ModelCli, EvalScoresTaskSamplesAndDefaultsToTheCheckpointsTask) {
  const Result a = lsrl({"model", "eval", "looped", "--samples", "20", "--seed", "3"});
  ASSERT_EQ(a.code, 0) << a.err;
  const auto first = nlohmann::json::parse(a.out);
  EXPECT_EQ(first["model"], "looped");
  EXPECT_EQ(first["task"], "sudoku");  // the first scored task
  EXPECT_EQ(first["samples"], 20);
  EXPECT_EQ(first["targets"], 20 * 8);  // 8 blank cells each
  EXPECT_DOUBLE_EQ(first["accuracy"].get<double>(),
                   first["right"].get<double>() / first["targets"].get<double>());
  const Result lcs = lsrl({"model", "eval", "looped", "--task", "lcs", "--samples", "7"});
  ASSERT_EQ(lcs.code, 0) << lcs.err;
  EXPECT_EQ(nlohmann::json::parse(lcs.out)["targets"], 7);  // the last token of each

  // A checkpoint's metadata names its task: eval and run use it unless told otherwise.
  write("cfg.json", R"({"d_in": 12, "d": 4, "m": 4})");
  ASSERT_EQ(
      lsrl({"model", "save", "lattice", "--config", path("cfg.json"), "-o", path("l.safetensors")})
          .code,
      0);
  const Result bare = lsrl({"model", "eval", "lattice", "--weights", path("l.safetensors")});
  ASSERT_EQ(bare.code, 0) << bare.err;
  EXPECT_EQ(nlohmann::json::parse(bare.out)["task"], "assoc_recall");
  EXPECT_EQ(nlohmann::json::parse(bare.out)["samples"], 1000);
}

// The mean cross-entropy and its exponential beside the accuracy, and for a task with ages
// (assoc_recall, the token model's mqar) the accuracy per age bin, bins without targets
// left out.
TEST_F(ModelCli, EvalReportsLossPerplexityAndAccuracyByAge) {
  const Result plain = lsrl({"model", "eval", "mingru", "--samples", "20"});
  ASSERT_EQ(plain.code, 0) << plain.err;
  const auto a = nlohmann::json::parse(plain.out);
  EXPECT_GT(a["loss"].get<double>(), 0);
  EXPECT_NEAR(a["perplexity"].get<double>(), std::exp(a["loss"].get<double>()), 1e-9);
  EXPECT_FALSE(a.contains("accuracy_by_age"));

  write("recall.json", R"({"d_in": 12, "d": 4, "m": 4})");
  const Result recall =
      lsrl({"model", "eval", "lattice", "--config", path("recall.json"), "--samples", "30"});
  ASSERT_EQ(recall.code, 0) << recall.err;
  const auto r = nlohmann::json::parse(recall.out);
  ASSERT_TRUE(r.contains("accuracy_by_age")) << recall.out;
  EXPECT_EQ(r["accuracy_by_age"].size(), 1u);  // 4 writes then 4 queries: ages 1..7
  EXPECT_EQ(r["accuracy_by_age"]["1-8"]["targets"], r["targets"]);
  EXPECT_EQ(r["accuracy_by_age"]["1-8"]["accuracy"], r["accuracy"]);

  write("mqar.json", R"({"input": "tokens", "d_in": 21})");
  const Result mqar = lsrl({"model", "eval", "lattice", "--config", path("mqar.json"), "--task",
                            "mqar", "--samples", "40"});
  ASSERT_EQ(mqar.code, 0) << mqar.err;
  const auto m = nlohmann::ordered_json::parse(mqar.out);  // the bins in the printed order
  EXPECT_EQ(m["targets"], 40 * 8);
  int64_t binned = 0;
  std::vector<std::string> bins;
  for (const auto& [bin, counts] : m["accuracy_by_age"].items()) {
    bins.push_back(bin);
    binned += counts["targets"].get<int64_t>();
    EXPECT_GT(counts["targets"].get<int64_t>(), 0) << bin;
  }
  EXPECT_EQ(binned, 40 * 8);
  EXPECT_EQ(bins.front(), "1-8");
  EXPECT_GE(bins.size(), 3u);
  const std::vector<std::string> order = {"1-8", "9-16", "17-32", "33-64"};
  EXPECT_EQ(bins, std::vector<std::string>(order.begin(), order.begin() + bins.size()));
}

// Each shipped checkpoint (examples/models/<kind>.safetensors) scores what its record beside
// it says (the figure docs/results.md reports), within a point; the same config with
// random weights scores about chance.
TEST_F(ModelCli, ShippedCheckpointsScoreWhatTheirRecordsSay) {
  if (kAddressSanitizer) GTEST_SKIP() << "5 × 1000 task samples: the release build runs this";
  const std::map<std::string, double> chance = {{"mingru", 1.0 / 16},
                                                {"minlstm", 1.0 / 16},
                                                {"gateloop", 1.0 / 50},
                                                {"lattice", 1.0 / 16},
                                                {"looped", 1.0 / 4}};
  for (const auto& [kind, guess] : chance) {
    SCOPED_TRACE(kind);
    const std::string stem = std::string(LSRL_SOURCE_DIR) + "/examples/models/" + kind;
    std::ifstream in(stem + ".json");
    ASSERT_TRUE(in) << stem << ".json";
    const auto record = nlohmann::json::parse(in);
    const Result trained = lsrl({"model", "eval", kind, "--weights", stem + ".safetensors",
                                 "--samples", "1000", "--seed", "0"});
    ASSERT_EQ(trained.code, 0) << trained.err;
    const auto score = nlohmann::json::parse(trained.out);
    EXPECT_EQ(score["task"], record["task"]);  // the checkpoint's own task by default
    EXPECT_NEAR(score["accuracy"].get<double>(), record["eval_accuracy"].get<double>(), 0.01);
    write(kind + ".json", record["config"].dump());
    const Result random =
        lsrl({"model", "eval", kind, "--config", path(kind + ".json"), "--task",
              record["task"].get<std::string>(), "--samples", "200", "--seed", "0"});
    ASSERT_EQ(random.code, 0) << random.err;
    const double accuracy = nlohmann::json::parse(random.out)["accuracy"].get<double>();
    EXPECT_LT(accuracy, 1.5 * guess) << "chance is " << guess;
    EXPECT_LT(accuracy, score["accuracy"].get<double>() - 0.2);
  }
}

TEST_F(ModelCli, EvalMisuseIsRefusedWithTheReason) {
  auto expectError = [&](const std::vector<std::string>& args, const std::string& part) {
    const Result r = lsrl(args);
    EXPECT_EQ(r.code, 1) << r.out;
    EXPECT_NE(r.err.find(part), std::string::npos) << r.err;
  };
  expectError({"model", "eval", "lattice"}, "no task with targets to score");
  expectError({"model", "eval", "looped", "--task", "random"},
              "task \"random\" has no targets to score");
  expectError({"model", "eval", "mingru", "--samples", "0"}, "--samples");
  expectError({"model", "eval", "mingru", "--trace", path("t.json")}, "--input and --trace");
  expectError({"model", "eval", "mingru", "--batch", "8"}, "--batch sizes the Vulkan backend");
  expectError({"model", "eval", "mingru", "--backend", "vulkan", "--batch", "0"}, "--batch");
  expectError({"model", "run", "mingru", "--batch", "8"}, "--batch is for lsrl model eval");
  expectError({"model", "eval", "mingru", "--profile"},
              "--profile times the Vulkan backend's device work (--backend vulkan)");
  expectError({"model", "run", "mingru", "--profile"},
              "--profile is for lsrl model eval --backend vulkan");
}

TEST_F(ModelCli, MisuseIsRefusedWithTheReason) {
  auto expectError = [&](const std::vector<std::string>& args, const std::string& part) {
    const Result r = lsrl(args);
    EXPECT_EQ(r.code, 1) << r.out;
    EXPECT_NE(r.err.find(part), std::string::npos) << r.err;
  };
  expectError({"model", "run", "mamba"}, "unknown model \"mamba\" (known: gateloop, lattice");
  expectError({"model", "run", "lattice", "--task", "sudoku"}, "sudoku");
  expectError({"model", "fly", "lattice"}, "unknown action \"fly\"");
  expectError({"model", "run"}, "needs a model name");
  write("bad.json", R"({"m": -2})");
  expectError({"model", "run", "lattice", "--config", path("bad.json")}, "\"m\"");
  write("in.json", R"({"tokens": [[1, 0]]})");
  expectError({"model", "run", "lattice", "--input", path("in.json")}, "expected 3");
  expectError({"model", "run", "lattice", "--input", path("in.json"), "--task", "rotating"},
              "not both");
  expectError({"model", "run", "lattice", "--backend", "tpu"}, "unknown --backend \"tpu\"");
  expectError({"model", "save", "lattice"}, "missing -o");
}

}  // namespace
}  // namespace lsrl::cli::test
