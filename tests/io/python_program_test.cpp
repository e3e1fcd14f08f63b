// Python programs (.py) reach the core through a subprocess: these tests stand a small
// fake `lsrl` package in for the real module (app/python), so the driver's conventions
// (which ForEach, errors, time limit) are checked without the bindings being built.
#include "core/io/python_program.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>

#include <chrono>
#include <filesystem>
#include <string>

#include "common/fake_lsrl_package.h"
#include "core/util/atomic_file.h"
#include "core/util/error.h"
#include "core/util/subprocess.h"

namespace lsrl {
namespace {

namespace fs = std::filesystem;

// A folder with the fake `lsrl` package, and LSRL_PYTHONPATH pointing at it.
class PythonProgram : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("lsrl-py-test-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    test::writeFakeLsrlPackage(dir_ / "pkg");
    ::setenv("LSRL_PYTHONPATH", (dir_ / "pkg").c_str(), 1);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string program(const std::string& name, const std::string& text) {
    const std::string path = (dir_ / name).string();
    writeFileAtomically(path, text);
    return path;
  }
  static std::string inputName(const Graph& g) { return g.node(0).name; }
  static std::string errorOf(const std::string& path, int timeoutMs = kPythonProgramTimeoutMs) {
    try {
      loadPythonProgram(path, nullptr, timeoutMs);
    } catch (const Error& e) {
      return e.what();
    }
    return "no error";
  }

  fs::path dir_;
};

TEST_F(PythonProgram, TakesTheModuleLevelProgramElseTheLastForEach) {
  EXPECT_EQ(
      inputName(loadPythonProgram(program(
          "a.py", "from lsrl import ForEach\nprogram = ForEach('p')\nother = ForEach('q')\n"))),
      "p");
  EXPECT_EQ(inputName(loadPythonProgram(
                program("b.py",
                        "import lsrl\nx = lsrl.ForEach('first')\ny = lsrl.ForEach('last')\n"
                        "if __name__ == '__main__':\n    raise SystemExit(9)\n"))),
            "last");
  EXPECT_EQ(inputName(loadProgramFile(program("c.py", "import lsrl\nlsrl.ForEach('c')\n"))), "c");
  EXPECT_TRUE(isPythonProgramPath("x/y.py"));
  EXPECT_FALSE(isPythonProgramPath("x/y.json"));
}

TEST_F(PythonProgram, ErrorsNameTheFileAndCarryTheTraceback) {
  const std::string bad =
      program("bad.py", "import lsrl\ndef f():\n    raise ValueError('boom')\nf()\n");
  const std::string e = errorOf(bad);
  EXPECT_NE(e.find(bad), std::string::npos) << e;
  EXPECT_NE(e.find("Traceback"), std::string::npos) << e;
  EXPECT_NE(e.find("ValueError: boom"), std::string::npos) << e;
  EXPECT_NE(e.find("line 3"), std::string::npos) << e;
  EXPECT_NE(errorOf(program("none.py", "import lsrl\n")).find("defines no lsrl.ForEach"),
            std::string::npos);
  EXPECT_NE(errorOf(program("wrong.py", "program = 3\n")).find("`program` is a int"),
            std::string::npos);
  EXPECT_NE(errorOf((dir_ / "missing.py").string()).find("no such file"), std::string::npos);
  ::setenv("LSRL_PYTHONPATH", (dir_ / "nowhere").c_str(), 1);
  EXPECT_NE(errorOf(program("d.py", "import lsrl\n")).find("cannot import the lsrl module"),
            std::string::npos);
}

TEST_F(PythonProgram, AProgramThatRunsTooLongIsStopped) {
  const std::string e = errorOf(program("loop.py", "while True:\n    pass\n"), 1000);
  EXPECT_NE(e.find("did not finish within 1 s"), std::string::npos) << e;
}

// The reproducers of tests/data/robustness: programs that end badly in every way a
// subprocess can.
std::string reproducer(const std::string& name) {
  return std::string(LSRL_TEST_DATA_DIR) + "/robustness/" + name;
}

TEST_F(PythonProgram, AProgramThatClosesItsPipesAndLoopsIsStoppedAtTheDeadline) {
  const auto start = std::chrono::steady_clock::now();
  const std::string e = errorOf(reproducer("py_close_fds_loop.py"), 1500);
  EXPECT_NE(e.find("did not finish within 1 s"), std::string::npos) << e;
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(20));
}

TEST_F(PythonProgram, ChildrenThatHoldThePipesOrLeaveTheGroupDoNotDelayOrOutliveIt) {
  // The program succeeds at once while a child (in its group, or setsid) sleeps on with the
  // pipes open: the load returns at once and both children are gone.
  for (const char* session : {"False", "True"}) {
    const std::string pids = (dir_ / (std::string("pid-") + session)).string();
    const std::string file = program(std::string("daemon") + session + ".py",
                                     "import subprocess, lsrl\n"
                                     "p = subprocess.Popen(['sleep', '300'], start_new_session=" +
                                         std::string(session) +
                                         ")\n"
                                         "open(r'" +
                                         pids +
                                         "', 'w').write(str(p.pid))\n"
                                         "program = lsrl.ForEach('daemon')\n");
    const auto start = std::chrono::steady_clock::now();
    EXPECT_EQ(inputName(loadPythonProgram(file, nullptr, 60000)), "daemon");
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(20));
    const pid_t child = static_cast<pid_t>(std::stol(readWholeFile(pids)));
    EXPECT_NE(::kill(child, 0), 0) << "child " << child << " outlived the program";
  }
  // The reproducers themselves: they import the real module's names (an error with the fake
  // one) after starting the sleeper; the error comes at once, not after the time limit.
  for (const char* name : {"py_daemon_child.py", "py_setsid_child.py"}) {
    const auto start = std::chrono::steady_clock::now();
    const std::string e = errorOf(reproducer(name));
    EXPECT_EQ(e.find("did not finish"), std::string::npos) << e;
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(20));
  }
}

