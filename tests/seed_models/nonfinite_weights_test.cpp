// Every seed model refuses weights holding a NaN or an infinity, given in code
// (makeSeedModel) or read from a file (loadSeedModel: the file and the tensor named),
// through the check all five share (takeWeights, core/seed_models/model_common.h); a
// tensor the config does not name is refused the same way. The Lattice reproducers once
// ran, scored and trained from such weights with exit 0.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <limits>
#include <nlohmann/json.hpp>

#include "common/expect_error.h"
#include "common/temp_path.h"
#include "core/seed_models/seed_model.h"

namespace lsrl::seed_models {
namespace {

using testing_common::expectError;

constexpr double kNonFinite[] = {std::numeric_limits<double>::quiet_NaN(),
                                 std::numeric_limits<double>::infinity(),
                                 -std::numeric_limits<double>::infinity()};

TEST(NonFiniteWeights, EveryModelRefusesThemInEveryTensor) {
  for (const std::string& kind : seedModelKinds()) {
    SCOPED_TRACE(kind);
    const auto model = makeSeedModel(kind, nlohmann::json::object());
    const std::vector<Tensor> good = model->weights();
    ASSERT_NO_THROW(makeSeedModel(kind, model->config(), good));
    for (size_t t = 0; t < good.size(); ++t) {
      for (const double bad : kNonFinite) {
        std::vector<Tensor> weights = good;
        weights[t].data[weights[t].data.size() / 2] = bad;
        expectError([&] { makeSeedModel(kind, model->config(), weights); },
                    kind + " weights: tensor \"" + good[t].name + "\"", "has a non-finite entry");
      }
    }
  }
}

TEST(NonFiniteWeights, AFileWithThemIsRefusedNamingTheFileAndTheTensor) {
  for (const std::string& kind : seedModelKinds()) {
    SCOPED_TRACE(kind);
    const auto model = makeSeedModel(kind, nlohmann::json::object());
    std::vector<Tensor> weights = model->weights();
    weights.back().data.front() = std::numeric_limits<double>::infinity();
    const std::string path = testing_common::tempPath("lsrl_nonfinite_", kind + ".safetensors");
    saveWeights(path, kind, model->config(), weights);  // the raw writer checks nothing
    expectError([&] { loadSeedModel(kind, path); }, path,
                "tensor \"" + weights.back().name + "\" has a non-finite entry (inf at index 0)");
    std::filesystem::remove(path);
  }
}

TEST(NonFiniteWeights, ATensorTheConfigDoesNotNameIsRefused) {
  for (const std::string& kind : seedModelKinds()) {
    SCOPED_TRACE(kind);
    const auto model = makeSeedModel(kind, nlohmann::json::object());
    std::vector<Tensor> weights = model->weights();
    weights.push_back(filled("stray.weight", {2}, 0.0));
    expectError([&] { makeSeedModel(kind, model->config(), weights); }, kind + " weights",
                "unexpected tensor \"stray.weight\" for this config");
  }
}

TEST(NonFiniteWeights, TheLatticeReproducersAreRefused) {
  for (const std::string name : {"lattice_nan_weights", "lattice_inf_weights"}) {
    const std::string path = LSRL_TEST_DATA_DIR "/robustness/" + name + ".safetensors";
    expectError([&] { loadSeedModel("lattice", path); }, path, "has a non-finite entry");
  }
}

}  // namespace
}  // namespace lsrl::seed_models
