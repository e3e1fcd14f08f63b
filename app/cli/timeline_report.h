// A Vulkan job's timeline (core/gpu/timeline.h) as the CLI reports it: one line of text for
// people and a JSON object for scripts (`lsrl bench vulkan`, `lsrl model eval --profile`,
// `lsrl run --profile`).
#pragma once

#ifdef LSRL_HAVE_VULKAN
#include <iosfwd>
#include <nlohmann/json.hpp>
#include <string>

#include "core/gpu/timeline.h"

namespace lsrl::cli {

// {"dispatches", "barriers", "copies", "submissions", "host_phases_ms": {"pack", …},
//  "host_ms", "gpu_busy_ms", "gpu_span_ms", "gpu_idle_share", "wall_ms"}; the GPU figures
// are null on a device without timestamps.
nlohmann::ordered_json timelineJson(const gpu::Timeline& timeline, double wallMs);

// Three lines:
//   LABEL: 12 dispatches, 13 barriers, 0 copies, 1 submissions in 3.6 ms
//     GPU: busy 3.10 ms of a 3.40 ms span (idle 9%)
//     host: pack 0.10 record 0.20 submit 0.01 wait 3.30 unpack 0.10 ms (3.71 ms in all)
void printTimeline(std::ostream& out, const gpu::Timeline& timeline, double wallMs,
                   const std::string& label);

}  // namespace lsrl::cli
#endif
