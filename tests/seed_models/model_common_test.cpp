// The seed models' shared scaffolding (core/seed_models/model_common.h): portable seeded
// random numbers, weights files with their config, traces and the size checks.
#include "core/seed_models/model_common.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "common/expect_error.h"
#include "common/temp_path.h"
#include "core/io/safetensors.h"

namespace lsrl::seed_models {
namespace {

using testing_common::tempPath;

TEST(ModelRng, IsDeterministicAndRoughlyStandardNormal) {
  Rng a(7), b(7), c(8);
  EXPECT_EQ(a.next(), b.next());
  EXPECT_NE(a.next(), c.next());
  // splitmix64's first output for seed 0 (a published reference value).
  EXPECT_EQ(Rng(0).next(), 0xE220A8397B1DCDAFull);
  Rng r(1);
  double sum = 0, sq = 0;
  const int n = 20000;
  for (int i = 0; i < n; ++i) {
    const double x = r.normal();
    sum += x;
    sq += x * x;
  }
  EXPECT_NEAR(sum / n, 0.0, 0.03);
  EXPECT_NEAR(sq / n, 1.0, 0.05);
  for (int i = 0; i < 1000; ++i) {
    const double u = r.uniform(-2, 3);
    EXPECT_GE(u, -2);
    EXPECT_LT(u, 3);
  }
}

TEST(ModelWeights, RoundTripWithConfigAndShapeChecks) {
  Rng rng(3);
  const std::vector<Tensor> tensors = {randomNormal(rng, "w", {2, 3}, 0.5), filled("b", {3}, 0.25)};
  const std::string path = tempPath("lsrl_models_", "weights.safetensors");
  saveWeights(path, "mingru", {{"d", 3}}, tensors);
  const LoadedWeights w = loadWeights(path, "mingru");
  EXPECT_EQ(w.config["d"], 3);
  EXPECT_EQ(w.get("w", {2, 3}).data, tensors[0].data);
  testing_common::expectError([&] { w.get("w", {3, 2}); }, "\"w\"", "is [2, 3], expected [3, 2]");
  testing_common::expectError([&] { w.get("u", {1}); }, path, "no tensor \"u\"");
  testing_common::expectError([&] { loadWeights(path, "lattice"); }, path,
                              "holds a mingru model, not lattice");
  TensorFile plain;
  plain.tensors = tensors;
  writeSafetensors(path, plain);
  testing_common::expectError([&] { loadWeights(path, "mingru"); }, path,
                              "not a seed-model weights file");
  std::filesystem::remove(path);
}

TEST(ModelTrace, HoldsNamedArraysAndWritesJson) {
  Trace t;
  t.add("gates", {2, 2}, {1, 2, 3, 4});
  t.add("norm", {2}, {1, std::nan("")});
  EXPECT_TRUE(t.has("gates"));
  EXPECT_EQ(t.get("gates").shape, (std::vector<int64_t>{2, 2}));
  const nlohmann::json j = t.toJson("mingru");
  EXPECT_EQ(j["model"], "mingru");
  EXPECT_EQ(j["arrays"]["gates"]["data"][3], 4);
  EXPECT_TRUE(j["arrays"]["norm"]["data"][1].is_null());  // JSON has no NaN
  testing_common::expectError([&] { t.add("bad", {3}, {1, 2}); }, "\"bad\"", "expected 3, got 2");
  testing_common::expectError([&] { t.get("slots"); }, "trace", "no array \"slots\"");
  testing_common::expectError(
      [&] {
        requireWidth("lattice", {{1, 2}, {1}}, 2);
      },
      "lattice", "token 1 has 1 features, expected 2");
}

}  // namespace
}  // namespace lsrl::seed_models
