// Two writers of one model pair at once (docs/model-format.md, "Concurrent writers"): two
// real `lsrl compile` processes of different programs onto the same -o, round after round,
// and two writing the same --history. Whatever order they interleave in, the file loads
// afterwards and is one complete pair, the first writer's or the second's, with no other
// sidecar or temporary file left beside it.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "cli/cli_test_util.h"
#include "core/compiler/history_file.h"
#include "core/compiler/model_file.h"
#include "core/io/graph_file.h"
#include "robustness/sanitizer.h"

namespace lsrl::cli::test {
namespace {

namespace fs = std::filesystem;

// 50 rounds as the issue asks; the sanitizer build (3-5x slower per process) races fewer.
constexpr int kRounds = kAddressSanitizer ? 10 : 50;

const std::string kData = std::string(LSRL_TEST_DATA_DIR) + "/robustness/concurrent_compile/";

int exitCodeOf(pid_t pid) {
  int status = 0;
  if (pid < 0 || ::waitpid(pid, &status, 0) != pid) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

class ConcurrentWriters : public CliFixture {
 protected:
  std::vector<std::string> compileArgs(const std::string& program, const std::string& model,
                                       const std::string& history = "") const {
    std::vector<std::string> args = {
        "compile", kData + program, "--backend", "float64", "--no-optimize", "-o", path(model)};
    if (!history.empty()) args.insert(args.end(), {"--history", path(history)});
    return args;
  }

  // Both writers at once; both must succeed.
  void race(const std::vector<std::string>& first, const std::vector<std::string>& second) {
    const pid_t a = startCli(first, "/dev/null", "/dev/null");
    const pid_t b = startCli(second, "/dev/null", "/dev/null");
    ASSERT_EQ(exitCodeOf(a), 0);
    ASSERT_EQ(exitCodeOf(b), 0);
  }

  // The model as loaded (its graph with the sidecar's values, as a graph file's text), to
  // tell the two programs' models apart: they answer alike on in.json.
  std::string modelText(const std::string& model) {
    const CompiledModel loaded = loadModelFile(path(model));
    return graphToJson(loaded.path).dump();
  }

  // The files beside `stem`.json: exactly the JSON and the one sidecar it names.
  void expectOnlyThePair(const std::string& stem) {
    std::set<std::string> files;
    for (const fs::directory_entry& e : fs::directory_iterator(dir_)) {
      const std::string name = e.path().filename();
      if (name.rfind(stem + ".", 0) == 0) files.insert(name);
    }
    const nlohmann::json doc = nlohmann::json::parse(std::ifstream(path(stem + ".json")));
    const nlohmann::json& holder = doc.contains("metadata") ? doc["metadata"] : doc;
    std::set<std::string> expected = {stem + ".json"};
    if (holder.contains("sidecar")) expected.insert(holder["sidecar"]["file"].get<std::string>());
    EXPECT_EQ(files, expected);
  }
};

TEST_F(ConcurrentWriters, TwoCompilesOntoOneModelLeaveOneCompletePair) {
  ASSERT_EQ(lsrl(compileArgs("p1.json", "one.model.json")).code, 0);
  ASSERT_EQ(lsrl(compileArgs("p2.json", "two.model.json")).code, 0);
  const std::string first = modelText("one.model.json");
  const std::string second = modelText("two.model.json");
  ASSERT_NE(first, second);

  int firstWon = 0;
  for (int round = 0; round < kRounds; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    race(compileArgs("p1.json", "same.model.json"), compileArgs("p2.json", "same.model.json"));
    const std::string model = modelText("same.model.json");  // loads with its sidecar
    ASSERT_TRUE(model == first || model == second);
    firstWon += model == first;
    const Result run = lsrl({"run", path("same.model.json"), "--input", kData + "in.json"});
    ASSERT_EQ(run.code, 0) << run.err;
    expectOnlyThePair("same.model");
    if (HasFailure()) return;
  }
  // Not asserted (the scheduler decides), but worth seeing when it never varies.
  std::cout << "the first program's pair won " << firstWon << " of " << kRounds << " rounds\n";
}

TEST_F(ConcurrentWriters, TwoHistoryWritersLeaveOneCompleteHistory) {
  ASSERT_EQ(lsrl(compileArgs("p1.json", "one.model.json", "one.json")).code, 0);
  ASSERT_EQ(lsrl(compileArgs("p2.json", "two.model.json", "two.json")).code, 0);
  const nlohmann::json firstSource = loadHistoryFile(path("one.json")).source;
  const nlohmann::json secondSource = loadHistoryFile(path("two.json")).source;
  ASSERT_NE(firstSource, secondSource);

  for (int round = 0; round < kRounds; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    race(compileArgs("p1.json", "a.model.json", "h.json"),
         compileArgs("p2.json", "b.model.json", "h.json"));
    LoadedHistory history;
    ASSERT_NO_THROW(history = loadHistoryFile(path("h.json")));
    ASSERT_TRUE(history.source == firstSource || history.source == secondSource)
        << history.source.dump();
    expectOnlyThePair("h");
    if (HasFailure()) return;
  }
}

}  // namespace
}  // namespace lsrl::cli::test
