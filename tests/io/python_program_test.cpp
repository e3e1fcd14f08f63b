// Python programs (.py) reach the core through a subprocess: these tests stand a small
// fake `lsrl` package in for the real module (app/python), so the driver's conventions
// (which ForEach, errors, time limit) are checked without the bindings being built.
#include "core/io/python_program.h"

#include <gtest/gtest.h>
#include <stdlib.h>

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
  EXPECT_EQ(runSubprocess({"/nonexistent/program"}, {}, 5000).exitCode, 127);
}

}  // namespace
}  // namespace lsrl
