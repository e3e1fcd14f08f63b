// Scan schedules chosen by measurement (core/gpu/scan_calibration.h) on lavapipe: the
// first use of a shape class times the three schedules and picks the fastest, the choice
// is cached in the file and read back by the next calibration, a damaged or oversized file
// is measured over (with a warning), the file keeps the newest classes within its bound, and
// an explicit path or schedule is never overridden.
#include "core/gpu/scan_calibration.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "gpu/vulkan_test_util.h"

namespace lsrl::gpu {
namespace {

class ScanCalibrationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("lsrl_scan_calibration_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::filesystem::path file() const { return dir_ / "cache" / "scan-schedules.json"; }
  std::filesystem::path dir_;
};

// Small enough for lavapipe: 16 sequences of 512 steps over 64 channels, a constant a.
const DiagScanShape kShape{{16, 512, 64}, {0, 0}, false};

TEST_F(ScanCalibrationTest, MeasuresOnceCachesAndReadsBack) {
  LSRL_VULKAN_DEVICE(dev);
  if (dev.info().timestampPeriodNs <= 0) GTEST_SKIP() << "no timestamps on " << dev.info().name;
  ScanCalibration first(dev, file());
  const ScanMeasurement& m = first.measure(kShape);
  EXPECT_EQ(first.measuredThisRun(), 1);
  EXPECT_FALSE(m.fromCache);
  ASSERT_GT(m.sequentialMs, 0);
  ASSERT_GT(m.chainedMs, 0);
  ASSERT_GT(m.reduceThenScanMs, 0);
  ASSERT_GT(m.singlePassMs, 0);
  std::printf(
      "%s: sequential %.3f ms, chained %.3f ms, reduce-then-scan %.3f ms, single pass %.3f ms "
      "-> %s/%s\n",
      m.shapeClass.c_str(), m.sequentialMs, m.chainedMs, m.reduceThenScanMs, m.singlePassMs,
      scanPathName(m.path), scanScheduleName(m.schedule));
  // The choice is the fastest of the four.
  const double best = std::min({m.sequentialMs, m.chainedMs, m.reduceThenScanMs, m.singlePassMs});
  if (m.path == ScanPath::Sequential) {
    EXPECT_EQ(best, m.sequentialMs);
  } else {
    EXPECT_EQ(best, m.schedule == ScanSchedule::Chained      ? m.chainedMs
                    : m.schedule == ScanSchedule::SinglePass ? m.singlePassMs
                                                             : m.reduceThenScanMs);
  }
  // A shape of the same class is not measured again; choose() applies the choice.
  const DiagScanShape sameClass{{16, 600, 64}, {0, 0}, false};
  const ScanOptions chosen = first.choose(sameClass);
  EXPECT_EQ(first.measuredThisRun(), 1);
  EXPECT_EQ(chosen.path, m.path);
  if (m.path != ScanPath::Sequential) {
    EXPECT_EQ(chosen.schedule, m.schedule);
  }

  // The file names the device and the class; a new calibration reads it without measuring.
  ASSERT_TRUE(std::filesystem::exists(file()));
  const nlohmann::json doc = nlohmann::json::parse(std::ifstream(file()));
  EXPECT_EQ(doc.at("format"), "lsrl-scan-schedules");
  const std::string deviceKey = doc.at("devices").begin().key();
  EXPECT_NE(deviceKey.find(dev.info().name), std::string::npos) << deviceKey;
  EXPECT_TRUE(doc.at("devices").at(deviceKey).contains(m.shapeClass));
  ScanCalibration second(dev, file());
  const ScanMeasurement& again = second.measure(kShape);
  EXPECT_TRUE(again.fromCache);
  EXPECT_EQ(second.measuredThisRun(), 0);
  EXPECT_EQ(again.path, m.path);
  EXPECT_EQ(again.schedule, m.schedule);
  // Another class is measured and added beside the first.
  second.measure({{1, 4096, 8}, {0, 0}, true});
  EXPECT_EQ(second.measuredThisRun(), 1);
  const nlohmann::json after = nlohmann::json::parse(std::ifstream(file()));
  EXPECT_EQ(after.at("devices").at(deviceKey).size(), 2u);
  EXPECT_TRUE(dev.validationErrors().empty());
}

TEST_F(ScanCalibrationTest, DamagedCacheIsMeasuredOverAndExplicitChoicesStand) {
  LSRL_VULKAN_DEVICE(dev);
  if (dev.info().timestampPeriodNs <= 0) GTEST_SKIP() << "no timestamps on " << dev.info().name;
  std::filesystem::create_directories(file().parent_path());
  std::ofstream(file()) << "{\"devices\": [1, 2";  // cut off mid-write
  ScanCalibration calibration(dev, file());
  EXPECT_NE(calibration.cacheWarning().find("is not valid JSON"), std::string::npos)
      << calibration.cacheWarning();
  EXPECT_NE(calibration.cacheWarning().find("/cache/scan-schedules.json\""), std::string::npos)
      << calibration.cacheWarning();
  ScanOptions mine;
  mine.path = ScanPath::Shared;
  mine.schedule = ScanSchedule::Chained;
  const ScanOptions kept = calibration.choose(kShape, mine);
  EXPECT_EQ(kept.path, ScanPath::Shared);
  EXPECT_EQ(kept.schedule, ScanSchedule::Chained);
  EXPECT_EQ(calibration.measuredThisRun(), 0);
  calibration.choose(kShape);
  EXPECT_EQ(calibration.measuredThisRun(), 1);
  const nlohmann::json rewritten = nlohmann::json::parse(std::ifstream(file()), nullptr, false);
  EXPECT_FALSE(rewritten.is_discarded());
  EXPECT_TRUE(rewritten.contains("devices"));
  // Without a cache file the choice lives in memory only.
  ScanCalibration memoryOnly(dev, {});
  memoryOnly.choose(kShape);
  memoryOnly.choose(kShape);
  EXPECT_EQ(memoryOnly.measuredThisRun(), 1);
  EXPECT_TRUE(dev.validationErrors().empty());
}

// A cache of another device's 1,200 classes (measured at times 1..1200) and this one's new
// class: the file written keeps the 1,000 newest, this class among them, under 1 MiB. A
// cache over 1 MiB is not read at all, with a warning, and is rewritten within the bound.
TEST_F(ScanCalibrationTest, TheCacheKeepsTheNewestClassesWithinItsBound) {
  LSRL_VULKAN_DEVICE(dev);
  if (dev.info().timestampPeriodNs <= 0) GTEST_SKIP() << "no timestamps on " << dev.info().name;
  std::filesystem::create_directories(file().parent_path());
  nlohmann::json other = nlohmann::json::object();
  for (int i = 1; i <= 1200; ++i)
    other["class " + std::to_string(i)] = {
        {"path", "shared"},  {"schedule", "chained"},      {"sequential_ms", 1.0},
        {"chained_ms", 1.0}, {"reduce_then_scan_ms", 1.0}, {"single_pass_ms", 1.0},
        {"measured_at", i}};
  const nlohmann::json doc = {
      {"format", "lsrl-scan-schedules"}, {"version", 1}, {"devices", {{"another device", other}}}};
  std::ofstream(file()) << doc.dump(2);
  ScanCalibration calibration(dev, file());
  EXPECT_EQ(calibration.cacheWarning(), "");
  const ScanMeasurement& m = calibration.measure(kShape);
  const nlohmann::json kept = nlohmann::json::parse(std::ifstream(file()));
  const nlohmann::json& devices = kept.at("devices");
  ASSERT_EQ(devices.size(), 2u);
  const nlohmann::json& others = devices.at("another device");
  EXPECT_EQ(others.size(), 999u);
  EXPECT_FALSE(others.contains("class 201")) << "the oldest go first";
  EXPECT_TRUE(others.contains("class 202"));
  EXPECT_TRUE(others.contains("class 1200"));
  for (const auto& [key, classes] : devices.items()) {
    if (key != "another device") {
      EXPECT_TRUE(classes.contains(m.shapeClass));
    }
  }
  EXPECT_LE(std::filesystem::file_size(file()), size_t{1} << 20);

  std::ofstream(file()) << "{\"devices\": {}, \"padding\": \"" << std::string(2 << 20, 'x')
                        << "\"}";
  ScanCalibration oversized(dev, file());
  EXPECT_NE(oversized.cacheWarning().find("over the limit of 1,048,576 bytes"), std::string::npos)
      << oversized.cacheWarning();
  oversized.measure(kShape);
  EXPECT_EQ(oversized.measuredThisRun(), 1);
  EXPECT_LT(std::filesystem::file_size(file()), size_t{64} << 10);
  EXPECT_TRUE(dev.validationErrors().empty());
}

TEST(ScanCalibrationClass, NamesKindTransitionAndSizes) {
  EXPECT_EQ(ScanCalibration::shapeClass({{4, 4096, 1024}, {4096 * 1024, 1024}, false}),
            "real a per step, B*C 2^12, T 2^12");
  EXPECT_EQ(ScanCalibration::shapeClass({{3, 100, 5}, {0, 0}, true}),
            "complex a const, B*C 2^3, T 2^6");
}

TEST(ScanCalibrationFile, FollowsTheCacheVariables) {
  ::setenv("LSRL_CACHE_DIR", "/tmp/own", 1);
  EXPECT_EQ(defaultScanCalibrationFile(), "/tmp/own/scan-schedules.json");
  ::unsetenv("LSRL_CACHE_DIR");
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  const std::string savedXdg = xdg ? xdg : "";
  ::setenv("XDG_CACHE_HOME", "/tmp/xdg", 1);
  EXPECT_EQ(defaultScanCalibrationFile(), "/tmp/xdg/lsrl-studio/scan-schedules.json");
  if (xdg) {
    ::setenv("XDG_CACHE_HOME", savedXdg.c_str(), 1);
  } else {
    ::unsetenv("XDG_CACHE_HOME");
  }
}

}  // namespace
}  // namespace lsrl::gpu
