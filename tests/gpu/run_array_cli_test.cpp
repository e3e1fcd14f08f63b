// `lsrl run --input IN.npy|IN.safetensors -o OUT --backend vulkan [--precision fp64]`: a binary
// batch on the device gives exactly the JSON path's outputs for the same prompts (the same
// batches of sequences on the same runner), for compiled models and target weights.
#include <gtest/gtest.h>

#include <string>

#include "cli/array_run_test_util.h"
#include "cli/cli_test_util.h"
#include "gpu/vulkan_test_util.h"

namespace lsrl::cli::test {
namespace {

class RunArrayVulkan : public CliFixture {
 protected:
  void SetUp() override {
    CliFixture::SetUp();
    // 40 prompts (lavapipe runs a few thousand tokens per second here).
    for (const char* ext : {".npy", ".safetensors", ".json"}) {
      const Result r = lsrl({"prompt", "tok2tok", "--random", "4", "--count", "40", "--seed", "2",
                             "-o", path(std::string("in") + ext)});
      ASSERT_EQ(r.code, 0) << r.err;
    }
  }
};

TEST_F(RunArrayVulkan, Fp32MatchesTheJsonPathForModelsAndWeights) {
  LSRL_VULKAN_DEVICE(dev);
  (void)dev;
  const Result c = fp32Tok2tok("multiplicative", path("p.json"), path("m.json"));
  ASSERT_EQ(c.code, 0) << c.err;
  const Result e = lsrl({"export", path("m.json"), "--format", "safetensors", "--target", "lstm",
                         "-o", path("w.safetensors")});
  ASSERT_EQ(e.code, 0) << e.err;
  for (const char* file : {"m.json", "w.safetensors"}) {
    SCOPED_TRACE(file);
    const Tensor out = expectBinaryRunMatchesJson(path(file), path("in.npy"), path("in.json"),
                                                  path("out.safetensors"), {"--backend", "vulkan"});
    EXPECT_EQ(out.dtype, Tensor::F32);
    EXPECT_EQ(out.shape, (std::vector<int64_t>{40, 27, 1}));
    // Fitted for fp32: every answer right.
    const TensorFile prompts = readSafetensors(path("in.safetensors"));
    ASSERT_EQ(prompts.tensors.size(), 2u);
    size_t wrong = 0;
    for (size_t b = 0; b < 40; ++b)
      for (size_t k = 0; k < 3; ++k)
        wrong += out.data[b * 27 + 24 + k] != prompts.tensors[1].data[b * 3 + k];
    EXPECT_EQ(wrong, 0u);
  }
}

TEST_F(RunArrayVulkan, Fp64MatchesTheJsonPath) {
  LSRL_VULKAN_DEVICE(dev);
  if (!dev.info().shaderFloat64) GTEST_SKIP() << dev.info().name << " has no shaderFloat64";
  ASSERT_EQ(lsrl({"program", "tok2tok", "--set", "L=3", "-o", path("p.json")}).code, 0);
  ASSERT_EQ(lsrl({"compile", path("p.json"), "-o", path("m.json")}).code, 0);
  const Tensor out =
      expectBinaryRunMatchesJson(path("m.json"), path("in.safetensors"), path("in.json"),
                                 path("out.npy"), {"--backend", "vulkan", "--precision", "fp64"});
  EXPECT_EQ(out.dtype, Tensor::F64);
}

}  // namespace
}  // namespace lsrl::cli::test
