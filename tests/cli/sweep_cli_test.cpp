// `lsrl sweep` hands everything to the lsrl package's lsrl.sweep (app/cli/cmd_sweep.cpp):
// argparse's --help, its exit 2 and one line for a spec it cannot read, a small noise sweep
// on a local cluster of one worker that runs this very binary, and SIGTERM ending a sweep
// with exit 130 and one line. Needs the built Python module (not in the sanitizer build)
// and Debian's python3-distributed.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>

#include "cli/cli_test_util.h"
#include "core/util/subprocess.h"

namespace lsrl::cli::test {
namespace {

class SweepCli : public CliFixture {
 protected:
  void SetUp() override {
    CliFixture::SetUp();
#ifndef LSRL_PYTHON_PACKAGE_DIR
    GTEST_SKIP() << "the lsrl Python module is not built here";
#else
    // The real package: other tests of this executable point lsrl at a fake one.
    if (const char* saved = std::getenv("LSRL_PYTHONPATH")) savedPythonPath_ = saved;
    ::setenv("LSRL_PYTHONPATH", LSRL_PYTHON_PACKAGE_DIR, 1);
    pythonPathSet_ = true;
#endif
  }
  void TearDown() override {
    if (pythonPathSet_ && savedPythonPath_) {
      ::setenv("LSRL_PYTHONPATH", savedPythonPath_->c_str(), 1);
    } else if (pythonPathSet_) {
      ::unsetenv("LSRL_PYTHONPATH");
    }
    CliFixture::TearDown();
  }

  static SubprocessResult sweep(std::vector<std::string> args,
                                const std::map<std::string, std::string>& env = {}) {
    args.insert(args.begin(), {LSRL_CLI_BINARY, "sweep"});
    const SubprocessResult r = runSubprocess(args, env, 120000);
    expectShortMessageLines(r.err);
    EXPECT_EQ(r.err.find("Traceback"), std::string::npos) << r.err;
    return r;
  }

  std::optional<std::string> savedPythonPath_;
  bool pythonPathSet_ = false;
};

constexpr const char* kNoiseSpec =
    R"({"job": "noise", "program": "tok2tok", "sigmas": [0],
        "set": {"L": 3, "entries": 4, "queries": 1},
        "grid": {"variant": ["direct"], "seed": [1, 2]}})";

TEST_F(SweepCli, HelpIsTheModulesUsage) {
  const SubprocessResult r = sweep({"--help"});
  EXPECT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(r.out.rfind("usage: lsrl sweep ", 0), 0u) << r.out;
  for (const char* option : {"--scheduler", "--out", "--workers", "--retries", "--cli", "--set",
                             "--checkpoints", "--quiet"})
    EXPECT_NE(r.out.find(option), std::string::npos) << option << "\n" << r.out;
}

TEST_F(SweepCli, AMissingSpecIsExit2WithOneLineNamingIt) {
  const std::string spec = path("no_such_spec.json");
  const SubprocessResult r = sweep({spec, "--out", path("never.jsonl"), "--quiet"});
  EXPECT_EQ(r.exitCode, 2) << r.err;
  EXPECT_EQ(r.err.rfind("lsrl sweep: error: ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find(spec), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_FALSE(std::filesystem::exists(path("never.jsonl")));
}

TEST_F(SweepCli, ANoiseSweepRunsOnOneLocalWorker) {
  write("noise.json", kNoiseSpec);
  // The workers run this binary, whatever $LSRL_CLI said before.
  const SubprocessResult r =
      sweep({path("noise.json"), "--workers", "1", "--out", path("noise.jsonl"), "--quiet"},
            {{"LSRL_CLI", path("not_lsrl")}});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const nlohmann::json summary = nlohmann::json::parse(r.out);
  EXPECT_EQ(summary["total"], 2) << r.out;
  EXPECT_EQ(summary["done"], 2) << r.out;
  EXPECT_EQ(summary["failed"], 0) << r.out;
  std::ifstream results(path("noise.jsonl"));
  std::string line;
  std::vector<nlohmann::json> records;
  while (std::getline(results, line)) records.push_back(nlohmann::json::parse(line));
  ASSERT_EQ(records.size(), 2u);
  std::set<int> seeds;
  for (const nlohmann::json& record : records) {
    EXPECT_EQ(record["status"], "ok") << record.dump();
    EXPECT_EQ(record["params"]["variant"], "direct") << record.dump();
    seeds.insert(record["params"]["seed"].get<int>());
  }
  EXPECT_EQ(seeds, (std::set<int>{1, 2}));
}

TEST_F(SweepCli, SigtermEndsASweepWithExit130AndOneLine) {
  write("noise.json", kNoiseSpec);
  // A scheduler that never answers: the sweep waits to connect until SIGTERM (sent while it
  // starts Python, imports Dask or connects: each ends the same way).
  const std::string err = path("err.txt");
  const pid_t pid = startCli({"sweep", path("noise.json"), "--scheduler", "tcp://127.0.0.1:9",
                              "--out", path("never.jsonl"), "--quiet"},
                             "/dev/null", err);
  ASSERT_GT(pid, 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  ASSERT_EQ(::kill(pid, SIGTERM), 0);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  std::ifstream in(err);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_TRUE(WIFEXITED(status)) << "ended by signal " << WTERMSIG(status) << "\n" << text;
  EXPECT_EQ(WEXITSTATUS(status), 130) << text;
  EXPECT_NE(text.find("lsrl sweep: interrupted"), std::string::npos) << text;
  EXPECT_EQ(text.find("Traceback"), std::string::npos) << text;
  expectShortMessageLines(text);
}

}  // namespace
}  // namespace lsrl::cli::test
