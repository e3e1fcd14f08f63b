// `lsrl run --backend cpu32 | vulkan`: a compiled model in fp32 batch on the CPU runner
// and on the Vulkan device give the same outputs; misuse is refused with the reason.
// (Without a device the command fails with it: VulkanDevice.WithoutADriverTheCliSaysWhyAndFails
// covers the fresh-process case.)
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "cli/cli_test_util.h"
#include "vulkan/vulkan_test_util.h"

namespace lsrl::cli::test {
namespace {

class RunBackends : public CliFixture {};

TEST_F(RunBackends, Fp32OnCpuAndVulkanAgree) {
  LSRL_VULKAN_DEVICE(dev);
  (void)dev;
  ASSERT_EQ(lsrl({"program", "tok2tok", "--set", "L=3", "--set", "conditional=multiplicative", "-o",
                  path("p.json")})
                .code,
            0);
  ASSERT_EQ(lsrl({"compile", path("p.json"), "-o", path("m.json")}).code, 0);
  ASSERT_EQ(lsrl({"prompt", "tok2tok", "--random", "5", "--seed", "3", "-o", path("in.json")}).code,
            0);
  const Result cpu =
      lsrl({"run", path("m.json"), "--input", path("in.json"), "--backend", "cpu32"});
  const Result gpu =
      lsrl({"run", path("m.json"), "--input", path("in.json"), "--backend", "vulkan"});
  ASSERT_EQ(cpu.code, 0) << cpu.err;
  ASSERT_EQ(gpu.code, 0) << gpu.err;
  const auto a = nlohmann::json::parse(cpu.out), b = nlohmann::json::parse(gpu.out);
  EXPECT_EQ(a["backend"], "cpu32");
  EXPECT_EQ(b["backend"], "vulkan");
  ASSERT_EQ(a["outputs"].size(), b["outputs"].size());
  ASSERT_EQ(a["outputs"].size(), 33u);  // the 3-token query, then 5 entries of 6 tokens
  for (size_t t = 0; t < a["outputs"].size(); ++t) {
    const double x = a["outputs"][t][0], y = b["outputs"][t][0];
    EXPECT_LE(std::fabs(x - y), 1e-5 * (1 + std::fabs(x))) << "token " << t;
  }
}

TEST_F(RunBackends, MisuseIsRefusedWithTheReason) {
  ASSERT_EQ(lsrl({"program", "more_ones", "-o", path("p.json")}).code, 0);
  write("in.json", R"({"tokens": [[1], [0], [1]]})");
  Result r = lsrl({"run", path("p.json"), "--input", path("in.json"), "--backend", "cpu32"});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("not a path (compile it first)"), std::string::npos) << r.err;
  r = lsrl({"run", path("p.json"), "--input", path("in.json"), "--backend", "fp16"});
  EXPECT_NE(r.err.find("unknown --backend \"fp16\""), std::string::npos) << r.err;
  r = lsrl({"run", path("p.json"), "--input", path("in.json"), "--backend", "cpu32", "--trace",
            path("t.json")});
  EXPECT_NE(r.err.find("--trace needs"), std::string::npos) << r.err;
  r = lsrl({"run", path("p.json"), "--input", path("in.json"), "--backend", "vulkan", "--exact"});
  EXPECT_NE(r.err.find("--exact contradicts"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace lsrl::cli::test
