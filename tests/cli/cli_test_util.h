// Shared helpers of the `lsrl` command-line tests: the CLI run in-process through runCli
// (same code as the binary), a fresh scratch folder per test, and the real binary started
// and interrupted with Ctrl-C.
#pragma once

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "app/cli/cli.h"

extern char** environ;

namespace lsrl::cli::test {

struct Result {
  int code;
  std::string out;
  std::string err;
};

// The longest line a message may have (app/cli/cli.cpp cuts a longer one as a last resort;
// the messages themselves quote at most 80 characters of input: core/util/quote_input.h).
constexpr size_t kMaxMessageLine = 300;

// Characters (UTF-8 code points) of the longest line of `text` (lines end at \n or \r).
inline size_t longestLine(const std::string& text) {
  size_t longest = 0;
  size_t current = 0;
  for (const char c : text) {
    if (c == '\n' || c == '\r') {
      current = 0;
    } else if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) {
      longest = std::max(longest, ++current);
    }
  }
  return longest;
}

// Every test that runs the CLI is also a check of its messages' length: whatever a test
// provokes, no line of what the CLI wrote to stderr is longer than kMaxMessageLine.
inline void expectShortMessageLines(const std::string& err) {
  EXPECT_LE(longestLine(err), kMaxMessageLine) << "a message line is too long:\n"
                                               << err.substr(0, 2000);
}

// A bad-input reproducer of tests/data/robustness (README.md there).
inline std::string robustnessFile(const std::string& name) {
  return std::string(LSRL_TEST_DATA_DIR) + "/robustness/" + name;
}

inline Result lsrl(const std::vector<std::string>& args) {
  std::ostringstream out, err;
  const int code = runCli(args, out, err);
  expectShortMessageLines(err.str());
  return {code, out.str(), err.str()};
}

// lsrl() with what the command wrote to std::cerr itself (warnings, which do not go through
// runCli's error stream) captured into `warnings`, its lines checked likewise.
inline Result lsrlWithWarnings(const std::vector<std::string>& args, std::string& warnings) {
  std::ostringstream captured;
  std::streambuf* saved = std::cerr.rdbuf(captured.rdbuf());
  const Result r = lsrl(args);
  std::cerr.rdbuf(saved);
  warnings = captured.str();
  expectShortMessageLines(warnings);
  return r;
}

// tok2tok (L = 3, `variant`) built into `program` and compiled with its constants fitted
// for fp32 on tokens 0..9 up to 160 steps (docs/precision.md) into `model`; the compile's
// result (its JSON line on success).
inline Result fp32Tok2tok(const std::string& variant, const std::string& program,
                          const std::string& model) {
  const Result built = lsrl(
      {"program", "tok2tok", "--set", "L=3", "--set", "conditional=" + variant, "-o", program});
  if (built.code != 0) return built;
  return lsrl(
      {"compile", program, "--precision", "fp32", "--box", "0,9", "--horizon", "160", "-o", model});
}

// Every test gets its own folder (named after its suite, the process and the test, so
// parallel runs do not collide), removed afterwards.
class CliFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    const ::testing::TestInfo* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = std::filesystem::temp_directory_path() /
           ("lsrl_" + std::string(info->test_suite_name()) + "_" + std::to_string(::getpid()) +
            "_" + info->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  void write(const std::string& name, const std::string& text) const {
    std::ofstream(path(name)) << text;
  }

  std::filesystem::path dir_;
};

// Starts the real binary with `args` (its stdout and stderr to the files named, when not
// empty; "/dev/null" discards); returns its pid, or -1 with a failure reported.
inline pid_t startCli(std::vector<std::string> args, const std::string& stdoutPath = "",
                      const std::string& stderrPath = "") {
  args.insert(args.begin(), LSRL_CLI_BINARY);
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  const std::pair<int, const std::string*> redirects[] = {{1, &stdoutPath}, {2, &stderrPath}};
  for (const auto& [fd, file] : redirects) {
    if (!file->empty())
      posix_spawn_file_actions_addopen(&actions, fd, file->c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                       0644);
  }
  pid_t pid = 0;
  const int spawned = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) {
    ADD_FAILURE() << "could not start " << argv[0];
    return -1;
  }
  return pid;
}

// Starts the real binary with `args` (stderr to `stderrPath` when not empty), sends it
// SIGINT after `delay` and, with a stderr file, once the child has written to it; returns
// its wait status; a failure to start, signal or wait is
// reported to GoogleTest and returns -1.
inline int runAndInterrupt(std::vector<std::string> args, std::chrono::milliseconds delay,
                           const std::string& stderrPath = "") {
  const pid_t pid = startCli(std::move(args), "", stderrPath);
  if (pid < 0) return -1;
  std::this_thread::sleep_for(delay);
  // A slow machine (or a sanitizer build) may not have installed its SIGINT handler yet:
  // wait until the child has written progress to stderr, which it does only after that.
  if (!stderrPath.empty()) {
    auto written = [&] {
      std::error_code ec;
      const auto size = std::filesystem::file_size(stderrPath, ec);
      return !ec && size > 0;
    };
    for (int i = 0; i < 1200 && !written(); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  if (::kill(pid, SIGINT) != 0) ADD_FAILURE() << "could not send SIGINT";
  int status = 0;
  if (::waitpid(pid, &status, 0) != pid) {
    ADD_FAILURE() << "waitpid failed";
    return -1;
  }
  return status;
}

}  // namespace lsrl::cli::test
