// `lsrl run` as a stream: rows are written as computed, the output is byte for
// byte the whole-batch run's (the --trace path still runs whole), memory does not grow
// with the run, and progress goes to stderr on a terminal or with --progress.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>
#include <string>

#include "cli/cli_test_util.h"
#include "robustness/sanitizer.h"

namespace lsrl::cli::test {
namespace {

class StreamedRun : public CliFixture {
 protected:
  // {"tokens": ...} or {"batch": ...} of more_ones tokens (0, 1, 2 and 1/2), seeded.
  void writeTokens(const std::string& name, const std::vector<size_t>& lengths, bool batch) {
    std::mt19937 rng(7);
    const char* values[] = {"[0]", "[1]", "[2]", "[\"1/2\"]"};
    std::ofstream f(path(name));
    f << (batch ? "{\"seed\": 7, \"batch\": [" : "{\"tokens\": ");
    for (size_t s = 0; s < lengths.size(); ++s) {
      f << (s > 0 ? "," : "") << (batch ? "{\"tokens\": [" : "[");
      for (size_t t = 0; t < lengths[s]; ++t) f << (t > 0 ? "," : "") << values[rng() % 4];
      f << (batch ? "]}" : "]");
    }
    f << (batch ? "]}" : "}");
  }

  // The binary itself (progress goes to the real stderr): its exit status.
  int runBinary(const std::string& args, const std::string& outName, const std::string& errName,
                const std::string& limit = "") {
    const std::string command = (limit.empty() ? "" : "ulimit -v " + limit + "; ") +
                                std::string(LSRL_CLI_BINARY) + " " + args + " > " + path(outName) +
                                " 2> " + path(errName);
    const int status = std::system(("bash -c '" + command + "'").c_str());
    expectShortMessageLines(read(errName));
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }

  std::string read(const std::string& name) {
    std::stringstream s;
    s << std::ifstream(path(name)).rdbuf();
    return s.str();
  }
};

TEST_F(StreamedRun, WritesWhatTheWholeBatchRunWrote) {
  ASSERT_EQ(lsrl({"program", "more_ones", "-o", path("mo.json")}).code, 0);
  // Sequences longer than a chunk (65,536 tokens) run token by token between chunks.
  writeTokens("batch.json", {5, 70000, 3, 2, 70001, 7}, true);
  writeTokens("one.json", {70000}, false);
  writeTokens("short.json", {9}, false);
  for (const char* input : {"batch.json", "one.json", "short.json"}) {
    for (const bool exact : {false, true}) {
      SCOPED_TRACE(std::string(input) + (exact ? " --exact" : ""));
      std::vector<std::string> args = {"run", path("mo.json"), "--input", path(input)};
      if (exact) args.push_back("--exact");
      const Result streamed = lsrl(args);
      args.insert(args.end(), {"--trace", path("trace.json")});
      const Result whole = lsrl(args);
      ASSERT_EQ(streamed.code, 0) << streamed.err;
      ASSERT_EQ(whole.code, 0) << whole.err;
      EXPECT_EQ(streamed.out, whole.out);
    }
  }
}

TEST_F(StreamedRun, BadInputIsRefusedBeforeAnyRowIsWritten) {
  ASSERT_EQ(lsrl({"program", "more_ones", "-o", path("mo.json")}).code, 0);
  write("bad.json", R"({"tokens": [[1], [0], [1, 1]]})");
  const Result r = lsrl({"run", path("mo.json"), "--input", path("bad.json")});
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find("bad.json: tokens[2]: row has 2 values, expected 1"), std::string::npos)
      << r.err;
  write("huge.json", R"({"tokens": [[1], ["1e400"]]})");
  const Result huge = lsrl({"run", path("mo.json"), "--input", path("huge.json")});
  EXPECT_EQ(huge.code, 1);
  EXPECT_EQ(huge.out, "");
  EXPECT_NE(huge.err.find("token 1, feature 0 is beyond float64's range"), std::string::npos)
      << huge.err;
}

TEST_F(StreamedRun, AMillionTokensRunInBoundedMemoryWithProgress) {
  if (kAddressSanitizer) GTEST_SKIP() << "no address-space limit under ASan";
  ASSERT_EQ(lsrl({"program", "more_ones", "-o", path("mo.json")}).code, 0);
  writeTokens("long.json", {1000000}, false);
  // The whole-batch run held every parsed input and output: 325 MB for 10^6 tokens of
  // tok2tok. The stream needs the file's text and one chunk (about 20 MB here).
  ASSERT_EQ(runBinary("run " + path("mo.json") + " --input " + path("long.json") + " --progress",
                      "out.json", "err.txt", "200000"),
            0)
      << read("err.txt");
  const std::string out = read("out.json");
  EXPECT_EQ(out.rfind("{\"outputs\":[[", 0), 0u);
  EXPECT_EQ(std::count(out.begin(), out.end(), '['), 1 + 1000000);
  const std::string err = read("err.txt");
  EXPECT_NE(err.find("lsrl run: 1,000,000 tokens, "), std::string::npos) << err;
}

}  // namespace
}  // namespace lsrl::cli::test
