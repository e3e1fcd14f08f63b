// `lsrl run MODEL.json --backend vulkan --precision fp64`: a compiled model in fp64 on the
// device gives the float64 executor's outputs (to 1e-12 relative) and tok2tok's expected
// answers, the output records the precision, and misuse is refused with the reason.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>

#include "cli/cli_test_util.h"
#include "gpu/vulkan_test_util.h"

namespace lsrl::cli::test {
namespace {

class RunFp64 : public CliFixture {};

TEST_F(RunFp64, MatchesFloat64AndRecordsThePrecision) {
  LSRL_VULKAN_DEVICE(dev);
  if (!dev.info().shaderFloat64) GTEST_SKIP() << dev.info().name << " has no shaderFloat64";
  ASSERT_EQ(lsrl({"program", "tok2tok", "--set", "L=3", "-o", path("p.json")}).code, 0);
  ASSERT_EQ(lsrl({"compile", path("p.json"), "-o", path("m.json")}).code, 0);
  ASSERT_EQ(
      lsrl({"prompt", "tok2tok", "--random", "25", "--seed", "4", "-o", path("in.json")}).code, 0);
  auto run = [&](const std::vector<std::string>& extra) {
    std::vector<std::string> args = {"run", path("m.json"), "--input", path("in.json")};
    args.insert(args.end(), extra.begin(), extra.end());
    const Result r = lsrl(args);
    EXPECT_EQ(r.code, 0) << r.err;
    return r.code == 0 ? nlohmann::json::parse(r.out) : nlohmann::json::object();
  };
  const nlohmann::json cpu = run({});
  const nlohmann::json fp64 = run({"--backend", "vulkan", "--precision", "fp64"});
  EXPECT_EQ(fp64["backend"], "vulkan");
  EXPECT_EQ(fp64["precision"], "fp64");
  EXPECT_EQ(run({"--backend", "vulkan", "--precision", "float64"})["precision"], "fp64");
  EXPECT_EQ(run({"--backend", "vulkan"})["precision"], "fp32");
  EXPECT_EQ(run({"--backend", "cpu32", "--precision", "fp32"})["precision"], "fp32");
  ASSERT_EQ(cpu["outputs"].size(), 153u);  // T = 3·(2·25 + 1)
  ASSERT_EQ(fp64["outputs"].size(), cpu["outputs"].size());
  for (size_t t = 0; t < cpu["outputs"].size(); ++t) {
    const double want = cpu["outputs"][t][0], got = fp64["outputs"][t][0];
    EXPECT_LE(std::fabs(got - want), 1e-12 * (1 + std::fabs(want))) << "token " << t;
  }
  std::ifstream promptFile(path("in.json"));
  const nlohmann::json expected = nlohmann::json::parse(promptFile)["expected"];
  for (size_t k = 0; k < 3; ++k)
    EXPECT_EQ(std::lround(fp64["outputs"][150 + k][0].get<double>()),
              std::lround(expected[k].get<double>()))
        << k;
}

TEST_F(RunFp64, MisuseIsRefusedWithTheReason) {
  ASSERT_EQ(lsrl({"program", "more_ones", "-o", path("p.json")}).code, 0);
  ASSERT_EQ(lsrl({"compile", path("p.json"), "-o", path("m.json")}).code, 0);
  write("in.json", R"({"tokens": [[1], [0], [1]]})");
  auto expectRefusal = [&](const std::vector<std::string>& extra, const std::string& file,
                           const std::string& reason) {
    std::vector<std::string> args = {"run", file, "--input", path("in.json")};
    args.insert(args.end(), extra.begin(), extra.end());
    const Result r = lsrl(args);
    EXPECT_EQ(r.code, 1) << r.out;
    EXPECT_NE(r.err.find(reason), std::string::npos) << r.err;
  };
  expectRefusal({"--backend", "cpu32", "--precision", "fp64"}, path("m.json"),
                "--precision fp64 needs --backend vulkan: the CPU batch runner is fp32");
  expectRefusal({"--precision", "fp64"}, path("m.json"),
                "--precision fp64 applies to the batch backends (--backend vulkan); --backend "
                "float64 computes in float64 on the CPU");
  expectRefusal({"--exact", "--precision", "fp32"}, path("m.json"),
                "--backend exact computes in exact arithmetic");
  expectRefusal({"--backend", "vulkan", "--precision", "fp16"}, path("m.json"),
                "unknown --precision \"fp16\" (fp32, fp64)");
  // A target architecture's weights have no fp64 path (only compiled models do).
  ASSERT_EQ(lsrl({"export", path("m.json"), "--format", "safetensors", "--target", "gated-rnn",
                  "-o", path("w.safetensors")})
                .code,
            0);
  expectRefusal({"--backend", "vulkan", "--precision", "fp64"}, path("w.safetensors"),
                "--precision fp64 runs compiled models (path graphs) only");
}

}  // namespace
}  // namespace lsrl::cli::test
