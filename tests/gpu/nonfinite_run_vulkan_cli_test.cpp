// `lsrl run --backend vulkan` of a run that overflows: the device keeps no layer's values,
// so a non-finite output is located by running its sequence again on the CPU twin (the fp32
// CPU runner; the float64 executor for --precision fp64), and the run is refused naming that
// place, or kept with one warning under --allow-nonfinite (tests/cli/nonfinite_run_cli_test.cpp
// has the CPU backends).
#include <gtest/gtest.h>

#include <cstdlib>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "cli/cli_test_util.h"
#include "gpu/vulkan_test_util.h"

namespace lsrl::cli::test {
namespace {

const std::string kModel = robustnessFile("more_ones_exact.model.json");

// The scan calibration measured on first use goes to the test's folder, not the user's cache.
class NonFiniteVulkanRun : public CliFixture {
 protected:
  void SetUp() override {
    CliFixture::SetUp();
    if (const char* outer = std::getenv("LSRL_CACHE_DIR")) saved_ = outer;
    ::setenv("LSRL_CACHE_DIR", path("cache").c_str(), 1);
  }
  void TearDown() override {
    if (saved_) {
      ::setenv("LSRL_CACHE_DIR", saved_->c_str(), 1);
    } else {
      ::unsetenv("LSRL_CACHE_DIR");
    }
    CliFixture::TearDown();
  }

  std::optional<std::string> saved_;
};

TEST_F(NonFiniteVulkanRun, AnOverflowIsRefusedWhereTheCpuTwinFindsIt) {
  LSRL_VULKAN_DEVICE(dev);
  struct Case {
    std::vector<std::string> args;
    std::string message;
  };
  std::vector<Case> cases = {
      {{"--input", robustnessFile("fp32max.json")},
       "token 0: node 2 (Linear) overflowed to +infinity (component 0) in fp32"}};
  if (dev.info().shaderFloat64)
    cases.push_back({{"--input", robustnessFile("f64max.json"), "--precision", "fp64"},
                     "token 0: node 2 (Linear) overflowed to +infinity (component 0) in fp64"});
  for (const Case& c : cases) {
    SCOPED_TRACE(c.message);
    std::vector<std::string> args = {"run", kModel, "--backend", "vulkan"};
    args.insert(args.end(), c.args.begin(), c.args.end());
    const Result refused = lsrl(args);
    EXPECT_EQ(refused.code, 1) << refused.out << refused.err;
    EXPECT_EQ(refused.out, "");
    EXPECT_NE(refused.err.find(c.message), std::string::npos) << refused.err;

    args.push_back("--allow-nonfinite");
    std::string warnings;
    const Result allowed = lsrlWithWarnings(args, warnings);
    ASSERT_EQ(allowed.code, 0) << allowed.err;
    const nlohmann::json answer = nlohmann::json::parse(allowed.out);  // outlives the loop
    for (const auto& row : answer["outputs"])
      EXPECT_EQ(row, nlohmann::json::array({"nan"})) << allowed.out;
    EXPECT_NE(warnings.find("warning: " + c.message), std::string::npos) << warnings;
  }
}

}  // namespace
}  // namespace lsrl::cli::test
