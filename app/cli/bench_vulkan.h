// `lsrl bench vulkan`: on the chosen Vulkan device, a copy kernel's bandwidth and the
// diagonal scan's effective bandwidth (a and b read once + h written once, over kernel
// time) in its three schedules (chunked chained, chunked reduce-then-scan, sequential),
// with their ratio to the copy and the choice the scan calibration makes (cached, see
// core/gpu/scan_calibration.h); then the UA heat-map job (vec2vec n=2, m=1,
// multiplicative, compiled exactly with optimisation, rounded to fp32; N=32 prompt of
// 1,024 tokens; 64×64 query grid = 4,096 sequences) on the fp32 CPU runner and on Vulkan
// (median of `repeats` after a warm-up): Vulkan's wall time untimed, its kernel time from
// a timed run and the host time the kernels leave over, the buffers created after the
// first run (0: the tiles are resident), the time with the heuristic schedule instead of
// the calibrated one, the two runners' agreement, and both heat maps' error against the
// float64 CPU heat map. A benchmark, not a timed test.
#pragma once

#include <iosfwd>

namespace lsrl::cli {

struct BenchVulkanOptions {
  int repeats = 3;
  int grid = 64;      // queries per side
  int cells = 32;     // N: prompt of N² tokens
  bool uaJob = true;  // --no-ua: kernels only
  // --fitted: the UA job's program with its constants fitted for fp32 first
  // (docs/precision.md; values in [-3, 3], t ≤ the prompt's length + 1).
  bool fitted = false;
  // --compare-fusion: also run the UA job fused on a CPU driver (minutes on lavapipe; on a
  // GPU both modes always run).
  bool compareFusion = false;
};

// Prints a table, then ONE JSON line of the figures. Throws lsrl::Error (VulkanUnavailable
// when there is no device).
int benchVulkan(const BenchVulkanOptions& options, std::ostream& out);

}  // namespace lsrl::cli
