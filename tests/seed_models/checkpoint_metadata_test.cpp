// A checkpoint's metadata is checked by type (core/seed_models/checkpoint_metadata.h): an
// entry a reader uses ("config", "task", the "training" record's) of the wrong type, or a
// "task" the model does not have, is refused naming the file, the key, expected and got,
// when a file is read and when one is written; a trained checkpoint's entries load as
// they were written.
#include "core/seed_models/checkpoint_metadata.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "common/expect_error.h"
#include "common/temp_path.h"
#include "core/io/safetensors.h"
#include "core/seed_models/seed_model.h"

namespace lsrl::seed_models {
namespace {

using nlohmann::json;
using testing_common::expectError;

class CheckpointMetadata : public ::testing::Test {
 protected:
  void TearDown() override { std::filesystem::remove(path_); }
  // A valid mingru checkpoint with `extra` metadata, written without checks.
  void write(const json& extra) const {
    const auto model = makeSeedModel("mingru", json::object());
    saveWeights(path_, "mingru", model->config(), model->weights(), extra);
  }

  const std::string path_ = testing_common::tempPath("lsrl_ckpt_meta_", "m.safetensors");
};

TEST_F(CheckpointMetadata, ATrainedCheckpointLoadsWithItsEntries) {
  const json extra = {{"task", "hold"},
                      {"training",
                       {{"steps", 5},
                        {"lr", 0.003},
                        {"interrupted", false},
                        {"eval_accuracy", 0.5},
                        {"init", "a.safetensors"},
                        {"extra_note", {1, 2}}}}};
  const auto model = makeSeedModel("mingru", json::object());
  saveSeedModel(*model, path_, extra);
  json meta;
  loadSeedModel("mingru", path_, &meta);
  EXPECT_EQ(meta["task"], "hold");
  EXPECT_EQ(meta["training"], extra["training"]);
}

TEST_F(CheckpointMetadata, AnEntryOfTheWrongTypeIsRefusedNamingTheKey) {
  const struct {
    json extra;
    std::string message;
  } cases[] = {
      {{{"task", 42}}, "metadata \"task\": expected a string, got the number 42"},
      {{{"task", "nope"}},
       "metadata \"task\": expected one of this model's tasks (selective_copy, hold), got the "
       "string \"nope\""},
      {{{"training", "fast"}}, "metadata \"training\": expected an object, got the string"},
      {{{"training", {{"steps", "10"}}}},
       "metadata \"training\" \"steps\": expected an integer in 0..2147483647, got the string"},
      {{{"training", {{"steps", -1}}}}, "\"steps\": expected an integer in 0..2147483647"},
      {{{"training", {{"interrupted", 1}}}}, "\"interrupted\": expected true or false"},
      {{{"training", {{"eval_accuracy", 1.5}}}}, "\"eval_accuracy\": expected a number in 0..1"},
      {{{"training", {{"init", json::array()}}}},
       "\"init\": expected a string, got an empty array"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.extra.dump());
    write(c.extra);
    expectError([&] { loadSeedModel("mingru", path_); }, path_, c.message);
    const auto model = makeSeedModel("mingru", json::object());
    expectError([&] { saveSeedModel(*model, path_, c.extra); }, path_, c.message);
  }
}

TEST_F(CheckpointMetadata, AConfigThatIsNoObjectIsRefused) {
  const auto model = makeSeedModel("mingru", json::object());
  TensorFile file;
  file.tensors = model->weights();
  file.metadataJson = R"({"model": "mingru", "config": "big"})";
  writeSafetensors(path_, file);
  expectError([&] { loadSeedModel("mingru", path_); }, path_,
              "metadata \"config\": expected an object, got the string \"big\"");
}

}  // namespace
}  // namespace lsrl::seed_models
