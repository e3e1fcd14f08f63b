#include "core/gpu/scan_calibration.h"

#include <algorithm>
#include <bit>
#include <chrono>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <random>
#include <system_error>
#include <tuple>
#include <vector>

#include "core/gpu/kernel_support.h"
#include "core/util/hint_file.h"

namespace lsrl::gpu {

namespace {

// A calibration times at most this many values per series (a, b and h each): big enough
// that launch overheads do not decide, small enough to take milliseconds on a GPU.
constexpr size_t kMaxCalibrationValues = size_t{1} << 22;
constexpr int kRepeats = 3;

// The cache is a hint (core/util/hint_file.h): a bigger file is ignored unread, and the
// file written keeps at most kMaxCacheEntries classes (about 300 bytes each, all devices
// together; the oldest measured go first), so that it stays under that size.
constexpr uint64_t kMaxCacheBytes = uint64_t{1} << 20;
constexpr size_t kMaxCacheEntries = 1000;
constexpr std::string_view kCacheName = "the scan-schedule cache";

int log2Floor(long long v) { return v < 1 ? 0 : std::bit_width(static_cast<uint64_t>(v)) - 1; }

bool variesWithTime(const DiagScanShape& s) { return s.aStrides.stepStride != 0; }
bool variesWithSequence(const DiagScanShape& s) { return s.aStrides.batchStride != 0; }

// The class's stand-in: the shape itself, shortened (then narrowed) to the value cap, with
// the transition's strides kept in kind.
DiagScanShape sampleOf(const DiagScanShape& shape) {
  DiagScanShape s = shape;
  float_batch::SeriesShape& x = s.series;
  const size_t slots = shape.complex ? 2 : 1;
  auto values = [&] { return size_t(x.batch) * size_t(x.steps) * size_t(x.channels) * slots; };
  while (values() > kMaxCalibrationValues && x.steps > 512) x.steps /= 2;
  while (values() > kMaxCalibrationValues && x.batch > 1) x.batch = (x.batch + 1) / 2;
  while (values() > kMaxCalibrationValues && x.channels > 64) x.channels /= 2;
  const long long c = x.channels;
  if (variesWithTime(shape))
    s.aStrides = {static_cast<long long>(x.steps) * c, c};
  else if (variesWithSequence(shape))
    s.aStrides = {c, 0};
  else
    s.aStrides = {0, 0};
  return s;
}

std::string deviceKeyOf(const DeviceInfo& info, Real real) {
  return info.name + " | " + info.driver + " | Vulkan " + info.apiVersionText + " | " +
         realName(real);
}

ScanPath pathNamed(const std::string& name) {
  for (ScanPath p : {ScanPath::Subgroup, ScanPath::Shared, ScanPath::Sequential})
    if (name == scanPathName(p)) return p;
  throw std::invalid_argument("path " + name);
}

ScanSchedule scheduleNamed(const std::string& name) {
  for (ScanSchedule s :
       {ScanSchedule::ReduceThenScan, ScanSchedule::Chained, ScanSchedule::SinglePass})
    if (name == scanScheduleName(s)) return s;
  throw std::invalid_argument("schedule " + name);
}

// The cache's document: an empty object for a missing file, and for one that is no
// usable cache (then `warning`, when given, says why).
nlohmann::json readCache(const std::filesystem::path& file, std::string* warning = nullptr) {
  HintFileRead read = readHintFile(file.string(), kMaxCacheBytes, kCacheName);
  std::string problem = std::move(read.warning);
  nlohmann::json doc = nlohmann::json::object();
  if (read.content) {
    doc = nlohmann::json::parse(*read.content, nullptr, /*allow_exceptions=*/false);
    if (!doc.is_object()) {
      problem =
          ignoredHintWarning(kCacheName, file.string(),
                             doc.is_discarded() ? "is not valid JSON" : "is not a JSON object");
      doc = nlohmann::json::object();
    }
  }
  if (warning != nullptr) *warning = std::move(problem);
  return doc;
}

long long secondsNow() {
  return std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// Keeps the kMaxCacheEntries most recently measured classes of `devices` (device key →
// class → entry; an entry without a time counts as the oldest) and no empty device.
void evictOldest(nlohmann::json& devices) {
  std::vector<std::tuple<long long, std::string, std::string>> entries;  // time, device, class
  for (const auto& [device, classes] : devices.items())
    for (const auto& [name, entry] : classes.items()) {
      const auto at = entry.find("measured_at");
      entries.emplace_back(at != entry.end() && at->is_number_integer() ? at->get<long long>() : 0,
                           device, name);
    }
  if (entries.size() <= kMaxCacheEntries) return;
  std::sort(entries.begin(), entries.end());
  for (size_t i = 0; i < entries.size() - kMaxCacheEntries; ++i) {
    // Devices left empty go after the loop.
    devices.at(std::get<1>(entries[i])).erase(std::get<2>(entries[i]));
  }
  for (auto it = devices.begin(); it != devices.end();) {
    if (it->empty())
      it = devices.erase(it);
    else
      ++it;
  }
}

}  // namespace

std::filesystem::path defaultScanCalibrationFile() {
  const char* own = std::getenv("LSRL_CACHE_DIR");
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  const char* home = std::getenv("HOME");
  std::filesystem::path dir;
  if (own != nullptr && *own != '\0')
    dir = own;
  else if (xdg != nullptr && *xdg != '\0')
    dir = std::filesystem::path(xdg) / "lsrl-studio";
  else if (home != nullptr && *home != '\0')
    dir = std::filesystem::path(home) / ".cache" / "lsrl-studio";
  else
    return {};
  return dir / "scan-schedules.json";
}

std::string ScanCalibration::shapeClass(const DiagScanShape& shape) {
  const float_batch::SeriesShape& x = shape.series;
  return std::string(shape.complex ? "complex" : "real") + " a " +
         (variesWithTime(shape)       ? "per step"
          : variesWithSequence(shape) ? "per sequence"
                                      : "const") +
         ", B*C 2^" + std::to_string(log2Floor(static_cast<long long>(x.batch) * x.channels)) +
         ", T 2^" + std::to_string(log2Floor(x.steps));
}

ScanCalibration::ScanCalibration(Device& device, std::filesystem::path cacheFile, Real real)
    : dev_(device),
      file_(std::move(cacheFile)),
      real_(real),
      deviceKey_(deviceKeyOf(device.info(), real)) {
  if (file_.empty()) return;
  const nlohmann::json doc = readCache(file_, &cacheWarning_);
  const auto devices = doc.find("devices");
  if (devices == doc.end() || !devices->is_object()) return;
  const auto mine = devices->find(deviceKey_);
  if (mine == devices->end() || !mine->is_object()) return;
  for (const auto& [name, entry] : mine->items()) {
    try {  // an entry this version cannot read is measured again
      ScanMeasurement m;
      m.shapeClass = name;
      m.path = pathNamed(entry.at("path").get<std::string>());
      m.schedule = scheduleNamed(entry.at("schedule").get<std::string>());
      m.sequentialMs = entry.value("sequential_ms", 0.0);
      m.chainedMs = entry.value("chained_ms", 0.0);
      m.reduceThenScanMs = entry.value("reduce_then_scan_ms", 0.0);
      // Entries from before the single pass lack it: measured again with it.
      m.singlePassMs = entry.at("single_pass_ms").get<double>();
      m.measuredAt = entry.value("measured_at", 0LL);
      // A path this device cannot run (a hand-edited cache) is measured again.
      if (m.path == ScanPath::Subgroup && !device.info().subgroupArithmetic) continue;
      m.fromCache = true;
      classes_[name] = m;
    } catch (const std::exception&) {
    }
  }
}

ScanMeasurement ScanCalibration::run(const DiagScanShape& shape, const ScanOptions& base) const {
  ScanKernels scans(dev_, real_);
  ScanMeasurement m;
  m.shapeClass = shapeClass(shape);
  ScanOptions chunked = base;
  chunked.path = scans.resolve(base);
  if (chunked.path == ScanPath::Sequential) chunked.path = ScanPath::Shared;
  if (dev_.info().timestampPeriodNs <= 0) {  // nothing to measure with: the heuristic
    m.path = chunked.path;
    m.schedule = scans.resolveSchedule(shape, chunked);
    return m;
  }
  const DiagScanShape sample = sampleOf(shape);
  const float_batch::SeriesShape& x = sample.series;
  const size_t slots = shape.complex ? 2 : 1;
  const size_t n = size_t(x.batch) * size_t(x.steps) * size_t(x.channels) * slots;
  const size_t aCount = variesWithTime(sample)       ? n
                        : variesWithSequence(sample) ? size_t(x.batch) * size_t(x.channels) * slots
                                                     : size_t(x.channels) * slots;
  std::mt19937 rng(11);
  // |a| < 1 keeps the states bounded (a complex a = (re, im) has modulus below 0.99).
  std::uniform_real_distribution<double> gate(0.5, 0.7), input(-1.0, 1.0);
  std::vector<double> a(aCount), b(n);
  for (double& v : a) v = gate(rng);
  for (double& v : b) v = input(rng);
  auto upload = [&](const std::vector<double>& v) {
    return real_ == Real::F64 ? uploadFloats(dev_, v)
                              : uploadFloats(dev_, std::vector<float>(v.begin(), v.end()));
  };
  auto aBuf = upload(a), bBuf = upload(b);
  auto hBuf = dev_.buffer(n * realBytes(real_));
  auto time = [&](const ScanOptions& o) {
    return scans.timeDiagScan({aBuf.get(), bBuf.get(), nullptr, hBuf.get(), nullptr}, sample, o,
                              kRepeats);
  };
  ScanOptions sequential = base, chained = chunked, reduce = chunked, single = chunked;
  sequential.path = ScanPath::Sequential;
  chained.schedule = ScanSchedule::Chained;
  reduce.schedule = ScanSchedule::ReduceThenScan;
  single.schedule = ScanSchedule::SinglePass;
  m.sequentialMs = time(sequential);
  m.chainedMs = time(chained);
  m.reduceThenScanMs = time(reduce);
  m.singlePassMs = time(single);
  const double best = std::min({m.sequentialMs, m.chainedMs, m.reduceThenScanMs, m.singlePassMs});
  if (best == m.sequentialMs) {
    m.path = ScanPath::Sequential;
    m.schedule = ScanSchedule::ReduceThenScan;  // unused by the sequential kernel
  } else {
    m.path = chunked.path;
    m.schedule = best == m.chainedMs      ? ScanSchedule::Chained
                 : best == m.singlePassMs ? ScanSchedule::SinglePass
                                          : ScanSchedule::ReduceThenScan;
  }
  return m;
}

const ScanMeasurement& ScanCalibration::measure(const DiagScanShape& shape,
                                                const ScanOptions& base) {
  const std::string name = shapeClass(shape);
  if (const auto it = classes_.find(name); it != classes_.end()) return it->second;
  ScanMeasurement m = run(shape, base);
  m.measuredAt = secondsNow();
  const bool measured = m.sequentialMs > 0;
  const ScanMeasurement& stored = classes_[name] = m;
  if (measured) {
    ++measured_;
    save();
  }
  return stored;
}

ScanOptions ScanCalibration::choose(const DiagScanShape& shape, const ScanOptions& base) {
  if (base.path != ScanPath::Auto || base.schedule != ScanSchedule::Auto) return base;
  const ScanMeasurement& m = measure(shape, base);
  ScanOptions o = base;
  o.path = m.path;
  o.schedule = m.schedule;
  return o;
}

// Rewrites the file with this device's classes (other devices' entries kept, the file
// read again for those another process added meanwhile), as a hint file: atomically,
// never through a link. A cache that cannot be written is no error (the reason was
// warned about when it was read, or it is an unwritable folder): the next run measures
// again.
void ScanCalibration::save() const {
  if (file_.empty()) return;
  const nlohmann::json old = readCache(file_);
  nlohmann::json devices = nlohmann::json::object();
  if (const auto it = old.find("devices"); it != old.end() && it->is_object())
    for (const auto& [device, classes] : it->items())
      if (classes.is_object()) devices[device] = classes;
  nlohmann::json& mine = devices[deviceKey_];
  if (!mine.is_object()) mine = nlohmann::json::object();
  for (const auto& [name, m] : classes_) {
    if (m.sequentialMs <= 0) continue;
    mine[name] = {{"path", scanPathName(m.path)},
                  {"schedule", scanScheduleName(m.schedule)},
                  {"sequential_ms", m.sequentialMs},
                  {"chained_ms", m.chainedMs},
                  {"reduce_then_scan_ms", m.reduceThenScanMs},
                  {"single_pass_ms", m.singlePassMs},
                  {"measured_at", m.measuredAt}};
  }
  evictOldest(devices);
  nlohmann::json doc = {{"format", "lsrl-scan-schedules"}, {"version", 1}, {"devices", devices}};
  std::string text = doc.dump(2) + "\n";
  if (text.size() > kMaxCacheBytes) {  // other devices' entries of absurd size: dropped
    doc["devices"] = {{deviceKey_, devices.value(deviceKey_, nlohmann::json::object())}};
    text = doc.dump(2) + "\n";
    if (text.size() > kMaxCacheBytes) return;
  }
  std::error_code ec;
  std::filesystem::create_directories(file_.parent_path(), ec);
  (void)writeHintFile(file_.string(), text);
}

}  // namespace lsrl::gpu
