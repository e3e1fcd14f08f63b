// A float run whose values overflow to ±infinity or turn into NaN inside the network never
// prints its outputs as an answer: `lsrl run` exits 1 naming the first place (sequence,
// token, node or layer), with nothing on stdout and no output file; --allow-nonfinite keeps
// the outputs with one warning. The reproducers are tests/data/robustness's
// more_ones_exact.model.json on fp32max.json and f64max.json (README.md there).
// The Vulkan backend's checks are in tests/gpu/nonfinite_run_vulkan_cli_test.cpp.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli/cli_test_util.h"
#include "core/io/npy.h"
#include "core/util/atomic_file.h"

namespace lsrl::cli::test {
namespace {

const std::string kModel = robustnessFile("more_ones_exact.model.json");

// x -> ReLU(-10 x): an overflow to -infinity that the ReLU turns into a finite 0.
constexpr const char* kHiddenOverflow = R"({"format": "lsrl-graph", "version": 2, "output": 2,
  "nodes": [{"id": 0, "op": "Input", "name": "x", "dim": 1},
            {"id": 1, "op": "Linear", "name": "scaled", "dim": 1, "inputs": [0],
             "A": {"shape": [1, 1], "entries": [[0, 0, -10]]}},
            {"id": 2, "op": "ReLU", "name": "out", "dim": 1, "inputs": [1]}]})";

class NonFiniteRun : public CliFixture {
 protected:
  // A refusal: exit 1, no answer on stdout, the message containing every part.
  void expectRefused(const std::vector<std::string>& args, const std::vector<std::string>& parts) {
    const Result r = lsrl(args);
    EXPECT_EQ(r.code, 1) << r.out << r.err;
    EXPECT_EQ(r.out, "");
    for (const std::string& part : parts) EXPECT_NE(r.err.find(part), std::string::npos) << r.err;
  }
  // A JSON input of one sequence of `count` tokens, each `value` except the last, `last`.
  void writeLongSequence(const std::string& name, size_t count, const std::string& value,
                         const std::string& last) {
    std::string text = "{\"tokens\": [";
    for (size_t t = 0; t + 1 < count; ++t) text += "[" + value + "],";
    write(name, text + "[" + last + "]]}");
  }
};

TEST_F(NonFiniteRun, Float64OverflowIsRefusedNamingTokenAndNode) {
  expectRefused({"run", kModel, "--input", robustnessFile("f64max.json")},
                {"token 0: node 2 (Linear) overflowed to +infinity (component 0) in float64",
                 "--allow-nonfinite"});
  // The same with --trace: refused before the trace is written.
  expectRefused(
      {"run", kModel, "--input", robustnessFile("f64max.json"), "--trace", path("t.json")},
      {"token 0: node 2 (Linear) overflowed to +infinity"});
  EXPECT_FALSE(std::filesystem::exists(path("t.json")));
}

TEST_F(NonFiniteRun, Fp32OverflowIsRefusedNamingTheLayer) {
  expectRefused({"run", kModel, "--input", robustnessFile("fp32max.json"), "--backend", "cpu32"},
                {"token 0: node 2 (Linear) overflowed to +infinity (component 0) in fp32"});
}

TEST_F(NonFiniteRun, AllowNonfiniteKeepsTheOutputsAndWarnsOnce) {
  struct Case {
    std::vector<std::string> args;
    std::string where;
  };
  const Case cases[] = {
      {{"run", kModel, "--input", robustnessFile("f64max.json")}, "token 0: node 2 (Linear)"},
      {{"run", kModel, "--input", robustnessFile("fp32max.json"), "--backend", "cpu32"},
       "token 0: node 2 (Linear)"},
      {{"run", kModel, "--input", robustnessFile("f64max.json"), "--trace", path("t.json")},
       "token 0: node 2 (Linear)"}};
  for (const Case& c : cases) {
    SCOPED_TRACE(c.args.back());
    std::vector<std::string> args = c.args;
    args.push_back("--allow-nonfinite");
    std::string warnings;
    const Result r = lsrlWithWarnings(args, warnings);
    ASSERT_EQ(r.code, 0) << r.err;
    const nlohmann::json outputs = nlohmann::json::parse(r.out)["outputs"];
    ASSERT_FALSE(outputs.empty());
    for (const auto& row : outputs) EXPECT_EQ(row, nlohmann::json::array({"nan"})) << r.out;
    EXPECT_NE(warnings.find("warning: " + c.where), std::string::npos) << warnings;
    EXPECT_EQ(warnings.find("warning"), warnings.rfind("warning")) << warnings;
  }
  EXPECT_TRUE(std::filesystem::exists(path("t.json")));
}

