// Export → import (core/targets/import.h) through safetensors: every target comes back as a
// float64 model whose outputs are bit-identical to the original's float64 pass, and
// broken files are refused with errors that name the tensor and both shapes.
#include "core/targets/import.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>
#include <random>
#include <string>

#include "core/io/safetensors.h"
#include "targets/arch_helpers.h"

namespace lsrl {
namespace {

using testing_arch::allTargetConfigs;
using testing_arch::errorOf;
using testing_arch::mat;
using testing_arch::randomTokens;
using testing_arch::TargetConfig;
using testing_arch::vec;

using testing_arch::multiFreePath;
using testing_arch::pathWithMulti;

// Through the bytes of a safetensors file, as a user would.
FloatTargetModel roundTrip(const TargetModel& m) {
  return importTargetModel(safetensorsFromBytes(safetensorsToBytes(toTensorFile(m))), "test");
}

TEST(ArchImport, EveryTargetRoundTripsBitIdentically) {
  std::mt19937 rng(31);
  for (const Graph& g : {pathWithMulti(), multiFreePath()}) {
    const int d = g.node(g.input()).dim;
    const FloatSequence tokens = floatTokens(randomTokens(rng, 14, d));
    for (const TargetConfig& c : allTargetConfigs(14)) {
      SCOPED_TRACE(c.label);
      if ((c.target == Target::LinearRnn || c.target == Target::Rnn) && firstMulti(g) != kNoNode) {
        continue;
      }
      const TargetModel m = buildTarget(g, c.target, c.options);
      const FloatTargetModel back = roundTrip(m);
      EXPECT_EQ(back.target, c.target);
      EXPECT_EQ(back.inputDim(), d);
      EXPECT_EQ(back.outputDim(), m.nf.outputDim());
      const FloatSequence want = m.runFloat(tokens);
      const FloatSequence got = back.run(tokens);
      ASSERT_EQ(got.size(), want.size());
      for (size_t t = 0; t < want.size(); ++t) {
        ASSERT_EQ(got[t].size(), want[t].size());
        for (size_t i = 0; i < want[t].size(); ++i) {
          // Bit-identical, not merely close.
          EXPECT_EQ(got[t][i], want[t][i]) << "token " << t << ", component " << i;
        }
      }
    }
  }
}

TEST(ArchImport, ThroughAFile) {
  const TargetModel m = buildTarget(pathWithMulti(), Target::Lstm);
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("lsrl_arch_import_" + std::to_string(::getpid()) + ".safetensors"))
                               .string();
  writeSafetensors(path, toTensorFile(m));
  const FloatTargetModel back = readTargetModel(path);
  std::filesystem::remove(path);
  std::mt19937 rng(32);
  const FloatSequence tokens = floatTokens(randomTokens(rng, 9, 2));
  EXPECT_EQ(back.run(tokens), m.runFloat(tokens));
}

TEST(ArchImport, BrokenFilesAreRefusedByName) {
  TargetOptions box;
  box.shift.horizon = 14;
  for (Target t : {Target::GatedRnn, Target::Gru, Target::Lstm, Target::Hawk}) {
    SCOPED_TRACE(std::string(targetName(t)));
    const TensorFile good = toTensorFile(buildTarget(pathWithMulti(), t, box));
    EXPECT_NO_THROW(importTargetModel(good, "good.safetensors"));
    // A missing tensor: the second one (the first layer's recurrent weight in every arch).
    TensorFile missing = good;
    const std::string name = missing.tensors[1].name;
    missing.tensors.erase(missing.tensors.begin() + 1);
    const std::string m1 = errorOf([&] { importTargetModel(missing, "m.safetensors"); });
    EXPECT_NE(m1.find("m.safetensors"), std::string::npos) << m1;
    EXPECT_NE(m1.find("missing tensor '" + name + "'"), std::string::npos) << m1;
    // A mis-shaped one: one row fewer.
    TensorFile shaped = good;
    Tensor& w = shaped.tensors[0];
    const std::string expected = shapeText(w.shape);
    w.shape[0] -= 1;
    w.data.resize(w.data.size() - (w.shape.size() > 1 ? static_cast<size_t>(w.shape[1]) : 1));
    const std::string m2 = errorOf([&] { importTargetModel(shaped, "s.safetensors"); });
    EXPECT_NE(m2.find("'" + w.name + "'"), std::string::npos) << m2;
    EXPECT_NE(m2.find("shape " + shapeText(w.shape)), std::string::npos) << m2;
    EXPECT_NE(m2.find("expected " + expected), std::string::npos) << m2;
  }
}

TEST(ArchImport, UnknownArchAndMissingMetadata) {
  TensorFile file = toTensorFile(buildTarget(pathWithMulti(), Target::GatedLinearRnn));
  nlohmann::json meta = nlohmann::json::parse(file.metadataJson);
  meta["arch"] = "transformer";
  file.metadataJson = meta.dump();
  const std::string m1 = errorOf([&] { importTargetModel(file, "x.safetensors"); });
  EXPECT_NE(m1.find("unknown arch \"transformer\""), std::string::npos) << m1;
  file.metadataJson.clear();
  const std::string m2 = errorOf([&] { importTargetModel(file, "x.safetensors"); });
  EXPECT_NE(m2.find("no \"lsrl\" metadata"), std::string::npos) << m2;
  file.metadataJson = "{\"arch\": \"gru\"}";
  const std::string m3 = errorOf([&] { importTargetModel(file, "x.safetensors"); });
  EXPECT_NE(m3.find("gru_update"), std::string::npos) << m3;
}

}  // namespace
}  // namespace lsrl
