// Which diagonal-scan schedule runs fastest on this device, by measurement rather than a
// guessed threshold. Shapes fall into classes (real or complex, constant or time-varying
// transition, batch × channels and steps rounded to powers of two); the first time a class
// is met, the four candidates — sequential per channel, chunked chained, chunked
// reduce-then-scan, chunked single pass — are timed on synthetic data of that class (capped at a
// few million values, so a calibration takes well under a second on a GPU), and the winner is
// cached in a JSON file keyed by the device's name and driver. Later runs, in this process or
// another, read the choice back. docs/vulkan.md ("Scan schedules chosen by measurement")
// lists the figures measured so far.
//
//   gpu::ScanCalibration calibration(*dev);            // the user's cache file
//   ScanOptions o = calibration.choose(shape, {});     // measured on first use
#pragma once

#include <filesystem>
#include <map>
#include <string>

#include "core/gpu/device.h"
#include "core/gpu/real.h"
#include "core/gpu/scan_kernels.h"

namespace lsrl::gpu {

// $LSRL_CACHE_DIR, else $XDG_CACHE_HOME/lsrl-studio, else ~/.cache/lsrl-studio; the file
// scan-schedules.json there. Empty when none of these can be had (then nothing is cached).
std::filesystem::path defaultScanCalibrationFile();

struct ScanMeasurement {
  std::string shapeClass;  // "real const a, B*C 2^10, T 2^12"
  ScanPath path = ScanPath::Sequential;
  ScanSchedule schedule = ScanSchedule::ReduceThenScan;
  double sequentialMs = 0, chainedMs = 0, reduceThenScanMs = 0,
         singlePassMs = 0;   // 0: not measured
  long long measuredAt = 0;  // seconds since 1970 (the cache keeps the newest)
  bool fromCache = false;
};

class ScanCalibration {
 public:
  // Reads `cacheFile`, a hint file (core/util/hint_file.h): a missing one is an empty
  // cache, one that cannot be used (a directory, a FIFO, a link, unreadable, malformed,
  // over 1 MiB) is one too, with cacheWarning() saying why, and is rewritten when it is a
  // regular file. An empty path keeps choices in memory only.
  ScanCalibration(Device& device, std::filesystem::path cacheFile = defaultScanCalibrationFile(),
                  Real real = Real::F32);

  // `base` with path and schedule set to the fastest measured for `shape`'s class. A
  // device without timestamps, or `base` naming a path or a schedule itself, returns
  // `base` unchanged.
  ScanOptions choose(const DiagScanShape& shape, const ScanOptions& base = {});
  // The class's measurement (measuring it now if it is new).
  const ScanMeasurement& measure(const DiagScanShape& shape, const ScanOptions& base = {});

  static std::string shapeClass(const DiagScanShape& shape);
  const std::filesystem::path& cacheFile() const { return file_; }
  // Why the cache file was ignored ("the scan-schedule cache is ignored: ..."), empty when
  // it was read or absent: for the caller to show once.
  const std::string& cacheWarning() const { return cacheWarning_; }
  Real real() const { return real_; }
  int measuredThisRun() const { return measured_; }

 private:
  ScanMeasurement run(const DiagScanShape& shape, const ScanOptions& base) const;
  void save() const;

  Device& dev_;
  std::filesystem::path file_;
  Real real_;
  std::string deviceKey_;
  std::string cacheWarning_;
  std::map<std::string, ScanMeasurement> classes_;
  int measured_ = 0;
};

}  // namespace lsrl::gpu
