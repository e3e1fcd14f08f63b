#include "core/gpu/timeline.h"

#include <algorithm>
#include <numeric>

#include "core/gpu/device.h"

namespace lsrl::gpu {

std::string_view hostPhaseName(HostPhase phase) {
  switch (phase) {
    case HostPhase::Pack:
      return "pack";
    case HostPhase::Record:
      return "record";
    case HostPhase::Submit:
      return "submit";
    case HostPhase::Wait:
      return "wait";
    case HostPhase::Unpack:
      return "unpack";
  }
  return "?";
}

double Timeline::hostTotalMs() const { return std::accumulate(hostMs.begin(), hostMs.end(), 0.0); }

double Timeline::idleShare() const {
  if (!timed || gpuSpanMs <= 0) return 0;
  return std::clamp(1 - gpuBusyMs / gpuSpanMs, 0.0, 1.0);
}

std::pair<double, double> busyAndSpan(std::vector<std::pair<double, double>> intervals) {
  if (intervals.empty()) return {0, 0};
  std::sort(intervals.begin(), intervals.end());
  double busy = 0, runStart = intervals[0].first, runEnd = intervals[0].second;
  double last = runEnd;
  for (const auto& [start, end] : intervals) {
    last = std::max(last, end);
    if (start > runEnd) {  // a gap: close the run of overlapping dispatches
      busy += runEnd - runStart;
      runStart = start;
      runEnd = end;
    } else {
      runEnd = std::max(runEnd, end);
    }
  }
  busy += runEnd - runStart;
  return {busy, last - intervals[0].first};
}

HostPhaseTimer::HostPhaseTimer(Device& device, HostPhase phase)
    : device_(device), phase_(phase), open_(device.timelineOpen()) {
  if (open_) start_ = std::chrono::steady_clock::now();
}

HostPhaseTimer::~HostPhaseTimer() {
  if (!open_) return;
  device_.addHostTime(
      phase_,
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start_).count());
}

}  // namespace lsrl::gpu