// An overflow the next node hides (ReLU(-infinity) = 0, a finite but wrong output) is found
// where it happened, in the sequence of a batch where it happened.
TEST_F(NonFiniteRun, AnOverflowHiddenByALaterNodeIsFound) {
  write("hidden.json", kHiddenOverflow);
  write("in64.json", R"({"batch": [{"tokens": [[1], [2]]}, {"tokens": [[0], [1e308]]}]})");
  write("in32.json", R"({"batch": [{"tokens": [[1], [2]]}, {"tokens": [[0], [1e38]]}]})");
  const std::string where = "sequence 1, token 1: ";
  expectRefused({"run", path("hidden.json"), "--input", path("in64.json")},
                {where + "node 1 (Linear 'scaled') overflowed to -infinity"});
  expectRefused({"run", path("hidden.json"), "--input", path("in32.json"), "--backend", "cpu32"},
                {where + "node 1 (Linear 'scaled') overflowed to -infinity"});
  // Finite all along: answered as before.
  const Result fine = lsrl({"run", path("hidden.json"), "--input", path("in32.json")});
  ASSERT_EQ(fine.code, 0) << fine.err;
  EXPECT_EQ(nlohmann::json::parse(fine.out)["batch_outputs"][1][1][0], 0.0);
}

// A sequence longer than a chunk runs token by token, its rows computed before the
// overflow at its last token: none of them reaches stdout.
TEST_F(NonFiniteRun, AStreamedRunRefusedAtItsLastTokenPrintsNothing) {
  const size_t count = 70000;  // over the streamed run's 65,536-token chunks
  writeLongSequence("long.json", count, "0", "1.7976931348623157e308");
  expectRefused({"run", kModel, "--input", path("long.json")},
                {"token " + std::to_string(count - 1) + ": node 2 (Linear) overflowed"});
}

// Rows held back until the end (over 1 MiB of them go to a scratch file) come out whole.
TEST_F(NonFiniteRun, AHeldBackRunPrintsEveryRowWhenItSucceeds) {
  const size_t count = 300000;
  writeLongSequence("ones.json", count, "1", "1");
  const Result r = lsrl({"run", kModel, "--input", path("ones.json")});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_GT(r.out.size(), size_t{1} << 20);
  const nlohmann::json outputs = nlohmann::json::parse(r.out)["outputs"];
  ASSERT_EQ(outputs.size(), count);
  for (size_t t = 0; t < count; t += 9999) EXPECT_EQ(outputs[t][0], 1.0) << "token " << t;
}

TEST_F(NonFiniteRun, ABinaryBatchIsRefusedWithoutWritingItsOutput) {
  const double f64max = 1.7976931348623157e308, f32max = 3.4028234663852886e38;
  writeFileAtomically(path("in64.npy"),
                      npyToBytes({"tokens", {2, 2, 1}, Tensor::F64, {1, 2, 0, f64max}}));
  writeFileAtomically(path("in32.npy"),
                      npyToBytes({"tokens", {2, 2, 1}, Tensor::F64, {1, 2, 0, f32max}}));
  expectRefused({"run", kModel, "--input", path("in64.npy"), "-o", path("out.npy")},
                {"sequence 1, token 1: node 2 (Linear) overflowed to +infinity"});
  expectRefused(
      {"run", kModel, "--input", path("in32.npy"), "-o", path("out.npy"), "--backend", "cpu32"},
      {"sequence 1, token 1: node 2 (Linear) overflowed to +infinity"});
  EXPECT_FALSE(std::filesystem::exists(path("out.npy")));
  std::string warnings;
  const Result allowed = lsrlWithWarnings(
      {"run", kModel, "--input", path("in64.npy"), "-o", path("out.npy"), "--allow-nonfinite"},
      warnings);
  EXPECT_EQ(allowed.code, 0) << allowed.err;
  EXPECT_TRUE(std::filesystem::exists(path("out.npy")));
  EXPECT_NE(warnings.find("sequence 1, token 1: node 2 (Linear)"), std::string::npos) << warnings;
}

// A target's weights: float64 (core/targets's forward pass) checks the outputs, cpu32 every
// layer, named by the target's layer and role.
TEST_F(NonFiniteRun, TargetWeightsAreRefusedToo) {
  ASSERT_EQ(lsrl({"export", kModel, "-o", path("w.safetensors")}).code, 0);
  expectRefused({"run", path("w.safetensors"), "--input", robustnessFile("f64max.json")},
                {"token 0: the output computed NaN (component 0) in float64"});
  expectRefused({"run", path("w.safetensors"), "--input", robustnessFile("fp32max.json"),
                 "--backend", "cpu32"},
                {"token 0: layer 0: ", "overflowed to +infinity", "in fp32"});
}

// Exact values are always finite: the exact backend answers, and refuses the option.
TEST_F(NonFiniteRun, TheExactBackendIsUnaffected) {
  const Result r = lsrl({"run", kModel, "--input", robustnessFile("f64max.json"), "--exact"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["outputs"], nlohmann::json::parse("[[1], [1]]"));
  expectRefused(
      {"run", kModel, "--input", robustnessFile("f64max.json"), "--exact", "--allow-nonfinite"},
      {"--allow-nonfinite is for the float backends"});
}

}  // namespace
}  // namespace lsrl::cli::test
