// `lsrl train` checks its numeric options and its --init checkpoint itself, before Python
// starts (app/cli/train_arguments.h): each bad value is exit 1 with one line naming the
// option, expected and got, from the C++ side (no torch import, no traceback), in well
// under a second.
#include <gtest/gtest.h>

#include <chrono>
#include <nlohmann/json.hpp>

#include "cli/cli_test_util.h"
#include "core/util/subprocess.h"

namespace lsrl::cli::test {
namespace {

class TrainArgumentsCli : public CliFixture {
 protected:
  // The real binary: a `lsrl train` that passed its checks would replace this process.
  SubprocessResult train(std::vector<std::string> args) const {
    args.insert(args.begin(), {LSRL_CLI_BINARY, "train"});
    const auto start = std::chrono::steady_clock::now();
    const SubprocessResult r = runSubprocess(args, {}, 20000);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    EXPECT_LT(seconds, 2.0) << "refused after Python started?";
    return r;
  }
  void expectRefused(const std::vector<std::string>& option, const std::string& message) const {
    std::vector<std::string> args = {"gateloop"};
    args.insert(args.end(), option.begin(), option.end());
    args.insert(args.end(), {"-o", path("never.safetensors")});
    const SubprocessResult r = train(args);
    EXPECT_EQ(r.exitCode, 1) << r.err;
    EXPECT_EQ(r.err.rfind("lsrl train: error: " + message, 0), 0u) << r.err;
    EXPECT_EQ(r.err.find("Traceback"), std::string::npos) << r.err;
    EXPECT_LE(r.err.size(), 300u) << r.err;
    EXPECT_FALSE(std::filesystem::exists(path("never.safetensors")));
  }
};

TEST_F(TrainArgumentsCli, EveryBadNumericOptionIsRefusedNamingIt) {
  const struct {
    std::vector<std::string> option;
    std::string message;
  } cases[] = {
      {{"--threads", "-4"}, "--threads expects an integer in 1..1024, got \"-4\""},
      {{"--threads", "100000"}, "--threads expects an integer in 1..1024"},
      {{"--time-limit", "nan"},
       "--time-limit expects a finite number ≥ 0 and ≤ 1e+09, got \"nan\""},
      {{"--time-limit", "-1"}, "--time-limit expects a finite number ≥ 0"},
      {{"--seed", "1e23"}, "--seed expects an integer in 0..2147483647, got \"1e23\""},
      {{"--seed", "-1"}, "--seed expects an integer in 0..2147483647"},
      {{"--batch", "1000000000"}, "--batch expects an integer in 1..4096, got \"1000000000\""},
      {{"--batch", "0"}, "--batch expects an integer in 1..4096"},
      {{"--lr", "1e300"}, "--lr expects a finite number > 0 and ≤ 10, got \"1e300\""},
      {{"--lr", "0"}, "--lr expects a finite number > 0"},
      {{"--lr", "1e999"}, "--lr expects a finite number > 0"},
      {{"--clip", "nan"}, "--clip expects a finite number > 0 and ≤ 1e+06, got \"nan\""},
      {{"--clip", "inf"}, "--clip expects a finite number > 0"},
      {{"--steps", "0"}, "--steps expects an integer in 1..1000000000"},
      {{"--steps=2.5"}, "--steps expects an integer in 1..1000000000, got \"2.5\""},
      {{"--warmup", "-1"}, "--warmup expects an integer in 0..1000000000"},
      {{"--log-every", "0"}, "--log-every expects an integer in 1..1000000000"},
      {{"--eval-samples", "100000000"}, "--eval-samples expects an integer in 0..10000000"},
      {{"--weight-decay", "-0.5"}, "--weight-decay expects a finite number ≥ 0 and ≤ 10"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.option[0]);
    expectRefused(c.option, c.message);
  }
}

TEST_F(TrainArgumentsCli, AMissingOrHugeValueGetsAShortMessage) {
  const SubprocessResult r = train({"gateloop", "-o", path("x.safetensors"), "--lr"});
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.err.find("--lr needs a value"), std::string::npos) << r.err;
  // A 10,000-character value is quoted in part.
  expectRefused({"--seed", std::string(10000, '7')}, "--seed expects an integer in 0..2147483647");
}

TEST_F(TrainArgumentsCli, AnInitCheckpointIsCheckedFirst) {
  // The Lattice reproducers: NaN and Inf weights once trained on with exit 0.
  for (const std::string name : {"lattice_nan_weights", "lattice_inf_weights"}) {
    const std::string init = LSRL_TEST_DATA_DIR "/robustness/" + name + ".safetensors";
    const SubprocessResult r =
        train({"lattice", "--steps", "1", "--init", init, "-o", path("x.safetensors")});
    EXPECT_EQ(r.exitCode, 1) << r.err;
    EXPECT_NE(r.err.find(init + ": lattice weights: tensor \""), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("has a non-finite entry"), std::string::npos) << r.err;
  }
  ASSERT_EQ(lsrl({"model", "save", "mingru", "-o", path("m.safetensors")}).code, 0);
  const SubprocessResult r =
      train({"gateloop", "--init=" + path("m.safetensors"), "-o", path("x.safetensors")});
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.err.find("holds a mingru model, not gateloop"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace lsrl::cli::test
