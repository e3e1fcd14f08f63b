// `lsrl model run` and `eval` refuse a seed-model checkpoint with non-finite weights or
// metadata of the wrong type, naming the file (tests/data/robustness: the Lattice
// reproducers once ran and scored with exit 0), and a checkpoint's own "task" entry is
// used only when it names a task of the model.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cli/cli_test_util.h"
#include "core/seed_models/seed_model.h"

namespace lsrl::cli::test {
namespace {

using SeedCheckpointCli = CliFixture;

TEST_F(SeedCheckpointCli, NonFiniteLatticeWeightsAreRefusedByRunAndEval) {
  for (const std::string name : {"lattice_nan_weights", "lattice_inf_weights"}) {
    const std::string weights = LSRL_TEST_DATA_DIR "/robustness/" + name + ".safetensors";
    for (const std::string action : {"run", "eval"}) {
      SCOPED_TRACE(name + " " + action);
      const Result r = lsrl({"model", action, "lattice", "--weights", weights, "--samples", "20"});
      EXPECT_EQ(r.code, 1);
      EXPECT_EQ(r.out, "");
      EXPECT_NE(r.err.find(weights + ": lattice weights: tensor \""), std::string::npos) << r.err;
      EXPECT_NE(r.err.find("has a non-finite entry"), std::string::npos) << r.err;
    }
  }
}

TEST_F(SeedCheckpointCli, ATaskEntryOfTheWrongTypeIsRefused) {
  const auto model = seed_models::makeSeedModel("gateloop", nlohmann::json::object());
  for (const nlohmann::json& task : {nlohmann::json(7), nlohmann::json("sorting")}) {
    SCOPED_TRACE(task.dump());
    seed_models::saveWeights(path("g.safetensors"), "gateloop", model->config(), model->weights(),
                             {{"task", task}});
    const Result r = lsrl({"model", "eval", "gateloop", "--weights", path("g.safetensors")});
    EXPECT_EQ(r.code, 1);
    EXPECT_NE(r.err.find(path("g.safetensors") + ": metadata \"task\": expected"),
              std::string::npos)
        << r.err;
  }
}

}  // namespace
}  // namespace lsrl::cli::test
