// lsrl compile --precision and lsrl bench precision: weights fitted to their input domain
// answer right in float64 and fp32, the domain and the changes travel into the model and
// the exported weights, and a missing domain is named.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "cli/cli_test_util.h"
#include "core/io/safetensors.h"

namespace lsrl::cli {
namespace {

using nlohmann::json;
using test::lsrl;
using test::Result;

class PrecisionCli : public test::CliFixture {
 protected:
  json readJson(const std::string& name) const {
    std::ifstream in(path(name));
    return json::parse(in);
  }
  // The last L outputs of `lsrl run` against the prompt file's expected tokens.
  void expectAnswer(const std::vector<std::string>& runArgs, const std::string& prompt) const {
    const Result r = lsrl(runArgs);
    ASSERT_EQ(r.code, 0) << r.err;
    const json rows = json::parse(r.out)["outputs"];
    const json expected = readJson(prompt)["expected"];
    ASSERT_GE(rows.size(), expected.size());
    for (size_t k = 0; k < expected.size(); ++k) {
      const double got = rows[rows.size() - expected.size() + k][0].get<double>();
      EXPECT_EQ(got, expected[k].get<double>()) << "output " << k << " of " << runArgs[1];
    }
  }
};

TEST_F(PrecisionCli, TheReadmeExampleCompiledByDefaultAnswersRightInFloat64) {
  ASSERT_EQ(lsrl({"program", "tok2tok", "--set", "L=3", "-o", path("t.json")}).code, 0);
  EXPECT_EQ(readJson("t.json")["metadata"]["domain"]["horizon"], 1024);
  const Result c =
      lsrl({"compile", path("t.json"), "--backend", "exact", "-o", path("t.model.json")});
  ASSERT_EQ(c.code, 0) << c.err;
  const json line = json::parse(c.out);
  EXPECT_EQ(line["precision"], "float64");  // the program declares its domain
  EXPECT_GT(line["constants_fitted"].get<int>(), 0);
  ASSERT_EQ(lsrl({"prompt", "tok2tok", "--random", "5", "--seed", "3", "-o", path("in.json")}).code,
            0);
  const Result e = lsrl(
      {"export", path("t.model.json"), "--format", "safetensors", "-o", path("t.safetensors")});
  ASSERT_EQ(e.code, 0) << e.err;
  expectAnswer({"run", path("t.safetensors"), "--input", path("in.json")}, "in.json");
  expectAnswer({"run", path("t.model.json"), "--input", path("in.json")}, "in.json");
  // The weights say what they were fitted to.
  const json meta = json::parse(readSafetensors(path("t.safetensors")).metadataJson);
  EXPECT_EQ(meta["precision"]["precision"], "float64");
  EXPECT_EQ(meta["precision"]["domain"]["box"], json({"0", "9"}));
  EXPECT_FALSE(meta["precision"]["changes"].empty());
}

TEST_F(PrecisionCli, Fp32WeightsAnswerRightOnTheFp32Runner) {
  const Result c = test::fp32Tok2tok("optimized", path("t.json"), path("t.model.json"));
  ASSERT_EQ(c.code, 0) << c.err;
  EXPECT_EQ(json::parse(c.out)["exact_on"], "inputs in [0, 9] (whole numbers), t ≤ 160");
  const json record = readJson("t.model.json")["metadata"]["compiled"]["precision"];
  EXPECT_EQ(record["precision"], "fp32");
  EXPECT_TRUE(record["assumes"].empty());
  // The certificate is a worst case: where it is not certified it names what failed.
  const json& certificate = record["certificate"];
  EXPECT_EQ(certificate["format"], "fp32");
  EXPECT_EQ(json::parse(c.out)["certificate"], certificate["summary"]);
  if (!certificate["safe"].get<bool>()) {
    EXPECT_TRUE(certificate["failing"]["construct"].is_string());
  }
  ASSERT_EQ(
      lsrl({"prompt", "tok2tok", "--random", "20", "--seed", "7", "-o", path("in.json")}).code, 0);
  expectAnswer({"run", path("t.model.json"), "--input", path("in.json"), "--backend", "cpu32"},
               "in.json");
  // --precision exact keeps the constants: no record.
  const Result x = lsrl({"compile", path("t.json"), "--precision", "exact", "-o", path("x.json")});
  ASSERT_EQ(x.code, 0) << x.err;
  EXPECT_EQ(json::parse(x.out)["precision"], "exact");
  EXPECT_TRUE(readJson("x.json")["metadata"]["compiled"]["precision"].is_null());
}

TEST_F(PrecisionCli, ACompileExactInFp32IsCertified) {
  ASSERT_EQ(lsrl({"program", "more_ones", "-o", path("m.json")}).code, 0);
  const Result c = lsrl({"compile", path("m.json"), "--precision", "fp32", "--horizon", "160", "-o",
                         path("m.model.json")});
  ASSERT_EQ(c.code, 0) << c.err;
  EXPECT_EQ(json::parse(c.out)["certificate"],
            "certified in fp32 for inputs in [0, 1] (whole numbers), t ≤ 160: output error ≤ 0 "
            "< 0.5 (half a grid step)");
  const json certificate =
      readJson("m.model.json")["metadata"]["compiled"]["precision"]["certificate"];
  EXPECT_EQ(certificate["safe"], true);
  EXPECT_EQ(certificate["output_error"], 0.0);
}

TEST_F(PrecisionCli, AMissingDomainIsNamed) {
  // A graph file without metadata declares no domain.
  write("g.json", R"({"format": "lsrl-graph", "version": 2, "output": 1, "nodes": [
    {"id": 0, "op": "Input", "dim": 1},
    {"id": 1, "op": "ReLU", "dim": 1, "inputs": [0]}]})");
  Result r = lsrl({"compile", path("g.json"), "--precision", "fp32", "-o", path("m.json")});
  EXPECT_NE(r.code, 0);
  EXPECT_NE(r.err.find("--precision fp32 needs --box LO,HI and --horizon T"), std::string::npos)
      << r.err;
  r = lsrl(
      {"compile", path("g.json"), "--precision", "fp32", "--box", "0,1", "-o", path("m.json")});
  EXPECT_NE(r.err.find("needs --horizon T"), std::string::npos) << r.err;
  r = lsrl({"compile", path("g.json"), "--input-grid", "1", "-o", path("m.json")});
  EXPECT_NE(r.err.find("--input-grid needs --precision"), std::string::npos) << r.err;
  r = lsrl({"compile", path("g.json"), "--box", "0,1", "-o", path("m.json")});
  EXPECT_NE(r.err.find("needs --target ARCH"), std::string::npos) << r.err;
  r = lsrl({"compile", path("g.json"), "--precision", "fp16", "-o", path("m.json")});
  EXPECT_NE(r.err.find("expected exact, float64 or fp32"), std::string::npos) << r.err;
  // With a domain the graph compiles (nothing to fit in it).
  r = lsrl({"compile", path("g.json"), "--precision", "fp32", "--box", "0,1", "--horizon", "4",
            "-o", path("m.json")});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(json::parse(r.out)["constants_fitted"], 0);
}

