// `lsrl` takes Python programs (.py) wherever it takes a program file: the fake `lsrl`
// package (tests/common) stands in for the bindings, so this runs in every build.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <nlohmann/json.hpp>

#include "cli/cli_test_util.h"
#include "common/fake_lsrl_package.h"

namespace lsrl::cli::test {
namespace {

class PythonProgramCli : public CliFixture {
 protected:
  void SetUp() override {
    CliFixture::SetUp();
    lsrl::test::writeFakeLsrlPackage(dir_ / "pkg");
    ::setenv("LSRL_PYTHONPATH", (dir_ / "pkg").c_str(), 1);
  }
};

TEST_F(PythonProgramCli, InfoCheckRunAndCompileTakeAPyFile) {
  write("p.py", "import lsrl\nprogram = lsrl.ForEach('x')\n");
  const Result info = lsrl({"info", path("p.py")});
  ASSERT_EQ(info.code, 0) << info.err;
  EXPECT_EQ(nlohmann::json::parse(info.out)["nodes"]["Input"], 1) << info.out;
  EXPECT_EQ(lsrl({"check", path("p.py")}).code, 0);
  write("in.json", R"({"tokens": [[1, 2], [3, 4]]})");
  const Result run = lsrl({"run", path("p.py"), "--input", path("in.json")});
  ASSERT_EQ(run.code, 0) << run.err;
  EXPECT_NE(run.out.find('3'), std::string::npos) << run.out;
  const Result compiled = lsrl({"compile", path("p.py"), "-o", path("m.json")});
  EXPECT_EQ(compiled.code, 0) << compiled.err;
}

TEST_F(PythonProgramCli, APythonErrorIsShownWithItsTraceback) {
  write("bad.py", "import lsrl\nx = lsrl.ForEach('x')\nx.missing_method()\n");
  const Result r = lsrl({"info", path("bad.py")});
  EXPECT_NE(r.code, 0);
  EXPECT_NE(r.err.find("bad.py"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("AttributeError"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("missing_method"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace lsrl::cli::test
