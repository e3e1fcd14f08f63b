// The `lsrl` command line, driven in-process through runCli (same code as the binary).
#include "app/cli/cli.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "app/cli/args.h"
#include "cli/cli_test_util.h"
#include "core/programs/prompts.h"
#include "core/util/error.h"

namespace lsrl::cli {
namespace {

namespace fs = std::filesystem;

using test::lsrl;
using test::Result;

class CliTest : public test::CliFixture {
 protected:
  static nlohmann::json json(const std::string& text) { return nlohmann::json::parse(text); }
};

TEST(ByteSizeOption, UnitsAreBinaryAndNonsenseIsRefused) {
  EXPECT_EQ(parseByteSize("1000000", "--x"), 1000000u);
  EXPECT_EQ(parseByteSize("512M", "--x"), 512ull << 20);
  EXPECT_EQ(parseByteSize("8G", "--x"), 8ull << 30);
  EXPECT_EQ(parseByteSize("8GiB", "--x"), 8ull << 30);
  EXPECT_EQ(parseByteSize("2gb", "--x"), 2ull << 30);
  EXPECT_EQ(parseByteSize("3k", "--x"), 3072u);
  EXPECT_EQ(parseByteSize("1T", "--x"), 1ull << 40);
  EXPECT_EQ(parseByteSize("7B", "--x"), 7u);
  for (const char* bad :
       {"", "G", "0", "-1", "1.5G", "8X", "8 G", "8GG", "2000000T", "99999999999999999999"}) {
    EXPECT_THROW((void)parseByteSize(bad, "--x"), Error) << bad;
  }
}

TEST_F(CliTest, HelpForEverySubcommand) {
  for (const char* cmd : {"program", "info", "check", "run", "prompt", "bench"}) {
    const Result r = lsrl({cmd, "--help"});
    EXPECT_EQ(r.code, 0) << cmd;
    EXPECT_NE(r.out.find("usage: lsrl"), std::string::npos) << cmd;
  }
  EXPECT_EQ(lsrl({"--help"}).code, 0);
  EXPECT_EQ(lsrl({}).code, 2);
  const Result unknown = lsrl({"frobnicate"});
  EXPECT_EQ(unknown.code, 2);
  EXPECT_NE(unknown.err.find("unknown command \"frobnicate\""), std::string::npos);
}

TEST_F(CliTest, ProgramInfoMatchesTheReferenceCounts) {
  ASSERT_EQ(lsrl({"program", "tok2tok", "--set", "L=3", "--set", "conditional=optimized", "-o",
                  path("t.json")})
                .code,
            0);
  const Result info = lsrl({"info", path("t.json")});
  ASSERT_EQ(info.code, 0) << info.err;
  const auto j = json(info.out);
  EXPECT_EQ(j["total_nodes"], 630);
  EXPECT_EQ(j["nodes"]["Linear"], 361);
  EXPECT_EQ(j["nodes"]["Slice"], 3);
  EXPECT_EQ(j["input_dim"], 1);
  EXPECT_EQ(j["output_dim"], 1);
  EXPECT_GT(j["branch_nodes"].get<int>(), 0);
  EXPECT_GT(j["parameters"].get<long long>(), 0);
}

TEST_F(CliTest, Tok2tokRunReturnsTheValueInBothModes) {
  ASSERT_EQ(lsrl({"program", "tok2tok", "-o", path("t.json")}).code, 0);
  write("dict.json", "[[[3,1,9],[9,9,9]], [[4,2,6],[9,2,5]], [[8,5,6],[8,8,6]]]");
  const Result p = lsrl({"prompt", "tok2tok", "--dict", path("dict.json"), "--query", "4,2,6", "-o",
                         path("in.json")});
  ASSERT_EQ(p.code, 0) << p.err;
  for (bool exact : {false, true}) {
    std::vector<std::string> args = {"run", path("t.json"), "--input", path("in.json")};
    if (exact) args.push_back("--exact");
    const Result r = lsrl(args);
    ASSERT_EQ(r.code, 0) << r.err;
    const auto out = json(r.out)["outputs"];
    ASSERT_EQ(out.size(), 3u + 6u * 3u);
    const size_t n = out.size();
    EXPECT_EQ(out[n - 3][0].get<double>(), 9);
    EXPECT_EQ(out[n - 2][0].get<double>(), 2);
    EXPECT_EQ(out[n - 1][0].get<double>(), 5);
    if (exact) {
      EXPECT_TRUE(out[n - 1][0].is_number_integer());
    }
  }
}

TEST_F(CliTest, BatchInputGivesBatchOutputs) {
  ASSERT_EQ(lsrl({"program", "more_ones", "-o", path("m.json")}).code, 0);
  write("in.json", R"({"batch": [{"tokens": [[1],[1],[0]]}, {"tokens": [[0],[0],[1],[1],[1]]}]})");
  const Result r = lsrl({"run", path("m.json"), "--input", path("in.json"), "--threads", "2"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = json(r.out);
  ASSERT_TRUE(j.contains("batch_outputs"));
  EXPECT_EQ(j["batch_outputs"][0], json("[[1.0],[1.0],[1.0]]"));
  EXPECT_EQ(j["batch_outputs"][1], json("[[0.0],[0.0],[0.0],[0.0],[1.0]]"));
}

TEST_F(CliTest, TraceHoldsEveryNodeAtEveryStep) {
  ASSERT_EQ(lsrl({"program", "more_ones", "-o", path("m.json")}).code, 0);
  write("in.json", R"({"tokens": [[1],[0],[0]]})");
  const Result r = lsrl({"run", path("m.json"), "--input", path("in.json"), "--exact", "--trace",
                         path("trace.json")});
  ASSERT_EQ(r.code, 0) << r.err;
  std::ifstream f(path("trace.json"));
  const auto t = nlohmann::json::parse(f);
  EXPECT_EQ(t["numeric"], "exact");
  EXPECT_EQ(t["nodes"].size(), 13u);
  int onesId = -1;
  for (const auto& n : t["nodes"]) {
    if (n.value("name", "") == "ones") onesId = n["id"];
  }
  ASSERT_GE(onesId, 0);
  EXPECT_EQ(t["sequences"][0]["values"][std::to_string(onesId)], json("[[1],[1],[1]]"));
}

TEST_F(CliTest, Vec2vecPromptAndRunGiveTheCellValue) {
  ASSERT_EQ(lsrl({"program", "vec2vec", "--set", "n=2", "--set", "m=1", "-o", path("v.json")}).code,
            0);
  const Result p = lsrl({"prompt", "vec2vec", "--n", "2", "--m", "1", "--N", "4", "--seed", "7",
                         "-o", path("in.json")});
  ASSERT_EQ(p.code, 0) << p.err;
  std::ifstream f(path("in.json"));
  const auto in = nlohmann::json::parse(f);
  EXPECT_EQ(in["seed"], 7);
  EXPECT_TRUE(in["query_valid"].get<bool>());
  const Result r = lsrl({"run", path("v.json"), "--input", path("in.json"), "--exact"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto out = json(r.out)["outputs"];
  EXPECT_EQ(out.back()[0], in["expected"][0]);
}

TEST_F(CliTest, Vec2vecRefusesAQueryOnACellWall) {
  const Result p =
      lsrl({"prompt", "vec2vec", "--N", "4", "--query", "0.25,0.6", "-o", path("in.json")});
  EXPECT_EQ(p.code, 1);
  EXPECT_NE(p.err.find("cell wall"), std::string::npos) << p.err;
  EXPECT_FALSE(fs::exists(path("in.json")));
}

TEST_F(CliTest, ErrorsGoToStderrAndLeaveNoFile) {
  const Result badKey = lsrl({"program", "tok2tok", "--set", "Q=3", "-o", path("t.json")});
  EXPECT_EQ(badKey.code, 1);
  EXPECT_NE(badKey.err.find("Q"), std::string::npos) << badKey.err;
  EXPECT_TRUE(badKey.out.empty());
  EXPECT_FALSE(fs::exists(path("t.json")));

  const Result missing = lsrl({"info", path("nope.json")});
  EXPECT_EQ(missing.code, 1);
  EXPECT_NE(missing.err.find("nope.json"), std::string::npos) << missing.err;

  const Result noInput = lsrl({"run", path("nope.json")});
  EXPECT_EQ(noInput.code, 1);
  EXPECT_NE(noInput.err.find("--input"), std::string::npos) << noInput.err;

  const Result badOpt = lsrl({"run", "x.json", "--frob"});
  EXPECT_EQ(badOpt.code, 1);
  EXPECT_NE(badOpt.err.find("unknown option \"--frob\""), std::string::npos) << badOpt.err;
}

TEST_F(CliTest, RunRejectsTokensOfTheWrongWidth) {
  ASSERT_EQ(lsrl({"program", "more_ones", "-o", path("m.json")}).code, 0);
  write("in.json", R"({"tokens": [[1, 2], [0, 1]]})");
  const Result r = lsrl({"run", path("m.json"), "--input", path("in.json")});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("width 2"), std::string::npos) << r.err;
}

TEST_F(CliTest, CheckListsEveryProblem) {
  write("bad.json", R"({"format": "lsrl-graph", "version": 1, "nodes": [
      {"id": 0, "op": "Input", "dim": 1},
      {"id": 1, "op": "Input", "dim": 1},
      {"id": 2, "op": "Multi", "dim": 1, "inputs": [0]},
      {"id": 3, "op": "Concat", "dim": 2, "inputs": [2, 1]}], "output": 3})");
  const Result r = lsrl({"check", path("bad.json")});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.out.find("second Input"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("odd width"), std::string::npos) << r.out;
  ASSERT_EQ(lsrl({"program", "more_ones", "-o", path("m.json")}).code, 0);
  const Result ok = lsrl({"check", path("m.json")});
  EXPECT_EQ(ok.code, 0);
  EXPECT_NE(ok.out.find("ok"), std::string::npos);
}

TEST_F(CliTest, PromptSeedIsReproducible) {
  ASSERT_EQ(lsrl({"prompt", "tok2tok", "--random", "6", "--seed", "11", "-o", path("a.json")}).code,
            0);
  ASSERT_EQ(lsrl({"prompt", "tok2tok", "--random", "6", "--seed", "11", "-o", path("b.json")}).code,
            0);
  std::ifstream a(path("a.json")), b(path("b.json"));
  EXPECT_EQ(nlohmann::json::parse(a), nlohmann::json::parse(b));
}

}  // namespace
}  // namespace lsrl::cli