// The acceptance table at reduced counts: every fitted row answers right in float64 and
// fp32 (the full table: lsrl bench precision, docs/precision.md).
TEST_F(PrecisionCli, BenchPrecisionFindsNoWrongAnswerInFittedWeights) {
  const Result r =
      lsrl({"bench", "precision", "--cases", "6", "--lengths", "3", "--json", path("bench.json")});
  ASSERT_EQ(r.code, 0) << r.err;
  const json result = readJson("bench.json");
  ASSERT_EQ(result["rows"].size(), (5 * 2 + 1) * 3u);
  int asBuiltWrong = 0;
  for (const json& row : result["rows"]) {
    const std::string what =
        row["case"].get<std::string>() + " " + row["compile"].get<std::string>();
    EXPECT_EQ(row["exact_wrong"], 0) << what;
    if (row["compile"] == "as_built") {
      asBuiltWrong += row["float64_wrong"].get<int>() + row["fp32_wrong"].get<int>();
      continue;
    }
    EXPECT_EQ(row["float64_wrong"], 0) << what;
    EXPECT_EQ(row["fp32_wrong"], 0) << what;
    // Fitted for a format, certified in it: tokens exactly (the fp32 compile counts with a
    // shift register). vec2vec's registers of continuous values are certified in float64;
    // in fp32 the worst-case bound (every step a write) exceeds a step's margin.
    const std::string format = row["compile"].get<std::string>();
    if (format == "float64" || row["case"].get<std::string>().rfind("vec2vec", 0) != 0) {
      EXPECT_EQ(row["certified_" + format], true) << what;
    }
  }
  EXPECT_GT(asBuiltWrong, 0) << "the constants as built go wrong in fp32 (what the pass fixes)";
  EXPECT_EQ(result["rows"][0]["case"], "tok2tok L=3 direct");
  EXPECT_EQ(result["rows"][0]["certified_fp32"], false);  // the paper's constants
}

}  // namespace
}  // namespace lsrl::cli
