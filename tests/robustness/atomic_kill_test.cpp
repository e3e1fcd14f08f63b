// A model and its sidecar are replaced as one pair: `lsrl compile` overwriting an existing
// model is killed (SIGKILL) at every stage of its write — when a temporary file appears,
// when the new sidecar is in place, when the JSON's temporary appears — and at spread-out
// moments of the whole run. After each kill the model file loads (the old pair or the new
// one), and the next write removes what the killed one left behind. A compile writing its
// history as it goes (--history), killed at any moment, leaves no file at all.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "cli/cli_test_util.h"
#include "robustness/sanitizer.h"

namespace lsrl::cli::test {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

class AtomicKill : public CliFixture {
 protected:
  void SetUp() override {
    CliFixture::SetUp();
    ASSERT_EQ(
        lsrl({"program", "vec2vec", "--set", "n=2", "--set", "m=1", "-o", path("small.json")}).code,
        0);
    // Unoptimised tok2tok L=2: a 61 MB sidecar written in a ~4 s compile.
    ASSERT_EQ(lsrl({"program", "tok2tok", "--set", "L=2", "-o", path("big.json")}).code, 0);
  }

  // The old pair: vec2vec unoptimised (a JSON and a sidecar), over a clean folder or over
  // whatever a killed write left.
  void writeOldPair(bool clean) {
    for (const fs::directory_entry& e : fs::directory_iterator(dir_)) {
      const std::string name = e.path().filename();
      if (clean && name.rfind("T.model", 0) == 0) fs::remove(e.path());
    }
    ASSERT_EQ(
        lsrl({"compile", path("small.json"), "--no-optimize", "-o", path("T.model.json")}).code, 0);
  }

  // Starts the real binary compiling the big program over the old pair (with `extra`
  // options); kills it when `stop(elapsed)` says so (polled every 0.2 ms) or lets it
  // finish. True if it was killed.
  bool compileAndKill(const std::function<bool(Clock::duration)>& stop,
                      const std::vector<std::string>& extra = {}) {
    std::vector<std::string> args = {"compile",           path("big.json"), "--no-optimize",
                                     "--backend",         "float64",        "-o",
                                     path("T.model.json")};
    args.insert(args.end(), extra.begin(), extra.end());
    const pid_t pid = startCli(args, "/dev/null");
    if (pid < 0) return false;
    const auto start = Clock::now();
    bool killed = false;
    int status = 0;
    while (::waitpid(pid, &status, WNOHANG) == 0) {
      if (stop(Clock::now() - start)) {
        ::kill(pid, SIGKILL);
        ::waitpid(pid, &status, 0);
        killed = true;
        break;
      }
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
    return killed;
  }

  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const fs::directory_entry& e : fs::directory_iterator(dir_)) {
      const std::string name = e.path().filename();
      if (name.rfind("T.model", 0) == 0) out.push_back(name);
    }
    return out;
  }

  // The model loads and is the old program or the new one (by its Input's width and size).
  void expectLoadablePair(const std::string& when) {
    const Result r = lsrl({"info", path("T.model.json")});
    ASSERT_EQ(r.code, 0) << when << ": " << r.err;
    const auto info = nlohmann::json::parse(r.out);
    const int nodes = info["total_nodes"].get<int>();
    EXPECT_TRUE(nodes == oldNodes_ || nodes == newNodes_) << when << ": " << r.out;
  }

  int oldNodes_ = 0;
  int newNodes_ = 0;
};

TEST_F(AtomicKill, EveryMomentOfAModelWriteLeavesTheOldPairOrTheNewOne) {
  if (kAddressSanitizer) GTEST_SKIP() << "9 compiles of 4 s each: release build only";
  // Baselines: the node counts of both pairs and the length of the overwrite.
  writeOldPair(true);
  oldNodes_ = nlohmann::json::parse(lsrl({"info", path("T.model.json")}).out)["total_nodes"];
  const auto start = Clock::now();
  ASSERT_FALSE(compileAndKill([](Clock::duration) { return false; }));
  const auto full = Clock::now() - start;
  newNodes_ = nlohmann::json::parse(lsrl({"info", path("T.model.json")}).out)["total_nodes"];
  ASSERT_NE(oldNodes_, newNodes_);
  EXPECT_EQ(names().size(), 2u);  // the JSON and its sidecar, nothing left over

  auto appeared = [&](const std::function<bool(const std::string&)>& match) {
    return [&, match](Clock::duration) {
      for (const std::string& n : names())
        if (match(n)) return true;
      return false;
    };
  };
  const std::string oldSidecar = [&] {
    writeOldPair(true);
    for (const std::string& n : names())
      if (n != "T.model.json") return n;
    return std::string();
  }();
  struct Moment {
    std::string what;
    std::function<bool(Clock::duration)> stop;
  };
  std::vector<Moment> moments = {
      {"a temporary file appears",
       appeared([](const std::string& n) { return n.find(".tmp-") != std::string::npos; })},
      {"the new sidecar is in place", appeared([&](const std::string& n) {
         return n != oldSidecar && n != "T.model.json" && n.find(".tmp-") == std::string::npos;
       })},
      {"the JSON's temporary appears",
       appeared([](const std::string& n) { return n.rfind("T.model.json.tmp-", 0) == 0; })},
  };
  for (int k = 1; k <= 5; ++k) {
    const auto at = full * k / 6;
    moments.push_back({"at " + std::to_string(k) + "/6 of the run",
                       [at](Clock::duration elapsed) { return elapsed >= at; }});
  }
  int killed = 0;
  for (const Moment& m : moments) {
    writeOldPair(true);
    if (compileAndKill(m.stop)) ++killed;
    expectLoadablePair("killed when " + m.what);
    // The next write cleans up what the killed one left.
    writeOldPair(false);
    expectLoadablePair("rewritten after a kill when " + m.what);
    EXPECT_LE(names().size(), 2u) << "after a kill when " << m.what;
  }
  EXPECT_GE(killed, 3) << "the kills did not land during the write";
}

// With --history the history is written while the compile runs: its payloads wait in
// unnamed scratch files, so a kill at any moment of the run leaves no file of it.
TEST_F(AtomicKill, AKilledHistoryCompileLeavesNoFileBehind) {
  if (kAddressSanitizer) GTEST_SKIP() << "compiles of seconds each: release build only";
  const std::vector<std::string> history = {"--history", path("H.json")};
  int killed = 0;
  // The whole run takes over a minute here (a history of gigabytes would stop at its
  // limit): every one of these moments falls inside it.
  for (const int ms : {300, 1000, 2000, 3500}) {
    const auto at = std::chrono::milliseconds(ms);
    if (compileAndKill([at](Clock::duration elapsed) { return elapsed >= at; }, history)) ++killed;
    for (const fs::directory_entry& e : fs::directory_iterator(dir_)) {
      const std::string name = e.path().filename();
      EXPECT_TRUE(name == "small.json" || name == "big.json")
          << "killed after " << ms << " ms: " << name << " left behind";
    }
  }
  EXPECT_EQ(killed, 4) << "the compile ended before a kill";
}

}  // namespace
}  // namespace lsrl::cli::test
