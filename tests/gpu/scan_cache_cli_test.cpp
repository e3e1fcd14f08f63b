// `lsrl run --backend vulkan` with a scan-schedule cache ($LSRL_CACHE_DIR) it cannot use:
// a directory (exited 3, "internal error: basic_filebuf::underflow"), a FIFO (blocked for
// ever), a malformed file, a symbolic link out of the folder. Each run answers (exit 0)
// with one warning naming the cache file and why; the directory, FIFO and link are left as
// they were (and nothing is written through the link), a malformed file is rewritten.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "cli/binary_run.h"
#include "cli/cli_test_util.h"
#include "gpu/vulkan_test_util.h"

namespace lsrl::cli::test {
namespace {

namespace fs = std::filesystem;

class ScanCacheCli : public CliFixture {
 protected:
  void SetUp() override {
    CliFixture::SetUp();
    ASSERT_EQ(lsrl({"program", "more_ones", "-o", path("mo.json")}).code, 0);
    ASSERT_EQ(lsrl({"compile", path("mo.json"), "-o", path("mo.model.json")}).code, 0);
    write("in.json", R"({"tokens": [[1], [0], [1]]})");
    fs::create_directories(cacheDir());
  }

  std::string cacheDir() const { return path("cache"); }
  std::string cacheFile() const { return cacheDir() + "/scan-schedules.json"; }

  // The run on the device with the test's cache folder; at most 60 s.
  BinaryRun runOnDevice() {
    BinaryRunOptions options;
    options.env["LSRL_CACHE_DIR"] = cacheDir();
    return runBinary(
        {"run", path("mo.model.json"), "--input", path("in.json"), "--backend", "vulkan"}, options,
        dir_.string());
  }

  // Exit 0 with more_ones' answers, and stderr exactly one warning naming the cache file
  // (a long path keeps its end) and `why`.
  void expectAnsweredWithOneWarning(const BinaryRun& r, const std::string& why) {
    ASSERT_FALSE(r.timedOut) << "the run blocked on the cache file";
    EXPECT_EQ(r.exitCode, 0) << r.err;
    EXPECT_EQ(nlohmann::json::parse(r.out).at("outputs"),
              nlohmann::json::parse("[[1.0], [0.0], [1.0]]"));
    EXPECT_EQ(r.err.rfind("lsrl: warning: the scan-schedule cache is ignored: ", 0), 0u) << r.err;
    EXPECT_NE(r.err.find("/cache/scan-schedules.json\""), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(why), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    expectShortMessageLines(r.err);
  }
};

TEST_F(ScanCacheCli, ADirectoryIsMeasuredOverWithAWarning) {
  LSRL_VULKAN_DEVICE(dev);
  (void)dev;
  fs::create_directory(cacheFile());
  expectAnsweredWithOneWarning(runOnDevice(), "it is a directory");
  EXPECT_TRUE(fs::is_directory(cacheFile()));
}

TEST_F(ScanCacheCli, AFifoDoesNotBlockTheRun) {
  LSRL_VULKAN_DEVICE(dev);
  (void)dev;
  ASSERT_EQ(::mkfifo(cacheFile().c_str(), 0600), 0);
  expectAnsweredWithOneWarning(runOnDevice(), "named pipe (FIFO)");
  struct stat st {};
  ASSERT_EQ(::lstat(cacheFile().c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));
}

TEST_F(ScanCacheCli, AMalformedCacheIsRewrittenAndThenReadWithoutAWarning) {
  LSRL_VULKAN_DEVICE(dev);
  if (dev.info().timestampPeriodNs <= 0) GTEST_SKIP() << "no timestamps: nothing is cached";
  write("cache/scan-schedules.json", "{\"devices\": [1, 2");
  expectAnsweredWithOneWarning(runOnDevice(), "is not valid JSON");
  std::ifstream in(cacheFile());
  const nlohmann::json doc = nlohmann::json::parse(in, nullptr, false);
  ASSERT_TRUE(doc.is_object()) << "rewritten";
  EXPECT_EQ(doc.value("format", ""), "lsrl-scan-schedules");
  const BinaryRun again = runOnDevice();
  EXPECT_EQ(again.exitCode, 0) << again.err;
  EXPECT_EQ(again.err, "");
}

TEST_F(ScanCacheCli, ALinkOutOfTheFolderIsNeitherReadNorWrittenThrough) {
  LSRL_VULKAN_DEVICE(dev);
  (void)dev;
  write("outside.txt", "the user's own file");
  ASSERT_EQ(::symlink(path("outside.txt").c_str(), cacheFile().c_str()), 0);
  expectAnsweredWithOneWarning(runOnDevice(), "symbolic link");
  EXPECT_TRUE(fs::is_symlink(cacheFile()));
  std::ifstream in(path("outside.txt"));
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), "the user's own file");
}

}  // namespace
}  // namespace lsrl::cli::test
