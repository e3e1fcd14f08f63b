#include "app/cli/timeline_report.h"

#ifdef LSRL_HAVE_VULKAN
#include <ostream>

#include "app/cli/bench_timing.h"

namespace lsrl::cli {

namespace {
constexpr gpu::HostPhase kPhases[] = {gpu::HostPhase::Pack, gpu::HostPhase::Record,
                                      gpu::HostPhase::Submit, gpu::HostPhase::Wait,
                                      gpu::HostPhase::Unpack};
}  // namespace

nlohmann::ordered_json timelineJson(const gpu::Timeline& t, double wallMs) {
  nlohmann::ordered_json j;
  j["dispatches"] = t.dispatches;
  j["barriers"] = t.barriers;
  j["copies"] = t.copies;
  j["submissions"] = t.submissions;
  nlohmann::ordered_json phases;
  for (const gpu::HostPhase phase : kPhases)
    phases[std::string(gpu::hostPhaseName(phase))] = t.host(phase);
  j["host_phases_ms"] = phases;
  j["host_ms"] = t.hostTotalMs();
  j["gpu_busy_ms"] = t.timed ? nlohmann::ordered_json(t.gpuBusyMs) : nullptr;
  j["gpu_span_ms"] = t.timed ? nlohmann::ordered_json(t.gpuSpanMs) : nullptr;
  j["gpu_idle_share"] = t.timed ? nlohmann::ordered_json(t.idleShare()) : nullptr;
  j["wall_ms"] = wallMs;
  return j;
}

void printTimeline(std::ostream& out, const gpu::Timeline& t, double wallMs,
                   const std::string& label) {
  out << "  " << label << ": " << t.dispatches << " dispatches, " << t.barriers << " barriers, "
      << t.copies << " copies, " << t.submissions << " submissions in " << fmt("%.1f ms", wallMs)
      << "\n    GPU: ";
  if (t.timed)
    out << fmt("busy %.2f ms", t.gpuBusyMs) << fmt(" of a %.2f ms span", t.gpuSpanMs)
        << fmt(" (idle %.0f%%)", 100 * t.idleShare()) << "\n";
  else
    out << "no timestamps on this device\n";
  out << "    host:";
  for (const gpu::HostPhase phase : kPhases)
    out << " " << gpu::hostPhaseName(phase) << fmt(" %.2f", t.host(phase));
  out << fmt(" ms (%.2f ms in all)", t.hostTotalMs()) << "\n";
}

}  // namespace lsrl::cli
#endif
