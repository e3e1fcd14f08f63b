// Where a Vulkan job's time goes (docs/vulkan.md, "Where the time goes"): what the device
// did while a timeline was open (Device::openTimeline … closeTimeline) — dispatches,
// barriers, copies and submissions, the host's milliseconds per phase, and, from a
// timestamp pair around every dispatch, the GPU's busy time and its span, so the share of
// the span the GPU sat idle is a number rather than a guess.
//
//   dev->openTimeline();
//   runner.run(shape, tokens);
//   const gpu::Timeline t = dev->closeTimeline();   // t.dispatches, t.idleShare(), …
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

namespace lsrl::gpu {

// The host's share of a job, in the order a tile goes through them.
enum class HostPhase {
  Pack,    // inputs into mapped or staging memory (uploads' copies)
  Record,  // building batches and recording them into command buffers
  Submit,  // vkQueueSubmit
  Wait,    // blocked on a fence
  Unpack,  // results out of mapped or staging memory (downloads' copies)
};
inline constexpr size_t kHostPhaseCount = 5;
std::string_view hostPhaseName(HostPhase phase);  // "pack", "record", …

struct Timeline {
  uint64_t dispatches = 0;
  uint64_t barriers = 0;  // pipeline barriers recorded (between commands and before the host)
  uint64_t copies = 0;    // buffer copies and fills (staging, uploads, downloads, counters)
  uint64_t submissions = 0;
  std::array<double, kHostPhaseCount> hostMs{};  // by HostPhase
  // From timestamps around each dispatch (0 on a device without them): busy is the time
  // some dispatch was running (the sum of dispatch durations, overlaps counted once),
  // span from the first dispatch's start to the last one's end.
  bool timed = false;
  double gpuBusyMs = 0;
  double gpuSpanMs = 0;

  double host(HostPhase phase) const { return hostMs[static_cast<size_t>(phase)]; }
  double hostTotalMs() const;
  // The share of the span no dispatch was running: 1 − busy / span (0 without timestamps).
  double idleShare() const;
};

// The busy time and the span of dispatch intervals [start, end] in milliseconds.
std::pair<double, double> busyAndSpan(std::vector<std::pair<double, double>> intervals);

class Device;

// Adds the time from construction to destruction to `phase` of the device's open timeline
// (nothing when none is open).
class HostPhaseTimer {
 public:
  HostPhaseTimer(Device& device, HostPhase phase);
  ~HostPhaseTimer();
  HostPhaseTimer(const HostPhaseTimer&) = delete;
  HostPhaseTimer& operator=(const HostPhaseTimer&) = delete;

 private:
  Device& device_;
  HostPhase phase_;
  bool open_;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace lsrl::gpu