TEST_F(PythonProgram, HowTheProgramEndedIsNamedWithTheEndOfItsStderr) {
  const std::string killed = errorOf(reproducer("py_kill_self.py"));
  EXPECT_NE(killed.find("failed (signal 9 (SIGKILL"), std::string::npos) << killed;
  const std::string early = errorOf(reproducer("py_os_exit0.py"));
  EXPECT_NE(early.find("exited without writing its graph"), std::string::npos) << early;
  EXPECT_EQ(early.find("lsrl-program-"), std::string::npos) << early;  // no temp file named
  const std::string noisy = errorOf(reproducer("py_garbage_stderr_then_fail.py"));
  EXPECT_NE(noisy.find("failed (exit 4)"), std::string::npos) << noisy.substr(0, 200);
  EXPECT_NE(noisy.find("SystemExit: 7"), std::string::npos) << noisy.substr(0, 200);
  EXPECT_LT(noisy.size(), 6000u);
  EXPECT_NE(noisy.find("EEEE"), std::string::npos);
  EXPECT_NE(noisy.find("left out"), std::string::npos);
}

TEST(Subprocess, LastLinesKeepsTheEndCappedAndPrintable) {
  EXPECT_EQ(lastLines("a\nb\nc\n", 0, 2), "[earlier output left out]\nb\nc");
  EXPECT_EQ(lastLines("a\nb", 0), "a\nb");
  EXPECT_EQ(lastLines(std::string("x\0y", 3), 0), "x?y");
  EXPECT_EQ(lastLines("tail", 100), "[earlier output left out]\ntail");
  EXPECT_EQ(lastLines(std::string(1000, 'E'), 0, 20, 10), "EEEEEEEEEE [...]");
}

TEST(Subprocess, CapturesOutputAndExitCodes) {
  const SubprocessResult r = runSubprocess(
      {"sh", "-c", "echo out; echo err >&2; echo $LSRL_X; exit 3"}, {{"LSRL_X", "seen"}}, 10000);
  EXPECT_EQ(r.exitCode, 3);
  EXPECT_EQ(r.out, "out\nseen\n");
  EXPECT_EQ(r.err, "err\n");
  EXPECT_FALSE(r.timedOut);
  const SubprocessResult slow = runSubprocess({"sh", "-c", "sleep 5"}, {}, 200);
  EXPECT_TRUE(slow.timedOut);
  EXPECT_EQ(slow.exitCode, -1);
  EXPECT_EQ(slow.signal, SIGKILL);
  EXPECT_EQ(describeEnding(slow), "a timeout");
  EXPECT_EQ(runSubprocess({"/nonexistent/program"}, {}, 5000).exitCode, 127);
  const SubprocessResult signalled = runSubprocess({"sh", "-c", "kill -SEGV $$"}, {}, 5000);
  EXPECT_EQ(signalled.signal, SIGSEGV);
  EXPECT_EQ(describeEnding(signalled).rfind("signal 11 (SIGSEGV", 0), 0u)
      << describeEnding(signalled);
  // Standard error keeps its tail; standard output its head.
  const SubprocessResult loud = runSubprocess(
      {"sh", "-c", "head -c 300000 /dev/zero | tr '\\0' a >&2; echo end >&2"}, {}, 10000);
  EXPECT_EQ(loud.err.size(), kErrorTailCapture);
  EXPECT_EQ(loud.errDropped, 300004 - static_cast<long long>(kErrorTailCapture));
  EXPECT_EQ(loud.err.substr(loud.err.size() - 4), "end\n");
}

}  // namespace
}  // namespace lsrl
