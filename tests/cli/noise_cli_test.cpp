// `lsrl noise`: the Fig. 4 experiment from the command line on tiny configurations, and
// Ctrl-C handling in the real binary.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "cli/cli_test_util.h"

namespace lsrl::cli {
namespace {

namespace fs = std::filesystem;

using test::lsrl;
using test::Result;

std::string readFile(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

using NoiseCli = test::CliFixture;

TEST_F(NoiseCli, Tok2tokWritesCsvPlotAndSummary) {
  const Result r =
      lsrl({"noise",     "tok2tok",    "--set",     "L=1",        "--set",
            "entries=3", "--set",      "queries=2", "--variants", "step_optimized,multiplicative",
            "--sigmas",  "0,1e-3",     "--seeds",   "2",          "--no-optimize",
            "--threads", "1",          "--quiet",   "-o",         path("t.csv"),
            "--plot",    path("t.svg")});
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string csv = readFile(path("t.csv"));
  EXPECT_EQ(csv.rfind("program,variant,optimize,sigma,seed,metric\n", 0), 0u) << csv;
  EXPECT_EQ(count(csv, "\n"), 1u + 2 * 2 * 2);
  EXPECT_NE(csv.find("tok2tok,step_optimized,false,0,1,0\n"), std::string::npos) << csv;
  EXPECT_NE(csv.find("tok2tok,multiplicative,false,0.001,2,"), std::string::npos) << csv;
  const std::string svg = readFile(path("t.svg"));
  EXPECT_EQ(svg.rfind("<svg", 0), 0u);
  EXPECT_EQ(count(svg, "<polyline"), 2u);
  EXPECT_NE(svg.find("% wrong output tokens"), std::string::npos);
  EXPECT_NE(svg.find(">multiplicative<"), std::string::npos);
  EXPECT_NE(r.out.find("step_optimized"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("sigma=0.001"), std::string::npos) << r.out;
  EXPECT_TRUE(r.err.empty()) << "--quiet: " << r.err;

  const Result again =
      lsrl({"noise", "tok2tok", "--replot", path("t.csv"), "--plot", path("r.svg")});
  ASSERT_EQ(again.code, 0) << again.err;
  EXPECT_EQ(readFile(path("r.svg")), svg);
  EXPECT_EQ(again.out.substr(0, again.out.find("wrote")), r.out.substr(0, r.out.find("compiled")));
  EXPECT_EQ(lsrl({"noise", "vec2vec", "--replot", path("t.csv"), "--plot", path("x.svg")}).code, 1);
}

TEST_F(NoiseCli, Vec2vecWithProgressOnStderr) {
  // Progress goes to the process's stderr (the command's own streams carry the results).
  std::ostringstream progress;
  std::streambuf* const saved = std::cerr.rdbuf(progress.rdbuf());
  const Result r = lsrl({"noise", "vec2vec", "--set", "N=3", "--set", "queries=2", "--variants",
                         "multiplicative_optimized", "--sigmas", "0,1e-7", "--seeds", "1", "-o",
                         path("v.csv"), "--plot", path("v.svg")});
  std::cerr.rdbuf(saved);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(count(readFile(path("v.csv")), "\n"), 1u + 2);
  EXPECT_NE(readFile(path("v.svg")).find("mean absolute error"), std::string::npos);
  EXPECT_NE(progress.str().find("[1/3"), std::string::npos) << progress.str();
}

TEST_F(NoiseCli, BadArgumentsWriteNothing) {
  for (const std::vector<std::string>& bad :
       {std::vector<std::string>{"noise", "tok2tok", "--set", "bogus=1", "-o", path("x.csv")},
        {"noise", "tok2tok", "--variants", "nope", "-o", path("x.csv")},
        {"noise", "tok2tok", "--sigmas", "0,-1", "-o", path("x.csv")},
        {"noise", "tok2tok", "--set", "conditional=direct", "-o", path("x.csv")},
        {"noise", "mnist", "-o", path("x.csv")},
        {"noise", "tok2tok"}}) {
    const Result r = lsrl(bad);
    EXPECT_EQ(r.code, 1) << bad[2];
    EXPECT_NE(r.err.find("lsrl noise: error"), std::string::npos) << r.err;
  }
  EXPECT_FALSE(fs::exists(path("x.csv")));
  EXPECT_EQ(lsrl({"noise", "--help"}).code, 0);
}

TEST_F(NoiseCli, CtrlCStopsWithExit130AndNoFiles) {
  const std::string csv = path("c.csv"), svg = path("c.svg"), log = path("err.txt");
  const int status = test::runAndInterrupt({"noise", "tok2tok", "--set", "L=3", "--variants",
                                            "direct", "--seeds", "5000", "-o", csv, "--plot", svg},
                                           std::chrono::milliseconds(500), log);
  ASSERT_TRUE(WIFEXITED(status)) << "killed by signal " << WTERMSIG(status);
  EXPECT_EQ(WEXITSTATUS(status), 130);
  EXPECT_FALSE(fs::exists(csv));
  EXPECT_FALSE(fs::exists(svg));
}

}  // namespace
}  // namespace lsrl::cli
