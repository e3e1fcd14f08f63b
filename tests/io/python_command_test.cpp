// A module run as a command (core/io/python_command.h): the driver passes the arguments
// with the command's name as argv[0], reports a missing needed module in one line (exit 3),
// and ends an interrupted run with one line and exit 130, the module's handling of
// KeyboardInterrupt allowed where it asks for it. A module of its own stands in for the
// lsrl package's, so this runs in every build.
#include "core/io/python_command.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "core/util/subprocess.h"

namespace lsrl {
namespace {

namespace fs = std::filesystem;

class PythonCommandTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("lsrl-py-command-test-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
    const char* saved = std::getenv("LSRL_PYTHONPATH");
    saved_ = saved != nullptr ? std::optional<std::string>(saved) : std::nullopt;
    ::setenv("LSRL_PYTHONPATH", dir_.c_str(), 1);
  }
  void TearDown() override {
    if (saved_) {
      ::setenv("LSRL_PYTHONPATH", saved_->c_str(), 1);
    } else {
      ::unsetenv("LSRL_PYTHONPATH");
    }
    fs::remove_all(dir_);
  }

  // Writes `module`.py and runs it as `m` says (its module set to `module`).
  SubprocessResult run(PythonModule m, const std::string& module, const std::string& text,
                       const std::vector<std::string>& args = {}) const {
    std::ofstream(dir_ / (module + ".py")) << text;
    m.module = module;
    const PythonCommand c = pythonModuleCommand(m, args);
    EXPECT_EQ(c.env.at("PYTHONPATH"), dir_.string());
    return runSubprocess(c.argv, c.env, 30000);
  }

  fs::path dir_;
  std::optional<std::string> saved_;
};

TEST_F(PythonCommandTest, TheModuleRunsAsMainWithTheArguments) {
  const PythonModule m = {.command = "lsrl \"odd\\ name\""};
  const SubprocessResult r = run(m, "argv_module",
                                 "import sys\n"
                                 "if __name__ == '__main__':\n"
                                 "    print(repr(sys.argv[1:]))\n"
                                 "    sys.exit(7)\n",
                                 {"a b", "--x", "\"q\""});
  EXPECT_EQ(r.exitCode, 7) << r.err;
  EXPECT_EQ(r.out, "['a b', '--x', '\"q\"']\n");
}

TEST_F(PythonCommandTest, AMissingModuleIsOneLineNamingThePackage) {
  const PythonModule m = {.command = "lsrl thing",
                          .needs = "no_such_module_of_lsrl_tests",
                          .needsWhat = "things need the module",
                          .debianPackage = "python3-no-such"};
  const SubprocessResult r = run(m, "never_run", "raise SystemExit(9)\n");
  EXPECT_EQ(r.exitCode, kPythonMissingModuleExit) << r.err;
  EXPECT_EQ(r.err.rfind("lsrl thing: error: things need the module for ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find("(Debian: apt-get install python3-no-such)"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

TEST_F(PythonCommandTest, SignalsEndTheRunAtOnceUntilTheModuleTakesThemOver) {
  const PythonModule m = {.command = "lsrl slow", .interrupts = PythonInterrupts::kExitAtOnce};
  for (const char* name : {"SIGINT", "SIGTERM"}) {
    SCOPED_TRACE(name);
    const SubprocessResult r = run(m, "stopped",
                                   "import os, signal, time\n"
                                   "try:\n"
                                   "    os.kill(os.getpid(), signal." +
                                       std::string(name) +
                                       ")\n"
                                       "    time.sleep(20)\n"
                                       "except BaseException:\n"
                                       "    print('caught')\n");
    EXPECT_EQ(r.exitCode, kPythonInterruptedExit) << r.err;
    EXPECT_EQ(r.err, "lsrl slow: interrupted\n");
    EXPECT_EQ(r.out, "");
  }
}

TEST_F(PythonCommandTest, KeyboardInterruptModeLetsTheModuleHandleBoth) {
  const PythonModule m = {.command = "lsrl calm",
                          .interrupts = PythonInterrupts::kKeyboardInterrupt};
  for (const char* name : {"SIGINT", "SIGTERM"}) {
    SCOPED_TRACE(name);
    const std::string kill = "os.kill(os.getpid(), signal." + std::string(name) + ")\n";
    const SubprocessResult handled = run(m, "handled",
                                         "import os, signal, sys, time\n"
                                         "try:\n"
                                         "    " +
                                             kill +
                                             "    time.sleep(20)\n"
                                             "except KeyboardInterrupt:\n"
                                             "    sys.exit(42)\n");
    EXPECT_EQ(handled.exitCode, 42) << handled.err;
    // One the module lets through: one line, exit 130, no traceback.
    const SubprocessResult through =
        run(m, "through", "import os, signal, time\n" + kill + "time.sleep(20)\n");
    EXPECT_EQ(through.exitCode, kPythonInterruptedExit) << through.err;
    EXPECT_EQ(through.err, "lsrl calm: interrupted\n");
  }
}

}  // namespace
}  // namespace lsrl
